"""The HTTP env API: trainers in other processes (or languages) drive simulated phones.

Requests and responses are the bridge models (JSON Schema in ``docs/schema``). Malformed
input gets a 4xx that names the field and the problem; nothing a client sends can take the
server down or get a 5xx.

    GET    /health                      ready?, pages, instances, envs, limit -> Health
    POST   /api/envs                    create (optionally reset to a task)  -> EnvCreated
    GET    /api/envs                    list                                  -> [EnvInfo]
    POST   /api/envs/{id}/reset         reset to a task                       -> Observation
    POST   /api/envs/{id}/step          {"action": {...}}                     -> StepResult
    GET    /api/envs/{id}/observation   the current screen                   -> Observation
    GET    /api/envs/{id}/snapshot      state JSON (kilobytes)                -> Snapshot
    POST   /api/envs/{id}/restore       a Snapshot                            -> Observation
    POST   /api/envs/{id}/fork          {"n": 8}                              -> [EnvCreated]
    GET    /api/envs/{id}/verdict       judge the task                        -> Verdict
    DELETE /api/envs/{id}               close

A 422 means the body breaks the OpenAPI document; a body the document allows is never a
422 (what the simulator then cannot do is a 409), so a client that validates against the
document knows which of its requests can succeed.

Every error has one body, :class:`sim.api_errors.ApiError` (``detail``, ``kind``,
``errors``), and its kind in the ``X-Env-Error`` header too, so a client maps it without
reading message text (``sim.client.error_for`` is that client's one mapping):

    401 unauthorized     a client not on loopback without the token
    403 forbidden        a request from a web page (a foreign Origin)
    404 unknown-env      no env with this id (closed, or never created)
    404 unknown-task     no template with this id (the detail names the nearest ones)
    405 method-not-allowed   a method the path does not take (``Allow`` lists those it does)
    409 usage            EnvUsageError: the env was used out of order (a verdict before reset)
    409 conflict         any other simulator error the request provoked
    409 bad-task         a task the schema allows but the simulator cannot pose or judge
                         (wrong params, a seed its template cannot use, a spec naming a
                         truth it does not read first)
    409 bad-snapshot     a snapshot the schema allows but this simulator cannot restore
    410 expired-env      the env was closed after ``SimConfig.idle_expiry_s`` unused
    415 unsupported-media-type   a body that is not application/json
    421 bad-host         a Host header that is not this server's (DNS rebinding)
    422 invalid          a body the OpenAPI document refuses (``errors`` lists every field):
                         a wrong JSON type (``0`` is no boolean), a target with both point
                         and element, a task object without its spec, …
    422 bad-request      a restore body that is not a snapshot at all
    429 too-many-envs    ``SimConfig.max_envs`` envs are open
    503 not-ready        Chromium is still starting (with ``Retry-After``)
    503 infra            EnvError: the simulator's infrastructure failed
    504 timeout          EnvTimeout: the simulator did not finish in its time budget
"""

from __future__ import annotations

import json
from collections.abc import Awaitable
from typing import TYPE_CHECKING, TypeVar

from fastapi import APIRouter, Request, Response
from pydantic import ValidationError

from bridge.errors import BridgeError, EnvError, EnvTimeout, EnvUsageError
from bridge.records import TaskInstance
from bridge.schema import Observation, StepResult, Verdict
from sim.api_errors import (
    ERROR_HEADER,
    error_responses,
    problems_of,
    refusal,
    validation_detail,
)
from sim.env_api_models import (
    CreateRequest,
    EnvCreated,
    EnvInfo,
    ForkRequest,
    Health,
    ResetRequest,
    Snapshot,
    StepRequest,
    TaskRequest,
)
from sim.env_table import EnvTable
from sim.errors import EnvRefused, SimError, UnknownTask

if TYPE_CHECKING:
    from sim.env import SimEnv
    from sim.simulator import Simulator

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
    "env_router",
    "guarded",
    "health_router",
    "requested_task",
]

T = TypeVar("T")

_SPEC_FAILURES = (LookupError, ValueError, TypeError, AttributeError, ArithmeticError)
"""What a task spec the client wrote can raise when posed or judged (its fault, a 4xx)."""


