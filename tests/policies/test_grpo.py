"""The GRPO trainer without a browser: reward shaping on literal verdicts, advantages, the
gradient, Adam, the bridge-only import rule, whole training runs on a toy forkable env, and
which env failures are infra rollouts (mapped errors) and which stop training (bugs)."""

from __future__ import annotations

import ast
import asyncio
import copy
import json
from pathlib import Path

import numpy as np
import pytest

from bridge.actions import (
    Action,
    AnswerAction,
    FinishAction,
    KeyAction,
    OpenAppAction,
    TapAction,
)
from bridge.env import ForkableEnv
from bridge.errors import EnvError, EnvUsageError
from bridge.records import TaskInstance
from bridge.schema import (
    BackendInfo,
    CheckResult,
    Foreground,
    Observation,
    ScreenSpec,
    StepResult,
    UINode,
    Verdict,
)
from policies.grpo import (
    GRPOConfig,
    Rollout,
    evaluate,
    group_advantages,
    policy_gradient,
    shaped_reward,
    train,
)
from policies.learned import DIM, LearnedPolicy, StepTrace
from policies.learned.optim import SGD, Adam
from policies.learned.prior import initial_weights

GRPO_SOURCE = Path(__file__).resolve().parents[2] / "policies" / "grpo.py"


def _verdict(passed: int, total: int, *, clean: bool = True) -> Verdict:
    checks = [CheckResult(name=f"c{i}", passed=i < passed) for i in range(total)]
    return Verdict.from_checks(checks, side_effects=None if clean else ["settings.global.x"])


# --------------------------------------------------------------------------- reward shaping


@pytest.mark.parametrize(
    ("verdict", "final", "expected"),
    [
        (_verdict(1, 1), FinishAction(), 1.0),  # clean success, finished: full credit
        (_verdict(1, 1, clean=False), FinishAction(), 0.8),  # side effects
        (_verdict(1, 1), FinishAction(status="abort"), 0.5),  # abort after success
        (_verdict(1, 1), TapAction.model_validate({"target": {"element": 1}}), 0.5),  # overdue
        (_verdict(1, 1), None, 0.5),  # overdue: no action at all
        (_verdict(1, 1, clean=False), None, 0.4),  # both factors multiply
        (_verdict(1, 2), FinishAction(), 0.4),  # finished without the goal: 0.5 x 0.8
        (_verdict(1, 2), KeyAction(key="back"), 0.5),  # partial progress, not finished
        (_verdict(0, 2), FinishAction(), 0.0),
        (_verdict(1, 1), AnswerAction(fields={"n": 3}), 1.0),  # answering ends the episode
        (_verdict(0, 1), AnswerAction(fields={"n": 4}), 0.0),
        # a world that cannot observe side effects (clean None) is not penalised for them
        (
            Verdict.from_checks(
                [CheckResult(name="c", passed=True)], clean=None, clean_reason="no"
            ),
            FinishAction(),
            1.0,
        ),
    ],
)
def test_shaped_reward_follows_mobilegym(verdict: Verdict, final: Action | None, expected: float):
    assert shaped_reward(verdict, final, infra_error=False) == pytest.approx(expected)


def test_infra_errors_get_no_reward() -> None:
    assert shaped_reward(_verdict(1, 1), FinishAction(), infra_error=True) == 0.0
    assert shaped_reward(None, FinishAction(), infra_error=False) == 0.0


# --------------------------------------------------------------------------- advantages


def test_group_advantages_are_normalized() -> None:
    advantages = group_advantages([1.0, 0.0, 0.0, 1.0])
    assert advantages == pytest.approx([1.0, -1.0, -1.0, 1.0], abs=1e-5)
    rewards = [0.2, 0.5, 0.9, 0.1]
    advantages = group_advantages(rewards)
    assert advantages.mean() == pytest.approx(0.0, abs=1e-12)
    assert advantages.std() == pytest.approx(1.0, abs=1e-4)
    assert np.argsort(advantages).tolist() == np.argsort(rewards).tolist()


def test_equal_rewards_give_no_signal() -> None:
    assert group_advantages([0.5, 0.5, 0.5]).tolist() == [0.0, 0.0, 0.0]
    assert group_advantages([]).size == 0


