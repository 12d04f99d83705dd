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
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, TypeVar

from fastapi import APIRouter, HTTPException, Request, Response
from pydantic import BaseModel, ConfigDict, Field

from bridge.errors import BridgeError
from bridge.schema import Action, Observation, StepResult, TaskInstance, Verdict
from sim.errors import SimError
from sim.tasks.registry import UnknownTask

if TYPE_CHECKING:
    from sim.env import SimEnv
    from sim.simulator import Simulator

__all__ = ["CreateRequest", "EnvCreated", "EnvInfo", "ForkRequest", "ResetRequest", "env_router"]

T = TypeVar("T")


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


def env_router(sim: Simulator) -> APIRouter:
    """Routes of the env API over the envs of ``sim``."""
    router = APIRouter(prefix="/api/envs", tags=["env"])
    envs: dict[str, SimEnv] = {}

    def get(env_id: str) -> SimEnv:
        if env_id not in envs:
            raise HTTPException(404, f"no env {env_id!r}; POST /api/envs creates one")
        return envs[env_id]

    def task_for(request: ResetRequest) -> TaskInstance:
        if request.task is not None:
            return request.task
        if request.task_id is None:
            raise HTTPException(422, "give task_id (with seed and lang) or task")
        world = {app_id: app.world for app_id, app in sim.phone.apps.items()}
        try:
            return sim.tasks.instantiate(request.task_id, request.seed, world, request.lang)
        except UnknownTask as exc:
            raise HTTPException(404, str(exc)) from exc

    async def guarded(call):
        try:
            return await call
        except UnknownTask as exc:
            raise HTTPException(404, str(exc)) from exc
        except (SimError, BridgeError) as exc:
            raise HTTPException(409, f"{type(exc).__name__}: {exc}") from exc

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
            observation = await guarded(env.reset(task_for(request)))
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
        return await guarded(env.reset(task_for(request)))

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
            return await env.restore(body)
        except (ValueError, KeyError) as exc:
            raise HTTPException(422, f"not a snapshot of this simulator: {exc}") from exc

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
