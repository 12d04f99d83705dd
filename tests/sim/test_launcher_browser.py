"""The launcher through the real simulator, with the real apps and synthetic ones (30 in
all, two pages): swiping pages, the drawer by swipe up, search, launching, back and home."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from bridge.schema import (
    Action,
    KeyAction,
    Observation,
    Point,
    ScrollAction,
    SwipeAction,
    TapAction,
    Target,
    TypeAction,
    UINode,
)
from sim.discovery import scan_apps
from sim.env import SimEnv
from sim.simulator import SimConfig, Simulator
from tests.sim.launcher_fixture import synthetic_apps

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.browser]

LAUNCHER = "com.android.launcher3"


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def sim() -> AsyncIterator[Simulator]:
    """A simulator whose launcher holds 30 apps: the real ones, then synthetic ones."""
    real = scan_apps()
    apps = [*real, *synthetic_apps(30 - len(real))]
    async with Simulator(SimConfig(pages=1), apps=apps) as simulator:
        yield simulator


def _node(obs: Observation, **match: object) -> UINode:
    return next(n for n in obs.ui if all(getattr(n, k) == v for k, v in match.items()))


def _rid(name: str) -> str:
    return f"{LAUNCHER}:id/{name}"


def _icons(obs: Observation) -> list[str]:
    """The launcher's app icons in the tree, in order."""
    icon = "android.widget.TextView"
    return [
        n.text for n in obs.ui if n.package == LAUNCHER and n.clickable and n.class_name == icon
    ]


def _indicator(obs: Observation) -> str:
    return _node(obs, resource_id=_rid("page_indicator")).content_desc


async def _step(env: SimEnv, action: Action) -> Observation:
    result = await env.step(action)
    assert result.error is None, result.error
    return result.observation


async def test_swipes_turn_pages_and_the_tree_shows_one_page(sim: Simulator) -> None:
    env = await sim.env()
    labels = [entry.label for entry in sim.phone.launcher_entries("en")]
    first = await env.observe()
    assert _icons(first) == labels[:20] and _indicator(first) == "Page 1 of 2"
    assert _node(first, resource_id=_rid("workspace")).scrollable
    second = await _step(env, ScrollAction(direction="right"))  # the finger moves left
    assert _icons(second) == labels[20:] and _indicator(second) == "Page 2 of 2"
    assert not any(n.resource_id == _rid("clock_widget") for n in second.ui)
    assert second.foreground.package == LAUNCHER
    end = await env.step(ScrollAction(direction="right"))  # no third page
    assert end.executed is not None and end.executed.notes["effect"].startswith("no effect")
    app = await _step(env, TapAction(target=Target.node(_node(second, text=labels[20]).id)))
    assert app.foreground.app == sim.phone.launcher_entries("en")[20].id
    back = await _step(env, KeyAction(key="back"))  # its last screen: home, same page
    assert back.foreground.app is None and _indicator(back) == "Page 2 of 2"
    finger = SwipeAction(start=Point(x=0.2, y=0.5), end=Point(x=0.8, y=0.5))
    again = await _step(env, finger)  # a literal swipe to the right: the previous page
    assert _icons(again) == labels[:20] and _indicator(again) == "Page 1 of 2"
    await env.close()


async def test_the_drawer_by_swipe_up_search_launch_back_and_home(sim: Simulator) -> None:
    env = await sim.env()
    await env.observe()
    await _step(env, ScrollAction(direction="right"))
    drawer = await _step(env, ScrollAction(direction="down"))  # the finger moves up
    assert drawer.foreground.package == LAUNCHER
    search = _node(drawer, resource_id=_rid("search_container_all_apps"))
    assert search.editable and search.hint == "Search apps"
    assert _node(drawer, resource_id=_rid("apps_list_view")).scrollable
    assert _icons(drawer)[:4] == ["AnswerSheet", "Bank", "Books", "Browser"]
    scrolled = await _step(env, ScrollAction(direction="down"))  # the list scrolls
    assert _icons(scrolled)[0] != "AnswerSheet"
    await _step(env, ScrollAction(direction="up", distance=1.0))  # back to its top ...
    await _step(env, ScrollAction(direction="up", distance=1.0))
    closed = await _step(env, ScrollAction(direction="up"))  # ... where a swipe down closes it
    assert _indicator(closed) == "Page 2 of 2"
    drawer = await _step(env, ScrollAction(direction="down"))
    search = _node(drawer, resource_id=_rid("search_container_all_apps"))
    typed = await _step(env, TypeAction(text="zzz", target=Target.node(search.id)))
    assert typed.keyboard_visible and _icons(typed) == []
    assert _node(typed, resource_id=_rid("no_results_text")).text == 'No apps found for "zzz"'
    found = await _step(env, TypeAction(text="people", target=Target.node(search.id), clear=True))
    assert _icons(found) == ["Contacts"]  # by its alias
    opened = await _step(env, TapAction(target=Target.node(_node(found, text="Contacts").id)))
    assert opened.foreground.app == "contacts" and not opened.keyboard_visible
    home = await _step(env, KeyAction(key="home"))
    assert _indicator(home) == "Page 1 of 2"
    assert not env.instance.state.os.launcher.drawer_open
    await env.close()


async def test_the_drawer_in_chinese_searches_by_pinyin_and_closes_with_back(
    sim: Simulator,
) -> None:
    env = await sim.env()
    env.instance.state.os.settings["system"]["system_locales"] = "zh-CN"
    env.instance.changed()
    await env.observe()
    drawer = await _step(env, ScrollAction(direction="down"))
    assert _icons(drawer)[:4] == ["播客", "打车", "答题卡", "地图"]
    search = _node(drawer, resource_id=_rid("search_container_all_apps"))
    assert search.hint == "搜索应用"
    found = await _step(env, TypeAction(text="shezhi", target=Target.node(search.id)))
    assert _icons(found) == ["设置"]
    await _step(env, KeyAction(key="back"))  # the keyboard
    home = await _step(env, KeyAction(key="back"))  # the drawer
    assert _indicator(home) == "第 1 页，共 2 页" and "设置" in _icons(home)
    await env.close()