def _trace(direction: np.ndarray) -> StepTrace:
    return StepTrace(0.0, direction, 0.0, np.zeros_like(direction))


def test_gradient_weighs_steps_by_advantage_and_skips_infra_errors() -> None:
    up, down = np.array([1.0, 0.0]), np.array([0.0, 1.0])
    good = Rollout(1.0, True, 2, [_trace(up), _trace(up)])
    bad = Rollout(0.0, False, 1, [_trace(down)])
    broken = Rollout(0.0, False, 1, [_trace(up * 100)], infra_error="EnvError: page crashed")
    grad = policy_gradient([[good, bad, broken]], np.zeros(2), entropy_coef=0.0, l2=0.0)
    # advantages +1 / -1; each rollout's steps averaged; mean over the 2 judged rollouts
    assert grad == pytest.approx([0.5, -0.5], abs=1e-5)
    decay = policy_gradient([[good, good]], np.ones(2), entropy_coef=0.0, l2=0.1)
    assert decay == pytest.approx([-0.1, -0.1])


@pytest.mark.parametrize("optimizer", [Adam(2, lr=0.1), SGD(2, lr=0.1)])
def test_optimizers_ascend_a_concave_function(optimizer: Adam | SGD) -> None:
    w = np.array([3.0, -2.0])
    for _ in range(300):
        w = optimizer.step(w, -2.0 * (w - np.array([1.0, 1.0])))  # gradient of -(w - 1)^2
    assert w == pytest.approx([1.0, 1.0], abs=0.05)


# --------------------------------------------------------------------------- layering


def test_the_trainer_imports_nothing_from_sim() -> None:
    tree = ast.parse(GRPO_SOURCE.read_text(encoding="utf-8"))
    imported: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            imported.append(node.module or "")
    ours = [name for name in imported if name.split(".")[0] in {"sim", "device", "transfer_eval"}]
    assert ours == [], f"policies/grpo.py must depend on bridge only, imports {ours}"
    assert any(name.startswith("bridge") for name in imported)


# --------------------------------------------------------------------------- a toy world

SCREEN = ScreenSpec(width_px=1080, height_px=2400)
BACKEND = BackendInfo(kind="sim", model="toy")


def _row(first: int, label: str, checked: bool, top: int) -> list[UINode]:
    box = (0, top, 1080, top + 180)
    return [
        UINode(id=first, parent=0, class_name="android.widget.LinearLayout", clickable=True,
               resource_id=f"toy:id/{label.lower()}_row", bounds_px=box),
        UINode(id=first + 1, parent=first, class_name="android.widget.TextView", text=label,
               bounds_px=(40, top + 40, 800, top + 140)),
        UINode(id=first + 2, parent=first, class_name="android.widget.Switch", checkable=True,
               checked=checked, bounds_px=(900, top + 50, 1040, top + 130)),
    ]  # fmt: skip


