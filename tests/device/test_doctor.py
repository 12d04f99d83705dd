"""``mgb device doctor`` and a virtual Redmi as it comes from the box: what it refuses
(injected input, secure settings; uiautomator's dump exits 1), what the doctor says to do,
the run it refuses in one line, and every check passing once the switch is on."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from pathlib import Path

import adbutils
import pytest
from typer.testing import CliRunner

from bridge.uitree import parse_hierarchy
from device.adb import AdbTarget
from device.android_state import AdbAndroidState
from device.android_state.alarms import parse_app_alarm_clocks, parse_next_alarm
from device.doctor import doctor, refusal
from device.driver import AndroidDriver
from device.errors import InjectEventsDenied
from device.session import AdbSession
from device.virtual.attach import AttachedVirtualPhone, attach_virtual_phone
from device.virtual.perturb import Perturbations
from transfer_eval.commands.device import device_app

pytestmark = pytest.mark.device_virtual

SWITCH = "USB debugging (Security settings)"


@pytest.fixture(scope="module")
def fresh_redmi(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AttachedVirtualPhone]:
    """A virtual Redmi as from the box: its input switch off."""
    home = tmp_path_factory.mktemp("home")
    knobs = Perturbations(profile="redmi_note_12_turbo")
    with attach_virtual_phone(android_user_home=home, perturbations=knobs, ready=False) as phone:
        yield phone


def _cli(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(device_app, list(args), terminal_width=240)
    return result.exit_code, result.output


def test_the_doctor_says_what_to_switch_on_and_passes_after(
    fresh_redmi: AttachedVirtualPhone, tmp_path: Path
) -> None:
    serial, port = fresh_redmi.serial, str(fresh_redmi.adb_port)
    target = AdbTarget(port=fresh_redmi.adb_port, serial=serial)
    report = asyncio.run(doctor(target))
    assert (report.profile, report.os) == ("redmi_note_12_turbo", "HyperOS OS1.0 (Android 14)")
    failed = {check.name: check for check in report.failures()}
    assert set(failed) == {"injected input", "settings put"}
    fix = failed["injected input"].fix
    assert SWITCH in fix and "Mi account" in fix and "SIM card" in fix
    assert f"-P {port} -s {serial} shell su 0 setprop persist.security.adbinput 1" in fix
    line = refusal(report)
    assert line is not None and "\n" not in line
    assert line.startswith(f"{serial} is not ready: injected input: refused (INJECT_EVENTS)")
    assert "1 more: `mgb device doctor" in line

    code, output = _cli("doctor", serial, "--adb-port", port)
    assert code == 1 and "FAILED" in output and "HyperOS OS1.0" in output
    assert output.count(SWITCH) == 1  # one fix for the two checks it cures
    code, output = _cli(
        "run", "--device", serial, "--adb-port", port,
        "--task", "settings/SetWifi-v1", "--out", str(tmp_path / "run"),
    )  # fmt: skip
    assert code == 1 and f"{serial} is not ready: injected input" in output
    assert not (tmp_path / "run" / "results.jsonl").exists()  # refused before any episode

    device = adbutils.AdbClient(port=fresh_redmi.adb_port).device(serial)
    assert "Failed to set property" in device.shell("setprop persist.security.adbinput 1")
    device.shell("su 0 setprop persist.security.adbinput 1")  # the switch, as root may set it
    code, output = _cli("doctor", serial, "--adb-port", port)
    assert code == 0 and "ready for runs" in output and "FAILED" not in output


@pytest.mark.asyncio
async def test_the_driver_on_a_fresh_redmi(fresh_redmi: AttachedVirtualPhone) -> None:
    session = AdbSession(AdbTarget(port=fresh_redmi.adb_port, serial=fresh_redmi.serial))
    await session.open()
    try:
        shell = await session.shell("uiautomator dump /sdcard/d.xml; echo exit=$?")
        assert "exit=1" in shell and "theme_compatibility.xml" in shell  # as MIUI does
        tree = parse_hierarchy(await session.uiautomator_dump())  # the file, not the code
        assert any(node.package == "com.miui.home" for node in tree.nodes)
        assert "Physical density: 440" in await session.shell("wm density")  # a Redmi's
        frame = await AndroidDriver(session).screenshot()
        assert (frame.width, frame.height) == (1080, 2400)
        assert tree.screen_bounds() == (0, 0, 1080, 2400)  # laid out at 440 dpi, drawn at 1080
        await session.shell("su 0 setprop persist.security.adbinput 0")  # as from the box
        with pytest.raises(InjectEventsDenied, match=re.escape(SWITCH)):
            await AndroidDriver(session).tap(500, 500)  # one clear error, not a retry loop
        assert session.reconnects == 0
        state = AdbAndroidState(session.shell)
        now_ms = int(await session.shell("date +%s")) * 1000
        next_hour = (now_ms // 3_600_000 + 1) * 3_600_000
        dump = await session.shell("dumpsys alarm")
        assert parse_next_alarm(dump) == next_hour  # the Security app's, sooner than the user's
        assert parse_app_alarm_clocks(dump)["com.miui.securitycenter"] == [next_hour]
        user_alarm = await state.next_alarm()
        assert user_alarm is not None and user_alarm > next_hour  # the Clock app's
    finally:
        await session.close()
