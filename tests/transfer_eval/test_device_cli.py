"""``mgb device list | info | run`` against the virtual phone on a private adb server."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bridge.records import StepRecord
from bridge.schema import BackendInfo, Observation, OpenAppAction, PolicyOutput, ScreenSpec, UINode
from bridge.trajectory import RunManifest, RunStore
from device.virtual.attach import AttachedVirtualPhone, attach_virtual_phone
from transfer_eval.commands.device import device_app

pytestmark = pytest.mark.device_virtual


@pytest.fixture(scope="module")
def attached(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AttachedVirtualPhone]:
    home = tmp_path_factory.mktemp("android-home")
    with attach_virtual_phone(seed=0, android_user_home=home) as phone:
        yield phone


def invoke(*args: str) -> str:
    result = CliRunner().invoke(device_app, list(args), terminal_width=200)
    assert result.exit_code == 0, result.output
    return result.output


def test_list_and_info(attached: AttachedVirtualPhone) -> None:
    port = str(attached.adb_port)
    listed = invoke("list", "--adb-port", port)
    assert attached.serial in listed and "device" in listed
    info = invoke("info", attached.serial, "--adb-port", port)
    assert "virtual" in info and "23049RAD8C" in info and "1080x2400 px" in info
    assert "com.android.launcher3" in info


def test_run_solves_a_task_and_writes_a_trajectory(
    attached: AttachedVirtualPhone, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    args = ["run", "--device", attached.serial, "--adb-port", str(attached.adb_port)]
    output = invoke(*args, "--task", "settings/SetWifi-v1", "--out", str(out))
    assert "success" in output
    (line,) = (out / "results.jsonl").read_text().splitlines()
    record = json.loads(line)
    assert record["outcome"] == "success" and record["backend"]["kind"] == "virtual"
    episode = out / "episodes" / "settings.SetWifi-v1_s0_en"
    assert list((episode / "frames").glob("*.jpg")) and list((episode / "trees").glob("*.xml"))


def _recorded_open(source: Path, app: str) -> str:
    """A run directory with one recorded step that opens ``app``; its replay spec."""
    screen = ScreenSpec(width_px=1080, height_px=2400)
    ui = [UINode(id=0, bounds_px=(0, 0, 1080, 2400))]
    seen = Observation(step=0, screen=screen, ui=ui, backend=BackendInfo(kind="virtual"))
    writer = RunStore.create(source, RunManifest()).begin_episode("open")
    writer.write_step(StepRecord(step=0, observation=seen,
                                 output=PolicyOutput(action=OpenAppAction(app=app))))  # fmt: skip
    writer.close()
    return f"replay:{source}/open"


def test_the_guard_ends_an_episode_that_leaves_the_tasks_apps(
    attached: AttachedVirtualPhone, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    args = ["run", "--device", attached.serial, "--adb-port", str(attached.adb_port)]
    policy = _recorded_open(tmp_path / "source", "contacts")  # SetWifi uses settings only
    invoke(*args, "--task", "settings/SetWifi-v1", "--policy", policy, "--guard", "apps",
           "--out", str(out))  # fmt: skip
    (line,) = (out / "results.jsonl").read_text().splitlines()
    record = json.loads(line)
    assert (record["outcome"], record["termination"], record["steps"]) == ("failure", "guard", 1)
    reason = "the phone now shows com.android.contacts (contacts), not one of: launcher, settings"
    assert record["stop_reason"] == reason
    assert json.loads((out / "manifest.json").read_text())["config"]["guard"] == "apps"
    page = (out / "episodes" / "settings.SetWifi-v1_s0_en" / "index.html").read_text()
    assert f"ended by guard: {reason}" in page


def test_run_rejects_an_unknown_task_before_any_episode(
    attached: AttachedVirtualPhone, tmp_path: Path
) -> None:
    args = ["run", "--device", attached.serial, "--adb-port", str(attached.adb_port)]
    out = tmp_path / "x"
    result = CliRunner().invoke(
        device_app, [*args, "--task", "settings/SetWfi-v1", "--out", str(out)]
    )
    assert result.exit_code == 2 and "no task 'settings/SetWfi-v1'" in result.output
    assert "settings/SetWifi-v1," in result.output and not out.exists()  # the nearest id


def test_an_unreachable_server_is_a_clear_error() -> None:
    result = CliRunner().invoke(device_app, ["list", "--adb-port", "1"])
    assert result.exit_code == 1 and "adb -P 1 start-server" in result.output


@pytest.mark.device_virtual
def test_a_detached_virtual_phone_runs_until_stopped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os
    import shlex
    import subprocess

    from device.virtual.daemon import running

    monkeypatch.setenv("MGB_STATE_DIR", str(tmp_path))
    runner = CliRunner()
    started = runner.invoke(
        device_app,
        ["virtual", "start", "--detach", "--seed", "2", "--profile", "redmi_note_12_turbo"],
    )
    assert started.exit_code == 0, started.output
    try:  # a failed check must not leave the background phone running
        [(_, phone)] = running()
        assert phone.serial in started.output and phone.seed == 2
        assert phone.profile == "redmi_note_12_turbo"
        size = subprocess.run(
            shlex.split(phone.adb_command("shell", "wm", "size")),
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert size.stdout.strip() == "Physical size: 1080x2400"
        listed = runner.invoke(device_app, ["virtual", "list"])  # 80 columns off a terminal
        assert phone.serial in listed.output and "redmi_note_12_turbo" in listed.output
    finally:
        stopped = runner.invoke(device_app, ["virtual", "stop"])
    assert stopped.exit_code == 0 and f"stopped {phone.serial}" in stopped.output
    assert running() == [] and not list(tmp_path.iterdir())
    try:
        os.kill(phone.pid, 0)
        alive = True
    except ProcessLookupError:
        alive = False
    assert not alive
    again = runner.invoke(device_app, ["virtual", "stop", "127.0.0.1:1"])
    assert again.exit_code == 1 and "no virtual phone with serial 127.0.0.1:1" in again.output


@pytest.mark.device_virtual
def test_the_phone_language_follows_its_ui_locale(attached: AttachedVirtualPhone) -> None:
    """transfer-eval poses a real phone's tasks in its UI language; one it has no tasks in
    is a clear error."""
    import asyncio

    from device.adb import AdbTarget
    from device.errors import DeviceError
    from transfer_eval.paired import phone_language

    device = attached.adb.client().device(attached.serial)
    target = AdbTarget(port=attached.adb_port, serial=attached.serial)
    device.shell("settings put system system_locales zh-CN")
    assert asyncio.run(phone_language(target)) == "zh"
    device.shell("settings put system system_locales de-DE")
    with pytest.raises(DeviceError, match="de-DE; tasks exist in English and Chinese"):
        asyncio.run(phone_language(target))
    device.shell("settings put system system_locales en-US")
    assert asyncio.run(phone_language(target)) == "en"


def test_a_retail_phone_refuses_tasks_only_the_simulator_can_pose() -> None:
    from device.errors import TaskUnsupported
    from transfer_eval.device_run import check_retail

    check_retail(["settings/SetWifi-v1", "contacts/StarContact-v1"])
    with pytest.raises(TaskUnsupported, match=r"SetLanguage-v1 \(most retail phones switch"):
        check_retail(["settings/SetWifi-v1", "settings/SetLanguage-v1"])
