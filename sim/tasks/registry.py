"""The task registry: templates by id, instances by (id, seed, language).

Tests build fresh registries; :func:`default_registry` holds every shipped template. An
unknown id suggests the nearest ones.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from bridge.schema import TaskInstance
from sim.errors import SimError
from sim.tasks.base import TaskTemplate
from sim.tasks.params import sample_params

__all__ = ["TaskRegistry", "UnknownTask", "default_registry"]


class UnknownTask(SimError, KeyError):
    """No template has this id; the message names the closest ones."""

    def __str__(self) -> str:
        return str(self.args[0])


class TaskRegistry:
    """Templates by id."""

    def __init__(self, templates: Iterable[TaskTemplate] = ()) -> None:
        self._templates: dict[str, TaskTemplate] = {}
        for template in templates:
            self.add(template)

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

    def instantiate(
        self,
        task_id: str,
        seed: int,
        world: Mapping[str, Mapping[str, Any]],
        lang: str = "en",
    ) -> TaskInstance:
        """The task instance of ``task_id`` with parameters drawn from ``seed``."""
        template = self.get(task_id)
        p = template.bind(sample_params(template.Params, seed, world), world)
        lang = "zh" if lang == "zh" else "en"
        return TaskInstance(
            task_id=task_id,
            seed=seed,
            params=p.model_dump(mode="json"),
            instruction=template.instruction(p, lang),
            lang=lang,
            level=template.level,
            max_steps=template.budget(),
            answer_fields=[spec.field(lang) for spec in template.answer_fields],
            spec=template.spec(p, lang),
        )


def default_registry() -> TaskRegistry:
    """Every shipped task template."""
    from sim.tasks.catalog import all_templates

    return TaskRegistry(all_templates())
