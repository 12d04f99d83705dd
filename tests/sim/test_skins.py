"""Skins (``sim/skins.py``): the same state drawn as AOSP or as HyperOS, browser-free.

The HyperOS skin rearranges and rewords Settings from the same state; nothing a judge reads
changes; plans find their way through either skin's screens, read off the screens
themselves (``sim/apps/settings/plans.py``). Episodes in Chromium under the skin are in
tests/sim/test_tasks_e2e.py."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from bridge.errors import StateUnavailable
from bridge.plans import KeyStep, TapStep
from sim.android_state import SimAndroidState
from sim.app import AppContext, Event
from sim.apps.settings import SettingsApp, model
from sim.apps.settings.pages import SKIN_PAGES
from sim.apps.settings.plans import SettingsWalk, layout
from sim.errors import SimError, UnknownSkin
from sim.observe import foreground_of
from sim.render import TemplateRenderer
from sim.simulator import Simulator
from sim.skins import SKINS, check_skin, planning_for
from sim.state import AppTask, InstanceState, Route
from sim.tasks.registry import default_registry

REGISTRY = default_registry()
SETTINGS_IDS = [t for t in REGISTRY.ids() if "settings" in REGISTRY.get(t).apps]


def _settings(skin: str, path: str = "/", lang: str = "en") -> tuple[AppContext, InstanceState]:
    app = SettingsApp()
    state = InstanceState()
    state.os.skin = skin
    state.os.settings["system"]["system_locales"] = {"en": "en-US", "zh": "zh-CN"}[lang]
    state.os.tasks = [AppTask(app=app.id, stack=[Route(path=path)])]
    state.os.foreground = app.id
    return AppContext(app, state, TemplateRenderer([app]).render), state


def _html(skin: str, path: str = "/", lang: str = "en") -> str:
    ctx, _ = _settings(skin, path, lang)
    return ctx.app.render(ctx)


def test_an_unknown_skin_is_refused_naming_the_skins_there_are() -> None:
    with pytest.raises(ValidationError, match="the skins are aosp, hyperos"):
        InstanceState.model_validate({"os": {"skin": "miui"}})
    with pytest.raises(UnknownSkin, match="no skin 'miui': the skins are aosp, hyperos"):
        check_skin("miui")


@pytest.mark.asyncio
async def test_an_env_in_an_unknown_skin_is_refused_before_it_is_made() -> None:
    sim = Simulator()  # never started: no browser
    with pytest.raises(UnknownSkin):
        await sim.env(skin="MIUI")
    env = await sim.env(skin="hyperos")
    env.skin = "hyper"  # a trainer's typo between episodes
    with pytest.raises(UnknownSkin):
        env.fresh_state(0)


def test_a_skin_draws_its_own_templates_and_aosp_draws_the_rest() -> None:
    aosp, hyperos = _html("aosp"), _html("hyperos")
    assert 'data-rid="toggle_airplane"' in aosp and 'data-rid="toggle_airplane"' not in hyperos
    assert 'data-rid="more_connectivity"' in hyperos and "more_connectivity" not in aosp
    # the Wi-Fi page has no HyperOS template: AOSP's, in HyperOS's words
    wifi = _html("hyperos", "/wifi")
    assert wifi == _html("aosp", "/wifi").replace("Wi-Fi", "WLAN")
    assert ">WLAN<" in _html("hyperos", "/", "zh") and "更多连接方式" in _html("hyperos", "/", "zh")


def test_hyperos_words_its_settings_in_both_languages() -> None:
    app = SettingsApp()
    for lang, sleep, dark in (("en", "Sleep", "Dark mode"), ("zh", "自动锁屏", "深色模式")):
        words = app.strings(lang, "hyperos")
        assert (words["screen_timeout"], words["dark_theme"]) == (sleep, dark)
        assert set(app.strings(lang)) <= set(words)  # every AOSP word has a HyperOS one
    assert app.strings("en")["wifi"] == "Wi-Fi" and app.strings("en", "hyperos")["wifi"] == "WLAN"


def test_hyperos_sleep_offers_never_and_no_half_hour() -> None:
    ctx, state = _settings("hyperos", "/lock_screen/sleep")
    html = ctx.app.render(ctx)
    assert "Never" in html and "30 minutes" not in html and "10 minutes" in html
    ctx.app.handle(ctx, Event("tap", "set_timeout", {"ms": str(model.TIMEOUT_NEVER_MS)}))
    assert state.os.settings["system"]["screen_off_timeout"] == model.TIMEOUT_NEVER_MS
    with pytest.raises(SimError, match="ms="):
        ctx.app.handle(ctx, Event("tap", "set_timeout", {"ms": "1800000"}))
    assert model.longest_timeout("hyperos") == 600_000 < model.longest_timeout("aosp")


def test_hyperos_do_not_disturb_is_three_choices_over_zen_mode() -> None:
    ctx, state = _settings("hyperos", "/sound/dnd")
    for mode, value in (("priority", 1), ("total", 2), ("off", 0)):
        ctx.app.handle(ctx, Event("tap", "set_zen", {"mode": mode}))
        assert state.os.settings["global"]["zen_mode"] == value
        checked = ctx.app.render(ctx).split(f'data-rid="zen_{mode}"')[1].split("</div>")[0]
        assert 'data-checked="true"' in checked


def test_every_page_hyperos_adds_is_reachable_from_the_top() -> None:
    pages = layout("hyperos")
    for path in SKIN_PAGES["hyperos"]:
        here = [rid for rid in pages.rows[path] if rid not in ("toolbar", "title", "list")]
        assert here, path
        assert pages.way("/", here[0]) is not None, path


def test_a_walk_goes_back_as_far_as_it_must_and_no_further() -> None:
    with planning_for("hyperos"):
        walk = SettingsWalk().tap("dark_mode_display_enable").tap("screen_timeout")
    taps = [step.on.resource_id if isinstance(step, TapStep) else "back" for step in walk.steps[1:]]
    assert taps == ["display_settings", "dark_mode_display_enable", "back",
                    "lock_screen_settings", "screen_timeout"]  # fmt: skip
    with planning_for("aosp"):
        aosp = SettingsWalk().tap("dark_mode_display_enable").tap("screen_timeout")
    assert not any(isinstance(step, KeyStep) for step in aosp.steps)  # one page in AOSP
    with planning_for("hyperos"), pytest.raises(SimError, match="no 'warp_drive'"):
        SettingsWalk().tap("warp_drive")


@pytest.mark.parametrize("skin", list(SKINS))
def test_every_settings_oracle_finds_its_way_in_every_skin(skin: str) -> None:
    for task_id in SETTINGS_IDS:
        for seed in range(6):
            task = REGISTRY.instantiate(task_id, seed, ("en", "zh")[seed % 2])
            plan = REGISTRY.get(task_id).oracle_for(task, skin)
            assert plan[0].type == "open_app", task_id


@pytest.mark.asyncio
async def test_a_task_starts_in_the_same_android_state_in_every_skin() -> None:
    sim = Simulator()  # never started: the state only
    task = REGISTRY.instantiate("settings/BedtimeRoutine-v1", 4, "zh")
    readings = []
    for skin in SKINS:
        env = await sim.env(skin=skin)
        env.pose(task)
        state = SimAndroidState(sim.phone, env.instance.state)
        assert env.instance.state.os.skin == skin
        readings.append(
            {ns: await state.list_settings(ns) for ns in ("global", "system", "secure")}
        )
    assert all(reading == readings[0] for reading in readings)


@pytest.mark.asyncio
async def test_a_skins_phone_names_its_apps_as_its_device_does() -> None:
    sim = Simulator()  # never started: the state only
    seen = {}
    for skin in SKINS:
        state = InstanceState()
        state.os.skin = skin
        android = SimAndroidState(sim.phone, state)
        home = foreground_of(sim.phone, state)
        await android.start_app(sim.phone.app("messages").package_on(skin))
        messages = foreground_of(sim.phone, state)
        seen[skin] = (home.package, home.activity, messages.package, messages.activity)
        other = "com.android.mms" if skin == "aosp" else "com.android.messaging"
        with pytest.raises(StateUnavailable, match=f"no app has package {other!r}"):
            await android.start_app(other)  # another make's package is not installed here
    assert seen == {
        "aosp": (
            "com.android.launcher3",
            "com.android.launcher3.Launcher",
            "com.android.messaging",
            "com.android.messaging.ui.conversationlist.ConversationListActivity",
        ),
        "hyperos": (
            "com.miui.home",
            "com.miui.home.launcher.Launcher",
            "com.android.mms",
            "com.android.mms.ui.MmsTabActivity",
        ),
    }
    settings = sim.phone.app("settings")
    assert settings.launcher_activity("hyperos") == ".MainSettings"
    assert {settings.package_on(skin) for skin in SKINS} == {"com.android.settings"}
    assert {sim.phone.app("files").package_on(skin) for skin in SKINS} == {
        "com.android.documentsui",
        "com.android.fileexplorer",
    }
