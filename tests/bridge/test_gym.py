"""PhoneGymEnv: the bridge contract as a Gymnasium env, over the toy counter and the simulator."""

from __future__ import annotations

import json
import threading

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from bridge.errors import EnvError, EnvUsageError
from bridge.gym import CHARSET, PhoneGymEnv
from bridge.records import TaskInstance
from bridge.reward import shaped_reward
from bridge.schema import FinishAction, Observation, PolicyContext, TapAction, Target, TypeAction
from bridge.sync import LoopThread
from tests.bridge.toy_env import BUTTON, CounterEnv, counter_task

TAP = TapAction(target=Target.node(BUTTON)).model_dump_json()
FINISH = FinishAction().model_dump_json()
FRAME = (24, 12)
"""The toy's screenshots are 12 x 24 pixels (its screen says 108 x 240)."""


class _Made:
    """An env factory that keeps the envs it made, to look at what they were asked."""

    def __init__(self, env_type: type[CounterEnv] = CounterEnv, **knobs: object) -> None:
        self.env_type, self.knobs = env_type, knobs
        self.envs: list[CounterEnv] = []

    async def __call__(self) -> CounterEnv:
        env = self.env_type(**self.knobs)  # type: ignore[arg-type]
        self.envs.append(env)
        return env

    @property
    def last(self) -> CounterEnv:
        return self.envs[-1]


@pytest.fixture
def made() -> _Made:
    return _Made()


def _gym(made: _Made, **options: object) -> PhoneGymEnv:
    options.setdefault("task", counter_task(3, max_steps=10))
    return PhoneGymEnv(made, **options)  # type: ignore[arg-type]


def test_check_env_passes_without_a_warning(made: _Made) -> None:
    env = _gym(made, render_mode="rgb_array")
    check_env(env)
    check_env(env.unwrapped)
    env.close()


def test_spaces_are_json_text_actions_and_screen_tensors(made: _Made) -> None:
    with _gym(made) as env:
        obs, info = env.reset()
        assert env.observation_space["screenshot"].shape == (*FRAME, 3)
        assert obs["screenshot"].dtype == np.uint8 and obs["screenshot"].shape == (*FRAME, 3)
        assert obs["ui"].splitlines() == [
            '[1] TextView "0" @(54,65)',
            '[2] Button "+" clickable @(54,174)',
        ]
        assert isinstance(info["observation"], Observation)
        assert obs in env.observation_space and TAP in env.action_space
        assert "characters>" in repr(env.action_space)  # not 21,000 characters of charset


def test_a_full_episode_earns_the_terminal_shaped_reward(made: _Made) -> None:
    with _gym(made) as env:
        env.reset()
        for _ in range(3):
            obs, reward, terminated, truncated, info = env.step(TAP)
            assert (reward, terminated, truncated) == (0.0, False, False)
            assert "verdict" not in info and info["error"] is None
        assert obs["ui"].splitlines()[0] == '[1] TextView "3" @(54,65)'
        _, reward, terminated, truncated, info = env.step(FINISH)
        assert terminated and not truncated
        verdict = info["verdict"]
        assert verdict.success and reward == shaped_reward(verdict, FinishAction(), False) == 1.0
        assert info["shaped_reward"] == reward
        with pytest.raises(EnvUsageError, match="call reset"):
            env.step(TAP)


def test_reaching_the_goal_without_finishing_is_truncated_at_half_credit(made: _Made) -> None:
    with _gym(made, task=counter_task(2, max_steps=3)) as env:
        env.reset()
        rewards, ends = [], []
        for _ in range(3):
            _, reward, terminated, truncated, info = env.step(
                TAP if len(rewards) < 2 else '{"type": "wait"}'
            )
            rewards.append(reward)
            ends.append((terminated, truncated))
        assert ends == [(False, False), (False, False), (False, True)]
        assert rewards == [0.0, 0.0, 0.5] and info["verdict"].success


def test_max_steps_overrides_the_tasks_budget(made: _Made) -> None:
    with _gym(made, max_steps=1) as env:
        env.reset()
        _, reward, terminated, truncated, info = env.step(TAP)
        assert truncated and not terminated and reward == 0.0 and not info["verdict"].success


def test_an_unparseable_action_is_an_invalid_step_without_an_env_call(made: _Made) -> None:
    with _gym(made, task=counter_task(3, max_steps=2)) as env:
        before, _ = env.reset()
        obs, reward, terminated, truncated, info = env.step('{"type": "tap", "target": ')
        assert made.last.steps == 0 and made.last.actions == []
        assert (reward, terminated, truncated) == (0.0, False, False)
        assert info["invalid"] and info["executed"] is None
        assert info["error"].startswith("invalid action: ") and "JSON" in info["error"]
        assert np.array_equal(obs["screenshot"], before["screenshot"]) and obs["ui"] == before["ui"]
        assert info["observation"].step == 1
        assert info["observation"].last_action_error == info["error"]
        _, _, _, truncated, info = env.step('{"type": "teleport"}')
        assert truncated and "teleport" in info["error"] and made.last.steps == 0
        assert info["shaped_reward"] == 0.0


def test_chinese_text_round_trips_through_the_action_space(made: _Made) -> None:
    typed = TypeAction(text="你好，世界！「測試」。", submit=True)
    action = typed.model_dump_json()
    with _gym(made) as env:
        assert action in env.action_space
        env.reset()
        env.step(action)
        assert made.last.actions == [typed]
        emoji = json.dumps({"type": "type", "text": "晚安 🌙"})  # \u escapes: plain ASCII
        assert emoji in env.action_space
        assert (
            json.dumps({"type": "type", "text": "晚安 🌙"}, ensure_ascii=False)
            not in env.action_space
        )
        env.step(emoji)
        assert made.last.actions[-1] == TypeAction(text="晚安 🌙")
    for char in "\u4e00\u9fff，。：？！、「」…é°\n":
        assert char in CHARSET


