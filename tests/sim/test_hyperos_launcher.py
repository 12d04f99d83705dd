"""MIUI's launcher in the ``hyperos`` skin (sim/templates/skins/hyperos/launcher.html): the
same home screen and drawer as AOSP's, drawn as a Redmi's ``com.miui.home`` and shaped in
the tree as its uiautomator dump is (tests/fixtures/real_dumps/20_miui_home_app_drawer_*).
One Chromium for the module; the paging is checked on the HTML, without a browser."""

from __future__ import annotations

import re

import pytest

from bridge.schema import (
    Action,
    KeyAction,
    Observation,
    ScrollAction,
    TapAction,
    Target,
    TypeAction,
    UINode,
)
from sim.discovery import scan_apps
from sim.env import SimEnv
from sim.launcher import drawer_apps
from sim.phone import ActionEvent, Phone
from sim.screen import render_screen
from sim.simulator import Simulator
from sim.state import InstanceState
from tests.sim.launcher_fixture import synthetic_apps

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.browser]

MIUI = "com.miui.home"
SIM_PAGES = 1
"""The shared ``sim`` fixture's pool (tests/conftest.py): one page."""
LOCALES = {"en": "en-US", "zh": "zh-CN"}


async def _env(sim: Simulator, lang: str, skin: str = "hyperos") -> SimEnv:
    """An env on a fresh phone in ``skin`` and ``lang``, on its home screen."""
    env = await sim.env(skin=skin)
    state = env.fresh_state(0)
    state.os.settings["system"]["system_locales"] = LOCALES[lang]
    env.instance.state = state
    env.instance.changed()
    return env


def _rid(name: str) -> str:
    return f"{MIUI}:id/{name}"


def _node(obs: Observation, **match: object) -> UINode:
    return next(n for n in obs.ui if all(getattr(n, k) == v for k, v in match.items()))


def _drawer_icons(obs: Observation) -> list[str]:
    """The labels of the drawer's app icons, in order."""
    lists = [n.id for n in obs.ui if n.resource_id.endswith(":id/apps_list_view")]
    return [n.text for n in obs.ui if n.parent in lists and n.clickable]


def _inside(obs: Observation, node: UINode, ancestor: UINode) -> bool:
    """Whether ``node`` is under ``ancestor`` in the tree."""
    parents = {n.id: n.parent for n in obs.ui}
    at: int | None = node.parent
    while at is not None and at != ancestor.id:
        at = parents[at]
    return at == ancestor.id


async def _step(env: SimEnv, action: Action) -> Observation:
    result = await env.step(action)
    assert result.error is None, result.error
    return result.observation


async def test_the_home_screen_is_miuis_with_a_dock_and_titled_icons(sim: Simulator) -> None:
    env = await _env(sim, "en")
    home = await env.observe()
    labels = [entry.label for entry in sim.phone.launcher_entries("en")]
    assert home.foreground.package == MIUI
    launcher = [n for n in home.ui if n.package == MIUI]
    ids = {n.resource_id for n in launcher if n.resource_id} - {"android:id/content"}
    assert all(rid.startswith(f"{MIUI}:id/") for rid in ids)
    assert {_rid("workspace"), _rid("hotseat"), _rid("widget_container")} <= {
        n.resource_id for n in launcher
    }
    assert not any(n.editable for n in launcher)  # no search bar on MIUI's workspace
    dock = _node(home, resource_id=_rid("hotseat_content_screen"))
    in_dock = [n.content_desc for n in home.ui if n.parent == dock.id]
    titles = [n.text for n in home.ui if n.resource_id == _rid("icon_title")]
    assert in_dock == labels[:4] and titles == labels[4:]  # the first row is the dock
    clock = _node(home, resource_id=_rid("icon_title"), text="Clock")
    opened = await _step(env, TapAction(target=Target.node(clock.id)))
    assert opened.foreground.app == "clock"
    await env.close()


