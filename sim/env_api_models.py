"""The bodies of the HTTP env API (:mod:`sim.env_api`), with nothing of the server.

Their one home: the server validates and documents with them, and the client
(:mod:`sim.client`) parses its answers with them, without importing FastAPI.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from bridge.schema import Action, Observation, TaskInstance

__all__ = [
    "ERROR_HEADER",
    "CreateRequest",
    "EnvCreated",
    "EnvInfo",
    "ForkRequest",
    "Health",
    "ResetRequest",
    "Snapshot",
    "StepRequest",
]

ERROR_HEADER = "X-Env-Error"
"""Response header naming the kind of an env-API refusal (the body's ``kind`` too)."""


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ResetRequest(_Body):
    """Reset to a task: a registered ``task_id`` with ``seed`` and ``lang``, or a full ``task``."""

    task_id: str | None = None
    seed: int = 0
    lang: Literal["en", "zh"] = "en"
    task: TaskInstance | None = None


class CreateRequest(ResetRequest):
    """Create an env; with a task it is reset to it at once."""

    screenshot: bool = True
    answer_mode: Literal["action", "sheet"] = "action"


class StepRequest(_Body):
    """One action."""

    action: Action


class ForkRequest(_Body):
    """How many copies."""

    n: int = Field(ge=1, le=256)


class Snapshot(_Body):
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
