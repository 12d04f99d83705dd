"""A pool of simulator envs over many hosts: a bridge ``ForkableEnv`` for every env it hands
out, whichever host holds it.

::

    pool = await EnvPool.ray(hosts=4)            # or EnvPool.ray("ray://head:10001")
    pool = EnvPool.http(["http://a:8765", ...], token="...")   # clusters without Ray
    env = await pool.env(seed=0)                 # on the least loaded host
    group = await env.fork(8)                    # a GRPO group, on env's host if it fits
    await pool.close()

Placement: a new env goes to the host with the most free room (``max_envs`` minus the
envs the pool holds there; ties to the first). ``fork(n)`` keeps the group on its parent's
host, where a fork is a copy of the parent's state in memory; what does not fit there is
spread over the others, each copy made from the parent's snapshot (kilobytes of JSON), so a
group may span hosts and still starts from one state. A pool with no room left refuses with
:class:`PoolFull` before any env is made.

The pool does the bookkeeping of what it placed; :meth:`EnvPool.load` asks the hosts.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Literal

from bridge.errors import EnvUsageError
from bridge.records import TaskInstance
from bridge.schema import Action, Observation, StepResult, Verdict
from scaleout.errors import HostsUnavailable, PoolFull
from scaleout.host import HostConfig, HostInfo
from scaleout.hosts import Host, HttpHost, LocalHost
from sim.skins import DEFAULT_SKIN, check_skin

__all__ = ["EnvPool", "PoolEnv", "PoolFull"]


class _Slot:
    """A host and what the pool placed on it."""

    def __init__(self, host: Host, capacity: int) -> None:
        self.host = host
        self.capacity = capacity
        self.envs = 0

    @property
    def free(self) -> int:
        return self.capacity - self.envs


class EnvPool:
    """Envs on many hosts, placed by free room."""

    def __init__(self, hosts: Sequence[Host], *, owned: bool = True) -> None:
        """``hosts``: where envs go; ``owned``: whether :meth:`close` shuts them down (and,
        for a pool that started Ray, Ray too)."""
        if not hosts:
            raise EnvUsageError("a pool needs at least one host")
        self._slots = [_Slot(host, 0) for host in hosts]
        self._owned = owned
        self._ray_started = False
        self._capacities_known = False
        self._lock = asyncio.Lock()

    # ---- construction
    @classmethod
    async def ray(
        cls,
        address: str | None = None,
        *,
        hosts: int | None = None,
        config: HostConfig | None = None,
        cpus: float = 1.0,
        resources: dict[str, float] | None = None,
        max_restarts: int = 3,
        call_timeout_s: float = 120.0,
    ) -> EnvPool:
        """A pool of hosts started as Ray actors (see :func:`scaleout.ray_hosts.start_ray_hosts`).

        ``address``: ``None`` / ``"local"`` (a local cluster, unless this process is
        connected to one), ``"auto"``, ``HOST:PORT`` or ``ray://HOST:PORT``.
        """
        from scaleout.ray_hosts import connect_ray, start_ray_hosts

        started = connect_ray(address)
        ray_hosts = start_ray_hosts(
            hosts,
            config=config,
            cpus=cpus,
            resources=resources,
            max_restarts=max_restarts,
            call_timeout_s=call_timeout_s,
        )
        pool = cls(ray_hosts)
        pool._ray_started = started
        return pool

    @classmethod
    def http(
        cls, urls: Sequence[str], *, token: str | None = None, timeout_s: float = 60.0
    ) -> EnvPool:
        """A pool over running ``mgb sim serve`` servers (the servers stay up after it)."""
        if not urls:
            raise HostsUnavailable("--hosts: give at least one URL, e.g. http://10.0.0.2:8765")
        return cls([HttpHost(url, token=token, timeout_s=timeout_s) for url in urls])

    @classmethod
    def local(cls, hosts: int = 1, config: HostConfig | None = None) -> EnvPool:
        """A pool of hosts in this process (one machine, or to measure the pool itself)."""
        return cls([LocalHost(config, name=f"local-{i}") for i in range(hosts)])

    # ---- hosts
    @property
    def hosts(self) -> list[Host]:
        """The pool's hosts, in placement order."""
        return [slot.host for slot in self._slots]

    async def load(self) -> list[HostInfo]:
        """Each host's own account of where it runs and how full it is."""
        infos = await asyncio.gather(*(slot.host.info() for slot in self._slots))
        for slot, info in zip(self._slots, infos, strict=True):
            slot.capacity = info.max_envs
        self._capacities_known = True
        return list(infos)

    # ---- envs
    async def env(
        self,
        seed: int = 0,
        *,
        screenshot: bool = True,
        answer_mode: Literal["action", "sheet"] = "action",
        skin: str = DEFAULT_SKIN,
    ) -> PoolEnv:
        """A new env on the host with the most room (its phone in ``skin``)."""
        check_skin(skin)  # a typo is refused here, not on a host
        slot = (await self._place(1))[0]
        try:
            env_id = await slot.host.create(
                seed, screenshot=screenshot, answer_mode=answer_mode, skin=skin
            )
        except BaseException:
            slot.envs -= 1
            raise
        return PoolEnv(
            self, slot, env_id, screenshot=screenshot, answer_mode=answer_mode, skin=skin
        )

    async def close(self) -> None:
        """Shut the hosts down if the pool owns them (and Ray, if the pool started it)."""
        if self._owned:
            await asyncio.gather(*(slot.host.shutdown() for slot in self._slots))
        if self._ray_started:
            from scaleout.ray_hosts import import_ray

            import_ray().shutdown()
            self._ray_started = False

    async def __aenter__(self) -> EnvPool:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # ---- placement
    async def _place(self, n: int, prefer: _Slot | None = None) -> list[_Slot]:
        """Reserve room for ``n`` envs: on ``prefer`` as far as it fits, then on the hosts
        with the most room (one slot per env, in order)."""
        async with self._lock:
            if not self._capacities_known:
                await self.load()
            if sum(slot.free for slot in self._slots) < n:
                held = sum(slot.envs for slot in self._slots)
                room = sum(slot.capacity for slot in self._slots)
                raise PoolFull(
                    f"the pool holds {held} envs of {room} and {n} more do not fit: close "
                    "envs, add hosts, or start the hosts with a higher max_envs"
                )
            chosen: list[_Slot] = []
            if prefer is not None:
                take = min(n, prefer.free)
                prefer.envs += take
                chosen += [prefer] * take
            while len(chosen) < n:
                slot = max(self._slots, key=lambda s: s.free)  # max keeps the first of ties
                slot.envs += 1
                chosen.append(slot)
            return chosen

    def _released(self, slot: _Slot) -> None:
        slot.envs -= 1


