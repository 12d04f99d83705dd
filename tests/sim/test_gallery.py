"""The app gallery (sim/gallery.py): its checks find what they should on literal texts, on
crafted and planted screens in the simulator's own Chromium, and nothing on the real apps'
screens; the page shows every shot and lists every problem. One Chromium for the module
(the ``sim`` fixture), one render of the whole gallery."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
import pytest_asyncio

from bridge.uitree import parse_hierarchy
from sim.gallery import (
    SYSTEM,
    GalleryReport,
    measure,
    render_gallery,
    screen_state,
    string_tables,
    write_gallery_page,
)
from sim.gallery_checks import Problem, ShownText, StringTables, untranslated_problems
from sim.phone import Phone
from sim.screen import render_screen
from sim.simulator import Simulator, installed_apps

on_chromium = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.browser]

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


@pytest.fixture(scope="module")
def tables() -> StringTables:
    """Every strings table of a phone with the real apps."""
    return string_tables(Phone(installed_apps()))


def flagged(tables: StringTables, lang: str, *texts: str) -> list[str]:
    """The texts of ``texts`` the untranslated check flags on a ``lang`` screen."""
    shown = [ShownText("text", text) for text in texts]
    return [problem.text for problem in untranslated_problems(shown, lang, tables)]


# ---- the untranslated check on literal texts


def test_a_key_a_snake_case_name_and_a_route_are_not_texts(tables: StringTables) -> None:
    assert flagged(tables, "en", "navigate_up", "wifi", "wifi_settings", "/contact", "/") == [
        "navigate_up",
        "wifi",
        "wifi_settings",
        "/contact",
        "/",
    ]
    problems = untranslated_problems([ShownText("desc", "toast_saved")], "zh", tables)
    assert "desc 'toast_saved' is a string key" in problems[0].message


def test_english_on_a_chinese_screen_is_found_whole_formatted_and_in_lists(
    tables: StringTables,
) -> None:
    english = ["Navigate up", "Connected to HomeNet", "3 minutes before", "Tuesday", "9:30 AM"]
    assert flagged(tables, "zh", *english) == english
    assert flagged(tables, "en", *english) == []
    found = untranslated_problems([ShownText("desc", "Navigate up")], "zh", tables)[0]
    assert "English of settings/strings.json:navigate_up" in found.message


def test_texts_and_data_are_not_flagged(tables: StringTables) -> None:
    data = ["Neighbor_2F", "TP-LINK_8A3C", "zhangwei@huaxin.com.cn", "10:00", "CA1501, seat 32A"]
    assert flagged(tables, "en", "hour", "minute", "OK", "Bluetooth", *data) == []
    # the same in both languages (WLAN, Shift, HH:MM), Chinese, and placeholders only
    assert flagged(tables, "zh", "WLAN", "Shift", "HH:MM", "蓝牙", "18 May 2026", *data) == []


def test_a_real_phones_untranslated_key_is_found(tables: StringTables) -> None:
    dump = FIXTURES / "real_dumps" / "32_settings_app_permissions_pixel.xml"
    nodes = parse_hierarchy(dump.read_bytes()).nodes
    shown = [ShownText("text", n.text, n.bounds_px) for n in nodes if n.text]
    problems = untranslated_problems(shown, "en", tables)
    assert [(p.text, p.bounds) for p in problems] == [("pet_time_lock", (189, 1358, 524, 1429))]


# ---- the checks in the simulator's Chromium


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def gallery(sim: Simulator, tmp_path_factory: pytest.TempPathFactory) -> GalleryReport:
    """The whole gallery, rendered once, with its page."""
    report = await render_gallery(sim, tmp_path_factory.mktemp("gallery"))
    write_gallery_page(report)
    return report


async def measure_html(sim: Simulator, html: str, lang: str) -> list[Problem]:
    """The problems of ``html`` shown as a screen on a page of the pool (the real runtime
    and stylesheet), as the gallery measures a real screen."""
    payload = {"instance": "crafted", "version": -1, "html": html, "scroll": {}}
    async with sim.pool.page() as pooled:
        try:
            await pooled.page.evaluate("(p) => window.__mgb.load(p)", payload)
            _, problems = await measure(pooled, lang, string_tables(sim.phone))
        finally:
            pooled.forget()
    return problems


def crafted(body: str, lang: str = "en") -> str:
    """``body`` as the content of an app window in the phone's shell."""
    return (
        f'<div class="screen-inner" style="--font-scale: 1" data-lang="{lang}">'
        '<div class="window app-window" data-window="com.example.crafted" '
        'data-class="android.widget.FrameLayout"><div class="content" '
        f'data-class="android.widget.FrameLayout">{body}</div></div></div>'
    )


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.browser
async def test_a_planted_key_and_english_on_a_real_chinese_screen_are_found(
    sim: Simulator,
) -> None:
    recipe = sim.phone.app("settings").gallery_screens()[0]
    html = render_screen(sim.phone, screen_state(sim.phone, "settings", recipe, "zh"))
    assert await measure_html(sim, html, "zh") == []
    planted = html.replace(">蓝牙</div>", ">bluetooth</div>").replace(">声音与振动<", ">Sound<")
    problems = await measure_html(sim, planted, "zh")
    assert sorted((p.check, p.text) for p in problems) == [
        ("untranslated", "Sound"),
        ("untranslated", "bluetooth"),
    ]
    assert all(p.bounds is not None and p.bounds[2] > p.bounds[0] for p in problems)


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.browser
async def test_overflowing_and_cut_off_text_is_found_and_intended_truncation_is_not(
    sim: Simulator,
) -> None:
    rows = "".join(f"<div class='item'>Row {n}</div>" for n in range(30))
    body = (
        '<div style="width:120px;white-space:nowrap">A label far too long for its box</div>'
        '<div style="width:120px;white-space:nowrap;overflow:hidden;text-overflow:ellipsis">'
        "An ellipsis is intended truncation</div>"
        '<div style="height:22px;overflow:hidden"><div>First line<br>Hidden line</div></div>'
        '<div style="position:absolute;left:300px;top:300px;width:200px">Past the edge</div>'
        '<div style="font-size:56px;line-height:1">9:30</div>'
        f'<div class="scroll" data-scroll-key="crafted" style="height:120px">{rows}</div>'
    )
    problems = await measure_html(sim, crafted(body), "en")
    found = sorted((p.check, p.text, p.message.split(":")[0]) for p in problems)
    assert found == [
        ("overflow", "A label far too long for its box", "text overflows its box"),
        ("overflow", "Hidden line", "text is cut off"),
        ("overflow", "Past the edge", "text is cut off"),
    ], problems
    wide = next(p for p in problems if p.text.startswith("A label"))
    assert "in a 120px wide box" in wide.message
    assert wide.bounds is not None
    assert wide.bounds[:3] == (0, 84, 360)  # device pixels: 120 CSS px at 3x, below the bar


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.browser
async def test_cjk_without_a_font_is_tofu_and_with_one_is_not(sim: Simulator) -> None:
    # U+30000 is a CJK ideograph (Extension G) that no font installed here draws: the
    # page's fonts then have no glyph for it, as for every CJK character without a CJK font
    body = '<div class="text">中文显示正常</div><div class="text">\U00030000字</div>'
    problems = await measure_html(sim, crafted(body, "zh"), "zh")
    assert [(p.check, p.text) for p in problems] == [("cjk", "\U00030000字")], problems
    assert "no glyph for \U00030000 in" in problems[0].message  # 字 has one


