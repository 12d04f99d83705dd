"""The MobileGym env against the build beside the repository: the env contract, every action
type in both languages, and one of our templates posed, solved and judged there."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Literal

import pytest
import pytest_asyncio

from bridge.env_checker import check_env
from bridge.records import TaskInstance
from bridge.schema import (
    AnswerAction,
    DoubleTapAction,
    FinishAction,
    KeyAction,
    LongPressAction,
    Observation,
    OpenAppAction,
    Point,
    ScrollAction,
    SwipeAction,
    TapAction,
    Target,
    TypeAction,
    WaitAction,
)
from mobilegym.env import MobileGymEnv
from mobilegym.world import MobileGym
from sim.tasks.registry import default_registry

pytestmark = pytest.mark.browser


def _task(task_id: str = "settings/SetWifi-v1", lang: Literal["en", "zh"] = "en") -> TaskInstance:
    return default_registry().instantiate(task_id, 0, lang)


@pytest_asyncio.fixture(loop_scope="module")
async def env(gym: MobileGym) -> AsyncIterator[MobileGymEnv]:
    """A new phone of the module's world."""
    async with await gym.env() as made:
        yield made


@pytest_asyncio.fixture(loop_scope="module")
async def blind_env(gym: MobileGym) -> AsyncIterator[MobileGymEnv]:
    """A new phone that observes without screenshots (what the actions do is in the tree)."""
    async with await gym.env(screenshot=False) as made:
        yield made


@pytest.mark.asyncio(loop_scope="module")
async def test_the_env_keeps_the_contract(gym: MobileGym) -> None:
    await check_env(gym.env, _task(), name="MobileGymEnv")


@pytest.mark.asyncio(loop_scope="module")
async def test_an_observation_is_what_a_phone_gives_with_a_tree_marked_derived(
    env: MobileGymEnv,
) -> None:
    obs = await env.reset(_task())
    assert obs.backend.kind == "mobilegym"
    assert (obs.screen.width_px, obs.screen.height_px) == (1080, 2400)
    assert obs.screenshot is not None and obs.screenshot.data[:2] == b"\xff\xd8"
    assert obs.ui and obs.ui_derived == "page"
    assert obs.foreground.app is None and obs.foreground.package is None  # its OS shell
    opened = await env.step(OpenAppAction(app="settings"))
    assert opened.error is None, opened.error
    assert opened.observation.foreground.app == "settings"
    assert opened.observation.foreground.package == "com.android.settings"
    # bounds are device pixels after a screenshot too: a tap at the row's centre opens it
    wlan = next(node for node in opened.observation.ui if node.text == "WLAN")
    assert wlan.bounds_px[3] - wlan.bounds_px[1] >= 40, wlan.bounds_px
    tapped = await env.step(TapAction(target=Target.node(wlan.id)))
    assert any(node.checkable and node.checked for node in tapped.observation.ui)


def _labelled(obs: Observation, text: str) -> int:
    return next(node.id for node in obs.ui if node.text == text)


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_every_action_type_is_performed_or_refused_in_words(
    blind_env: MobileGymEnv, lang: Literal["en", "zh"]
) -> None:
    env = blind_env
    obs = await env.reset(_task(lang=lang))
    settings = await env.step(OpenAppAction(app="settings"))
    assert settings.error is None
    wlan = "WLAN"
    row = _labelled(settings.observation, wlan)
    tapped = await env.step(TapAction(target=Target.node(row)))
    assert tapped.error is None and tapped.observation.foreground.app == "settings"
    assert tapped.observation.ui != settings.observation.ui, "the WLAN page did not open"
    for key in ("back", "home", "recents", "back", "enter"):
        done = await env.step(KeyAction(key=key))  # type: ignore[arg-type]
        assert done.error is None, (key, done.error)
    for key in ("delete", "volume_up", "volume_down", "power"):
        refused = await env.step(KeyAction(key=key))  # type: ignore[arg-type]
        assert refused.error is not None and refused.error.startswith(
            f"the {key} key is not available here"
        )
    home = await env.step(KeyAction(key="home"))
    assert home.observation.foreground.app is None
    for action in (
        DoubleTapAction(target=Target.at(0.5, 0.5)),
        LongPressAction(target=Target.at(0.5, 0.5), duration_ms=800),
        SwipeAction(start=Point(x=0.5, y=0.7), end=Point(x=0.5, y=0.3), duration_ms=300),
        ScrollAction(direction="down"),
        WaitAction(seconds=0.1),
    ):
        done = await env.step(action)
        assert done.error is None, (action, done.error)
    missing = await env.step(OpenAppAction(app="camera"))
    assert missing.error == "app 'camera' (com.android.camera2) is not installed on this phone"
    unfocused = await env.step(TypeAction(text="wifi"))
    assert unfocused.error is not None and "no text field is focused" in unfocused.error
    assert (await env.step(FinishAction(status="success"))).done
    assert (await env.step(AnswerAction(fields={"x": "1"}))).done
    del obs


@pytest.mark.asyncio(loop_scope="module")
async def test_a_settings_template_is_solved_through_the_protocol_and_fails_untouched(
    env: MobileGymEnv,
) -> None:
    task = _task()
    await env.reset(task)
    assert not (await env.verdict()).success
    spec = task.spec
    assert spec is not None
    await env.reset(task)
    wifi = await env.state.get_setting("global", "wifi_on")
    await env.state.put_setting("global", "wifi_on", "0" if wifi == "1" else "1")
    assert (await env.verdict()).success


@pytest.mark.asyncio(loop_scope="module")
async def test_settling_counts_short_timers_under_the_fixed_clock(gym: MobileGym) -> None:
    """The page's clock is Playwright's (installed first), and instrument.js counts the short
    timers set over it: a settle does not return while MobileGym waits one out (a sent
    message is marked sent 300 ms later)."""
    page = await gym.page()
    try:
        assert await page.call("() => Date.now()") == gym.clock_ms
        probe = await page.call(
            "() => { window.setTimeout(() => {}, 300); return window.__mgbSettle.probe(); }"
        )
        assert probe["timers"] == 1
        assert await page.settle(5.0)  # once it has fired
        fired = "() => new Promise((done) => window.setTimeout(() => done('fired'), 20))"
        assert await page.call(fired) == "fired"
    finally:
        await page.close()


@pytest.mark.asyncio(loop_scope="module")
async def test_a_scroll_moves_only_for_its_travel_not_its_hold(blind_env: MobileGymEnv) -> None:
    """MobileGym's swipe has no hold: a scroll's held end is not travel (a finger moving for
    the whole stroke would press a row long enough to select it)."""
    await blind_env.reset(_task())
    done = await blind_env.step(ScrollAction(direction="down"))
    assert done.error is None and done.executed is not None
    command = done.executed.backend_command or ""
    assert command.startswith("__SIM_INPUT__.swipe ") and command.endswith(" 300"), command