def _named(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}".splitlines()[0]


def requested_task(sim: Simulator, request: TaskRequest) -> TaskInstance:
    """The task a request asks for: its whole ``task`` (bound: the request model refuses a
    task without its spec), or the registry's instance of ``task_id`` with ``seed`` and
    ``lang`` (an unknown id is a 404 naming the nearest)."""
    if request.task is not None:
        return request.task
    if request.task_id is None:
        raise refusal(422, "give task_id (with seed and lang) or task", "invalid")
    try:
        return sim.tasks.instantiate(request.task_id, request.seed, request.lang)
    except UnknownTask as exc:
        raise refusal(404, str(exc), "unknown-task") from exc
    except _SPEC_FAILURES as exc:  # a seed the template cannot instantiate
        detail = f"seed: {request.task_id} cannot be instantiated with it ({_named(exc)})"
        raise refusal(409, detail, "bad-task") from exc


async def guarded(call: Awaitable[T]) -> T:
    """Await ``call``, turning the simulator's and the bridge's errors into the HTTP errors
    of the table above."""
    try:
        return await call
    except EnvRefused:
        raise  # answered by its own handler (sim.api_errors)
    except UnknownTask as exc:
        raise refusal(404, str(exc), "unknown-task") from exc
    except EnvUsageError as exc:
        raise refusal(409, _named(exc), "usage") from exc
    except EnvTimeout as exc:
        raise refusal(504, _named(exc), "timeout") from exc
    except EnvError as exc:
        raise refusal(503, _named(exc), "infra") from exc
    except (SimError, BridgeError) as exc:
        raise refusal(409, _named(exc), "conflict") from exc


async def posed(env: SimEnv, task: TaskInstance) -> Observation:
    """Pose ``task`` on ``env`` and observe; a task that cannot be posed is a 409."""
    try:
        env.pose(task)
    except UnknownTask as exc:
        raise refusal(404, str(exc), "unknown-task") from exc
    except EnvUsageError as exc:
        raise refusal(409, _named(exc), "usage") from exc
    except (BridgeError, *_SPEC_FAILURES) as exc:  # posing is JSON only: the task's fault
        detail = (
            f"task: {task.task_id} cannot be posed ({_named(exc)}); send task_id and seed, "
            "or the task as the registry instantiates it"
        )
        raise refusal(409, detail, "bad-task") from exc
    return await guarded(env.observe())


async def judged(env: SimEnv) -> Verdict:
    """The verdict on ``env``; a task spec that cannot be judged is a 409 (the client's)."""
    try:
        return await guarded(env.verdict())
    except _SPEC_FAILURES as exc:
        detail = f"the task's spec cannot be judged ({_named(exc)}); reset to a registry task"
        raise refusal(409, detail, "bad-task") from exc


_ALWAYS = (401, 403, 421, 422, 503)
"""Statuses any route of the env API may answer (token, Origin, Host, body, starting)."""
_ON_ENV = (404, 409, 410, 504)
"""Statuses a route about one env may answer besides."""


