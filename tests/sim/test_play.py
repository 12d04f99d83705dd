"""The player page (/play/ID) as a person uses it, and the docs pages, offline.

The page is opened in a viewport larger than the phone, so the phone sits away from the
page's origin (as in a person's browser): a click must land on what is under the pointer.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
import pytest_asyncio
from playwright.async_api import Browser, Page, Route

from bridge.browser import launch_chromium
from sim.env_api import ERROR_HEADER
from sim.server import DOCS_ASSETS, TOKEN_COOKIE, build_app
from sim.simulator import SimConfig, Simulator

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.browser]

SETTINGS_ICON = '#screen [data-action="os:launch"][data-arg-app="settings"]'


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def browser() -> AsyncIterator[Browser]:
    """A Chromium of the tests' own, as a person's browser (not the simulator's pool)."""
    async with launch_chromium() as chromium:
        yield chromium


@pytest_asyncio.fixture(loop_scope="module")
async def page(browser: Browser) -> AsyncIterator[Page]:
    """A desktop-sized page: the phone (360x800) is laid out away from (0, 0)."""
    context = await browser.new_context(viewport={"width": 1240, "height": 900})
    yield await context.new_page()
    await context.close()


async def open_player(page: Page, sim: Simulator, instance_id: str) -> None:
    """Open /play/ID and record every gesture the page finishes in ``window.__done``."""
    await page.goto(f"{sim.base_url}/play/{instance_id}")
    await page.wait_for_function("() => document.body.dataset.ready === 'true'")
    await page.evaluate(
        "() => { window.__done = [];"
        " addEventListener('mgb:gesture', (e) => window.__done.push(e.detail)); }"
    )


async def click(page: Page, x: float, y: float) -> dict[str, Any]:
    """A real mouse click at page point (x, y); the gesture's result once it is handled."""
    count = await page.evaluate("() => window.__done.length")
    await page.mouse.click(x, y)
    await page.wait_for_function(f"() => window.__done.length > {count}")
    detail = await page.evaluate("() => window.__done.at(-1)")
    assert detail["error"] is None, detail
    return detail["result"]


async def click_on(page: Page, selector: str) -> dict[str, Any]:
    """Click the centre of the element ``selector`` at its real place on the page."""
    box = await page.locator(selector).first.bounding_box()
    assert box is not None, selector
    return await click(page, box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


async def test_a_click_lands_on_what_is_under_the_pointer(sim: Simulator, page: Page) -> None:
    instance = sim.create_instance(seed=0)
    await open_player(page, sim, instance.id)
    phone = await page.locator("#screen").bounding_box()
    icon = await page.locator(SETTINGS_ICON).bounding_box()
    assert phone is not None and icon is not None
    assert phone["x"] > 100 and phone["y"] > 0  # the phone is not at the page's origin
    x, y = icon["x"] + icon["width"] / 2, icon["y"] + icon["height"] / 2

    # The old mapping added the phone's offset again; a click on empty wallpaper (below
    # the icons) must stay on the wallpaper, and one on the icon must open it.
    empty = await click(page, phone["x"] + phone["width"] / 2, phone["y"] + phone["height"] * 0.8)
    assert empty["posted"] is False and empty["hit"]["class"] != "android.widget.TextView"
    assert instance.state.os.foreground is None

    on_icon = await click(page, x, y)
    assert on_icon["posted"] is True and on_icon["hit"]["text"] == "Settings"
    assert instance.state.os.foreground == "settings"
    tree = await page.evaluate("() => window.__mgb.tree()")
    assert any(node["package"] == "com.android.settings" for node in tree)
    # the tree's bounds are the phone's, wherever the page put it
    assert min(node["bounds_px"][0] for node in tree) == 0
    assert max(node["bounds_px"][2] for node in tree) == round(phone["width"])


async def test_the_panel_poses_a_task_and_judges_every_gesture(sim: Simulator, page: Page) -> None:
    instance = sim.create_instance(seed=5)
    await open_player(page, sim, instance.id)
    await page.select_option("#task-id", "settings/SetWifi-v1")
    await page.fill("#seed", "0")
    await page.check("input[name=lang][value=en]", force=True)
    await page.click("#pose-button")
    await page.wait_for_function("() => document.body.dataset.success === 'false'")
    assert await page.text_content("#instruction") == "Turn off Wi-Fi."
    assert instance.episode.task.task_id == "settings/SetWifi-v1"
    assert instance.episode.task.seed == 0 and instance.state.seed == 0
    check = page.locator('#checks li[data-check="global.wifi_on"]')
    assert await check.get_attribute("data-passed") == "false"
    assert "0 of 1" in (await page.text_content("#badge") or "")

    await click_on(page, SETTINGS_ICON)
    await click_on(page, '#screen [data-rid="wifi_settings"]')
    switch = '#screen [data-rid="wifi_enable"] [data-class="android.widget.Switch"]'
    assert (await click_on(page, switch))["posted"] is True

    await page.wait_for_function("() => document.body.dataset.success === 'true'")
    assert await page.text_content("#badge") == "success"
    assert await check.get_attribute("data-passed") == "true"
    assert "3 gestures" in (await page.text_content("#gestures") or "")
    assert instance.state.os.route is not None and instance.state.os.route.path == "/wifi"


async def test_the_player_endpoints(sim: Simulator) -> None:
    instance = sim.create_instance(seed=0)
    task_url = f"/api/instances/{instance.id}/task"
    async with httpx.AsyncClient(base_url=sim.base_url, timeout=30) as http:
        listed = (await http.get("/api/tasks", params={"lang": "zh"})).json()
        wifi = next(task for task in listed if task["id"] == "settings/SetWifi-v1")
        assert wifi["apps"] == ["settings"] and wifi["instruction"] == "关闭 WLAN。"
        assert len(listed) == len(sim.tasks)
        idle = (await http.get(task_url)).json()
        assert idle["task"] is None and idle["verdict"] is None
        assert idle["foreground"]["package"] == "com.android.launcher3"

        posed = await http.post(task_url, json={"task_id": "settings/SetWifi-v1", "seed": 0})
        assert posed.status_code == 200, posed.text
        assert posed.json()["verdict"]["success"] is False
        assert posed.json()["verdict"]["checks"][0]["name"] == "global.wifi_on"

        query = {"task_id": "settings/QueryDeviceModel-v1", "seed": 1, "lang": "zh"}
        asked = (await http.post(task_url, json=query)).json()
        assert asked["task"]["lang"] == "zh" and asked["task"]["answer_fields"]
        assert instance.state.apps["answersheet"]  # a person answers in the AnswerSheet app

        typo = await http.post(task_url, json={"task_id": "settings/SetWfi-v1"})
        assert typo.status_code == 404 and typo.headers[ERROR_HEADER] == "unknown-task"
        assert "settings/SetWifi-v1" in typo.json()["detail"]
        missing = await http.get("/api/instances/i999999/task")
        assert missing.status_code == 404


async def test_docs_pages_load_their_assets_from_this_server(sim: Simulator) -> None:
    async with httpx.AsyncClient(base_url=sim.base_url, timeout=30) as http:
        for page_url, kinds in (("/docs", {"js", "css"}), ("/redoc", {"js"})):
            html = (await http.get(page_url)).text
            urls = re.findall(r'(?:src|href)="([^"]+\.(?:js|css))"', html)
            assert {url.rsplit(".", 1)[1] for url in urls} == kinds, html
            assert "://" not in html
            for url in urls:
                assert url.startswith(f"{DOCS_ASSETS}/")
                asset = await http.get(url)
                assert asset.status_code == 200 and len(asset.content) > 100_000


async def test_docs_render_with_the_network_blocked(sim: Simulator, page: Page) -> None:
    elsewhere: list[str] = []

    async def loopback_only(route: Route) -> None:
        if route.request.url.startswith("http://127.0.0.1:"):
            await route.continue_()
        else:
            elsewhere.append(route.request.url)
            await route.abort()

    await page.route("**/*", loopback_only)
    await page.goto(f"{sim.base_url}/docs")
    await page.locator(".opblock").first.wait_for()
    assert await page.locator(".opblock").count() >= 10
    assert elsewhere == []
    await page.goto(f"{sim.base_url}/redoc")
    await page.locator('[data-section-id="tag/player"]').wait_for(state="attached")
    await page.locator('img[alt="redocly logo"]').wait_for(state="attached")
    assert elsewhere == []  # its footer logo is inline, not fetched from a CDN


async def test_the_first_url_is_a_page_a_person_can_use(sim: Simulator, page: Page) -> None:
    instance = sim.create_instance(seed=5)
    await page.goto(sim.base_url)
    text = await page.locator("main").inner_text()
    assert f"{len(sim.tasks)} task templates" in text and "Settings" in text
    await page.locator(f'a[href="/play/{instance.id}"]').click()
    await page.wait_for_url(f"**/play/{instance.id}")
    await page.goto(sim.base_url)
    assert await page.locator('a[href="/docs"]').count() == 1


async def test_a_page_opened_with_the_token_loads_its_own_assets() -> None:
    token = "t" * 24
    sim = Simulator(SimConfig(token=token, serve_env_api=False))
    instance = sim.create_instance()
    remote = httpx.ASGITransport(app=build_app(sim), client=("192.0.2.7", 50000))
    async with httpx.AsyncClient(transport=remote, base_url="http://sim.test") as http:
        assert (await http.get("/static/runtime.js")).status_code == 401
        opened = await http.get(f"/play/{instance.id}?token={token}")
        assert opened.status_code == 200 and TOKEN_COOKIE in opened.cookies
        assert (await http.get("/static/runtime.js")).status_code == 200
        assert (await http.get(f"/api/instances/{instance.id}/task")).status_code == 200
        assert (await http.get("/?token=wrong")).status_code == 401
    async with httpx.AsyncClient(transport=remote, base_url="http://sim.test") as http:
        http.cookies.set(TOKEN_COOKIE, "wrong")
        assert (await http.get("/static/play.js")).status_code == 401
