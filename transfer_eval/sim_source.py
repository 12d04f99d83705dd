"""Where a command's simulator envs come from: this process, a Ray cluster, or env servers.

``mgb sim run``, ``mgb train`` and ``transfer-eval``'s simulator cells take the same
``--ray [ADDRESS]`` / ``--hosts URL,...`` options and otherwise run unchanged: they get their
task registry, world data and an env factory from :func:`sim_envs`, and never see which
kind of host holds an env. Tasks are instantiated here, in the driver, from the same
registry a host judges with (the task travels whole, with its bound spec).

Before any episode starts, every host is asked for its load, so an address nobody answers
at, or a cluster without room for the hosts, is one clear error rather than an infra error
per episode.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, model_validator

from bridge.env import ForkableEnv
from sim.simulator import SimConfig, Simulator
from sim.skins import DEFAULT_SKIN
from sim.tasks.registry import TaskRegistry

__all__ = ["EnvMaker", "SimEnvs", "SimSource", "sim_envs"]


class SimSource(BaseModel):
    """``--ray`` / ``--hosts``: the hosts simulator envs live on (none: this process)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    ray: str | None = None
    """A Ray cluster: ``local`` (start one here), ``auto``, ``HOST:PORT``, ``ray://HOST:PORT``."""
    ray_hosts: int | None = Field(default=None, ge=1)
    """Simulator hosts to start on the cluster (None: one per node)."""
    hosts: tuple[str, ...] = ()
    """Running ``mgb sim serve`` servers, for clusters without Ray."""
    token: str | None = None
    """The servers' token (``--hosts``)."""

    @model_validator(mode="after")
    def _one_kind(self) -> SimSource:
        if self.ray is not None and self.hosts:
            raise ValueError("give --ray or --hosts, not both")
        if self.ray_hosts is not None and self.ray is None:
            raise ValueError("--ray-hosts needs --ray")
        for url in self.hosts:
            if not url.startswith(("http://", "https://")):
                raise ValueError(f"--hosts {url!r}: give each server as http://HOST:PORT")
        return self

    @property
    def local(self) -> bool:
        """Whether envs live in this process."""
        return self.ray is None and not self.hosts

    def describe(self) -> str:
        """One line for the terminal: where the envs are."""
        if self.ray is not None:
            count = f"{self.ray_hosts} hosts" if self.ray_hosts else "a host per node"
            return f"simulator on Ray ({self.ray}, {count})"
        if self.hosts:
            return f"simulator on {len(self.hosts)} env servers"
        return "simulator in this process"


class EnvMaker(Protocol):
    """An async factory of simulator envs (``Simulator.env`` and ``EnvPool.env`` are)."""

    async def __call__(
        self,
        *,
        screenshot: bool = True,
        answer_mode: Literal["action", "sheet"] = "action",
        skin: str = DEFAULT_SKIN,
    ) -> ForkableEnv:
        """A new env (its phone in ``skin``, ``sim/skins.py``)."""
        ...


@dataclass(frozen=True)
class SimEnvs:
    """What a command needs of the simulator: its tasks (with their world data), new envs."""

    tasks: TaskRegistry
    env: EnvMaker


@asynccontextmanager
async def sim_envs(source: SimSource, *, pages: int = 2) -> AsyncIterator[SimEnvs]:
    """The simulator envs of ``source``: a Simulator started here, or a pool of hosts
    (started on Ray, or the servers given), closed on exit.

    Raises:
        scaleout.errors.HostsUnavailable: Ray is not installed, or a host cannot be had.
    """
    if source.local:
        async with Simulator(SimConfig(pages=pages)) as sim:
            yield SimEnvs(sim.tasks, sim.env)
        return
    from scaleout.host import HostConfig
    from scaleout.pool import EnvPool

    if source.ray is not None:
        pool = await EnvPool.ray(source.ray, hosts=source.ray_hosts, config=HostConfig(pages=pages))
    else:
        pool = EnvPool.http(source.hosts, token=source.token)
    async with pool:
        await _reachable(pool, source)
        driver = Simulator()  # never started: its registry and world data only
        yield SimEnvs(driver.tasks, pool.env)


async def _reachable(pool: Any, source: SimSource) -> None:
    from bridge.errors import EnvError
    from scaleout.errors import HostsUnavailable

    try:
        await pool.load()
    except EnvError as exc:
        where = f"--ray {source.ray}" if source.ray is not None else "--hosts"
        raise HostsUnavailable(f"{where}: {exc}") from exc
