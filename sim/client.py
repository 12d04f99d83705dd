"""``HttpEnv``: a simulated phone served by another process, as a bridge ``ForkableEnv``.

A trainer drives ``mgb sim serve`` (or any :class:`~sim.simulator.Simulator`) over its HTTP
env API (:mod:`sim.env_api`) with the same calls it would make on an in-process
:class:`~sim.env.SimEnv`. This module imports only ``bridge``, ``httpx``, ``pydantic`` and
the env API's bodies (:mod:`sim.env_api_models`): no Playwright, no FastAPI, nothing of the
simulator that renders.

Every failure is converted in one place, :func:`error_for`:

==============================================  ==============================================
What happened                                   Raised
==============================================  ==============================================
connection refused, DNS, reset, bad response    :class:`~bridge.errors.EnvError`
connect / read / write / pool timeout           :class:`~bridge.errors.EnvTimeout`
5xx (503 ``infra``: the sim's EnvError)         :class:`~bridge.errors.EnvError`
503 ``not-ready`` past the timeout              :class:`~bridge.errors.EnvError`
504 (``timeout``: the sim's EnvTimeout)         :class:`~bridge.errors.EnvTimeout`
a body that is not the bridge model expected    :class:`~bridge.errors.EnvError`
401 / 403 (no or wrong token)                   :class:`~bridge.errors.EnvUsageError`
404 ``unknown-env`` (closed env)                 :class:`~bridge.errors.EnvUsageError`
410 ``expired-env`` (unused past the expiry)     :class:`~bridge.errors.EnvUsageError`
429 ``too-many-envs``                            :class:`~bridge.errors.EnvUsageError`
404 other (unknown task; no env API there)      :class:`~bridge.errors.EnvUsageError`
409 (``usage``: verdict before reset, …)        :class:`~bridge.errors.EnvUsageError`
other 4xx (422 validation, …)                   :class:`~bridge.errors.EnvUsageError`
a URL that is not http(s)                       :class:`~bridge.errors.EnvUsageError`
==============================================  ==============================================

While the simulator starts it answers 503 with ``Retry-After``; the client waits that long
and asks again, for as long as its timeout allows.

Where the client knows the server would refuse, it raises ``EnvUsageError`` itself, without
a request: any call on a closed ``HttpEnv``; a verdict on an env it created without a task
and never reset; a step on such an env before anything was observed.
"""

from __future__ import annotations

import asyncio
import time
from typing import Literal, TypeVar

import httpx
from pydantic import BaseModel, TypeAdapter, ValidationError

from bridge.errors import EnvError, EnvTimeout, EnvUsageError
from bridge.records import TaskInstance
from bridge.schema import Action, Observation, StepResult, Verdict
from sim.env_api_models import ERROR_HEADER, EnvCreated, Health
from sim.skins import DEFAULT_SKIN

__all__ = ["DEFAULT_TIMEOUT_S", "ERROR_HEADER", "EnvServer", "HttpEnv", "error_for"]

DEFAULT_TIMEOUT_S = 60.0
"""Seconds a request may take to connect, to send, and to be answered (each)."""

M = TypeVar("M", bound=BaseModel)


_CREATED_LIST = TypeAdapter(list[EnvCreated])


# ---- the one error mapping
def error_for(
    failure: httpx.HTTPError | httpx.InvalidURL | httpx.Response, env_id: str | None = None
) -> EnvError | EnvUsageError:
    """The bridge exception for a failed request: a transport error or an error response.

    Args:
        failure: what httpx raised, or a 4xx/5xx response.
        env_id: the env the request was about, named in the message when it is gone.
    """
    if isinstance(failure, httpx.Response):
        return _response_error(failure, env_id)
    if isinstance(failure, (httpx.InvalidURL, httpx.UnsupportedProtocol)):
        return EnvUsageError(f"{failure} (give the simulator as http://HOST:PORT)")
    where = _where(failure)
    if isinstance(failure, httpx.TimeoutException):
        return EnvTimeout(
            f"{where} got no answer in time ({type(failure).__name__}: {failure}); the "
            "simulator may be overloaded or stuck: raise timeout_s or run fewer envs at once"
        )
    if isinstance(failure, httpx.ConnectError):
        return EnvError(
            f"cannot reach the simulator for {where} ({failure}); start it with "
            "`mgb sim serve` or check the host and port"
        )
    return EnvError(
        f"{where} failed ({type(failure).__name__}: {failure}); the simulator may have "
        "crashed or closed the connection: see its log"
    )


def _where(failure: httpx.HTTPError) -> str:
    try:
        request = failure.request
    except RuntimeError:  # an error raised before any request existed
        return "the request"
    return f"{request.method} {request.url}"