class PoolEnv:
    """One env of an :class:`EnvPool`: a bridge ``ForkableEnv`` on whichever host holds it."""

    def __init__(
        self,
        pool: EnvPool,
        slot: _Slot,
        env_id: str,
        *,
        screenshot: bool,
        answer_mode: Literal["action", "sheet"],
        skin: str = DEFAULT_SKIN,
    ) -> None:
        self._pool = pool
        self._slot = slot
        self.env_id = env_id
        self._screenshot, self._answer_mode, self._skin = screenshot, answer_mode, skin
        self._closed = False

    @property
    def host(self) -> Host:
        """The host holding this env."""
        return self._slot.host

    # ---- bridge.Env
    async def reset(self, task: TaskInstance) -> Observation:
        """Pose ``task`` and observe."""
        return await self._open().reset(self.env_id, task)

    async def step(self, action: Action) -> StepResult:
        """Execute ``action``."""
        return await self._open().step(self.env_id, action)

    async def verdict(self) -> Verdict:
        """Judge the task."""
        return await self._open().verdict(self.env_id)

    async def observe(self) -> Observation:
        """The current screen."""
        return await self._open().observe(self.env_id)

    async def close(self) -> None:
        """Close the env and give its room back; idempotent."""
        if self._closed:
            return
        self._closed = True
        self._pool._released(self._slot)
        await self._slot.host.close(self.env_id)

    # ---- bridge.ForkableEnv
    async def snapshot(self) -> bytes:
        """State and task as JSON bytes."""
        return await self._open().snapshot(self.env_id)

    async def restore(self, snapshot: bytes) -> Observation:
        """Return to ``snapshot`` (of an env on any host) and observe."""
        return await self._open().restore(self.env_id, snapshot)

    async def fork(self, n: int) -> list[PoolEnv]:
        """``n`` envs identical to this one: on its host as far as they fit, the rest
        spread over the other hosts from this env's snapshot."""
        if n < 1:
            raise EnvUsageError(f"fork needs n >= 1, got {n}")
        host = self._open()
        slots = await self._pool._place(n, prefer=self._slot)
        here, elsewhere = slots.count(self._slot), [s for s in slots if s is not self._slot]
        ids: list[str] = []
        try:
            if here:
                ids = await host.fork(self.env_id, here)
            state = await host.snapshot(self.env_id) if elsewhere else b""
        except BaseException:
            for slot in slots:
                self._pool._released(slot)
            for env_id in ids:
                await host.close(env_id)
            raise
        children = [self._child(self._slot, env_id) for env_id in ids]
        copies = await asyncio.gather(
            *(self._copy_on(slot, state) for slot in elsewhere), return_exceptions=True
        )
        children += [c for c in copies if isinstance(c, PoolEnv)]
        failures = [c for c in copies if isinstance(c, BaseException)]
        if failures:
            for child in children:
                await child.close()
            raise failures[0]
        return children

    async def _copy_on(self, slot: _Slot, state: bytes) -> PoolEnv:
        """A new env on ``slot``'s host in ``state`` (its reservation given back on failure)."""
        try:
            env_id = await slot.host.create(
                screenshot=self._screenshot, answer_mode=self._answer_mode, skin=self._skin
            )
        except BaseException:
            self._pool._released(slot)
            raise
        child = self._child(slot, env_id)
        try:
            await slot.host.restore(env_id, state)
        except BaseException:
            await child.close()
            raise
        return child

    def _child(self, slot: _Slot, env_id: str) -> PoolEnv:
        return PoolEnv(
            self._pool,
            slot,
            env_id,
            screenshot=self._screenshot,
            answer_mode=self._answer_mode,
            skin=self._skin,
        )

    def _open(self) -> Host:
        if self._closed:
            raise EnvUsageError(f"env {self.env_id} on {self._slot.host.name} is closed")
        return self._slot.host

    def __repr__(self) -> str:
        return f"PoolEnv({self._slot.host.name!r}, {self.env_id!r})"
