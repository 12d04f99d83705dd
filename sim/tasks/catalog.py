"""Every shipped task template, gathered from the per-app modules."""

from __future__ import annotations

from sim.tasks import settings_tasks
from sim.tasks.base import TaskTemplate

__all__ = ["all_templates"]


def all_templates() -> list[TaskTemplate]:
    """The templates of every module, in a stable order."""
    return [*settings_tasks.TEMPLATES]
