"""The env pool on a real Ray cluster of three nodes on this machine (``ray.cluster_utils``).

Each node offers one CPU and each host reserves one, so one host lands on each node; every
host runs its own Chromium. The tests check where envs go, that a fork group spread over
hosts starts from one state and steps in parallel, and what a host killed mid-episode does
to the episode (an infra error) and to the pool (it recovers).
"""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Iterator

import pytest

from bridge.env import ForkableEnv
from bridge.errors import EnvError
from bridge.runner import run_episode
from bridge.schema import KeyAction, Observation, PolicyContext, PolicyOutput, TaskInstance
from policies.scripted import PlanPolicy
from scaleout.host import HostConfig, HostRestarted
from scaleout.pool import EnvPool, PoolFull
from sim.simulator import Simulator
from sim.tasks.registry import default_registry

ray = pytest.importorskip("ray", reason="Ray is part of make test's install (the [ray] extra)")
from ray.cluster_utils import Cluster  # noqa: E402

pytestmark = [pytest.mark.browser, pytest.mark.asyncio]

NODES = 3


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    """A head and two worker nodes, one CPU each, on this machine.

    Ray puts its nodes on the machine's own address, not loopback (a loopback address is
    turned into that one by Ray itself); Ray's token authentication guards them."""
    node = {"num_cpus": 1, "include_dashboard": False}
    cluster = Cluster(initialize_head=True, head_node_args=node)
    for _ in range(NODES - 1):
        cluster.add_node(**node)
    cluster.wait_for_nodes()
    ray.init(address=cluster.address, log_to_driver=False, configure_logging=False)
    try:
        yield cluster
    finally:
        ray.shutdown()
        cluster.shutdown()


@pytest.fixture(scope="module")
def task() -> TaskInstance:
    """An L1 Settings task with a short oracle plan."""
    registry, sim = default_registry(), Simulator()
    world = {app_id: app.world for app_id, app in sim.phone.apps.items()}
    return registry.instantiate("settings/SetAirplaneMode-v1", 0, world, "en")


def _oracle(task: TaskInstance) -> PlanPolicy:
    return PlanPolicy(default_registry().get(task.task_id).oracle_for(task))


async def _play_from_here(env: ForkableEnv, task: TaskInstance) -> None:
    """Follow the oracle from the env's current screen (no reset)."""
    policy = _oracle(task)
    await policy.reset(task.instruction, PolicyContext.for_task(task))
    observation = await env.observe()  # type: ignore[attr-defined]
    for _ in range(task.max_steps):
        decision = await policy.act(observation)
        assert decision.action is not None, decision.error
        result = await env.step(decision.action)
        if result.done or decision.action.type in ("finish", "answer"):
            return
        observation = result.observation


async def _pool(**options: object) -> EnvPool:
    config = HostConfig(pages=1, max_envs=int(options.pop("max_envs", 8)))  # type: ignore[call-overload]
    return await EnvPool.ray(config=config, **options)  # type: ignore[arg-type]


async def test_one_host_per_node_and_envs_spread_over_them(cluster: Cluster) -> None:
    async with await _pool() as pool:
        infos = await pool.load()
        assert len(infos) == NODES
        assert len({info.node for info in infos}) == NODES  # one host on each node
        assert len({info.pid for info in infos}) == NODES
        envs = [await pool.env(screenshot=False) for _ in range(NODES)]
        assert len({env.host.name for env in envs}) == NODES  # least loaded first
        loads = {info.name: info.envs for info in await pool.load()}
        assert sorted(loads.values()) == [1] * NODES
        for env in envs:
            await env.close()
        assert [info.envs for info in await pool.load()] == [0] * NODES


async def test_a_fork_group_spans_hosts_from_one_state_and_steps_in_parallel(
    cluster: Cluster, task: TaskInstance
) -> None:
    async with await _pool(hosts=2, max_envs=3) as pool:
        parent = await pool.env(screenshot=False)
        first = await parent.reset(task)
        group = await parent.fork(4)  # 2 more fit beside the parent, 2 go to the other host
        hosts = [env.host.name for env in group]
        assert hosts.count(parent.host.name) == 2 and len(set(hosts)) == 2
        for env in group:  # every copy starts where the parent was
            assert (await env.observe()).ui == first.ui
        await asyncio.gather(*(_play_from_here(env, task) for env in group))
        verdicts = await asyncio.gather(*(env.verdict() for env in group))
        assert all(v.success for v in verdicts), [v.model_dump() for v in verdicts]
        assert not (await parent.verdict()).success  # the parent did not move
        with pytest.raises(PoolFull, match="do not fit"):
            await parent.fork(2)


async def test_a_host_killed_mid_episode_is_an_infra_error_and_the_pool_recovers(
    cluster: Cluster, task: TaskInstance
) -> None:
    async with await _pool(hosts=1, max_restarts=2) as pool:
        env = await pool.env(screenshot=False)
        await env.reset(task)
        pid = (await pool.load())[0].pid
        os.kill(pid, signal.SIGKILL)
        with pytest.raises(EnvError, match=r"died|restarted"):
            await env.step(KeyAction(key="home"))
        assert (await pool.load())[0].pid != pid  # waits until Ray restarted the host
        # the restarted host knows nothing of the env; it says so as an infra error
        with pytest.raises(HostRestarted, match="restarted"):
            await env.observe()
        await env.close()  # closing a lost env is fine
        fresh = await pool.env(screenshot=False)  # the pool recovers on the new incarnation
        assert (await fresh.reset(task)).ui
        info = (await pool.load())[0]
        assert info.pid != pid and info.envs == 1


class _KillsTheHostAtStep2:
    """The oracle, except that before its second action the host process is killed."""

    def __init__(self, task: TaskInstance, pool: EnvPool) -> None:
        self.inner, self.pool, self.steps = _oracle(task), pool, 0
        self.name = "kills-the-host"

    async def reset(self, instruction: str, context: PolicyContext) -> None:
        await self.inner.reset(instruction, context)

    async def act(self, observation: Observation) -> PolicyOutput:
        self.steps += 1
        if self.steps == 2:
            os.kill((await self.pool.load())[0].pid, signal.SIGKILL)
        return await self.inner.act(observation)


async def test_the_runner_records_a_dead_host_as_an_infra_error(
    cluster: Cluster, task: TaskInstance
) -> None:
    async with await _pool(hosts=1, max_restarts=1) as pool:
        env = await pool.env(screenshot=False)
        policy = _KillsTheHostAtStep2(task, pool)
        record = await run_episode(policy, env, task, episode_id="killed", step_timeout_s=60)
        assert record.outcome == "infra_error", record.outcome
        assert record.error_source == "env"
        assert "died" in (record.error or ""), record.error