class ToyEnv:
    """A two-screen phone (launcher, settings with Wi-Fi and Bluetooth switches) behind the
    bridge ForkableEnv protocol; the task asks for Wi-Fi in a given state."""

    def __init__(self, state: dict[str, object] | None = None) -> None:
        self.state: dict[str, object] = state or {}
        self.closed = False

    async def reset(self, task: TaskInstance) -> Observation:
        want = bool(task.params["on"])
        self.state = {"screen": "home", "wifi": not want, "bt": True, "want": want, "step": 0}
        return self._observe()

    def _observe(self, error: str | None = None) -> Observation:
        root = UINode(id=0, class_name="android.widget.FrameLayout", bounds_px=(0, 0, 1080, 2400))
        if self.state["screen"] == "home":
            icons = [UINode(id=i + 1, parent=0, class_name="android.widget.TextView", text=name,
                            clickable=True, bounds_px=(30 + 260 * i, 550, 280 + 260 * i, 780))
                     for i, name in enumerate(("Contacts", "Settings"))]  # fmt: skip
            ui, foreground = [root, *icons], Foreground(package="toy.launcher")
        else:
            rows = _row(1, "Wi-Fi", bool(self.state["wifi"]), 250)
            rows += _row(4, "Bluetooth", bool(self.state["bt"]), 430)
            ui, foreground = [root, *rows], Foreground(app="settings", package="toy.settings")
        step = int(self.state["step"])  # type: ignore[call-overload]
        return Observation(step=step, screen=SCREEN, ui=ui, foreground=foreground,
                           backend=BACKEND, last_action_error=error)  # fmt: skip

    async def step(self, action: Action) -> StepResult:
        self.state["step"] = int(self.state["step"]) + 1  # type: ignore[call-overload]
        screen = self.state["screen"]
        if isinstance(action, TapAction) and action.target.element is not None:
            tapped = {("home", 2): "open", ("settings", 1): "wifi", ("settings", 4): "bt"}
            effect = tapped.get((str(screen), action.target.element))
            if effect == "open":
                self.state["screen"] = "settings"
            elif effect is not None:
                self.state[effect] = not self.state[effect]
        elif isinstance(action, OpenAppAction):
            self.state["screen"] = "settings" if action.app == "settings" else screen
        elif isinstance(action, KeyAction):
            self.state["screen"] = "home"
        done = isinstance(action, (FinishAction, AnswerAction))
        return StepResult(observation=self._observe(), done=done)

    async def verdict(self) -> Verdict:
        check = CheckResult(name="wifi", expected=self.state["want"], actual=self.state["wifi"],
                      passed=self.state["wifi"] == self.state["want"])  # fmt: skip
        side = [] if self.state["bt"] else ["settings.global.bluetooth_on"]
        return Verdict.from_checks([check], side_effects=side)

    async def close(self) -> None:
        self.closed = True

    async def snapshot(self) -> bytes:
        return json.dumps(self.state).encode()

    async def restore(self, snapshot: bytes) -> Observation:
        self.state = json.loads(snapshot)
        return self._observe()

    async def fork(self, n: int) -> list[ForkableEnv]:
        return [ToyEnv(copy.deepcopy(self.state)) for _ in range(n)]


def _toy_tasks(seeds: range) -> list[TaskInstance]:
    instruction = {True: "Turn on Wi-Fi.", False: "Turn off Wi-Fi."}
    return [
        TaskInstance(task_id="toy/SetWifi-v1", seed=s, params={"on": s % 2 == 0},
                     instruction=instruction[s % 2 == 0], max_steps=6, level="L1")
        for s in seeds
    ]  # fmt: skip


async def _toy_env() -> ForkableEnv:
    return ToyEnv()


def test_the_toy_env_is_a_forkable_env() -> None:
    assert isinstance(ToyEnv(), ForkableEnv)


@pytest.mark.asyncio
async def test_training_on_the_toy_world_raises_held_out_success() -> None:
    config = GRPOConfig(envs=2, group=8, iters=12, seed=3)
    init = LearnedPolicy(initial_weights("prior"))
    result = await train(init, _toy_tasks(range(0, 20)), _toy_tasks(range(100, 110)),
                         _toy_env, config)  # fmt: skip
    assert result.init_eval is not None and result.final_eval is not None
    assert result.final_eval.success_rate >= 0.9
    assert result.final_eval.success_rate > result.init_eval.success_rate
    assert [row.iteration for row in result.curve] == list(range(13))
    assert result.curve[0].eval_success == result.init_eval.success_rate
    assert result.curve[-1].eval_success == result.final_eval.success_rate
    assert result.train_steps == sum(row.steps for row in result.curve) > 0
    later = [row.mean_reward for row in result.curve[-3:]]
    assert np.mean(later) > 0.8  # it learns to finish, not only to reach the goal


@pytest.mark.asyncio
async def test_training_is_deterministic_given_the_seed() -> None:
    tasks = _toy_tasks(range(0, 8))

    async def run(seed: int) -> np.ndarray:
        config = GRPOConfig(envs=2, group=4, iters=3, seed=seed)
        result = await train(LearnedPolicy(), tasks, [], _toy_env, config)
        return result.weights

    first, again, other = await asyncio.gather(run(1), run(1), run(2))
    assert np.array_equal(first, again)
    assert not np.array_equal(first, other)
    assert first.shape == (DIM,)


