"""``mgb device list`` shows the virtual phones started with ``mgb device virtual start
--detach`` (each on its own private adb server), marked virtual, and drops the records of
those whose process is gone."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from device.host_process import HostProcess
from device.virtual.daemon import VirtualRecord, remember, running, stop
from device.virtual.errors import DetachError
from transfer_eval.commands import mgb_app

runner = CliRunner()


def _free_port() -> int:
    """A port no adb server listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A state directory of detached phones of this test alone."""
    folder = tmp_path / "state"
    monkeypatch.setenv("MGB_STATE_DIR", str(folder))
    return folder


@pytest.fixture
def detached(state: Path) -> Iterator[VirtualRecord]:
    """A virtual phone started with --detach, stopped (with its adb server) at the end."""
    try:
        started = runner.invoke(mgb_app, ["device", "virtual", "start", "--detach", "--seed", "1"])
        assert started.exit_code == 0, started.output
        [(_, phone)] = running()
        yield phone
    finally:
        with contextlib.suppress(DetachError):  # none was running
            stop(None)
        assert running() == []


@pytest.mark.device_virtual
def test_lists_a_detached_virtual_phone_with_its_adb_server(detached: VirtualRecord) -> None:
    server = f"127.0.0.1:{detached.adb_port}"
    # asked of another adb server (none here): the phone is listed all the same
    elsewhere = runner.invoke(
        mgb_app, ["device", "list", "--adb-port", str(_free_port())], env={"COLUMNS": "200"}
    )
    assert elsewhere.exit_code == 1  # that server could not be asked: one line
    (error,) = elsewhere.stderr.splitlines()
    assert error.startswith("error: ") and "start-server" in error
    (row,) = [line for line in elsewhere.stdout.splitlines() if detached.serial in line]
    cells = [cell.strip() for cell in row.split("│")[1:-1]]
    assert cells[:4] == [detached.serial, "device", f"virtual (pid {detached.pid})", server]
    # asked of its own adb server: listed once, as that server's device
    own = runner.invoke(mgb_app, ["device", "list", "--adb-port", str(detached.adb_port), "--json"])
    assert own.exit_code == 0, own.output
    (line,) = own.stdout.splitlines()
    listed = json.loads(line)
    assert listed["serial"] == detached.serial and listed["state"] == "device"
    assert listed["virtual"] is True and listed["pid"] == detached.pid
    assert listed["adb_server"] == server and listed["model"]


def test_a_phone_whose_process_is_gone_is_dropped(state: Path) -> None:
    gone = subprocess.Popen(["sleep", "60"])
    try:
        record = VirtualRecord(
            serial="127.0.0.1:1", adb_port=_free_port(), adb_path="adb", pid=gone.pid, seed=0,
            log=str(state / "gone.log"), uid=os.getuid(), process=HostProcess.of(gone.pid),
        )  # fmt: skip
        state.mkdir(parents=True, exist_ok=True)
        remember(state / "gone.json", record)
    finally:
        gone.send_signal(signal.SIGKILL)
        gone.wait()
    listed = runner.invoke(mgb_app, ["device", "list", "--adb-port", str(_free_port()), "--json"])
    assert listed.stdout == ""  # nothing: no adb server there, and the phone is gone
    assert not (state / "gone.json").exists()
