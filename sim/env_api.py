"""The HTTP env API: trainers in other processes (or languages) drive simulated phones.

Requests and responses are the bridge models (JSON Schema in ``docs/schema``). Malformed
input gets a 4xx that names the problem; an unknown env is a 404; nothing an agent or a
client sends can take the server down.

    POST   /api/envs                    create (optionally reset to a task)  -> EnvCreated
    GET    /api/envs                    list                                  -> [EnvInfo]
    POST   /api/envs/{id}/reset         reset to a task                       -> Observation
    POST   /api/envs/{id}/step          {"action": {...}}                     -> StepResult
    GET    /api/envs/{id}/observation   the current screen                   -> Observation
    GET    /api/envs/{id}/snapshot      state JSON (kilobytes)
    POST   /api/envs/{id}/restore       a snapshot                            -> Observation
    POST   /api/envs/{id}/fork          {"n": 8}                              -> EnvCreated list
    GET    /api/envs/{id}/verdict       judge the task                        -> Verdict
    DELETE /api/envs/{id}               close

Errors carry an ``X-Env-Error`` header naming their kind, so a client maps them without
reading message text (``sim.client.error_for`` is that client's one mapping):

    404 unknown-env    no env with this id (closed, or never created)
    404 unknown-task   no template with this id (the detail names the nearest ones)
    409 usage          EnvUsageError: the env was used out of order (a verdict before reset)
    409 conflict       any other simulator error the request provoked
    422 bad-request    neither task_id nor task, or a body that is no snapshot of this sim
    422 (no header)    a body that does not validate (FastAPI's own answer)
    503 infra          EnvError: the simulator's infrastructure failed
    504 timeout        EnvTimeout: the simulator did not finish in its time budget
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import TYPE_CHECKING, Literal, TypeVar

from fastapi import APIRouter, HTTPException, Request, Response
from pydantic import BaseModel, ConfigDict, Field

from bridge.errors import BridgeError, EnvError, EnvTimeout, EnvUsageError
from bridge.schema import Action, Observation, StepResult, TaskInstance, Verdict
from sim.errors import SimError
from sim.tasks.registry import UnknownTask

if TYPE_CHECKING:
    from sim.env import SimEnv
    from sim.simulator import Simulator

__all__ = [
    "ERROR_HEADER",
    "CreateRequest",
    "EnvCreated",
    "EnvInfo",
    "ForkRequest",
    "ResetRequest",
    "env_router",
    "guarded",
    "requested_task",
]

T = TypeVar("T")

ERROR_HEADER = "X-Env-Error"
"""Response header naming the kind of an env-API error (see the table above)."""


def _refusal(status: int, detail: str, kind: str) -> HTTPException:
    """An HTTP error of the env API: ``detail`` for people, ``kind`` for clients."""
    return HTTPException(status, detail, headers={ERROR_HEADER: kind})


def _named(exc: Exception) -> str:
    return f"{type(exc).__name__}: {exc}"


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


class EnvCreated(BaseModel):
    """A new env's id and, if it was reset, its first observation."""

    env_id: str
    observation: Observation | None = None


class EnvInfo(BaseModel):
    """A live env."""

    env_id: str
    task_id: str | None
    step: int


def requested_task(sim: Simulator, request: ResetRequest) -> TaskInstance:
    """The task a reset request asks for: its full ``task``, or the registry's instance of
    ``task_id`` with ``seed`` and ``lang`` (an unknown id is a 404 naming the nearest)."""
    if request.task is not None:
        return request.task
    if request.task_id is None:
        raise _refusal(422, "give task_id (with seed and lang) or task", "bad-request")
    world = {app_id: app.world for app_id, app in sim.phone.apps.items()}
    try:
        return sim.tasks.instantiate(request.task_id, request.seed, world, request.lang)
    except UnknownTask as exc:
        raise _refusal(404, str(exc), "unknown-task") from exc


async def guarded(call: Awaitable[T]) -> T:
    """Await ``call``, turning the simulator's and the bridge's errors into the HTTP errors
    of the table above."""
    try:
        return await call
    except UnknownTask as exc:
        raise _refusal(404, str(exc), "unknown-task") from exc
    except EnvUsageError as exc:
        raise _refusal(409, _named(exc), "usage") from exc
    except EnvTimeout as exc:
        raise _refusal(504, _named(exc), "timeout") from exc
    except EnvError as exc:
        raise _refusal(503, _named(exc), "infra") from exc
    except (SimError, BridgeError) as exc:
        raise _refusal(409, _named(exc), "conflict") from exc


def env_router(sim: Simulator) -> APIRouter:
    """Routes of the env API over the envs of ``sim``."""
    router = APIRouter(prefix="/api/envs", tags=["env"])
    envs: dict[str, SimEnv] = {}

    def get(env_id: str) -> SimEnv:
        if env_id not in envs:
            raise _refusal(404, f"no env {env_id!r}; POST /api/envs creates one", "unknown-env")
        return envs[env_id]

    @router.post("")
    async def create(request: CreateRequest) -> EnvCreated:
        from sim.env import SimEnv

        env = SimEnv(
            sim,
            sim.create_instance(request.seed),
            screenshot=request.screenshot,
            answer_mode=request.answer_mode,
        )
        envs[env.instance.id] = env
        observation = None
        if request.task_id is not None or request.task is not None:
            observation = await guarded(env.reset(requested_task(sim, request)))
        return EnvCreated(env_id=env.instance.id, observation=observation)

    @router.get("")
    async def list_envs() -> list[EnvInfo]:
        return [
            EnvInfo(
                env_id=env_id,
                task_id=env.instance.episode.task.task_id if env.instance.episode else None,
                step=env.instance.state.step,
            )
            for env_id, env in envs.items()
        ]

    @router.post("/{env_id}/reset")
    async def reset(env_id: str, request: ResetRequest) -> Observation:
        env = get(env_id)
        return await guarded(env.reset(requested_task(sim, request)))

    @router.post("/{env_id}/step")
    async def step(env_id: str, request: StepRequest) -> StepResult:
        return await guarded(get(env_id).step(request.action))

    @router.get("/{env_id}/observation")
    async def observation(env_id: str) -> Observation:
        return await guarded(get(env_id).observe())

    @router.get("/{env_id}/snapshot")
    async def snapshot(env_id: str) -> Response:
        data = await guarded(get(env_id).snapshot())
        return Response(content=data, media_type="application/json")

    @router.post("/{env_id}/restore")
    async def restore(env_id: str, request: Request) -> Observation:
        env = get(env_id)
        body = await request.body()
        try:
            return await guarded(env.restore(body))
        except (ValueError, KeyError) as exc:
            detail = f"not a snapshot of this simulator: {exc}"
            raise _refusal(422, detail, "bad-request") from exc

    @router.post("/{env_id}/fork")
    async def fork(env_id: str, request: ForkRequest) -> list[EnvCreated]:
        children = await guarded(get(env_id).fork(request.n))
        for child in children:
            envs[child.instance.id] = child
        return [EnvCreated(env_id=child.instance.id) for child in children]

    @router.get("/{env_id}/verdict")
    async def verdict(env_id: str) -> Verdict:
        return await guarded(get(env_id).verdict())

    @router.delete("/{env_id}", status_code=204)
    async def close(env_id: str) -> Response:
        env = get(env_id)
        await env.close()
        del envs[env_id]
        return Response(status_code=204)

    return router
