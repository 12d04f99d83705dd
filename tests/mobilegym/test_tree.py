"""The derived UI tree on a real MobileGym build: its shape, the labels a screenshot shows,
switches against the state, hidden background apps, covered nodes, and taps that land.

The labels below were read off screenshots of the build (MobileGym's UI is Chinese by
default): the launcher's icon labels, and Settings' rows above the fold.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest

from bridge.schema import UINode
from mobilegym.page import SCREEN_PX, MobileGymPage
from mobilegym.tree import derived_tree
from mobilegym.world import MobileGym

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]

PACKAGE = "com.example.derived"
HOME_LABELS = {"设置", "时钟", "日历", "文件", "相册"}
"""Launcher icon labels on the first home page."""
SETTINGS_LABELS = {"设置", "WLAN", "蓝牙", "双卡与移动网络", "个人热点", "VPN"}
"""Settings' rows above the fold."""
SETTINGS_BELOW_FOLD = "显示与亮度"
"""A Settings row scrolled out of view: clipped by its scroll view, so not in the tree."""


async def _settled(page: MobileGymPage) -> None:
    """Wait until the page settles (an app's launch splash included)."""
    assert await page.settle(5.0), "the page did not settle"


@asynccontextmanager
async def phone(gym: MobileGym, app: str | None = None) -> AsyncIterator[MobileGymPage]:
    """A fresh phone on the launcher, or with ``app`` opened."""
    page = await gym.page()
    try:
        await _settled(page)
        if app is not None:
            await page.act("(id) => window.__OS__.openApp(id)", app)
            await _settled(page)
        yield page
    finally:
        await page.close()


async def tap(page: MobileGymPage, node: UINode) -> None:
    """Tap the centre of ``node`` as MobileGym's harness does, in device pixels."""
    x, y = node.center_px
    await page.act("([x, y]) => window.__SIM_INPUT__.tap(x, y, {coords: 'physical'})", [x, y])
    await _settled(page)


def texts(nodes: list[UINode]) -> set[str]:
    return {n.text for n in nodes if n.text}


def row_of(nodes: list[UINode], label: str) -> UINode:
    """The clickable node that holds the TextView ``label`` (itself or an ancestor)."""
    by_id = {n.id: n for n in nodes}
    node: UINode | None = next(n for n in nodes if n.text == label)
    while node is not None and not node.clickable:
        node = by_id[node.parent] if node.parent is not None else None
    assert node is not None, f"no clickable node holds {label!r}"
    return node


def check_shape(nodes: list[UINode]) -> None:
    width, height = SCREEN_PX
    assert nodes[0].class_name == "android.widget.FrameLayout"
    assert nodes[0].parent is None and nodes[0].bounds_px == (0, 0, width, height)
    for position, node in enumerate(nodes):
        assert node.id == position
        assert node.package == PACKAGE
        if position:
            assert node.parent is not None and node.parent < node.id
        left, top, right, bottom = node.bounds_px
        assert 0 <= left < right <= width and 0 <= top < bottom <= height, node
    for node in nodes[1:]:
        siblings = [n for n in nodes if n.parent == node.parent]
        assert siblings.index(node) == node.index


async def test_home_tree_shape_and_labels(gym: MobileGym) -> None:
    async with phone(gym) as page:
        nodes = await derived_tree(page, PACKAGE)
    check_shape(nodes)
    assert texts(nodes) >= HOME_LABELS
    settings = next(n for n in nodes if n.text == "设置")
    assert settings.clickable and settings.content_desc == "打开 设置"
    assert settings.class_name == "android.widget.Button"
    assert any(n.scrollable for n in nodes)  # the launcher's pager


async def test_settings_tree_and_scroll_clipping(gym: MobileGym) -> None:
    async with phone(gym, "settings") as page:
        nodes = await derived_tree(page, PACKAGE)
    check_shape(nodes)
    assert texts(nodes) >= SETTINGS_LABELS
    assert SETTINGS_BELOW_FOLD not in texts(nodes)
    scroll = next(n for n in nodes if n.class_name == "android.widget.ScrollView")
    wlan = next(n for n in nodes if n.text == "WLAN")
    assert scroll.bounds_px[1] <= wlan.bounds_px[1] and wlan.bounds_px[3] <= scroll.bounds_px[3]
    assert row_of(nodes, "WLAN").resource_id == f"{PACKAGE}:id/page.open"
    # the next row peeks out under the transparent gesture bar, which takes any tap there
    gesture_bar = SCREEN_PX[1] - 16 * 3
    assert all(n.bounds_px[1] < gesture_bar for n in nodes if n.clickable)


def switch_under(nodes: list[UINode], row: UINode) -> UINode | None:
    """The first Switch inside ``row``, if any."""
    inside = {row.id}
    for node in nodes[row.id + 1 :]:
        if node.parent in inside:
            inside.add(node.id)
            if node.class_name == "android.widget.Switch":
                return node
    return None


async def global_setting(page: MobileGymPage, key: str) -> Any:
    return await page.call("(key) => window.__SIM__.getState().os.settings.global[key]", key)


@pytest.mark.parametrize(("row", "key"), [("WLAN", "wifiEnabled"), ("蓝牙", "bluetoothEnabled")])
async def test_switch_checked_follows_the_state(gym: MobileGym, row: str, key: str) -> None:
    async with phone(gym, "settings") as page:
        await tap(page, row_of(await derived_tree(page, PACKAGE), row))
        assert (await page.route())[1] != "/"
        for _ in range(2):  # as loaded, then toggled by a tap on its row
            nodes = await derived_tree(page, PACKAGE)
            toggle = next(n for n in nodes if n.clickable and switch_under(nodes, n))
            switch = switch_under(nodes, toggle)
            assert switch is not None and switch.checkable and not switch.clickable
            assert switch.checked is await global_setting(page, key)
            before = switch.checked
            await tap(page, toggle)
            assert await global_setting(page, key) is (not before)