@pytest.mark.asyncio
async def test_evaluation_is_greedy_and_closes_every_env() -> None:
    made: list[ToyEnv] = []

    async def factory() -> ForkableEnv:
        made.append(ToyEnv())
        return made[-1]

    result = await evaluate(np.zeros(DIM), LearnedPolicy().config, _toy_tasks(range(4)), factory)
    again = await evaluate(np.zeros(DIM), LearnedPolicy().config, _toy_tasks(range(4)), factory)
    assert result == again
    assert result.episodes == 4 and result.infra_errors == 0
    assert len(made) == 8 and all(env.closed for env in made)


@pytest.mark.asyncio
async def test_env_failures_are_infra_errors_not_rewards() -> None:
    class Broken(ToyEnv):
        async def step(self, action: Action) -> StepResult:
            raise EnvError("page crashed")

        async def fork(self, n: int) -> list[ForkableEnv]:
            return [Broken(copy.deepcopy(self.state)) for _ in range(n)]

    async def broken() -> ForkableEnv:
        return Broken()

    config = GRPOConfig(envs=1, group=2, iters=1)
    result = await train(LearnedPolicy(), _toy_tasks(range(2)), [], broken, config)
    row = result.curve[-1]
    # the failed step is a step taken, as the runner records it (one loop, one meaning)
    assert row.infra_errors == 2 and row.mean_reward is None and row.steps == 2
    assert np.array_equal(result.weights, np.zeros(DIM))  # nothing learned from broken envs


@pytest.mark.asyncio
async def test_a_group_whose_reset_fails_is_skipped() -> None:
    class NoReset(ToyEnv):
        async def reset(self, task: TaskInstance) -> Observation:
            raise EnvError("browser gone")

    async def factory() -> ForkableEnv:
        return NoReset()

    result = await train(LearnedPolicy(), _toy_tasks(range(2)), [], factory, GRPOConfig(iters=1))
    assert result.curve[-1].infra_errors == GRPOConfig().group * 2


def test_a_training_run_needs_tasks() -> None:
    with pytest.raises(ValueError, match="no training task"):
        asyncio.run(train(LearnedPolicy(), [], [], _toy_env, GRPOConfig(iters=1)))


class _Recording(ToyEnv):
    """A toy env that remembers every fork it made (to check they are all closed)."""

    def __init__(self, state: dict[str, object] | None = None, made: list[ToyEnv] | None = None):
        super().__init__(state)
        self.made = made if made is not None else []

    async def fork(self, n: int) -> list[ForkableEnv]:
        forks = [type(self)(copy.deepcopy(self.state), self.made) for _ in range(n)]
        self.made.extend(forks)
        return list(forks)


@pytest.mark.asyncio
async def test_a_bug_in_env_step_stops_training_instead_of_scoring_zero() -> None:
    made: list[ToyEnv] = []

    class Buggy(_Recording):
        async def step(self, action: Action) -> StepResult:
            raise TypeError("'NoneType' object is not subscriptable")

    async def factory() -> ForkableEnv:
        return Buggy(made=made)

    with pytest.raises(TypeError, match="not subscriptable"):
        await train(LearnedPolicy(), _toy_tasks(range(2)), [], factory, GRPOConfig(iters=1))
    assert len(made) == 2 * GRPOConfig().group and all(env.closed for env in made)


@pytest.mark.asyncio
async def test_misuse_of_an_env_stops_training() -> None:
    class Stale(ToyEnv):
        async def verdict(self) -> Verdict:
            raise EnvUsageError("verdict() before reset()")

        async def fork(self, n: int) -> list[ForkableEnv]:
            return [Stale(copy.deepcopy(self.state)) for _ in range(n)]

    async def factory() -> ForkableEnv:
        return Stale()

    config = GRPOConfig(envs=1, group=2, iters=1)
    with pytest.raises(EnvUsageError, match="before reset"):
        await train(LearnedPolicy(), _toy_tasks(range(2)), [], factory, config)


@pytest.mark.asyncio
async def test_a_bug_in_the_judge_stops_evaluation() -> None:
    class BadJudge(ToyEnv):
        async def verdict(self) -> Verdict:
            raise KeyError("wifi")

    async def factory() -> ForkableEnv:
        return BadJudge()

    with pytest.raises(KeyError, match="wifi"):
        await evaluate(np.zeros(DIM), LearnedPolicy().config, _toy_tasks(range(3)), factory)