def env_router(sim: Simulator, table: EnvTable | None = None) -> APIRouter:
    """Routes of the env API over the envs of ``sim`` (held in ``table``)."""
    router = APIRouter(prefix="/api/envs", tags=["env"], responses=error_responses(*_ALWAYS))
    envs = table or EnvTable(sim)
    posting = error_responses(400, 415)

    @router.post("", responses={**posting, **error_responses(404, 409, 429, 504)})
    async def create(request: CreateRequest) -> EnvCreated:
        from sim.env import SimEnv

        envs.make_room(1)
        wanted = request.task_id is not None or request.task is not None
        task = requested_task(sim, request) if wanted else None
        env = SimEnv(
            sim,
            sim.create_instance(request.seed),
            screenshot=request.screenshot,
            answer_mode=request.answer_mode,
            skin=request.skin,
        )
        try:
            observation = await posed(env, task) if task is not None else None
        except BaseException:
            sim.drop_instance(env.instance.id)  # a failed create leaves nothing behind
            raise
        envs.add(env)
        return EnvCreated(env_id=env.instance.id, observation=observation)

    @router.get("")
    async def list_envs() -> list[EnvInfo]:
        envs.sweep()
        return [
            EnvInfo(
                env_id=env_id,
                task_id=env.instance.episode.task.task_id if env.instance.episode else None,
                step=env.instance.state.step,
            )
            for env_id, env in envs.envs.items()
        ]

    @router.post("/{env_id}/reset", responses={**posting, **error_responses(*_ON_ENV)})
    async def reset(env_id: str, request: ResetRequest) -> Observation:
        env = envs.get(env_id)
        return await posed(env, requested_task(sim, request))

    @router.post("/{env_id}/step", responses={**posting, **error_responses(*_ON_ENV)})
    async def step(env_id: str, request: StepRequest) -> StepResult:
        return await guarded(envs.get(env_id).step(request.action))

    @router.get("/{env_id}/observation", responses=error_responses(*_ON_ENV))
    async def observation(env_id: str) -> Observation:
        return await guarded(envs.get(env_id).observe())

    @router.get("/{env_id}/snapshot", response_model=Snapshot, responses=error_responses(*_ON_ENV))
    async def snapshot(env_id: str) -> Response:
        data = await guarded(envs.get(env_id).snapshot())
        return Response(content=data, media_type="application/json")

    @router.post(
        "/{env_id}/restore",
        responses={**posting, **error_responses(*_ON_ENV)},
        openapi_extra=_SNAPSHOT_BODY,
    )
    async def restore(env_id: str, request: Request) -> Observation:
        env = envs.get(env_id)
        return await _restored(env, await request.body())

    @router.post("/{env_id}/fork", responses={**posting, **error_responses(*_ON_ENV, 429)})
    async def fork(env_id: str, request: ForkRequest) -> list[EnvCreated]:
        parent = envs.get(env_id)
        envs.make_room(request.n)
        children = await guarded(parent.fork(request.n))
        for child in children:
            envs.add(child)
        return [EnvCreated(env_id=child.instance.id) for child in children]

    @router.get("/{env_id}/verdict", responses=error_responses(*_ON_ENV))
    async def verdict(env_id: str) -> Verdict:
        return await judged(envs.get(env_id))

    @router.delete("/{env_id}", status_code=204, responses=error_responses(404, 410))
    async def close(env_id: str) -> Response:
        envs.get(env_id)
        envs.remove(env_id)
        return Response(status_code=204)

    return router


_SNAPSHOT_BODY = {
    "requestBody": {
        "required": True,
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Snapshot"}}},
    }
}
"""``POST /restore`` reads its body itself (to say "not a snapshot"), so it is declared here."""


async def _restored(env: SimEnv, body: bytes) -> Observation:
    """Restore the snapshot ``body`` on ``env``: a body that is no snapshot is a 422, a
    snapshot this simulator cannot restore (its state is opaque in the schema) a 409."""
    try:
        snapshot = Snapshot.model_validate_json(body)
    except ValidationError as exc:
        problems = problems_of(exc.errors(include_input=False))
        detail = f"not a snapshot of this simulator: {validation_detail(problems)}"
        raise refusal(422, detail, "bad-request") from exc
    data = json.dumps(snapshot.model_dump(mode="json"), ensure_ascii=False).encode("utf-8")
    try:
        return await guarded(env.restore(data))
    except _SPEC_FAILURES as exc:
        detail = (
            f"state: not a snapshot of this simulator ({_named(exc)}); send back what "
            "GET /api/envs/{id}/snapshot gave"
        )
        raise refusal(409, detail, "bad-snapshot") from exc


def health_router(sim: Simulator, table: EnvTable) -> APIRouter:
    """``GET /health``: whether the server is ready, and its capacity."""
    router = APIRouter(tags=["health"])

    @router.get("/health", responses=error_responses(401, 403, 421))
    async def health() -> Health:
        table.sweep()
        return Health(
            ready=sim.ready,
            pages=sim.config.pages,
            instances=len(sim.instances),
            envs=len(table.envs),
            max_envs=table.limit,
            idle_expiry_s=sim.config.idle_expiry_s,
        )

    return router
