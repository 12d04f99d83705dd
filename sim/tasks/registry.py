"""The task registry: templates by id, instances by (id, seed, language).

Tests build fresh registries; :func:`default_registry` holds every shipped template. An
unknown id suggests the nearest ones.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Literal

from bridge.records import TaskInstance
from sim.errors import SimError, UnknownTask
from sim.tasks.base import TaskTemplate, World
from sim.tasks.params import sample_params

if TYPE_CHECKING:
    from sim.app import App

__all__ = ["TaskRegistry", "default_registry", "world_of"]


def world_of(apps: Iterable[App]) -> dict[str, Mapping[str, Any]]:
    """App id -> the app's read-only world data: what templates sample and bind from."""
    return {app.id: app.world for app in apps}


class TaskRegistry:
    """Templates by id, and the world data their instances are drawn from.

    The registry owns the world: nobody builds the ``{app id: world data}`` map by hand. It
    is the world of the given apps, or of every app under ``sim/apps/`` (read on first use).
    """

    def __init__(
        self, templates: Iterable[TaskTemplate] = (), apps: Iterable[App] | None = None
    ) -> None:
        self._templates: dict[str, TaskTemplate] = {}
        self._world: World | None = None if apps is None else world_of(apps)
        for template in templates:
            self.add(template)

    @property
    def world(self) -> World:
        """App id -> read-only world data of the registry's apps."""
        if self._world is None:
            from sim.discovery import scan_apps

            self._world = world_of(scan_apps())
        return self._world

    def add(self, template: TaskTemplate) -> None:
        """Register a template; ids must be unique."""
        if template.id in self._templates:
            raise SimError(f"task id {template.id!r} is registered twice")
        self._templates[template.id] = template

    def __iter__(self) -> Iterator[TaskTemplate]:
        return iter(self._templates.values())

    def __len__(self) -> int:
        return len(self._templates)

    def ids(self) -> list[str]:
        """Every task id, sorted."""
        return sorted(self._templates)

    def get(self, task_id: str) -> TaskTemplate:
        """The template ``task_id``."""
        if task_id not in self._templates:
            near = difflib.get_close_matches(task_id, self._templates, n=3, cutoff=0.4)
            hint = f"; did you mean {', '.join(near)}?" if near else "; `mgb sim tasks` lists them"
            raise UnknownTask(f"no task {task_id!r}{hint}")
        return self._templates[task_id]

    def instantiate(self, task_id: str, seed: int, lang: str = "en") -> TaskInstance:
        """The task instance of ``task_id`` in ``lang`` with parameters drawn from ``seed``
        and the registry's world."""
        template, world = self.get(task_id), self.world
        p = template.bind(sample_params(template.Params, seed, world), world)
        language: Literal["en", "zh"] = "zh" if lang == "zh" else "en"
        return TaskInstance(
            task_id=task_id,
            seed=seed,
            params=p.model_dump(mode="json"),
            instruction=template.instruction(p, language),
            lang=language,
            level=template.level,
            max_steps=template.budget(),
            answer_fields=[spec.field(language) for spec in template.answer_fields],
            spec=template.spec(p, language),
        )


def default_registry(apps: Iterable[App] | None = None) -> TaskRegistry:
    """Every shipped task template, over the world of ``apps`` (every app by default)."""
    from sim.tasks.catalog import all_templates

    return TaskRegistry(all_templates(), apps)