async def test_hidden_background_app_leaves_no_nodes(gym: MobileGym) -> None:
    async with phone(gym, "settings") as page:
        assert texts(await derived_tree(page, PACKAGE)) >= SETTINGS_LABELS
        await page.act("() => window.__OS__.goHome()")
        await _settled(page)
        running = await page.call("() => window.__SIM__.getState().os.runningApps")
        assert running  # still mounted, in the background
        found = texts(await derived_tree(page, PACKAGE))
    assert found >= HOME_LABELS
    assert not found & (SETTINGS_LABELS - {"设置"} | {"搜索系统设置项", "小米用户"})


async def test_covered_nodes_are_dropped(gym: MobileGym) -> None:
    async with phone(gym, "clock") as page:
        nodes = await derived_tree(page, PACKAGE)
        alarms = {
            n.text for n in nodes if n.class_name == "android.widget.Button" and ":" in n.text
        }
        assert alarms
        width, height = SCREEN_PX
        add = next(
            n
            for n in nodes
            if n.class_name == "android.widget.ImageButton"
            and n.clickable
            and n.center_px[0] > width / 2
            and height * 0.7 < n.center_px[1] < height * 0.95
        )
        assert add.content_desc == "plus"  # its icon's name: nothing else names it
        await tap(page, add)  # the add-alarm sheet, over a scrim
        found = texts(await derived_tree(page, PACKAGE))
    assert "添加闹钟" in found
    assert not found & alarms


async def test_taps_at_node_centres_change_the_route(gym: MobileGym) -> None:
    async with phone(gym) as page:
        await tap(page, next(n for n in await derived_tree(page, PACKAGE) if n.text == "设置"))
        assert await page.route() == ("settings", "/")
        for index in range(3):  # a cheap tap check: three rows, each from the Settings home
            nodes = await derived_tree(page, PACKAGE)
            row = [n for n in nodes if n.resource_id == f"{PACKAGE}:id/page.open"][index]
            await tap(page, row)
            assert ((await page.route())[1] or "").startswith("/page/"), row
            await page.call("() => window.__OS__.handleBack()")
            await _settled(page)
            assert await page.route() == ("settings", "/")


ICONS = """
<div id="mgb-icons" style="position: fixed; left: 0; top: 160px; width: 360px; height: 240px;
     background: #fff; z-index: 2147483647; display: flex; flex-wrap: wrap; gap: 8px">
  <div role="button" id="lucide"><svg class="lucide lucide-arrow-left" aria-hidden="true"
    width="24" height="24"><path d="M19 12H5"></path></svg></div>
  <div role="button" id="masked"><span aria-hidden="true" style="display: inline-block;
    width: 22px; height: 22px; background-color: currentcolor;
    mask-image: url('/icons/app/icon_back_light.svg')"></span></div>
  <div role="button" id="backed"><i style="display: inline-block; width: 20px; height: 20px;
    background-image: url('/icons/app/ic_share.webp?v=2')"></i></div>
  <div role="button" id="image"><img src="/icons/app/ic_send.png" width="24" height="24"></div>
  <div role="button" id="titled"><span><svg width="24" height="24"><title>Send</title>
    <path d="M0 0h4"></path></svg><svg class="lucide lucide-x" width="24" height="24"></svg>
    </span></div>
  <div role="button" id="hidden-first"><svg class="lucide lucide-x" style="display: none">
    </svg><svg class="lucide lucide-check" width="24" height="24"></svg></div>
  <div role="button" id="texted"><span>OK</span><svg class="lucide lucide-check" width="24"
    height="24"></svg></div>
  <div role="button" id="bare"><svg width="24" height="24"><path d="M12 4v16"></path></svg>
    </div>
  <div id="picture"><img src="/icons/app/photo_2026.png" width="24" height="24"></div>
</div>
"""
"""Icon-only controls as web pages draw them, named by nothing but their icon, and a picture
that does nothing. Laid over the launcher in a layer of its own."""


async def test_controls_that_nothing_names_are_named_by_their_icon(gym: MobileGym) -> None:
    async with phone(gym) as page:
        await page.call("(html) => document.body.insertAdjacentHTML('beforeend', html)", ICONS)
        nodes = await derived_tree(page, PACKAGE)
    by_id = {n.resource_id.removeprefix(f"{PACKAGE}:id/"): n for n in nodes if n.resource_id}
    descs = {key: by_id[key].content_desc for key in by_id if key != "mgb-icons"}
    assert descs == {
        "lucide": "arrow left",  # an icon library's class
        "masked": "icon_back_light",  # the file of a CSS mask
        "backed": "ic_share",  # of a background image, without its query
        "image": "ic_send",  # of an <img> without alt
        "titled": "Send",  # a name inside comes before any icon's own name
        "hidden-first": "check",  # an icon that is not laid out is passed over
        "texted": "",  # text names it
        "bare": "",  # a bare path has no name anywhere
    }
    assert by_id["texted"].text == "OK"
    assert all(by_id[key].clickable for key in descs)
    assert not any("photo_2026" in n.content_desc for n in nodes)  # a picture adds no node
