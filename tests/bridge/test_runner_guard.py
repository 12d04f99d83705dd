"""The runner with a guard: a stop before an action ends the episode without calling the env,
a stop after a step ends it once the step is recorded, and no guard changes nothing; and
the guard a task's run gets (``ActionGuard.for_task``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge.guard import ActionGuard
from bridge.records import TaskInstance
from bridge.runner import EpisodeJob, run_episode, run_episodes
from bridge.schema import (
    BackendInfo,
    Foreground,
    Observation,
    ScreenSpec,
    TapAction,
    Target,
    UINode,
)
from bridge.taskspec import TaskSpec
from bridge.trajectory import RunManifest, RunStore
from tests.bridge.toy_env import BUTTON, CounterEnv, ScriptedPolicy, counter_task

SETTINGS = Foreground(app="settings", package="com.android.settings")
WECHAT = Foreground(app=None, package="com.tencent.mm")


class GuardedCounterEnv(CounterEnv):
    """The counter world with a labelled "+" button, showing Settings until step index
    ``leave_at`` has been played and another app from then on."""

    def __init__(self, *, label: str = "", leave_at: int | None = None) -> None:
        super().__init__()
        self.label, self.leave_at = label, leave_at

    def _observe(self, error: str | None) -> Observation:
        obs = super()._observe(error)
        left = self.leave_at is not None and self.steps > self.leave_at
        ui = [
            node.model_copy(update={"content_desc": self.label}) if node.id == BUTTON else node
            for node in obs.ui
        ]
        return obs.model_copy(update={"ui": ui, "foreground": WECHAT if left else SETTINGS})


def _settings_task(target: int = 3) -> TaskInstance:
    return counter_task(target).model_copy(update={"spec": TaskSpec(apps=["settings"])})


@pytest.mark.asyncio
async def test_a_stop_before_an_action_ends_the_episode_without_stepping(tmp_path: Path) -> None:
    env, policy = GuardedCounterEnv(label="Send message"), ScriptedPolicy(taps=3)

    async def make_env() -> CounterEnv:
        return env

    store = RunStore.create(tmp_path / "run", RunManifest())
    job = EpisodeJob("send", counter_task(3), make_env, lambda: policy, guard=ActionGuard())
    (record,) = await run_episodes([job], store=store)
    assert (record.outcome, record.termination, record.steps) == ("failure", "guard", 1)
    assert record.stop_reason == "tap on '+' looks like sending ('send'): approve it"
    assert record.verdict is not None and not record.verdict.success  # judged by the env
    assert env.steps == 0 and env.actions == []  # env.step was never called
    assert isinstance(record.final_action, TapAction) and len(policy.seen) == 1
    (step,) = store.read_steps("send")
    assert step.result is None and not step.invalid and step.output.action is not None
    assert store.completed()["send"].stop_reason == record.stop_reason


@pytest.mark.asyncio
async def test_a_stop_after_a_step_ends_the_episode_once_it_is_recorded(tmp_path: Path) -> None:
    env, policy = GuardedCounterEnv(leave_at=1), ScriptedPolicy(taps=3)
    store = RunStore.create(tmp_path / "run", RunManifest())
    writer = store.begin_episode("left")
    guard = ActionGuard.for_task(_settings_task(), apps_only=True)
    record = await run_episode(
        policy, env, _settings_task(3), episode_id="left", writer=writer, guard=guard
    )
    writer.finish(record)
    assert (record.outcome, record.termination, record.steps) == ("failure", "guard", 2)
    assert record.stop_reason is not None and "com.tencent.mm" in record.stop_reason
    assert len(env.actions) == 2 and len(policy.seen) == 2  # no third act after the stop
    steps = store.read_steps("left")
    assert all(step.result is not None for step in steps)
    assert steps[1].result is not None and steps[1].result.observation.foreground == WECHAT


@pytest.mark.asyncio
async def test_a_guard_ended_episode_keeps_the_envs_verdict() -> None:
    # the second tap reaches the target and shows another app: stopped with the goal held,
    # judged by the env all the same; no success, since the agent did not end it
    guard = ActionGuard({"com.android.settings"}, words={})
    env = GuardedCounterEnv(leave_at=1)
    record = await run_episode(ScriptedPolicy(taps=3), env, counter_task(2), episode_id="x",
                               guard=guard)  # fmt: skip
    assert (record.outcome, record.termination, record.steps) == ("failure", "guard", 2)
    assert record.verdict is not None and record.verdict.success


@pytest.mark.asyncio
async def test_without_a_guard_nothing_changes() -> None:
    env = GuardedCounterEnv(label="Send message", leave_at=0)
    record = await run_episode(ScriptedPolicy(taps=3), env, _settings_task(3), episode_id="free")
    assert (record.outcome, record.termination, record.steps) == ("success", "finish", 4)
    assert record.stop_reason is None and len(env.actions) == 4


def _showing(foreground: Foreground) -> Observation:
    nodes = [
        UINode(id=0, bounds_px=(0, 0, 1080, 2400)),
        UINode(id=1, parent=0, clickable=True, text="Send", bounds_px=(100, 2000, 980, 2150)),
    ]
    return Observation(
        step=1,
        screen=ScreenSpec(width_px=1080, height_px=2400),
        ui=nodes,
        foreground=foreground,
        backend=BackendInfo(kind="device"),
    )


@pytest.mark.parametrize(
    ("foreground", "extra", "stops"),
    [
        (Foreground(app="contacts", package="com.android.contacts"), (), True),
        (Foreground(app="contacts", package="com.google.android.contacts"), (), True),
        (SETTINGS, (), False),
        (Foreground(app=None, package="com.android.launcher3"), (), False),
        (Foreground(app=None, package="com.google.android.apps.nexuslauncher"), (), False),
        (Foreground(app="contacts", package="com.android.contacts"), ("contacts",), False),
        (Foreground(app=None, package="com.android.chrome"), ("com.android.chrome",), False),
        (Foreground(app=None, package="com.android.chrome"), ("contacts",), True),
    ],
)
def test_for_task_allows_the_tasks_apps_the_launcher_and_extra(
    foreground: Foreground, extra: tuple[str, ...], stops: bool
) -> None:
    stop = ActionGuard.for_task(_settings_task(), extra=extra).after(_showing(foreground))
    assert (stop is not None) == stops
    if stop is not None:
        assert stop.kind == "left_apps" and str(foreground.package) in stop.reason


def test_apps_only_never_marks_an_action() -> None:
    send = TapAction(target=Target.node(1))
    seen = _showing(SETTINGS)
    marked = ActionGuard.for_task(_settings_task()).before(send, seen)
    assert marked is not None and marked.kind == "sensitive"
    assert ActionGuard.for_task(_settings_task(), apps_only=True).before(send, seen) is None
