"""A simulator host: one Simulator (its Chromium and page pool) and the envs it holds, behind
methods whose arguments and results are the bridge models.

:class:`SimHost` is what a Ray actor runs (:mod:`scaleout.ray_hosts`) and what the pool
uses in-process (:class:`scaleout.hosts.LocalHost`): the same code on every transport, so a
step on a remote host is the step of a local one. Images travel as the encoded bytes of the
observation's :class:`~bridge.schema.Screenshot`; snapshots as their JSON bytes.

Decisions:
    * The Simulator starts on the first call, not in ``__init__``: Ray restarts a dead
      actor by calling ``__init__`` again, which must not block, and a host nobody uses
      costs no Chromium.
    * Every start of a host is an *incarnation* with an id of its own, and every env id
      names the incarnation that created it (``<incarnation>-<instance>``). After Ray
      restarted a host, a call about an env of the dead incarnation raises
      :class:`HostRestarted` (an :class:`~bridge.errors.EnvError`: the episode ends as an
      infra error), never "unknown env" as if the caller had made a mistake.
    * The envs are held in the env API's :class:`~sim.env_table.EnvTable` (its limit and
      idle expiry), so a host and ``mgb sim serve`` refuse the same things the same way
      (:class:`~sim.errors.EnvRefused`).
"""

from __future__ import annotations

import asyncio
import os
import socket
import uuid
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from scaleout.by_id import EnvsById
from scaleout.errors import HostRestarted
from sim.env import SimEnv
from sim.env_table import EnvTable
from sim.simulator import SimConfig, Simulator
from sim.skins import DEFAULT_SKIN

__all__ = ["HostConfig", "HostInfo", "SimHost"]


class HostConfig(BaseModel):
    """How a host runs its simulator."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    pages: int = Field(default=2, ge=1, le=64)
    """Chromium pages rendering the host's instances (instances share them)."""
    max_envs: int = Field(default=256, ge=1)
    """Envs the host holds at once; a create or fork beyond it is refused."""
    idle_expiry_s: float | None = Field(default=3600.0, gt=0, allow_inf_nan=False)
    """An env unused this long is closed (None: never)."""


class HostInfo(BaseModel):
    """Where a host runs, how full it is, and which incarnation answers."""

    model_config = ConfigDict(extra="forbid")

    name: str
    incarnation: str
    node: str
    """The machine (a Ray node id on a cluster, else the host name)."""
    pid: int
    ready: bool
    """Whether its Chromium is up (a host starts it on first use)."""
    envs: int
    max_envs: int


class SimHost(EnvsById):
    """A Simulator and its envs, addressed by env id."""

    def __init__(self, config: HostConfig | None = None, name: str = "host") -> None:
        self.config = config or HostConfig()
        self.name = name
        self.incarnation = uuid.uuid4().hex[:8]  # names this start of the host, not sim state
        self.sim = Simulator(
            SimConfig(
                pages=self.config.pages,
                serve_env_api=False,
                max_envs=self.config.max_envs,
                idle_expiry_s=self.config.idle_expiry_s,
            )
        )
        self.table = EnvTable(self.sim)
        self._starting: asyncio.Task[Simulator] | None = None

    # ---- lifecycle
    async def start(self) -> HostInfo:
        """Start the simulator (once; concurrent callers wait for the same start)."""
        if self._starting is None:
            self._starting = asyncio.ensure_future(self.sim.start())
        await asyncio.shield(self._starting)
        return await self.info()

    async def info(self) -> HostInfo:
        """The host's place and load."""
        self.table.sweep()
        return HostInfo(
            name=self.name,
            incarnation=self.incarnation,
            node=_node(),
            pid=os.getpid(),
            ready=self.sim.ready,
            envs=len(self.table.envs),
            max_envs=self.table.limit,
        )

    async def shutdown(self) -> None:
        """Close every env and stop the simulator; idempotent."""
        for env_id in list(self.table.envs):
            self.table.remove(env_id)
        if self._starting is not None:
            await asyncio.gather(self._starting, return_exceptions=True)
        await self.sim.close()
        self._starting = None

    # ---- envs
    async def create(
        self,
        seed: int = 0,
        *,
        screenshot: bool = True,
        answer_mode: Literal["action", "sheet"] = "action",
        skin: str = DEFAULT_SKIN,
    ) -> str:
        """A new env on a factory-fresh instance; its id."""
        await self.start()
        self.table.make_room(1)
        env = SimEnv(
            self.sim,
            self.sim.create_instance(seed),
            screenshot=screenshot,
            answer_mode=answer_mode,
            skin=skin,
        )
        self.table.add(env)
        return self._id(env)

    async def fork(self, env_id: str, n: int) -> list[str]:
        """``n`` new envs on this host identical to ``env_id``; their ids."""
        parent = self._env(env_id)
        self.table.make_room(n)
        children = await parent.fork(n)
        for child in children:
            self.table.add(child)
        return [self._id(child) for child in children]

    async def close(self, env_id: str) -> None:
        """Close the env; closing one already closed (or lost with a dead host) is a no-op."""
        incarnation, _, instance_id = env_id.partition("-")
        if incarnation == self.incarnation:
            self.table.remove(instance_id)

    # ---- ids
    def _id(self, env: SimEnv) -> str:
        return f"{self.incarnation}-{env.instance.id}"

    def _env(self, env_id: str) -> SimEnv:
        incarnation, _, instance_id = env_id.partition("-")
        if incarnation != self.incarnation:
            raise HostRestarted(
                f"env {env_id} was on {self.name}, which was restarted (now incarnation "
                f"{self.incarnation}): its instance is lost; create a new env"
            )
        return self.table.get(instance_id)


def _node() -> str:
    try:
        import ray

        if ray.is_initialized():
            return ray.get_runtime_context().get_node_id()
    except ImportError:
        pass
    return socket.gethostname()