def test_seed_overrides_the_tasks_seed(made: _Made) -> None:
    with _gym(made, task=counter_task(3, seed=4)) as env:
        _, info = env.reset(seed=11)
        assert info["task"].seed == 11 and info["task"].params == {"target": 3}
        _, info = env.reset()
        assert info["task"].seed == 4


def test_a_task_sampler_gets_the_seed_or_one_drawn_from_np_random(made: _Made) -> None:
    seeds: list[int] = []

    def sample(seed: int) -> TaskInstance:
        seeds.append(seed)
        return counter_task(1 + seed % 5, seed=seed)

    with _gym(made, task=sample, screenshot=None) as env:
        _, info = env.reset(seed=7)
        assert info["task"].seed == 7 and info["task"].params == {"target": 3}
        env.reset(seed=1)
        env.reset()
        env.reset(seed=1)
        env.reset()
        assert seeds[:2] == [7, 1] and seeds[2] == seeds[4] and seeds[3] == 1


def test_options_pose_a_task_and_no_task_at_all_says_how(made: _Made) -> None:
    with PhoneGymEnv(made, screenshot=FRAME) as env:
        with pytest.raises(ValueError, match=r"options=\{'task': task\}"):
            env.reset()
        env.reset(options={"task": counter_task(1).model_dump(mode="json")})
        env.step(TAP)
        _, reward, terminated, _, _ = env.step(FINISH)
        assert terminated and reward == 1.0
        with pytest.raises(ValueError, match="only 'task'"):
            env.reset(options={"task": counter_task(), "level": "L1"})
    with pytest.raises(ValueError, match="screenshot=\\(height, width\\)"):
        PhoneGymEnv(made)


def test_dense_rewards_are_progress_deltas(made: _Made) -> None:
    with _gym(made, task=counter_task(2), reward="dense") as env:
        env.reset()
        rewards = []
        for action in (TAP, "not json", TAP, TAP, TAP, FINISH):
            _, reward, terminated, _, info = env.step(action)
            rewards.append(reward)
        assert rewards == [0.0, 0.0, 1.0, -1.0, 0.0, 0.0]
        assert terminated and not info["verdict"].success and info["shaped_reward"] == 0.0


def test_screenshots_can_be_resized_or_left_out(made: _Made) -> None:
    with _gym(made, screenshot=(48, 30)) as env:
        obs, _ = env.reset()
        assert obs["screenshot"].shape == (48, 30, 3) and obs in env.observation_space
    with _gym(made, screenshot=None, render_mode="rgb_array") as env:
        obs, _ = env.reset()
        assert set(obs) == {"ui"}
        frame = env.render()
        assert frame is not None and frame.shape == (*FRAME, 3)


class _Emoji(CounterEnv):
    def _observe(self, error: str | None) -> Observation:
        obs = super()._observe(error)
        ui = [
            node.model_copy(update={"text": "🙂 ok"}) if node.id == 1 else node for node in obs.ui
        ]
        return obs.model_copy(update={"ui": ui})


def test_ui_text_outside_the_charset_is_replaced() -> None:
    with _gym(_Made(_Emoji), ui_max_length=20) as env:
        obs, _ = env.reset()
        assert obs["ui"] == '[1] TextView "\ufffd ok"…'
        assert obs in env.observation_space


def test_env_errors_propagate_and_end_the_episode() -> None:
    with _gym(_Made(fail_on_step=0)) as env:
        env.reset()
        with pytest.raises(EnvError, match="crashed"):
            env.step(TAP)
        with pytest.raises(EnvUsageError, match="reset"):
            env.step(TAP)


def test_close_is_idempotent_and_stops_the_thread(made: _Made) -> None:
    before = set(threading.enumerate())
    env = _gym(made)
    loop_thread = env.sync_env.loop.thread
    assert loop_thread.is_alive()
    env.close()
    env.close()
    assert made.last.close_calls == 1 and not loop_thread.is_alive()
    assert set(threading.enumerate()) == before


@pytest.mark.browser
def test_over_the_simulator() -> None:
    from policies.scripted import PlanPolicy
    from sim.simulator import SimConfig, Simulator

    task_id = "settings/SetWifi-v1"
    with LoopThread() as loop:
        sim = loop.run(Simulator(SimConfig(pages=1)).start())
        try:

            def sample(seed: int) -> TaskInstance:
                return sim.tasks.instantiate(task_id, seed)

            env = PhoneGymEnv(sim.env, task=sample, screenshot=(240, 108), loop=loop)
            check_env(env)
            obs, info = env.reset(seed=3)
            task = info["task"]
            assert obs["screenshot"].shape == (240, 108, 3) and "Settings" in obs["ui"]
            policy = PlanPolicy(sim.tasks.get(task_id).oracle_for(task))
            loop.run(policy.reset(task.instruction, PolicyContext.for_task(task)))
            observation, terminated, truncated = info["observation"], False, False
            while not (terminated or truncated):
                action = loop.run(policy.act(observation)).action
                assert action is not None
                obs, reward, terminated, truncated, info = env.step(action.model_dump_json())
                observation = info["observation"]
                assert obs in env.observation_space
            assert terminated and info["verdict"].success and reward == 1.0
            env.close()
        finally:
            loop.run(sim.close())
