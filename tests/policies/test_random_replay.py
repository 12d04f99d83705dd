"""The random policy (seeded, always valid) and the replay policy (recorded actions, element
targets replayed as points) on the toy counter world of the bridge tests."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from bridge.actions import Action, parse_action
from bridge.runner import EpisodeJob, run_episode, run_episodes
from bridge.schema import (
    BackendInfo,
    Observation,
    PolicyContext,
    PolicyOutput,
    ScreenSpec,
    TapAction,
    Target,
    UINode,
    UIStatus,
)
from bridge.trajectory import RunManifest, RunStore
from policies.errors import PolicySpecError
from policies.random_policy import RandomPolicy, everyday_app_ids
from policies.registry import load
from policies.replay import ReplayPolicy
from tests.bridge.toy_env import BUTTON, CounterEnv, ScriptedPolicy, counter_task, counter_tree_xml

SCREEN = ScreenSpec(width_px=1080, height_px=2400)
CONTEXT = PolicyContext(task_id="contacts/AddContact-v1")


def _rich_screen(*, keyboard: bool = True) -> Observation:
    """A form: a list of rows, a disabled and an empty button, a focused text field."""
    nodes = [
        UINode(id=0, class_name="android.widget.FrameLayout", bounds_px=(0, 0, 1080, 2400)),
        UINode(
            id=1,
            parent=0,
            class_name="androidx.recyclerview.widget.RecyclerView",
            bounds_px=(0, 200, 1080, 1600),
            scrollable=True,
        ),
        UINode(id=2, parent=1, text="Alice", clickable=True, bounds_px=(0, 200, 1080, 350)),
        UINode(id=3, parent=1, text="Bob", long_clickable=True, bounds_px=(0, 350, 1080, 500)),
        UINode(id=4, parent=1, text="Mute", checkable=True, bounds_px=(900, 500, 1080, 650)),
        UINode(
            id=5,
            parent=0,
            text="Save",
            clickable=True,
            enabled=False,
            bounds_px=(0, 1700, 540, 1850),
        ),
        UINode(id=6, parent=0, text="ghost", clickable=True, bounds_px=(10, 10, 10, 10)),
        UINode(
            id=7,
            parent=0,
            class_name="android.widget.EditText",
            hint="Name",
            editable=True,
            focusable=True,
            focused=True,
            bounds_px=(0, 1900, 1080, 2050),
        ),
        UINode(id=8, parent=0, text="Title", bounds_px=(0, 100, 1080, 200)),
    ]
    return Observation(
        step=0, screen=SCREEN, ui=nodes, keyboard_visible=keyboard, backend=BackendInfo(kind="sim")
    )


async def _actions(policy: RandomPolicy, obs: Observation, n: int, task: str = "x") -> list[Action]:
    await policy.reset(task, CONTEXT)
    outputs = [await policy.act(obs) for _ in range(n)]
    assert all(out.action is not None and out.thought for out in outputs)
    return [out.action for out in outputs if out.action is not None]


# --------------------------------------------------------------------------- random


@pytest.mark.asyncio
async def test_random_is_deterministic_per_seed_and_instruction() -> None:
    obs = _rich_screen()
    first = await _actions(RandomPolicy(seed=3), obs, 200)
    assert first == await _actions(RandomPolicy(seed=3), obs, 200)
    assert first != await _actions(RandomPolicy(seed=4), obs, 200)
    assert first != await _actions(RandomPolicy(seed=3), obs, 200, task="another task")
    policy = RandomPolicy(seed=3)
    await _actions(policy, obs, 17)  # an earlier episode does not shift the next one
    assert await _actions(policy, obs, 200) == first


@pytest.mark.asyncio
async def test_random_actions_are_valid_and_target_real_nodes() -> None:
    obs = _rich_screen()
    actions = await _actions(RandomPolicy(seed=0), obs, 2000)
    actionable, scrollable, focused = {2, 3, 4, 7}, {1}, {7}
    for action in actions:
        assert parse_action(action.model_dump(mode="json")) == action
        target: Target | None = getattr(action, "target", None)
        if target is None or target.element is None:
            continue
        allowed = {"tap": actionable, "scroll": scrollable, "type": focused}[action.type]
        assert target.element in allowed, action
    kinds = Counter(action.type for action in actions)
    assert set(kinds) == {"tap", "scroll", "key", "type", "open_app", "finish"}
    assert 5 <= kinds["finish"] <= 100  # ~2% of 2000
    taps = [a for a in actions if isinstance(a, TapAction)]
    assert any(t.target.point is not None for t in taps)
    assert {t.target.element for t in taps} - {None} == actionable
    assert {a.app for a in actions if a.type == "open_app"} <= set(everyday_app_ids())
    assert {a.key for a in actions if a.type == "key"} == {"back", "home"}


@pytest.mark.asyncio
async def test_random_never_names_elements_of_an_untrusted_tree() -> None:
    obs = Observation(
        step=0, screen=SCREEN, ui_status=UIStatus.SECURE_WINDOW, backend=BackendInfo(kind="device")
    )
    actions = await _actions(RandomPolicy(seed=1, apps=["settings"]), obs, 500)
    assert all(getattr(a, "target", None) is None or a.target.point for a in actions)
    assert "type" not in {a.type for a in actions}  # nothing focused, no keyboard
    no_keyboard = await _actions(RandomPolicy(seed=1), _rich_screen(keyboard=False), 500)
    assert all(a.target.element == 7 for a in no_keyboard if a.type == "type")


def test_random_rejects_bad_settings() -> None:
    with pytest.raises(ValueError, match="finish_prob"):
        RandomPolicy(finish_prob=1.5)
    with pytest.raises(ValueError, match="apps"):
        RandomPolicy(apps=[])


@pytest.mark.asyncio
async def test_random_plays_whole_episodes_without_errors() -> None:
    for seed in range(5):
        policy = load(f"random:{seed}")
        record = await run_episode(
            policy, CounterEnv(), counter_task(3, max_steps=30), episode_id=f"r{seed}"
        )
        assert record.outcome in ("success", "failure") and record.invalid_steps == 0
        assert record.policy == f"random:{seed}"


# --------------------------------------------------------------------------- replay

CENTRE = (0.5, 0.725)
"""Centre of the "+" button (30,150)-(78,198) on the 108x240 toy screen, normalized."""


async def _record_run(tmp_path: Path) -> Path:
    """Record three counter episodes with the bridge runner into ``tmp_path/runs/base``."""
    root = tmp_path / "runs" / "base"
    store = RunStore.create(root, RunManifest(config={"policy": "toy"}))
    scripts = {
        "counter_ok": lambda: ScriptedPolicy(taps=2, invalid_at={1}),
        "counter_points": lambda: ScriptedPolicy(taps=2, target=Target.at(0.4, 0.7)),
        "counter_ghost": lambda: ScriptedPolicy(taps=2, target=Target.node(9)),
    }

    async def make_env() -> CounterEnv:
        return CounterEnv()

    jobs = [
        EpisodeJob(episode_id=name, task=counter_task(2), make_env=make_env, make_policy=make)
        for name, make in scripts.items()
    ]
    records = await run_episodes(jobs, store=store, tree_xml=counter_tree_xml)
    assert [r.outcome for r in records] == ["success", "success", "failure"]
    return root


async def _replayed(policy: ReplayPolicy, n: int) -> list[PolicyOutput]:
    await policy.reset("again", PolicyContext())
    obs = CounterEnv()._observe(None)
    return [await policy.act(obs) for _ in range(n)]


@pytest.mark.asyncio
async def test_replay_reissues_recorded_actions_with_elements_as_points(tmp_path: Path) -> None:
    root = await _record_run(tmp_path)
    policy = load(f"replay:{root}/counter_ok")
    assert isinstance(policy, ReplayPolicy) and policy.name == f"replay:{root}/counter_ok"
    outputs = await _replayed(policy, 5)
    actions = [out.action for out in outputs]
    assert [a.type for a in actions] == ["tap", "tap", "finish", "finish", "finish"]
    for tap in actions[:2]:
        assert tap.target.element is None
        assert (tap.target.point.x, tap.target.point.y) == pytest.approx(CENTRE)
    assert [out.thought for out in outputs[:3]] == ["tap +", "tap +", "done"]
    assert actions[2].status == "success"  # the recorded finish
    assert actions[3].status == "abort" and "no more actions" in actions[3].message
    assert policy.skipped == ["step 1: invalid (no action in '???')"]
    assert await _replayed(policy, 3) == outputs[:3]  # reset starts over


@pytest.mark.asyncio
async def test_replayed_episode_succeeds_in_a_fresh_world(tmp_path: Path) -> None:
    root = await _record_run(tmp_path)
    env = CounterEnv()
    record = await run_episode(
        load(f"replay:{root}/counter_ok"), env, counter_task(2), episode_id="replayed"
    )
    assert (record.outcome, record.steps, record.invalid_steps) == ("success", 3, 0)
    assert [a.type for a in env.actions] == ["tap", "tap", "finish"]
    assert env.actions[0].target.point == env.actions[1].target.point


@pytest.mark.asyncio
async def test_replay_keeps_points_and_skips_elements_missing_from_the_tree(tmp_path: Path) -> None:
    root = await _record_run(tmp_path)
    points = [out.action for out in await _replayed(load(f"replay:{root}/counter_points"), 3)]
    assert [a.target.point.model_dump() for a in points[:2]] == [{"x": 0.4, "y": 0.7}] * 2
    ghost = load(f"replay:{root}/counter_ghost")
    assert [out.action.type for out in await _replayed(ghost, 2)] == ["finish", "finish"]
    assert ghost.skipped == [f"step {i}: element 9 is not in the recorded tree" for i in (0, 1)]
    assert BUTTON != 9  # the toy screen has no node 9


@pytest.mark.asyncio
async def test_replay_of_a_missing_run_or_episode_says_what_exists(tmp_path: Path) -> None:
    root = await _record_run(tmp_path)
    with pytest.raises(PolicySpecError, match="did you mean 'counter_ok'") as caught:
        load(f"replay:{root}/counter_ko")
    assert "counter_ghost" in str(caught.value)
    with pytest.raises(PolicySpecError, match="not a run directory"):
        load(f"replay:{tmp_path / 'nowhere'}/counter_ok")
