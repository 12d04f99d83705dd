"""trainers.gym_vector: a Gymnasium 1.x VectorEnv (the real gymnasium package) over
sub-envs of one in-process simulator, stepped concurrently on its loop thread."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode, VectorEnv

from bridge.env import Env
from bridge.gym import PhoneGymEnv
from bridge.schema import Action, StepResult
from tests.trainers.helpers import LosesHost, action_script, airplane_task
from tests.trainers.sync_world import SyncWorld
from trainers.errors import TrainerError
from trainers.gym_vector import PhoneVectorEnv

pytestmark = pytest.mark.browser


class Rendezvous:
    """Sub-env steps that only finish once ``n`` of them are in flight at the same time,
    recording the thread each ran on: a sequential vector env would time out."""

    def __init__(self, n: int) -> None:
        self.n, self.inside, self.threads = n, 0, set[threading.Thread]()
        self.all_in: asyncio.Event | None = None

    def wrap(self, env: Env) -> Env:
        rendezvous = self

        class Met:
            async def reset(self, task: Any) -> Any:
                return await env.reset(task)

            async def step(self, action: Action) -> StepResult:
                rendezvous.threads.add(threading.current_thread())
                if rendezvous.all_in is None:
                    rendezvous.all_in = asyncio.Event()
                rendezvous.inside += 1
                if rendezvous.inside == rendezvous.n:
                    rendezvous.all_in.set()
                await asyncio.wait_for(rendezvous.all_in.wait(), timeout=10)
                return await env.step(action)

            async def verdict(self) -> Any:
                return await env.verdict()

            async def close(self) -> None:
                await env.close()

        return Met()  # type: ignore[return-value]


def _vector(world: SyncWorld, n: int = 2, make_env: Any = None, **options: Any) -> PhoneVectorEnv:
    async def plain() -> Env:
        return await world.sim.env(screenshot=False)

    return PhoneVectorEnv(
        make_env or plain,
        n,
        loop=world.loop,
        task=airplane_task(world.sim),
        screenshot=options.pop("screenshot", None),
        **options,
    )


def test_spaces_are_phone_gym_envs_batched(world: SyncWorld) -> None:
    with _vector(world, make_env=world.sim.env, screenshot="auto") as envs:
        assert isinstance(envs, VectorEnv) and envs.num_envs == 2
        assert envs.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP
        single = envs.envs[0].observation_space
        assert isinstance(envs.envs[0], PhoneGymEnv) and envs.single_observation_space == single
        assert envs.envs[1].observation_space == single  # the probed frame size, shared
        shot = envs.observation_space["screenshot"]
        assert shot.shape == (2, *single["screenshot"].shape) and shot.dtype == np.uint8
        assert isinstance(envs.action_space, gymnasium.spaces.Tuple)
        obs, _ = envs.reset(seed=0)
        assert obs["screenshot"].shape == shot.shape and obs["screenshot"].any()
        assert envs.observation_space.contains(obs)


def test_both_envs_solve_the_task_then_autoreset_on_the_next_step(world: SyncWorld) -> None:
    script = action_script(world.point)
    with _vector(world) as envs:
        obs, infos = envs.reset(seed=0)
        assert len(obs["ui"]) == 2 and infos["task"][1].seed == 1
        for action in script[:-1]:
            _, rewards, terminated, truncated, infos = envs.step((action, action))
            assert not rewards.any() and not (terminated | truncated).any()
        _, rewards, terminated, truncated, infos = envs.step((script[-1], script[-1]))
        assert rewards.tolist() == [1.0, 1.0] and terminated.all() and not truncated.any()
        assert infos["_verdict"].all() and all(v.success for v in infos["verdict"])
        assert not infos["infra_error"].any()
        _, rewards, terminated, truncated, infos = envs.step((script[0], "not json"))
        assert not rewards.any() and not (terminated | truncated).any()
        assert infos["_task"].all()  # both were reset, their actions ignored


def test_the_sub_envs_step_concurrently_on_the_one_loop_thread(world: SyncWorld) -> None:
    rendezvous = Rendezvous(3)

    async def met() -> Env:
        return rendezvous.wrap(await world.sim.env(screenshot=False))

    with _vector(world, 3, make_env=met) as envs:
        envs.reset(seed=0)
        open_settings = action_script(world.point)[0]
        envs.step((open_settings,) * 3)
    assert rendezvous.threads == {world.loop.thread}


def test_a_lost_host_flags_that_env_only_and_it_is_replaced_at_autoreset(
    world: SyncWorld,
) -> None:
    made: list[Env] = []

    async def first_one_loses() -> Env:
        env = await world.sim.env(screenshot=False)
        made.append(LosesHost(env, fail_at=1) if not made else env)
        return made[-1]

    script = action_script(world.point)
    with _vector(world, make_env=first_one_loses) as envs:
        envs.reset(seed=0)
        envs.step((script[0], script[0]))
        _, rewards, terminated, truncated, infos = envs.step((script[1], script[1]))
        assert infos["infra_error"].tolist() == [True, False]
        assert truncated.tolist() == [True, False] and not terminated.any()
        assert rewards.tolist() == [0.0, 0.0] and "host went away" in infos["error"][0]
        assert len(made) == 2
        _, _, terminated, truncated, infos = envs.step((script[2], script[2]))
        assert len(made) == 3 and not isinstance(envs.envs[0].sync_env.env, LosesHost)
        assert infos["_task"].tolist() == [True, False]  # env 0 was reset, env 1 stepped
        assert terminated.tolist() == [False, True]


def test_actions_and_seeds_must_match_the_envs(world: SyncWorld) -> None:
    with _vector(world) as envs:
        envs.reset(seed=[3, 4])
        with pytest.raises(TrainerError, match="one per env"):
            envs.reset(seed=[1])
        with pytest.raises((TrainerError, ValueError, AssertionError)):
            envs.step(("{}",))