# ---- the real apps' gallery


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.browser
async def test_every_apps_gallery_passes_every_check_in_both_languages(
    gallery: GalleryReport,
) -> None:
    found = [
        f"{app}/{screen}/{lang} {p.check}: {p.message}"
        for app, screen, lang, p in gallery.problems()
    ]
    assert found == []
    assert gallery.langs == ["en", "zh"]
    assert all(len(screen.shots) == 2 for s in gallery.sections for screen in s.screens)


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.browser
async def test_every_app_and_the_system_ui_show_their_main_screens(
    gallery: GalleryReport,
) -> None:
    screens = {s.app: [screen.name for screen in s.screens] for s in gallery.sections}
    sections = [*(app.id for app in installed_apps()), SYSTEM]
    assert list(screens) == [*sections, *(f"{name}@hyperos" for name in sections)]
    assert screens["contacts"] == ["list", "card", "editor", "delete-dialog"]
    assert screens["calendar"] == [
        "month", "day", "agenda", "event", "editor", "date-picker", "time-picker", "search"
    ]  # fmt: skip
    settings = {"main", "wifi", "display", "sound", "about", "rename-dialog"}
    assert settings <= set(screens["settings"])
    assert screens[SYSTEM] == ["home", "all-apps", "shade", "recents"]
    # HyperOS adds its Control Center, apart from its (notification) shade
    assert screens[f"{SYSTEM}@hyperos"] == [*screens[SYSTEM], "control-center"]
    hyperos = ["more_connectivity", "lock_screen", "lock_screen-sleep", "sound-dnd",
               "about-specs", "additional"]  # fmt: skip
    assert screens["settings@hyperos"] == [*screens["settings"], *hyperos]
    shots = {(s.app, screen.name): screen.shots for s in gallery.sections for screen in s.screens}
    for (section, name), aosp in shots.items():  # the skin shows on every screen
        if "@" in section:
            continue
        for plain, other in zip(aosp, shots[(f"{section}@hyperos", name)], strict=True):
            images = [(gallery.out / shot.screenshot).read_bytes() for shot in (plain, other)]
            assert images[0] != images[1], (section, name, plain.lang)
    for section in gallery.sections:
        for screen in section.screens:
            en, zh = ((gallery.out / shot.screenshot).read_bytes() for shot in screen.shots)
            assert en[:2] == b"\xff\xd8" and en != zh, (section.app, screen.name)
            assert all(shot.nodes > 5 for shot in screen.shots)


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.browser
async def test_the_page_shows_every_shot_side_by_side_and_each_problem_in_red(
    sim: Simulator, gallery: GalleryReport
) -> None:
    page_path = gallery.out / "index.html"
    html = page_path.read_text("utf-8")
    assert "http://" not in html and "https://" not in html  # self-contained
    async with sim.pool.page() as pooled:
        browser = pooled.page.context.browser
        assert browser is not None
    context = await browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = await context.new_page()
        await page.goto(page_path.as_uri())
        await page.wait_for_function(
            "() => [...document.images].every((i) => { i.loading = 'eager'; return i.complete; })"
        )
        facts = await page.evaluate(
            """() => ({
              sections: [...document.querySelectorAll('main > section')].map((s) => s.id),
              loaded: [...document.images].filter((i) => i.naturalWidth === 1080).length,
              rows: [...document.querySelectorAll('.shots')].map((s) => {
                const [a, b] = [...s.querySelectorAll('figure')].map(
                  (f) => f.getBoundingClientRect());
                return a.top === b.top && a.right < b.left;
              }),
              problems: [...document.querySelectorAll('figcaption li')].map(
                (li) => getComputedStyle(li).color),
              verdict: document.getElementById('verdict').textContent,
            })"""
        )
        shot = await page.screenshot(full_page=False)
    finally:
        await context.close()
    assert facts["sections"] == [s.app for s in gallery.sections]
    assert facts["loaded"] == gallery.shot_count
    assert all(facts["rows"]) and len(facts["rows"]) == gallery.screen_count
    assert facts["problems"] == ["rgb(198, 40, 40)"] * len(list(gallery.problems()))
    found = len(list(gallery.problems()))
    said = f"{found} problems found" if found else "Every check passed on every screen"
    assert said in facts["verdict"]
    assert base64.b64encode(shot)  # the page renders
