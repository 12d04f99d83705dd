"""The env pool over plain HTTP env servers (clusters without Ray), and over hosts in this
process.

Two simulators serve their env API on loopback ports for the whole module (one event loop,
two Chromiums), each holding at most 3 envs; every test makes its own pool over them and
leaves the servers empty. The last test stops one server under its envs. A browser-free
unit test checks the placement order on hosts that only count.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator
from typing import Literal

import pytest
import pytest_asyncio

from bridge.errors import EnvError, EnvUsageError
from bridge.records import TaskInstance
from bridge.schema import (
    Action,
    KeyAction,
    Observation,
    OpenAppAction,
    PolicyContext,
    StepResult,
    Verdict,
)
from policies.scripted import PlanPolicy
from scaleout.errors import PoolFull
from scaleout.host import HostConfig, HostInfo
from scaleout.pool import EnvPool, PoolEnv
from sim.simulator import SimConfig, Simulator
from sim.tasks.registry import default_registry

ROOM = 3
"""Envs each server (and each local host) holds at once."""


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def servers() -> AsyncIterator[tuple[Simulator, Simulator]]:
    """Two started simulators, each serving the env API on its own loopback port."""
    a, b = (Simulator(SimConfig(pages=1, max_envs=ROOM)) for _ in range(2))
    async with a, b:
        yield a, b


@pytest.fixture(scope="module")
def task() -> TaskInstance:
    """An L1 Settings task with a short oracle (open Settings, tap the airplane toggle)."""
    registry = default_registry()
    return registry.instantiate("settings/SetAirplaneMode-v1", 0, "en")


@pytest_asyncio.fixture(loop_scope="module")
async def pool(servers: tuple[Simulator, Simulator]) -> AsyncIterator[EnvPool]:
    """A pool over both servers, closed (its envs deleted) after the test."""
    async with EnvPool.http([server.base_url for server in servers]) as pool:
        yield pool


async def _envs_held(pool: EnvPool) -> list[int]:
    return [info.envs for info in await pool.load()]


async def _play_oracle_from_here(env: PoolEnv, task: TaskInstance) -> Verdict:
    """Follow the task's oracle from the env's current screen (no reset); the verdict."""
    policy = PlanPolicy(default_registry().get(task.task_id).oracle_for(task))
    await policy.reset(task.instruction, PolicyContext.for_task(task))
    observation = await env.observe()
    for _ in range(task.max_steps):
        decision = await policy.act(observation)
        assert decision.action is not None, decision.error
        result = await env.step(decision.action)
        if result.done:
            break
        observation = result.observation
    return await env.verdict()


async def _fork_group_across_hosts(pool: EnvPool, task: TaskInstance) -> list[PoolEnv]:
    """Fork 4 from a parent inside Settings whose host has room for 2 more: 2 stay beside
    it, 2 are made on the other host from its snapshot; every copy shows the parent's
    screen, and the oracle succeeds on a spread copy. The group, for more checks."""
    parent = await pool.env(screenshot=False)
    home = await parent.reset(task)
    inside = (await parent.step(OpenAppAction(app="settings"))).observation
    assert inside.ui != home.ui  # so an equal screen below is the parent's, not a fresh one
    group = await parent.fork(4)
    hosts = [env.host.name for env in group]
    assert hosts.count(parent.host.name) == 2 and len(set(hosts)) == 2, hosts
    screens = await asyncio.gather(*(env.observe() for env in group))
    assert all(screen.ui == inside.ui for screen in screens)
    spread = next(env for env in group if env.host is not parent.host)
    verdict = await _play_oracle_from_here(spread, task)
    assert verdict.success, verdict.model_dump()
    assert not (await parent.verdict()).success  # the copies are copies: the parent is as it was
    return [parent, *group]


# ---- placement, without a browser
class _CountingHost:
    """A host that holds nothing but a count (the pool's side of the protocol only)."""

    def __init__(self, name: str, room: int) -> None:
        self.name, self.room = name, room
        self.ids = itertools.count()
        self.made: list[str] = []

    async def info(self) -> HostInfo:
        return HostInfo(
            name=self.name,
            incarnation="unit",
            node=self.name,
            pid=0,
            ready=True,
            envs=len(self.made),
            max_envs=self.room,
        )

    async def create(
        self,
        seed: int = 0,
        *,
        screenshot: bool = True,
        answer_mode: Literal["action", "sheet"] = "action",
        skin: str = "aosp",
    ) -> str:
        self.made.append(f"{self.name}-{next(self.ids)}")
        return self.made[-1]

    async def fork(self, env_id: str, n: int) -> list[str]:
        return [await self.create() for _ in range(n)]

    async def snapshot(self, env_id: str) -> bytes:
        return b"{}"

    async def restore(self, env_id: str, snapshot: bytes) -> Observation:
        return Observation.model_construct()

    async def close(self, env_id: str) -> None:
        self.made.remove(env_id)

    async def shutdown(self) -> None:
        self.made.clear()

    async def reset(self, env_id: str, task: TaskInstance) -> Observation:
        raise NotImplementedError

    async def step(self, env_id: str, action: Action) -> StepResult:
        raise NotImplementedError

    async def observe(self, env_id: str) -> Observation:
        raise NotImplementedError

    async def verdict(self, env_id: str) -> Verdict:
        raise NotImplementedError


@pytest.mark.asyncio
async def test_placement_goes_by_free_room_ties_to_the_first_host() -> None:
    a, b, c = _CountingHost("a", 2), _CountingHost("b", 3), _CountingHost("c", 3)
    async with EnvPool([a, b, c]) as pool:
        envs = [await pool.env() for _ in range(4)]
        # b and c tie on 3 free (b first), then c has 3, then a, b and c tie on 2
        assert [env.host.name for env in envs] == ["b", "c", "a", "b"]
        group = await envs[2].fork(3)  # 1 fits beside it on a; then c (2 free), then b
        assert [env.host.name for env in group] == ["a", "c", "b"]  # b ties c, and is first
        assert (await pool.env()).host.name == "c"
        with pytest.raises(PoolFull, match="8 envs of 8 and 1 more"):
            await pool.env()
        with pytest.raises(PoolFull):
            await envs[0].fork(1)
        assert [len(h.made) for h in (a, b, c)] == [2, 3, 3]  # nothing made by the refusals
        await envs[0].close()
        await envs[0].close()  # idempotent: the room is given back once
        assert (await pool.env()).host.name == "b"
        with pytest.raises(PoolFull):
            await pool.env()


# ---- two HTTP env servers
@pytest.mark.browser
@pytest.mark.asyncio(loop_scope="module")
async def test_envs_go_to_the_server_with_most_room_and_closing_gives_it_back(
    pool: EnvPool, servers: tuple[Simulator, Simulator]
) -> None:
    a, b = (server.base_url for server in servers)
    envs = [await pool.env(screenshot=False) for _ in range(3)]
    assert [env.host.name for env in envs] == [a, b, a]  # a tie goes to the first
    assert await _envs_held(pool) == [2, 1]  # the servers' own count (/health)
    await envs[0].close()
    assert await _envs_held(pool) == [1, 1]
    assert (await pool.env(screenshot=False)).host.name == a


@pytest.mark.browser
@pytest.mark.asyncio(loop_scope="module")
async def test_a_fork_keeps_what_fits_beside_its_parent_and_spreads_the_rest(
    pool: EnvPool, task: TaskInstance
) -> None:
    envs = await _fork_group_across_hosts(pool, task)
    assert await _envs_held(pool) == [3, 2]
    for env in envs:
        await env.close()
    assert await _envs_held(pool) == [0, 0]


@pytest.mark.browser
@pytest.mark.asyncio(loop_scope="module")
async def test_a_full_pool_refuses_before_it_makes_anything(
    pool: EnvPool, task: TaskInstance
) -> None:
    parent = await pool.env(screenshot=False)
    await parent.reset(task)
    await parent.fork(4)  # 5 of the 6 places
    with pytest.raises(PoolFull, match="5 envs of 6 and 2 more do not fit"):
        await parent.fork(2)
    assert await _envs_held(pool) == [3, 2]  # no part of the refused fork was made
    await pool.env(screenshot=False)  # the last place
    with pytest.raises(PoolFull):
        await pool.env(screenshot=False)
    assert await _envs_held(pool) == [3, 3]


@pytest.mark.browser
@pytest.mark.asyncio(loop_scope="module")
async def test_a_local_pool_forks_across_its_two_hosts(task: TaskInstance) -> None:
    config = HostConfig(pages=1, max_envs=ROOM)
    async with EnvPool.local(2, config) as pool:
        envs = await _fork_group_across_hosts(pool, task)
        assert await _envs_held(pool) == [3, 2]
        for env in envs:
            await env.close()
        assert await _envs_held(pool) == [0, 0]


@pytest.mark.browser
@pytest.mark.asyncio(loop_scope="module")
async def test_a_server_that_goes_away_fails_its_envs_and_spares_the_others(
    pool: EnvPool, servers: tuple[Simulator, Simulator], task: TaskInstance
) -> None:
    """Last in the module: it stops the second server."""
    kept, lost = await pool.env(screenshot=False), await pool.env(screenshot=False)
    assert (kept.host.name, lost.host.name) == (servers[0].base_url, servers[1].base_url)
    for env in (kept, lost):
        await env.reset(task)
    await servers[1].close()
    with pytest.raises(EnvError):
        await lost.step(KeyAction(key="home"))
    assert (await _play_oracle_from_here(kept, task)).success  # the other server goes on
    await lost.close()  # nothing to tell a server that is gone: closing still succeeds
    with pytest.raises(EnvUsageError, match="closed"):
        await lost.observe()
