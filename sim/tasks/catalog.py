"""Every shipped task template, gathered from the per-app modules."""

from __future__ import annotations

from sim.tasks import (
    contacts_query_tasks,
    contacts_tasks,
    settings_query_tasks,
    settings_routine_tasks,
    settings_tasks,
)
from sim.tasks.base import TaskTemplate

__all__ = ["all_templates"]


def all_templates() -> list[TaskTemplate]:
    """The templates of every module, in a stable order."""
    return [
        *settings_tasks.TEMPLATES,
        *settings_query_tasks.TEMPLATES,
        *settings_routine_tasks.TEMPLATES,
        *contacts_tasks.TEMPLATES,
        *contacts_query_tasks.TEMPLATES,
    ]