def _response_error(response: httpx.Response, env_id: str | None) -> EnvError | EnvUsageError:
    request = response.request
    server = f"{request.url.scheme}://{request.url.netloc.decode('ascii')}"
    what = f"{request.method} {request.url.path}"
    status, kind = response.status_code, response.headers.get(ERROR_HEADER)
    detail = _detail(response)
    if status == 503 and kind == "not-ready":
        return EnvError(f"{server} was still starting when {what} gave up: {detail}")
    if status == 504:
        return EnvTimeout(f"{server} timed out on {what}: {detail}")
    if status >= 500:
        return EnvError(f"{server} failed on {what} ({status}: {detail}); see the simulator's log")
    if status in (401, 403):
        return EnvUsageError(
            f"{server} refused {what} ({status}: {detail}); pass token=... (the token "
            "`mgb sim serve` prints when it binds an address other than loopback)"
        )
    if status == 404 and kind == "unknown-env":
        return EnvUsageError(
            f"env {env_id} does not exist on {server} (closed or expired); "
            "create a new one with HttpEnv.create"
        )
    if status == 410 and kind == "expired-env":
        return EnvUsageError(f"env {env_id} on {server} expired ({detail})")
    if status == 404 and kind in (None, "not-found"):
        return EnvUsageError(
            f"{server} has no {what} ({detail}); is it a simulator serving the env API "
            "(`mgb sim serve`)?"
        )
    return EnvUsageError(f"{server} rejected {what} ({status}): {detail}")


def _detail(response: httpx.Response) -> str:
    """The server's explanation: the error body's ``detail`` (a string; a list of
    validation errors from older servers)."""
    try:
        detail = response.json()["detail"]
    except (ValueError, KeyError, TypeError):
        return response.text[:500] or response.reason_phrase
    if isinstance(detail, list):
        return "; ".join(_validation_error(item) for item in detail)
    return str(detail)


def _validation_error(item: object) -> str:
    if not isinstance(item, dict):
        return str(item)
    location = ".".join(str(part) for part in item.get("loc", ()))
    return f"{location}: {item.get('msg', item)}"


def _retry_after(response: httpx.Response) -> float | None:
    """Seconds a 503 asks the client to wait (``Retry-After``), or None: no retry."""
    if response.status_code != 503:
        return None
    try:
        seconds = float(response.headers.get("retry-after", ""))
    except ValueError:
        return None
    return min(max(seconds, 0.0), 30.0) if seconds == seconds else None


def _parse(model: type[M], response: httpx.Response) -> M:
    try:
        return model.model_validate_json(response.content)
    except ValidationError as exc:
        raise EnvError(
            f"{response.request.method} {response.request.url} answered with no valid "
            f"{model.__name__} ({exc.error_count()} errors, first: {exc.errors()[0]['msg']}); "
            "are the client and the simulator the same version of mobilegym-bridge?"
        ) from exc


# ---- the connection an env shares with its forks
class _Session:
    """One httpx client for an env and its forks; closed when the last of them closes."""

    def __init__(self, base_url: str, token: str | None, timeout_s: float) -> None:
        headers = {"authorization": f"Bearer {token}"} if token else {}
        self.base_url = base_url.rstrip("/")
        self.timeout_s = timeout_s
        self.users = 0
        try:
            self.http = httpx.AsyncClient(
                base_url=self.base_url,
                headers=headers,
                timeout=timeout_s,
                limits=httpx.Limits(max_connections=256, max_keepalive_connections=64),
            )
        except httpx.InvalidURL as exc:
            raise error_for(exc) from exc

    async def request(
        self,
        method: str,
        path: str,
        env_id: str | None,
        *,
        gone_ok: bool = False,
        json: object = None,
        content: bytes | None = None,
        headers: dict[str, str] | None = None,
    ) -> httpx.Response:
        """Send a request; failures become bridge errors (see :func:`error_for`). While the
        server answers 503 with ``Retry-After`` (it is starting), wait and send it again,
        within ``timeout_s`` in all."""
        deadline = time.monotonic() + self.timeout_s
        while True:
            try:
                response = await self.http.request(
                    method, path, json=json, content=content, headers=headers
                )
            except (httpx.HTTPError, httpx.InvalidURL) as exc:
                raise error_for(exc, env_id) from exc
            wait_s = _retry_after(response)
            if wait_s is None or time.monotonic() + wait_s > deadline:
                break
            await asyncio.sleep(wait_s)  # the server said how long it needs
        if response.is_error and not (gone_ok and response.status_code in (404, 410)):
            raise error_for(response, env_id)
        return response

    async def release(self) -> None:
        """One user fewer; the last one closes the client."""
        self.users -= 1
        if self.users <= 0:
            await self.http.aclose()


