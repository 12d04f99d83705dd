"""SimEnv end to end in Chromium: reset, steps, verdicts, snapshot/restore, fork, determinism."""

from __future__ import annotations

import pytest

from bridge.env import ForkableEnv
from bridge.runner import run_episode
from bridge.schema import (
    KeyAction,
    Observation,
    OpenAppAction,
    TapAction,
    Target,
    TypeAction,
    UINode,
)
from bridge.uitree import parse_hierarchy, to_xml
from policies.scripted import PlanPolicy
from sim.simulator import Simulator

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.browser]


def _node(obs: Observation, **match: object) -> UINode:
    return next(n for n in obs.ui if all(getattr(n, k) == v for k, v in match.items()))


async def test_observation_is_a_phone_screen(sim: Simulator) -> None:
    env = await sim.env()
    obs = await env.observe()
    assert obs.screenshot is not None and (obs.screenshot.width, obs.screenshot.height) == (
        1080,
        2400,
    )
    assert obs.screenshot.data[:2] == b"\xff\xd8"  # JPEG
    assert obs.foreground.package == "com.android.launcher3" and obs.backend.kind == "sim"
    packages = {n.package for n in obs.ui if n.parent is None}
    assert {"com.android.launcher3", "com.android.systemui"} <= packages
    settings = _node(obs, text="Settings")
    assert settings.clickable and settings.bounds_px[2] <= 1080
    # the tree survives the uiautomator XML round trip the device side uses
    assert parse_hierarchy(to_xml(obs.ui)).nodes == obs.ui
    await env.close()


async def test_tap_type_and_back_through_the_page(sim: Simulator) -> None:
    env = await sim.env()
    obs = await env.observe()
    result = await env.step(TapAction(target=Target.node(_node(obs, text="Contacts").id)))
    assert result.error is None and result.observation.foreground.app == "contacts"
    # an app's window content frame carries the framework's id, as on a phone
    frames = [n for n in result.observation.ui if n.resource_id.endswith(":id/content")]
    assert [(n.resource_id, n.package) for n in frames] == [
        ("android:id/content", "com.android.contacts")
    ]
    assert result.executed is not None and result.executed.element is not None
    search = _node(result.observation, resource_id="com.android.contacts:id/search_src_text")
    typed = await env.step(TypeAction(text="张", target=Target.node(search.id)))
    assert typed.observation.keyboard_visible and typed.error is None
    assert _node(typed.observation, resource_id=search.resource_id).text == "张"
    back = await env.step(KeyAction(key="back"))
    assert not back.observation.keyboard_visible  # as on Android, the field keeps focus
    home = await env.step(KeyAction(key="home"))
    # bounds stay in device pixels step after step (the page's pixel ratio never drifts)
    for obs in (result.observation, typed.observation, home.observation):
        assert max(n.bounds_px[2] for n in obs.ui) == 1080
        assert max(n.bounds_px[3] for n in obs.ui) == 2400
    nothing = await env.step(TypeAction(text="x"))
    assert nothing.error is not None and "no text field is focused" in nothing.error
    assert nothing.observation.last_action_error == nothing.error
    await env.close()


async def test_agent_mistakes_are_step_errors(sim: Simulator) -> None:
    env = await sim.env()
    await env.observe()
    missing = await env.step(TapAction(target=Target.node(9999)))
    assert missing.error is not None and "not in the UI tree" in missing.error
    absent = await env.step(OpenAppAction(app="camera"))
    assert absent.error == "app 'camera' (com.android.camera2) is not installed on this phone"
    unknown = await env.step(OpenAppAction(app="kamera"))
    assert unknown.error is not None and "open_app takes one of: settings" in unknown.error
    await env.close()


async def test_what_only_the_simulator_knows_is_a_note_not_an_error(sim: Simulator) -> None:
    env = await sim.env()
    await env.observe()
    blank = await env.step(TapAction(target=Target.at(0.5, 0.5)))  # the wallpaper
    assert blank.error is None and blank.observation.last_action_error is None
    assert blank.executed is not None
    assert blank.executed.notes["effect"] == "no effect: nothing actionable"
    assert blank.executed.notes["route"] == "(home)" and blank.executed.notes["stroke"] == "tap"
    assert "route" not in blank.observation.foreground.model_dump()
    await env.close()


async def test_oracle_episode_and_snapshot_fork(sim: Simulator) -> None:
    task = sim.tasks.instantiate("settings/SetWifi-v1", 3)
    env = await sim.env()
    assert isinstance(env, ForkableEnv)
    await env.reset(task)
    snapshot = await env.snapshot()
    assert len(snapshot) < 20_000
    record = await run_episode(
        PlanPolicy(sim.tasks.get(task.task_id).oracle_for(task)),
        env,
        task,
        episode_id="wifi",
    )
    assert record.outcome == "success" and record.verdict is not None and record.verdict.clean
    restored = await env.restore(snapshot)
    assert restored.foreground.package == "com.android.launcher3"
    assert not (await env.verdict()).success
    forks = await env.fork(3)
    for fork in forks:
        assert await fork.snapshot() == await env.snapshot()
    await forks[0].step(OpenAppAction(app="settings"))
    assert await forks[1].snapshot() == snapshot and await forks[0].snapshot() != snapshot
    for e in (env, *forks):
        await e.close()


async def test_same_seed_same_actions_same_bytes(sim: Simulator) -> None:
    task = sim.tasks.instantiate("settings/SetAirplaneMode-v1", 7)
    plan = sim.tasks.get(task.task_id).oracle_for(task)
    results = []
    for _ in range(2):
        env = await sim.env()
        record = await run_episode(PlanPolicy(plan), env, task, episode_id="det")
        results.append((await env.snapshot(), record.verdict))
        await env.close()
    assert results[0] == results[1]