@pytest.mark.parametrize(
    ("lang", "everything", "hint"), [("en", "All", "Search apps"), ("zh", "全部", "搜索应用")]
)
async def test_the_drawer_is_shaped_as_miuis_in_the_aosp_drawers_order(
    sim: Simulator, lang: str, everything: str, hint: str
) -> None:
    env = await _env(sim, lang)
    await env.observe()
    drawer = await _step(env, ScrollAction(direction="down"))  # the finger moves up
    assert drawer.foreground.package == MIUI
    apps_view = _node(drawer, resource_id=_rid("apps_view"))
    tab = _node(drawer, text=everything)
    assert tab.content_desc == f"checked, {everything}" and tab.clickable
    assert _node(drawer, resource_id=_rid("all_apps_setting_button")).content_desc
    listed = _node(drawer, resource_id=_rid("apps_list_view"))
    assert listed.class_name == "androidx.recyclerview.widget.RecyclerView"
    # what AOSP's drawer lists (tests/sim/test_launcher_browser.py): A-Z, pinyin among Latin
    aosp_order = [app.label for app in drawer_apps(sim.phone.launcher_entries(lang))]
    assert _drawer_icons(drawer) == aosp_order and len(aosp_order) == len(sim.phone.apps)
    icon = _node(drawer, text=aosp_order[0], parent=listed.id)
    assert icon.class_name == "android.widget.TextView" and icon.content_desc == icon.text
    search = _node(drawer, resource_id=_rid("search_bar_input"))
    assert search.class_name == "android.widget.EditText" and search.hint == hint
    assert search.bounds_px[1] >= listed.bounds_px[3]  # the search bar is at the bottom
    assert _inside(drawer, listed, apps_view) and _inside(drawer, tab, apps_view)
    await env.close()


async def test_the_drawers_search_filters_and_a_result_opens(sim: Simulator) -> None:
    env = await _env(sim, "en")
    await env.observe()
    drawer = await _step(env, ScrollAction(direction="down"))
    search = _node(drawer, resource_id=_rid("search_bar_input"))
    none = await _step(env, TypeAction(text="zzz", target=Target.node(search.id)))
    assert none.keyboard_visible and _drawer_icons(none) == []
    assert _node(none, resource_id=_rid("no_results_text")).text == 'No apps found for "zzz"'
    found = await _step(env, TypeAction(text="mes", target=Target.node(search.id), clear=True))
    assert _drawer_icons(found) == ["Messages"]
    assert _node(found, resource_id=_rid("search_bar_input")).text == "mes"
    opened = await _step(env, TapAction(target=Target.node(_node(found, text="Messages").id)))
    assert opened.foreground.app == "messages" and not opened.keyboard_visible
    assert opened.foreground.package == "com.android.mms"  # a Redmi's Messages
    await env.close()


async def test_in_chinese_the_search_finds_by_pinyin_and_a_swipe_down_closes(
    sim: Simulator,
) -> None:
    env = await _env(sim, "zh")
    await env.observe()
    drawer = await _step(env, ScrollAction(direction="down"))
    search = _node(drawer, resource_id=_rid("search_bar_input"))
    found = await _step(env, TypeAction(text="shezhi", target=Target.node(search.id)))
    assert _drawer_icons(found) == ["设置"]
    await _step(env, KeyAction(key="back"))  # the keyboard
    closed = await _step(env, ScrollAction(direction="up"))  # the finger moves down
    assert not env.instance.state.os.launcher.drawer_open
    assert "设置" in {n.content_desc for n in closed.ui if n.resource_id == _rid("icon_icon")}
    await env.close()


async def test_pages_turn_with_the_same_actions_and_the_dock_stays() -> None:
    real = scan_apps()
    apps = [*real, *synthetic_apps(30 - len(real))]
    phone = Phone(apps)
    state = InstanceState()
    state.os.skin = "hyperos"
    first = render_screen(phone, state)
    phone.apply(state, ActionEvent(action="os:launcher_next_page"))  # what a swipe left posts
    second = render_screen(phone, state)
    assert state.os.launcher.page == 1
    assert 'data-swipe-left="os:launcher_next_page"' in first
    assert 'data-swipe-right="os:launcher_prev_page"' in second
    assert 'data-swipe-up="os:all_apps"' in first and 'data-swipe-up="os:all_apps"' in second

    def dock(html: str) -> list[str]:
        part = html.split('data-rid="hotseat_content_screen"', 1)[1]
        return re.findall(r'data-rid="icon_icon" data-desc="([^"]*)"', part)

    labels = [entry.label for entry in phone.launcher_entries("en")]
    assert dock(first) == dock(second) == labels[:4]
    assert 'data-rid="widget_container"' in first and 'data-rid="widget_container"' not in second
