"""``mgb console`` on MobileGym (the build beside the repository): the page shows MobileGym's
screen and its derived tree, a policy's step is approved, a click on the frame overrides
the next one, our judge says live that Wi-Fi is off, and the run replays as any other."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from bridge.browser import launch_chromium
from bridge.trajectory import RunStore
from transfer_eval.commands import mgb_app
from transfer_eval.console.launch import ConsoleConfig, open_console

pytestmark = [pytest.mark.asyncio, pytest.mark.browser]


async def _state(url: str) -> dict:  # type: ignore[type-arg]
    async with httpx.AsyncClient() as client:
        return (await client.get(url + "api/state")).json()  # type: ignore[no-any-return]


async def test_a_step_is_approved_then_overridden_and_the_judge_follows(
    mobilegym_build: str, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    config = ConsoleConfig(
        device=mobilegym_build, policy="scripted", task="settings/SetWifi-v1", out=out, port=0
    )
    async with open_console(config) as running, launch_chromium() as browser:
        page = await browser.new_page(viewport={"width": 1500, "height": 1000})
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        await page.goto(running.url)
        await page.wait_for_function("window.liveFrames >= 1", timeout=30_000)
        await page.wait_for_function("document.getElementById('frozen').naturalWidth > 0")
        assert await page.locator("#tree [data-node]").count() > 10
        state = await _state(running.url)
        assert state["frozen"]["screen"][:2] == [1080, 2400]
        assert state["verdict"]["success"] is False

        # the scripted plan's first step opens Settings: approved, it lands in MobileGym's
        version = state["version"]
        await page.keyboard.press("s")
        await page.locator("#overlay .proposal-mark[data-type='open_app']").wait_for()
        await page.wait_for_function(
            f"window.renderedVersion > {version} && !window.renderedBusy", timeout=30_000
        )
        await page.keyboard.press("a")
        await page.wait_for_function("document.querySelectorAll('#history li').length === 1")
        state = await _state(running.url)
        assert state["frozen"]["foreground"]["package"] == "com.android.settings"
        assert state["history"][0]["decided_by"] == "approved"

        # a click on MobileGym's WLAN row, then on its switch, overrides the policy
        for label in ("WLAN", None):
            state = await _state(running.url)
            nodes = state["frozen"]["nodes"]
            if label is not None:
                node = next(n for n in nodes if n["text"] == label)
            else:
                node = next(n for n in nodes if {"checkable", "checked"} <= set(n["flags"]))
            count = len(state["history"])
            await page.keyboard.press("s")
            await page.locator("#overlay .proposal-mark").wait_for()
            if label is not None:
                await page.keyboard.press("o")  # override on the frame, on until turned off
            box = await page.locator("#frozen").bounding_box()
            assert box is not None
            left, top, right, bottom = node["bounds"]
            width, height = state["frozen"]["screen"][:2]
            await page.mouse.click(
                box["x"] + (left + right) / 2 / width * box["width"],
                box["y"] + (top + bottom) / 2 / height * box["height"],
            )
            await page.wait_for_function(
                f"document.querySelectorAll('#history li').length === {count + 1}",
                timeout=30_000,
            )
        state = await _state(running.url)
        assert [h["decided_by"] for h in state["history"]] == ["approved", "override", "override"]
        assert state["verdict"]["success"] is True  # Wi-Fi is off in MobileGym: our judge
        await page.keyboard.press("f")
        await page.wait_for_function(
            "document.getElementById('episode').textContent.includes('episode over')"
        )
        assert errors == []
    record = RunStore.open(out).completed()["settings.SetWifi-v1_s0_en_a1"]
    assert record.outcome == "success" and record.backend is not None
    assert record.backend.kind == "mobilegym"
    listed = CliRunner().invoke(mgb_app, ["replay", str(out)])
    assert listed.exit_code == 0 and record.episode_id in listed.output
