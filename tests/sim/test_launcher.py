"""The launcher without a browser: layout of 30 synthetic apps (grid, pages, the drawer's
order in en and zh, search), its state transitions, and its rendered HTML."""

from __future__ import annotations

import re

import pytest

from sim.discovery import scan_apps
from sim.launcher import (
    DEFAULT_GRID,
    Grid,
    LauncherEntry,
    drawer_apps,
    grid_for_screen,
    launcher_view,
    matches,
    page_count,
    page_of,
    workspace_pages,
)
from sim.phone import ActionEvent, FocusEvent, Phone, ScrolledEvent
from sim.screen import render_screen
from sim.state import LAUNCHER_SEARCH_FIELD, InstanceState
from tests.sim.launcher_fixture import SYNTHETIC, synthetic_apps, synthetic_entries

EN_ORDER = [
    "Bank", "Books", "Browser", "Café Finder", "Calculator", "Compass", "Downloads", "Fitness",
    "Flashlight", "Game Center", "Health", "Journal", "Magnifier", "Mail", "Maps", "Music",
    "Podcasts", "Radio", "Recorder", "Scanner", "Security", "Shop", "Stocks", "Taxi", "Themes",
    "Translate", "Video", "Wallet", "Weather", "2048",
]  # fmt: skip
"""A–Z ignoring case and accents (Café before Calculator); a label without a letter last."""
ZH_ORDER = [
    "安全中心", "播客", "打车", "地图", "读书", "翻译", "放大镜", "股票", "计算器", "健康",
    "健身", "咖啡地图", "浏览器", "录音机", "钱包", "日记", "扫一扫", "商城", "视频", "手电筒",
    "收音机", "天气", "下载", "银行", "音乐", "邮件", "游戏中心", "指南针", "主题", "2048",
]  # fmt: skip
"""By pinyin, syllable by syllable: ji suan qi < jian kang < jian shen, yin hang < yin yue."""


def _labels(entries: list[LauncherEntry]) -> list[str]:
    return [entry.label for entry in entries]


# ---------------------------------------------------------------- layout (pure)


def test_the_grid_follows_the_screen() -> None:
    assert grid_for_screen(360, 800) == DEFAULT_GRID == Grid(columns=4, rows=5)
    assert grid_for_screen(412, 915).columns == 5  # a wide phone gets a fifth column
    assert grid_for_screen(360, 592).rows == 3  # 1080x1776: fewer rows
    assert grid_for_screen(400, 3000).rows == 6  # never more than six


def test_thirty_apps_fill_one_page_and_part_of_another_in_order() -> None:
    entries = synthetic_entries()
    pages = workspace_pages(entries, DEFAULT_GRID)
    assert [len(page) for page in pages] == [20, 10] and page_count(30, DEFAULT_GRID) == 2
    assert [e.id for e in pages[0] + pages[1]] == [app[0] for app in SYNTHETIC]
    assert page_of(entries, DEFAULT_GRID, "x_weather") == 0
    assert page_of(entries, DEFAULT_GRID, "x_cafe") == 0  # the 20th fills page 1
    assert page_of(entries, DEFAULT_GRID, "x_health") == 1  # the 21st starts page 2
    assert page_of(entries, Grid(columns=5, rows=6), "x_2048") == 0
    assert workspace_pages([], DEFAULT_GRID) == [[]] and page_count(0, DEFAULT_GRID) == 1
    with pytest.raises(KeyError, match="x_nope"):
        page_of(entries, DEFAULT_GRID, "x_nope")


def test_the_view_clamps_the_page_and_lists_the_drawer_only_when_open() -> None:
    entries = synthetic_entries()
    view = launcher_view(entries, DEFAULT_GRID, page=7, drawer_open=False)
    assert (view.page, view.page_count, len(view.page_apps)) == (1, 2, 10)
    assert view.drawer_apps == []
    opened = launcher_view(entries, DEFAULT_GRID, page=1, drawer_open=True, query="ma")
    assert opened.page == 1 and _labels(opened.drawer_apps) == ["Magnifier", "Mail", "Maps"]


def test_drawer_order_in_english_and_chinese() -> None:
    assert _labels(drawer_apps(synthetic_entries("en"))) == EN_ORDER
    assert _labels(drawer_apps(synthetic_entries("zh"))) == ZH_ORDER


