"""The hosts a pool hands envs out on: one protocol, three transports.

:class:`Host` is :class:`~scaleout.host.SimHost`'s method set as the pool sees it. A
``SimHost`` in this process is one (``LocalHost``, for a single machine and for measuring
what the pool costs); :class:`scaleout.ray_hosts.RayHost` is one on a Ray actor;
:class:`HttpHost` is one over the HTTP env API of an ``mgb sim serve`` on another machine,
for clusters without Ray.
"""

from __future__ import annotations

import contextlib
from typing import Literal, Protocol

from bridge.errors import EnvError, EnvUsageError
from bridge.records import TaskInstance
from bridge.schema import Action, Observation, StepResult, Verdict
from scaleout.by_id import EnvsById
from scaleout.host import HostInfo, SimHost
from sim.client import DEFAULT_TIMEOUT_S, EnvServer, HttpEnv
from sim.skins import DEFAULT_SKIN

__all__ = ["Host", "HttpHost", "LocalHost"]


class Host(Protocol):
    """A place that holds simulator envs, addressed by env id."""

    name: str

    async def info(self) -> HostInfo:
        """Where it runs and how full it is."""
        ...

    async def create(
        self,
        seed: int = 0,
        *,
        screenshot: bool = True,
        answer_mode: Literal["action", "sheet"] = "action",
        skin: str = DEFAULT_SKIN,
    ) -> str:
        """A new env (its phone in ``skin``, :mod:`sim.skins`); its id."""
        ...

    async def reset(self, env_id: str, task: TaskInstance) -> Observation:
        """Pose ``task`` and observe."""
        ...

    async def step(self, env_id: str, action: Action) -> StepResult:
        """Execute ``action``."""
        ...

    async def observe(self, env_id: str) -> Observation:
        """The current screen."""
        ...

    async def verdict(self, env_id: str) -> Verdict:
        """Judge the task."""
        ...

    async def snapshot(self, env_id: str) -> bytes:
        """State and task as JSON bytes."""
        ...

    async def restore(self, env_id: str, snapshot: bytes) -> Observation:
        """Return to ``snapshot`` and observe."""
        ...

    async def fork(self, env_id: str, n: int) -> list[str]:
        """``n`` copies on this host; their ids."""
        ...

    async def close(self, env_id: str) -> None:
        """Close one env (idempotent)."""
        ...

    async def shutdown(self) -> None:
        """Let go of the host (stop it, if the pool started it)."""
        ...


LocalHost = SimHost
"""A host in this process: the simulator host itself."""


class HttpHost(EnvsById):
    """A simulator server reached over its HTTP env API (``mgb sim serve``)."""

    def __init__(
        self, base_url: str, *, token: str | None = None, timeout_s: float = DEFAULT_TIMEOUT_S
    ) -> None:
        self.server = EnvServer(base_url, token=token, timeout_s=timeout_s)
        self.name = self.server.base_url
        self._envs: dict[str, HttpEnv] = {}

    async def info(self) -> HostInfo:
        """The server's ``/health``."""
        health = await self.server.health()
        return HostInfo(
            name=self.name,
            incarnation="http",
            node=self.name,
            pid=0,
            ready=health.ready,
            envs=health.envs,
            max_envs=health.max_envs,
        )

    async def create(
        self,
        seed: int = 0,
        *,
        screenshot: bool = True,
        answer_mode: Literal["action", "sheet"] = "action",
        skin: str = DEFAULT_SKIN,
    ) -> str:
        """A new env on the server."""
        env = await self.server.create(
            screenshot=screenshot, answer_mode=answer_mode, seed=seed, skin=skin
        )
        return self._hold(env)

    async def fork(self, env_id: str, n: int) -> list[str]:
        """``n`` copies on the server."""
        return [self._hold(child) for child in await self._env(env_id).fork(n)]

    async def close(self, env_id: str) -> None:
        """Delete the env on the server (idempotent); an env whose server cannot be told is
        let go all the same, as a ``RayHost`` lets go of an env lost with its host."""
        env = self._envs.pop(env_id, None)
        if env is not None:
            # gone or unreachable: if the server is still up, its idle expiry closes the env
            with contextlib.suppress(EnvError):
                await env.close()

    async def shutdown(self) -> None:
        """Close the envs this pool made here and the connections (the server stays up)."""
        for env_id in list(self._envs):
            await self.close(env_id)
        await self.server.aclose()

    def _hold(self, env: HttpEnv) -> str:
        self._envs[env.env_id] = env
        return env.env_id

    def _env(self, env_id: str) -> HttpEnv:
        try:
            return self._envs[env_id]
        except KeyError:
            raise EnvUsageError(f"env {env_id} on {self.name} is closed") from None