class HttpEnv:
    """A simulator env reached over HTTP: a bridge ``ForkableEnv``.

    Build one with :meth:`create` (a new env on the server) or :meth:`attach` (an env that
    already exists). Use it as an async context manager or call :meth:`close`, which is
    idempotent. Forks share this env's connection pool, base URL and token.
    """

    def __init__(self, session: _Session, env_id: str, *, posed: bool | None) -> None:
        """Internal: use :meth:`create` or :meth:`attach`. ``posed`` is whether the env has a
        task (None: unknown, the server decides)."""
        self._session = session
        self._closed = False
        self._posed = posed
        self.env_id = env_id
        self.observation: Observation | None = None
        """The latest observation the server sent (create with a task, reset, step, …)."""
        session.users += 1

    # ---- construction
    @classmethod
    async def create(
        cls,
        base_url: str,
        *,
        token: str | None = None,
        task: TaskInstance | None = None,
        screenshot: bool = True,
        answer_mode: Literal["action", "sheet"] = "action",
        timeout_s: float = DEFAULT_TIMEOUT_S,
        skin: str = DEFAULT_SKIN,
    ) -> HttpEnv:
        """A new env on the simulator at ``base_url`` (``POST /api/envs``).

        Args:
            base_url: the simulator, e.g. ``http://127.0.0.1:8765``.
            token: the server's token; needed unless the client is on loopback.
            task: reset to this task at once (its first view is then :attr:`observation`);
                it must carry its spec, as :meth:`reset`'s does.
            screenshot: whether observations carry a screenshot.
            answer_mode: ``"action"`` (the answer action) or ``"sheet"`` (AnswerSheet app).
            timeout_s: see :data:`DEFAULT_TIMEOUT_S`.
            skin: how the phone looks, ``"aosp"`` or ``"hyperos"`` (presentation only).
        """
        session = _Session(base_url, token, timeout_s)
        return await _created(session, task, screenshot, answer_mode, skin=skin)

    @classmethod
    def attach(
        cls,
        base_url: str,
        env_id: str,
        *,
        token: str | None = None,
        timeout_s: float = DEFAULT_TIMEOUT_S,
    ) -> HttpEnv:
        """The existing env ``env_id`` of the simulator at ``base_url`` (no request is sent;
        an id the server does not know fails on first use with ``EnvUsageError``)."""
        return cls(_Session(base_url, token, timeout_s), env_id, posed=None)

    @property
    def base_url(self) -> str:
        """The simulator this env lives on."""
        return self._session.base_url

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called."""
        return self._closed

    # ---- bridge.Env
    async def reset(self, task: TaskInstance) -> Observation:
        """Pose ``task`` (sent whole, with its spec) and return the first view.

        A task without its spec is refused (``EnvUsageError``): the server poses what it is
        sent and never binds a task object again from its registry; instantiate tasks with
        the task registry, which binds them.
        """
        body = {"task": task.model_dump(mode="json")}
        observation = _parse(Observation, await self._call("POST", "reset", json=body))
        self._posed = True
        return self._saw(observation)

    async def step(self, action: Action) -> StepResult:
        """Execute ``action`` on the server and return what happened."""
        # the server steps only from an observation (reset, restore or observe gives one)
        self._refuse_unposed("step", unless=self.observation is not None)
        body = {"action": action.model_dump(mode="json")}
        result = _parse(StepResult, await self._call("POST", "step", json=body))
        self._saw(result.observation)
        return result

    async def verdict(self) -> Verdict:
        """Judge the episode so far."""
        self._refuse_unposed("verdict")
        return _parse(Verdict, await self._call("GET", "verdict"))

    async def observe(self) -> Observation:
        """The current screen, without acting."""
        return self._saw(_parse(Observation, await self._call("GET", "observation")))

    async def close(self) -> None:
        """Delete the env on the server (an env already gone is fine); idempotent.

        Raises:
            EnvError: the server could not be told (the env may live on until it stops).
        """
        if self._closed:
            return
        self._closed = True
        try:
            await self._session.request(
                "DELETE", f"/api/envs/{self.env_id}", self.env_id, gone_ok=True
            )
        finally:
            await self._session.release()

    async def __aenter__(self) -> HttpEnv:
        return self

    async def __aexit__(self, exc_type: object, exc: BaseException | None, tb: object) -> None:
        try:
            await self.close()
        except EnvError:
            if exc is None:  # else the error that ended the block is the one to see
                raise

    # ---- bridge.ForkableEnv
    async def snapshot(self) -> bytes:
        """The env's complete state (and task) as JSON bytes."""
        return (await self._call("GET", "snapshot")).content

    async def restore(self, snapshot: bytes) -> Observation:
        """Return to a state from :meth:`snapshot` (of this or any env of the server)."""
        headers = {"content-type": "application/json"}
        response = await self._call("POST", "restore", content=snapshot, headers=headers)
        self._posed = None  # the snapshot decides whether there is a task
        return self._saw(_parse(Observation, response))

    async def fork(self, n: int) -> list[HttpEnv]:
        """``n`` new envs on the server, identical to this one, evolving independently."""
        response = await self._call("POST", "fork", json={"n": n})
        try:
            created = _CREATED_LIST.validate_json(response.content)
        except ValidationError as exc:
            raise EnvError(f"{self.base_url} answered a fork with no env list: {exc}") from exc
        children = [HttpEnv(self._session, c.env_id, posed=self._posed) for c in created]
        for child in children:
            child.observation = self.observation
        return children

    # ---- plumbing
    async def _call(
        self,
        method: str,
        route: str,
        *,
        json: object = None,
        content: bytes | None = None,
        headers: dict[str, str] | None = None,
    ) -> httpx.Response:
        if self._closed:
            raise EnvUsageError(
                f"env {self.env_id} on {self.base_url} is closed: {route} needs an open env "
                "(HttpEnv.create makes a new one)"
            )
        path = f"/api/envs/{self.env_id}/{route}"
        return await self._session.request(
            method, path, self.env_id, json=json, content=content, headers=headers
        )

    def _refuse_unposed(self, call: str, *, unless: bool = False) -> None:
        """Fail without a request where the server would: the client created this env
        without a task and has not reset it (unknown for attached or restored envs)."""
        if self._posed is False and not unless and not self._closed:
            raise EnvUsageError(f"env {self.env_id} has no task: call reset(task) before {call}()")

    def _saw(self, observation: Observation) -> Observation:
        self.observation = observation
        return observation

    def __repr__(self) -> str:
        state = "closed" if self._closed else "open"
        return f"HttpEnv({self.base_url!r}, {self.env_id!r}, {state})"


