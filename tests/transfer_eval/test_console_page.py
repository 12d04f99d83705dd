"""``mgb console`` as a person uses it: the real server, the real page in headless Chromium,
the simulator and the virtual phone underneath (through the whole adb stack).

Screenshots of every state are written to ``$CONSOLE_SHOTS`` (default: the test's tmp dir).
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from bridge.browser import launch_chromium
from bridge.trajectory import RunStore
from policies.registry import load
from transfer_eval.commands import mgb_app
from transfer_eval.console.launch import ConsoleConfig, open_console

pytestmark = pytest.mark.asyncio


def _shots(tmp_path: Path) -> Path:
    directory = Path(os.environ.get("CONSOLE_SHOTS", tmp_path / "shots"))
    directory.mkdir(parents=True, exist_ok=True)
    return directory


async def _state(url: str) -> dict:
    async with httpx.AsyncClient() as client:
        return (await client.get(url + "api/state")).json()


async def _wait_version(page, after: int) -> None:  # type: ignore[no-untyped-def]
    """Until the page has rendered a state newer than ``after`` and nothing is busy."""
    await page.wait_for_function(
        f"window.renderedVersion > {after} && !window.renderedBusy", timeout=30_000
    )


async def _node_centre_on_frame(page, bounds: list[int], screen: list[int]) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    box = await page.locator("#frozen").bounding_box()
    assert box is not None
    left, top, right, bottom = bounds
    x = box["x"] + (left + right) / 2 / screen[0] * box["width"]
    y = box["y"] + (top + bottom) / 2 / screen[1] * box["height"]
    return x, y


@pytest.mark.parametrize("device", ["sim", "virtual"])
async def test_step_approve_override_finish_and_replay(device: str, tmp_path: Path) -> None:
    shots = _shots(tmp_path)
    out = tmp_path / "run"
    config = ConsoleConfig(
        device=device, policy="scripted", task="settings/SetWifi-v1", out=out, port=0,
        guard="apps",
    )  # fmt: skip
    async with open_console(config) as running, launch_chromium() as browser:
        page = await browser.new_page(viewport={"width": 1500, "height": 1000})
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        await page.goto(running.url)
        # the page loads: a live frame, the frozen frame and the tree appear
        await page.wait_for_function("window.liveFrames >= 1", timeout=30_000)
        await page.wait_for_function("document.getElementById('frozen').naturalWidth > 0")
        assert await page.locator("#tree [data-node]").count() > 10
        # the frame rate is drawn by a 200 ms display timer, not with the frame
        await page.wait_for_function(
            "document.getElementById('live-meta').textContent.includes('fps')"
        )
        await page.screenshot(path=shots / f"{device}_0_loaded.png")

        # hovering a node of the tree draws its bounds on the frame
        state = await _state(running.url)
        launcher = next(n for n in state["frozen"]["nodes"] if n["text"] == "Settings")
        await page.hover(f'#tree [data-node="{launcher["id"]}"]')
        hover = page.locator("#overlay .hover-box")
        await hover.wait_for()
        left, top, right, bottom = launcher["bounds"]
        assert await hover.get_attribute("x") == str(left)
        assert await hover.get_attribute("y") == str(top)
        assert await hover.get_attribute("width") == str(right - left)
        assert await hover.get_attribute("height") == str(bottom - top)
        await page.screenshot(path=shots / f"{device}_1_hover.png")

        # clicking the frame (inspect mode) selects the node under the point, with an XPath
        x, y = await _node_centre_on_frame(page, launcher["bounds"], state["frozen"]["screen"])
        await page.mouse.click(x, y)
        await page.locator("#node-info").wait_for()
        await page.wait_for_function("document.getElementById('xpath').textContent !== '…'")
        xpath = await page.locator("#xpath").inner_text()
        assert xpath.startswith("/")
        assert "Settings" in await page.locator("#node-info").inner_text()
        assert (await _state(running.url))["history"] == []  # inspecting executes nothing

        # Step shows the proposal drawn on the frame; Approve executes it
        version = (await _state(running.url))["version"]
        await page.keyboard.press("s")
        mark = page.locator("#overlay .proposal-mark")
        await mark.wait_for()
        assert await mark.get_attribute("data-type") == "open_app"
        assert "open_app" in await page.locator("#proposal").inner_text()
        await page.screenshot(path=shots / f"{device}_2_proposal.png")
        await _wait_version(page, version)
        version = (await _state(running.url))["version"]
        await page.keyboard.press("a")
        await page.wait_for_function(
            "document.querySelectorAll('#history li').length === 1", timeout=30_000
        )
        await _wait_version(page, version)
        state = await _state(running.url)
        assert state["frozen"]["foreground"]["package"] == "com.android.settings"
        assert state["history"][0]["decided_by"] == "approved"

        # the next proposal is a tap on the Wi-Fi row, drawn as a ring on it
        await page.keyboard.press("s")
        await page.locator("#overlay .proposal-mark[data-type='tap'] circle").wait_for()
        await page.keyboard.press("a")
        await page.wait_for_function("document.querySelectorAll('#history li').length === 2")
        state = await _state(running.url)
        switch = next(n for n in state["frozen"]["nodes"] if n["rid"].endswith("switch_widget"))
        await page.screenshot(path=shots / f"{device}_3_wifi_page.png")

        # Override: a click on the frame taps there instead of what the policy proposed
        await page.keyboard.press("s")
        await page.locator("#overlay .proposal-mark").wait_for()
        await page.keyboard.press("o")
        x, y = await _node_centre_on_frame(page, switch["bounds"], state["frozen"]["screen"])
        await page.mouse.click(x, y)
        await page.wait_for_function("document.querySelectorAll('#history li').length === 3")
        state = await _state(running.url)
        assert state["history"][2]["decided_by"] == "override"
        assert state["history"][2]["action"]["type"] == "tap"
        assert state["history"][2]["proposal"] is not None  # what it replaced is kept
        assert state["verdict"]["success"] is True  # Wi-Fi is off: the judge says so live
        await page.wait_for_selector("#verdict .badge.success")
        await page.screenshot(path=shots / f"{device}_4_override.png")

        # Finish ends and commits the episode
        await page.keyboard.press("f")
        await page.wait_for_function(
            "document.getElementById('episode').textContent.includes('episode over')"
        )
        state = await _state(running.url)
        assert state["episode"]["over"] and state["episode"]["outcome"] == "success"
        await page.screenshot(path=shots / f"{device}_5_finished.png")

        # Reset starts a new attempt; leaving the task's apps makes the guard stop and ask
        await page.locator("#b-reset").click()
        await page.wait_for_function(
            "document.getElementById('episode').textContent.includes('_a2')", timeout=30_000
        )
        await page.locator("#open-app").select_option("contacts")
        await page.wait_for_function(
            "document.getElementById('notice').textContent.includes('guard')", timeout=30_000
        )
        text = await page.locator("#notice").inner_text()
        assert "com.android.contacts" in text and "settings" in text
        assert (await _state(running.url))["mode"] == "step"
        await page.screenshot(path=shots / f"{device}_6_guard.png")
        assert errors == []
    store = RunStore.open(out)
    record = store.completed()["settings.SetWifi-v1_s0_en_a1"]
    stopped = store.completed()["settings.SetWifi-v1_s0_en_a2"]
    assert stopped.termination == "stopped" and stopped.stop_reason == "the console was closed"
    assert record.outcome == "success" and record.termination == "finish"
    steps = store.read_steps(record.episode_id)
    assert [s.decided_by for s in steps] == ["approved", "approved", "override", "override"]
    assert steps[2].proposal is not None and steps[2].proposal.action is not None
    assert all(s.frame and (store.episode_dir(record.episode_id) / s.frame).exists() for s in steps)
    # the recorded run is a run like any other: replayable and listed by `mgb replay`
    replay = load(f"replay:{out}/{record.episode_id}")
    assert replay.name.startswith("replay:")
    listed = CliRunner().invoke(mgb_app, ["replay", str(out)])
    assert listed.exit_code == 0, listed.output
    assert record.episode_id in listed.output
    demo = tmp_path / "demo.jsonl"
    exported = CliRunner().invoke(
        mgb_app, ["replay", str(out), "--episode", record.episode_id, "--export", str(demo)]
    )
    assert exported.exit_code == 0, exported.output
    lines = [json.loads(line) for line in demo.read_text().splitlines()]
    assert [line["decided_by"] for line in lines] == [s.decided_by for s in steps]
    assert lines[2]["replaced"] == steps[2].proposal.action.model_dump(
        mode="json", exclude_none=True
    )
    assert all(Path(line["frame"]).exists() for line in lines)


async def test_closing_the_console_answers_the_long_poll_in_flight(tmp_path: Path) -> None:
    """A page's long poll waits up to 20 s for a change and the server waits for requests in
    flight when it stops: closing must answer the poll at once (it once held every exit, a
    Ctrl-C included, for 20 s)."""
    config = ConsoleConfig(
        device="sim", policy="scripted", task="settings/SetWifi-v1", out=tmp_path / "run", port=0
    )
    async with httpx.AsyncClient(timeout=60) as client:
        console = open_console(config)
        running = await console.__aenter__()
        version = (await client.get(running.url + "api/state")).json()["version"]
        poll = asyncio.create_task(client.get(running.url + f"api/state?after={version}"))
        while running.session.polls == 0:  # the request reached the server and waits
            await asyncio.sleep(0.01)
        # a deadline, not a measurement: the poll's own answer comes only after 20 s
        await asyncio.wait_for(console.__aexit__(None, None, None), 15)
        answer = await poll
    assert answer.status_code == 200 and answer.json()["version"] == version
