"""The bodies of the HTTP env API (:mod:`sim.env_api`), with nothing of the server.

Their one home: the server validates and documents with them, and the client
(:mod:`sim.client`) parses its answers with them, without importing FastAPI.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    JsonValue,
    ModelWrapValidatorHandler,
    ValidationInfo,
    field_validator,
    model_validator,
)
from typing_extensions import Self  # typing.Self is Python 3.11+

from bridge.records import TaskInstance
from bridge.schema import Action, Observation
from sim.skins import DEFAULT_SKIN, SkinName

__all__ = [
    "ERROR_HEADER",
    "UNBOUND_TASK",
    "CreateRequest",
    "EnvCreated",
    "EnvInfo",
    "ForkRequest",
    "Health",
    "RequestBody",
    "ResetRequest",
    "Snapshot",
    "StepRequest",
    "TaskRequest",
]

ERROR_HEADER = "X-Env-Error"
"""Response header naming the kind of an env-API refusal (the body's ``kind`` too)."""


_STRICT_JSON = "strict-json"
"""Validation context key: this validation is the strict check of JSON types."""


def _integral_as_int(value: Any) -> Any:
    """``value`` with every float that is a whole number (``2.0``) as an int: JSON Schema
    counts ``2.0`` an integer, pydantic's strict mode does not."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {key: _integral_as_int(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_integral_as_int(item) for item in value]
    return value


class RequestBody(BaseModel):
    """Base of the env API's request bodies: unknown fields are errors, and every value must
    have the JSON type the schema states, however deep (``0`` is no boolean, ``"1"`` no
    integer, ``true`` no number), as a client in any language reads the schema.

    Bodies are checked so at the HTTP boundary only (the contract models keep pydantic's
    conveniences for Python callers, such as a numpy integer as an element id), and the
    check only refuses: the body is then validated as usual, its values left as sent.
    """

    model_config = ConfigDict(extra="forbid")

    @model_validator(mode="wrap")
    @classmethod
    def _json_types(
        cls, data: Any, handler: ModelWrapValidatorHandler[Self], info: ValidationInfo
    ) -> Self:
        checking = isinstance(info.context, dict) and info.context.get(_STRICT_JSON)
        if not checking and isinstance(data, dict):
            cls.model_validate(_integral_as_int(data), strict=True, context={_STRICT_JSON: True})
        return handler(data)


UNBOUND_TASK = (
    "a task sent whole must carry its spec, as the task registry binds it (the server "
    "never binds a task object again under your instruction); to have the server bind "
    "one, send task_id, seed and lang instead of task"
)
"""Why a task object without a ``spec`` is refused."""

_BOUND_TASK: dict[str, Any] = {
    "type": "object",
    "required": ["spec"],
    "properties": {"spec": {"type": "object"}},
}
"""A ``task`` as a request's JSON Schema has it: with its spec (not absent, not null)."""


class TaskRequest(RequestBody):
    """A task by registered ``task_id`` (the server instantiates it with ``seed`` and
    ``lang``) or a whole ``task`` with its bound spec (posed as sent), not both."""

    task_id: str | None = None
    seed: int = 0
    lang: Literal["en", "zh"] = "en"
    task: TaskInstance | None = None

    @field_validator("task")
    @classmethod
    def _bound(cls, task: TaskInstance | None) -> TaskInstance | None:
        if task is not None and task.spec is None:
            raise ValueError(UNBOUND_TASK)
        return task

    @model_validator(mode="after")
    def _not_both(self) -> Self:
        if self.task_id is not None and self.task is not None:
            raise ValueError("give task_id (with seed and lang) or task, not both")
        return self


def _one_task(schema: dict[str, Any]) -> None:
    """:class:`ResetRequest`'s rule in its JSON Schema: exactly one of ``task_id`` or a
    bound ``task`` (the other absent or null)."""
    schema["oneOf"] = [
        {
            "required": ["task_id"],
            "properties": {"task_id": {"type": "string"}, "task": {"type": "null"}},
        },
        {"required": ["task"], "properties": {"task": _BOUND_TASK, "task_id": {"type": "null"}}},
    ]


def _at_most_one_task(schema: dict[str, Any]) -> None:
    """:class:`CreateRequest`'s rule in its JSON Schema: a ``task`` is bound, and not given
    with a ``task_id``."""
    schema["allOf"] = [
        {"properties": {"task": {"anyOf": [{"type": "null"}, _BOUND_TASK]}}},
        {
            "anyOf": [
                {"properties": {"task_id": {"type": "null"}}},
                {"properties": {"task": {"type": "null"}}},
            ]
        },
    ]


class ResetRequest(TaskRequest):
    """Reset to a task: a registered ``task_id`` with ``seed`` and ``lang``, or a whole
    ``task`` with its spec."""

    model_config = ConfigDict(json_schema_extra=_one_task)

    @model_validator(mode="after")
    def _one_given(self) -> Self:
        if self.task_id is None and self.task is None:
            raise ValueError("give task_id (with seed and lang) or task")
        return self


class CreateRequest(TaskRequest):
    """Create an env; with a task it is reset to it at once."""

    model_config = ConfigDict(json_schema_extra=_at_most_one_task)

    screenshot: bool = True
    answer_mode: Literal["action", "sheet"] = "action"
    skin: SkinName = DEFAULT_SKIN
    """How the phone looks (``sim/skins.py``): presentation only, judged the same."""


class StepRequest(RequestBody):
    """One action."""

    action: Action


class ForkRequest(RequestBody):
    """How many copies."""

    n: int = Field(ge=1, le=256)


class Snapshot(RequestBody):
    """An env's state and task as ``GET /snapshot`` gives it and ``POST /restore`` takes it."""

    state: dict[str, JsonValue]
    episode: dict[str, JsonValue] | None = None
    trees: list[str] = []


class EnvCreated(BaseModel):
    """A new env's id and, if it was reset, its first observation."""

    env_id: str
    observation: Observation | None = None


class EnvInfo(BaseModel):
    """A live env."""

    env_id: str
    task_id: str | None
    step: int


class Health(BaseModel):
    """Whether the server can serve envs now, and how full it is."""

    ready: bool
    """False while Chromium starts (env requests get 503 with Retry-After until then)."""
    pages: int
    instances: int
    envs: int
    max_envs: int
    idle_expiry_s: float | None