@pytest.mark.parametrize(
    ("lang", "query", "found"),
    [
        ("en", "caf", ["Café Finder"]),  # accents folded
        ("en", "ca", ["Café Finder", "Calculator", "Taxi"]),  # Taxi: its alias "cab"
        ("en", "CAFE", ["Café Finder"]),
        ("en", "center", ["Game Center"]),  # any word of the label
        ("en", "enter", []),  # ... from its start
        ("en", "torch", ["Flashlight"]),  # an alias
        ("en", "player", ["Music", "Video"]),  # an alias of two, A–Z
        ("en", "qr c", ["Scanner"]),  # a multi-word alias
        ("en", "天气", ["Weather"]),  # the other language's name
        ("zh", "地图", ["地图", "咖啡地图"]),  # Chinese: anywhere in the label
        ("zh", "ditu", ["地图", "咖啡地图"]),  # pinyin from any syllable
        ("zh", "jsq", ["计算器"]),  # pinyin initials
        ("zh", "weather", ["天气"]),
        ("zh", "导航", ["地图"]),  # a Chinese alias
        ("en", "  maps ", ["Maps"]),  # spaces around do not count
        ("en", "zzz", []),
    ],
)
def test_search_by_label_and_alias(lang: str, query: str, found: list[str]) -> None:
    assert _labels(drawer_apps(synthetic_entries(lang), query)) == found


def test_search_splits_camel_case_and_empty_finds_all() -> None:
    sheet = LauncherEntry(id="answersheet", label="AnswerSheet")
    assert matches(sheet, "sheet") and matches(sheet, "answersh") and not matches(sheet, "nswer")
    assert matches(sheet, "") and matches(sheet, "   ")
    assert len(drawer_apps(synthetic_entries(), "")) == 30


# ---------------------------------------------------------------- the phone's launcher


@pytest.fixture(scope="module")
def phone() -> Phone:
    """The real apps and synthetic ones up to 30 launcher icons: two pages."""
    return Phone([*scan_apps(), *synthetic_apps(30 - len(scan_apps()))])


def _act(phone: Phone, state: InstanceState, action: str, **args: str) -> None:
    phone.apply(state, ActionEvent(kind="swipe", action=f"os:{action}", args=args))


def test_swipes_turn_pages_within_the_pages_there_are(phone: Phone) -> None:
    state = InstanceState()
    _act(phone, state, "launcher_prev_page")
    assert state.os.launcher.page == 0
    _act(phone, state, "launcher_next_page")
    _act(phone, state, "launcher_next_page")
    assert state.os.launcher.page == 1  # two pages only
    phone.key(state, "home")
    assert state.os.launcher.page == 0


def test_the_drawer_opens_searches_launches_and_closes(phone: Phone) -> None:
    state = InstanceState()
    _act(phone, state, "launcher_next_page")
    _act(phone, state, "all_apps")
    assert state.os.launcher.drawer_open and state.os.launcher.page == 1
    _act(phone, state, "launcher_next_page")  # pages do not turn under the drawer
    assert state.os.launcher.page == 1
    phone.apply(state, FocusEvent(field=LAUNCHER_SEARCH_FIELD, submit="os:all_apps_go"))
    phone.type_text(state, "sett", clear=False)
    phone.key(state, "back")  # the keyboard goes first ...
    assert state.os.launcher.drawer_open and not state.ui.keyboard_visible
    phone.key(state, "back")  # ... then the drawer, back to the page it was opened from
    assert not state.os.launcher.drawer_open and state.os.launcher.page == 1
    assert LAUNCHER_SEARCH_FIELD not in state.ui.fields and state.ui.focus is None
    _act(phone, state, "all_apps")
    phone.apply(state, FocusEvent(field=LAUNCHER_SEARCH_FIELD, submit="os:all_apps_go"))
    phone.type_text(state, "sett", clear=False)
    phone.key(state, "enter")  # Enter opens the first app found
    assert state.os.foreground == "settings" and not state.os.launcher.drawer_open
    assert LAUNCHER_SEARCH_FIELD not in state.ui.fields and not state.ui.keyboard_visible
    phone.back(state)
    assert state.os.foreground is None and state.os.launcher.page == 1


