"""Tasks as dataset rows: how a trainer's dataset carries the task each sample poses.

verl, rLLM and SkyRL feed their rollouts one dataset row (a dict) per sample. A row carries
its :class:`~bridge.records.TaskInstance` as JSON under ``"task"`` (top level, or inside
``"extra_info"``, where verl's datasets keep per-sample fields), so the task is posed
exactly as the registry instantiated it, spec and parameters included.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import ValidationError

from bridge.records import TaskInstance
from trainers.errors import TrainerError

__all__ = ["task_from_row", "task_row", "task_rows"]


def task_row(task: TaskInstance) -> dict[str, Any]:
    """The row fields that pose ``task``: ``{"task": <TaskInstance JSON>}``."""
    return {"task": task.model_dump_json()}


def task_rows(tasks: Sequence[TaskInstance]) -> list[dict[str, Any]]:
    """One row per task (see :func:`task_row`)."""
    return [task_row(task) for task in tasks]


def task_from_row(row: Mapping[str, Any]) -> TaskInstance:
    """The task a row poses: ``row["task"]`` or ``row["extra_info"]["task"]``, as JSON
    text, a dict, or a TaskInstance.

    Raises:
        TrainerError: the row has no task, or it does not validate.
    """
    extra = row.get("extra_info")
    value = row.get("task")
    if value is None and isinstance(extra, Mapping):
        value = extra.get("task")
    if value is None:
        keys = ", ".join(sorted(map(str, row))) or "none"
        raise TrainerError(
            f"the dataset row has no 'task' (keys: {keys}); build rows with "
            "trainers.rows.task_row(task) (verl: trainers.verl_loop.dataset_row)"
        )
    if isinstance(value, TaskInstance):
        return value
    try:
        if isinstance(value, str | bytes):
            return TaskInstance.model_validate_json(value)
        return TaskInstance.model_validate(value)
    except ValidationError as exc:
        raise TrainerError(f"the row's task is not a valid TaskInstance: {exc}") from exc
