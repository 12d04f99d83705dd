"""Every shipped task template: those of each app folder's template modules and of the
cross-app ``sim/tasks/*_tasks.py`` modules, found by scanning
(:func:`sim.discovery.scan_templates`)."""

from __future__ import annotations

from sim.tasks.base import TaskTemplate

__all__ = ["all_templates"]


def all_templates() -> list[TaskTemplate]:
    """The templates of every module, in a stable order (apps in catalog order, then the
    cross-app modules)."""
    from sim.discovery import scan_templates

    return [template for template in scan_templates() if isinstance(template, TaskTemplate)]
