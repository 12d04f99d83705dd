"""The env pool on a real Ray cluster of two nodes on this machine (``ray.cluster_utils``).

Each node offers one CPU and each host reserves one, so one host lands on each node; every
host runs its own Chromium. The tests check where envs go, that a fork group spread over
hosts starts from one state and steps in parallel, and what a host killed mid-episode does
to the episode (an infra error) and to the pool (it recovers).
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import ray
from ray.cluster_utils import Cluster
from typer.testing import CliRunner

from bridge.env import ForkableEnv
from bridge.records import TaskInstance
from bridge.runner import run_episode
from bridge.schema import Observation, PolicyContext, PolicyOutput
from bridge.sync import LoopThread
from bridge.trajectory import RunStore
from policies.learned import LearnedPolicy
from policies.scripted import PlanPolicy
from policies.vlm.client import ClientConfig
from scaleout.errors import HostRestarted, PoolFull
from scaleout.host import HostConfig
from scaleout.pool import EnvPool
from sim.simulator import Simulator
from sim.tasks.registry import default_registry
from tests.trainers.helpers import (
    MODEL,
    action_script,
    airplane_point,
    airplane_task,
    generic_script,
    serve_endpoint,
)
from tests.trainers.sync_world import SyncWorld
from tests.trainers.test_rllm_flow import Task as RllmTask
from tests.trainers.test_rllm_flow import _config as rllm_config
from tests.trainers.test_rllm_flow import rllm  # noqa: F401  (the stand-in rLLM, a fixture)
from tests.trainers.test_verl_loop import _loop as verl_agent
from tests.trainers.test_verl_loop import _row as verl_row
from tests.trainers.test_verl_loop import verl  # noqa: F401  (the stand-in verl, a fixture)
from transfer_eval.commands import mgb_app

pytestmark = pytest.mark.browser

NODES = 2
"""A head and one worker node: enough for every placement below (each spans at most two
hosts), and every node costs its raylet and, once a host lands there, a Chromium."""


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    """A head and ``NODES - 1`` worker nodes, one CPU each, on this machine.

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
    registry = default_registry()
    return registry.instantiate("settings/SetAirplaneMode-v1", 0, "en")


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


@pytest.mark.asyncio
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


@pytest.mark.asyncio
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


class _KillsTheHostAtStep2:
    """The oracle, except that before its second action the host process is killed."""

    def __init__(self, task: TaskInstance, pool: EnvPool) -> None:
        self.inner, self.pool, self.steps = _oracle(task), pool, 0
        self.name = "kills-the-host"
        self.killed: int | None = None

    async def reset(self, instruction: str, context: PolicyContext) -> None:
        await self.inner.reset(instruction, context)

    async def act(self, observation: Observation) -> PolicyOutput:
        self.steps += 1
        if self.steps == 2:
            self.killed = (await self.pool.load())[0].pid
            os.kill(self.killed, signal.SIGKILL)
        return await self.inner.act(observation)


@pytest.mark.asyncio
async def test_a_host_killed_mid_episode_is_an_infra_error_and_the_pool_recovers(
    cluster: Cluster, task: TaskInstance
) -> None:
    """The host killed under the runner mid-episode: the step fails as the env's infra
    error (``died``), the episode is recorded so, and the pool goes on with the restarted
    host."""
    async with await _pool(hosts=1, max_restarts=1) as pool:
        env = await pool.env(screenshot=False)
        policy = _KillsTheHostAtStep2(task, pool)
        record = await run_episode(policy, env, task, episode_id="killed", step_timeout_s=60)
        assert record.outcome == "infra_error", record.outcome
        assert record.error_source == "env"
        assert "died" in (record.error or ""), record.error
        assert (await pool.load())[0].pid != policy.killed  # waits until Ray restarted it
        # the restarted host knows nothing of the env; it says so as an infra error
        with pytest.raises(HostRestarted, match="restarted"):
            await env.observe()
        await env.close()  # closing a lost env is fine
        fresh = await pool.env(screenshot=False)  # the pool recovers on the new incarnation
        assert (await fresh.reset(task)).ui
        info = (await pool.load())[0]
        assert info.pid != policy.killed and info.envs == 1


