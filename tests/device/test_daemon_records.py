"""Detached phones' records name their processes exactly: a reused pid is never signalled,
another user's phone is never listed or stopped, and a dead phone's adb server is stopped
when its record is dropped (real processes, a private state directory)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from device.host_process import HostProcess
from device.virtual import daemon


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(daemon.STATE_ENV, str(tmp_path))
    return tmp_path


@pytest.fixture
def sleeper() -> Iterator[subprocess.Popen[bytes]]:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
    yield child
    child.kill()
    child.wait()


def _record(state: Path, name: str, process: HostProcess, **fields: object) -> Path:
    values: dict[str, object] = dict(
        serial=f"127.0.0.1:{name}",
        adb_port=1,
        adb_path="adb",
        pid=process.pid,
        seed=0,
        log=str(state / f"{name}.log"),
        uid=os.getuid(),
        process=process,
    )
    values.update(fields)
    path = state / f"{name}.json"
    daemon.remember(path, daemon.VirtualRecord.model_validate(values))
    return path


def test_a_live_phone_is_listed_and_a_reused_pid_is_not_ours(
    state: Path, sleeper: subprocess.Popen[bytes]
) -> None:
    real = HostProcess.of(sleeper.pid)
    _record(state, "live", real)
    reused = real.model_copy(update={"started": real.started - 3600})  # same pid, older
    stale = _record(state, "reused", reused)
    assert [r.serial for _, r in daemon.running()] == ["127.0.0.1:live"]
    assert not stale.exists()  # dropped, and its pid never signalled:
    assert sleeper.poll() is None
    assert reused.stop() is False and sleeper.poll() is None


def test_another_users_phone_is_neither_listed_nor_stopped(
    state: Path, sleeper: subprocess.Popen[bytes]
) -> None:
    theirs = _record(state, "theirs", HostProcess.of(sleeper.pid), uid=os.getuid() + 1)
    assert daemon.running() == []
    with pytest.raises(daemon.DetachError, match="none is running"):
        daemon.stop(None)
    assert theirs.exists() and sleeper.poll() is None


def test_a_dead_phones_adb_server_is_stopped_with_its_record(
    state: Path, sleeper: subprocess.Popen[bytes]
) -> None:
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    dead_phone = HostProcess(pid=gone.pid, started=0.0, command=[sys.executable, "-c", "pass"])
    record = _record(state, "dead", dead_phone, adb_server=HostProcess.of(sleeper.pid))
    assert daemon.running() == []
    assert not record.exists()
    assert sleeper.wait(timeout=15) is not None  # the leftover "adb server" was stopped


def test_a_process_record_survives_a_round_trip_and_reaps_once(
    tmp_path: Path, sleeper: subprocess.Popen[bytes]
) -> None:
    path = tmp_path / "adb-server.json"
    HostProcess.of(sleeper.pid).remember(path)
    assert HostProcess.recalled(path) == HostProcess.of(sleeper.pid)
    assert HostProcess.reap(path) is not None and not path.exists()
    assert sleeper.wait(timeout=15) is not None
    assert HostProcess.reap(path) is None  # nothing recorded: nothing to do