def test_home_closes_the_drawer_and_shows_page_one(phone: Phone) -> None:
    state = InstanceState()
    _act(phone, state, "launcher_next_page")
    _act(phone, state, "all_apps")
    phone.apply(state, ScrolledEvent(key="launcher.all_apps", top=300))
    phone.apply(state, FocusEvent(field=LAUNCHER_SEARCH_FIELD))
    phone.type_text(state, "x", clear=False)
    phone.key(state, "home")
    launcher = state.os.launcher
    assert (launcher.page, launcher.drawer_open) == (0, False)
    assert state.ui.scroll == {} and state.ui.fields == {} and not state.ui.keyboard_visible
    _act(phone, state, "all_apps")
    phone.apply(state, ActionEvent(action="os:launch", args={"app": "contacts"}))
    assert state.os.foreground == "contacts" and not state.os.launcher.drawer_open
    _act(phone, state, "all_apps")  # only on the home screen
    assert not state.os.launcher.drawer_open


def test_enter_with_nothing_found_launches_nothing(phone: Phone) -> None:
    state = InstanceState()
    _act(phone, state, "all_apps")
    phone.apply(state, FocusEvent(field=LAUNCHER_SEARCH_FIELD, submit="os:all_apps_go"))
    phone.type_text(state, "zzz", clear=False)
    phone.key(state, "enter")
    assert state.os.foreground is None and state.os.launcher.drawer_open


def test_launcher_state_is_in_snapshots_and_forks(phone: Phone) -> None:
    state = InstanceState(seed=4)
    _act(phone, state, "launcher_next_page")
    _act(phone, state, "all_apps")
    phone.apply(state, FocusEvent(field=LAUNCHER_SEARCH_FIELD))
    phone.type_text(state, "ma", clear=False)
    restored = InstanceState.model_validate_json(state.model_dump_json())
    fork = state.model_copy(deep=True)
    for copy in (restored, fork):
        assert copy.os.launcher.page == 1 and copy.os.launcher.drawer_open
        assert render_screen(phone, copy) == render_screen(phone, state)
    _act(phone, fork, "close_all_apps")
    assert state.os.launcher.drawer_open  # the fork is its own phone


# ---------------------------------------------------------------- rendered HTML


def _icons(html: str) -> list[str]:
    return re.findall(r'data-action="os:launch" data-arg-app="([^"]+)"', html)


def _descs(html: str, rid: str) -> list[str]:
    return re.findall(rf'data-rid="{rid}" data-desc="([^"]*)"', html)


def test_the_workspace_shows_the_current_page_only(phone: Phone) -> None:
    state = InstanceState()
    ids = [app.id for app in phone.apps.values()]
    first = render_screen(phone, state)
    assert _icons(first) == ids[:20] and 'data-rid="clock_widget"' in first
    assert _descs(first, "page_indicator") == ["Page 1 of 2"]
    assert 'data-swipe-left="os:launcher_next_page"' in first
    assert "data-swipe-right" not in first and 'data-scrollable="true"' in first
    _act(phone, state, "launcher_next_page")
    second = render_screen(phone, state)
    assert _icons(second) == ids[20:] and 'data-rid="clock_widget"' not in second
    assert _descs(second, "page_indicator") == ["Page 2 of 2"]
    assert 'data-swipe-right="os:launcher_prev_page"' in second
    assert "data-swipe-left" not in second
    state.os.settings["system"]["system_locales"] = "zh-CN"
    assert _descs(render_screen(phone, state), "page_indicator") == ["第 2 页，共 2 页"]


def test_the_drawer_renders_a_to_z_and_an_empty_search(phone: Phone) -> None:
    state = InstanceState()
    state.os.settings["system"]["system_locales"] = "zh-CN"
    _act(phone, state, "all_apps")
    html = render_screen(phone, state)
    labels = re.findall(r'data-rid="icon" data-desc="([^"]+)"', html)
    assert labels[:4] == ["播客", "打车", "答题卡", "地图"] and len(labels) == 30
    assert 'data-hint="搜索应用"' in html and 'data-rid="search_container_all_apps"' in html
    assert "page_indicator" not in html and 'data-rid="workspace"' not in html
    state.ui.fields[LAUNCHER_SEARCH_FIELD] = "qqq"
    empty = render_screen(phone, state)
    assert "找不到与“qqq”相关的应用" in empty and 'data-rid="icon"' not in empty


def test_one_page_of_real_apps_has_no_indicator() -> None:
    html = render_screen(Phone(scan_apps()), InstanceState())
    assert "page_indicator" not in html and "data-swipe-left" not in html
    assert 'data-swipe-up="os:all_apps"' in html and "data-scrollable" not in html