# ---------------------------------------------------------------- the commands, --ray


def test_mgb_sim_run_with_ray_runs_its_episodes_on_the_cluster(
    cluster: Cluster, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    args = ["sim", "run", "--task", "settings/SetAirplaneMode-v1", "--seeds", "0,1",
            "--out", str(out), "--ray", "--ray-hosts", "2"]  # fmt: skip
    result = CliRunner().invoke(mgb_app, args)
    assert result.exit_code == 0, result.output
    assert "simulator on Ray (local, 2 hosts)" in result.output
    records = RunStore.open(out).completed()
    assert sorted(r.outcome for r in records.values()) == ["success", "success"]
    assert "source" not in RunStore.open(out).manifest.config  # where is not what


def test_mgb_train_with_ray_trains_on_the_cluster(cluster: Cluster, tmp_path: Path) -> None:
    split = {
        "description": "one template, a smoke run",
        "apps": ["settings", "contacts", "answersheet"],
        "train": {"grid": {"tasks": ["settings/SetAirplaneMode-v1"],
                           "seeds": {"first": 0, "count": 4}, "lang": "alternate"}},
        "test": {"grid": {"tasks": ["settings/SetAirplaneMode-v1"],
                          "seeds": {"first": 1000, "count": 2}, "lang": "alternate"}},
    }  # fmt: skip
    (tmp_path / "split.json").write_text(json.dumps(split), encoding="utf-8")
    out = tmp_path / "trained"
    args = ["train", "--tasks", str(tmp_path / "split.json"), "--envs", "2", "--group", "2",
            "--iters", "1", "--out", str(out), "--ray"]  # fmt: skip
    result = CliRunner().invoke(mgb_app, args)
    assert result.exit_code == 0, result.output
    assert "simulator on Ray (local, a host per node)" in result.output
    assert LearnedPolicy.load(out).config.training["train_steps"] > 0  # type: ignore[index]


# ---------------------------------------------------------------- trainer adapters on the pool


class _PoolAsSim:
    """What the trainer-adapter tests use of a Simulator (``env``, ``tasks``, ``phone``),
    with every env on the cluster's hosts: the adapters' own tests run in-process, these
    run one episode of each adapter on the cluster."""

    def __init__(self, pool: EnvPool) -> None:
        driver = Simulator()  # never started: the registry and world data
        self.env, self.tasks, self.phone = pool.env, driver.tasks, driver.phone


@pytest.fixture(scope="module")
def world(cluster: Cluster) -> Iterator[SyncWorld]:
    """Two hosts and the stand-in model endpoint on a loop thread (the synchronous adapters
    run their envs there)."""
    with LoopThread(name="cluster-trainers") as loop:
        pool = loop.run(EnvPool.ray(hosts=2, config=HostConfig(pages=1)))
        serving = serve_endpoint()
        endpoint = loop.run(serving.__aenter__())
        try:
            sim = _PoolAsSim(pool)
            yield SyncWorld(loop, sim, endpoint, loop.run(airplane_point(sim)))  # type: ignore[arg-type]
        finally:
            loop.run(serving.__aexit__(None, None, None))
            loop.run(pool.close())


def test_the_shared_rollout_plays_an_episode_on_the_cluster(world: SyncWorld) -> None:
    from trainers.rollout import rollout

    world.endpoint.script(generic_script(world.point))
    task = airplane_task(world.sim)
    client = ClientConfig(base_url=world.endpoint.base_url, model=MODEL, max_retries=0).build()

    async def model(messages: list[Any]) -> str:  # on the loop that serves the endpoint
        return (await client.complete(messages)).text

    make_env = partial(world.sim.env, screenshot=False)
    outcome = world.loop.run(rollout(make_env, task, model, "generic"))
    assert outcome.reward == 1.0 and outcome.success and not outcome.infra_error


def test_a_gymnasium_vector_env_steps_its_envs_on_the_cluster(world: SyncWorld) -> None:
    from trainers.gym_vector import PhoneVectorEnv

    task = airplane_task(world.sim)
    vector = PhoneVectorEnv(partial(world.sim.env, screenshot=False), 2, loop=world.loop, task=task)
    try:
        vector.reset(seed=0)
        for action in action_script(world.point):
            _, rewards, terminated, _, infos = vector.step(np.array([action, action]))
        assert list(terminated) == [True, True] and list(rewards) == [1.0, 1.0]
        assert not any(infos["infra_error"])
    finally:
        vector.close()


def test_the_gem_text_env_plays_an_episode_on_the_cluster(world: SyncWorld) -> None:
    from trainers.gem_env import PhoneTextEnv

    world.endpoint.script(generic_script(world.point))
    make_env = partial(world.sim.env, screenshot=False)
    task = airplane_task(world.sim)
    with PhoneTextEnv(make_env=make_env, task=task, loop=world.loop, adapter="generic") as env:
        obs, _ = env.reset(seed=0)
        while True:
            obs, reward, terminated, truncated, info = env.step(world.ask(obs))
            if terminated or truncated:
                break
    assert reward == 1.0 and terminated and not info["infra_error"]


@pytest.mark.usefixtures("verl")
def test_the_verl_agent_loop_plays_a_sample_on_the_cluster(world: SyncWorld) -> None:
    from trainers.verl_loop import make_agent_loop

    world.endpoint.script(generic_script(world.point))
    factory = partial(world.sim.env, screenshot=False)
    agent = verl_agent(make_agent_loop(), world.endpoint, env_factory=factory, adapter="generic")
    output = world.loop.run(agent.run({}, **verl_row(airplane_task(world.sim))))
    assert output.reward_score == 1.0 and not output.extra_fields["infra_error"]


@pytest.mark.usefixtures("rllm")
def test_the_rllm_flow_plays_a_task_on_the_cluster(world: SyncWorld) -> None:
    from trainers.rllm_flow import make_evaluator, make_flow
    from trainers.rows import task_row

    world.endpoint.script(generic_script(world.point))
    flow = make_flow(partial(world.sim.env, screenshot=False), adapter="generic",
                     client_options={"max_retries": 0})  # fmt: skip
    row = task_row(airplane_task(world.sim))
    episode = world.loop.run(flow.arun(RllmTask(data=row), rllm_config(world.endpoint)))
    assert episode.is_correct and make_evaluator().evaluate(row, episode).reward == 1.0


def test_the_skyrl_env_plays_an_episode_on_the_cluster(world: SyncWorld) -> None:
    import skyrl_gym

    from trainers.rows import task_row
    from trainers.skyrl_env import SKYRL_ENV_ID, register_skyrl

    world.endpoint.script(generic_script(world.point))
    env_id = register_skyrl(f"{SKYRL_ENV_ID}-cluster")
    try:
        config = {
            "env_factory": partial(world.sim.env, screenshot=False),
            "adapter": "generic",
            "loop": world.loop,
        }
        env = skyrl_gym.make(env_id, env_config=config, extras=task_row(airplane_task(world.sim)))
        try:
            chat, _ = env.init([{"role": "user", "content": "(the dataset's prompt)"}])
            while True:
                reply = world.ask(chat)
                output = env.step(reply)
                chat = [*chat, {"role": "assistant", "content": reply}, *output["observations"]]
                if output["done"]:
                    break
        finally:
            env.close()
        assert output["reward"] == 1.0 and not output["metadata"]["infra_error"]
    finally:
        skyrl_gym.envs.registration.deregister(env_id)