async def _created(
    session: _Session,
    task: TaskInstance | None,
    screenshot: bool,
    answer_mode: Literal["action", "sheet"],
    seed: int = 0,
    skin: str = DEFAULT_SKIN,
) -> HttpEnv:
    """``POST /api/envs`` on ``session``: the new env (with its first view if ``task``; its
    factory state from ``seed`` otherwise)."""
    body: dict[str, object] = {
        "screenshot": screenshot,
        "answer_mode": answer_mode,
        "seed": seed,
        "skin": skin,
    }
    if task is not None:
        body |= {"seed": task.seed, "task": task.model_dump(mode="json")}
    session.users += 1  # held while the env does not exist yet
    try:
        response = await session.request("POST", "/api/envs", None, json=body)
        created = _parse(EnvCreated, response)
        env = HttpEnv(session, created.env_id, posed=task is not None)
    finally:
        await session.release()
    env.observation = created.observation
    return env


class EnvServer:
    """One simulator server, and one connection pool for every env made on it.

    What a pool of servers holds per server: :meth:`create` makes envs that share this
    object's connections (``HttpEnv.create`` opens a pool per env), :meth:`health` says
    how full the server is. :meth:`aclose` lets go of the connections once the envs made
    here are closed too.
    """

    def __init__(
        self, base_url: str, *, token: str | None = None, timeout_s: float = DEFAULT_TIMEOUT_S
    ) -> None:
        self._session = _Session(base_url, token, timeout_s)
        self._session.users += 1
        self._closed = False

    @property
    def base_url(self) -> str:
        """The server."""
        return self._session.base_url

    async def create(
        self,
        *,
        task: TaskInstance | None = None,
        screenshot: bool = True,
        answer_mode: Literal["action", "sheet"] = "action",
        seed: int = 0,
        skin: str = DEFAULT_SKIN,
    ) -> HttpEnv:
        """A new env on the server (see :meth:`HttpEnv.create`); ``seed`` gives its factory
        state when no ``task`` is posed."""
        return await _created(self._session, task, screenshot, answer_mode, seed, skin)

    async def health(self) -> Health:
        """Whether the server is ready, and its envs and limit."""
        return _parse(Health, await self._session.request("GET", "/health", None))

    async def aclose(self) -> None:
        """Let go of the connections (after the envs made here close); idempotent."""
        if not self._closed:
            self._closed = True
            await self._session.release()
