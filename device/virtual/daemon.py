"""Virtual phones left running in the background (``mgb device virtual start --detach``,
``list`` and ``stop``): starting one in its own session, the records of those running,
stopping them.

A detached phone is a child process in its own session that serves the phone in the
foreground (the caller gives its command line). Once
its phone is online, the child writes a small record (serial, adb port, pid) into the state
directory and removes it when it stops; ``stop`` sends the child SIGTERM, which it handles
by shutting the phone and its private adb server down. Records whose process is gone (a
killed machine, ``kill -9``) are dropped the next time they are read, and the adb server
such a phone left running is stopped then (so a phone started later on its port does not
adopt it). A record names its processes by pid, start time and command line
(:class:`~device.host_process.HostProcess`), so a pid the kernel has since given to another
process is never signalled, and carries its user: ``list`` and ``stop`` see only the
current user's phones, even in a shared state directory.
"""

from __future__ import annotations

import os
import secrets
import shlex
import signal
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from bridge.durable import write_atomic
from device.host_process import HostProcess
from device.virtual.errors import DetachError

__all__ = [
    "VirtualRecord",
    "forget",
    "remember",
    "running",
    "start_detached",
    "state_dir",
    "stop",
]

STATE_ENV = "MGB_STATE_DIR"
"""Environment variable overriding where detached phones are recorded."""


class VirtualRecord(BaseModel):
    """What ``stop`` and ``list`` need to know about a detached virtual phone."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    serial: str
    adb_port: int
    adb_path: str
    """The adb binary bundled with adbutils that serves the phone."""
    pid: int
    seed: int
    profile: str = "virtual"
    """The device profile it plays (``--profile``; records written before it: the plain
    virtual phone)."""
    log: str
    """The child's output (its errors, if it dies)."""
    uid: int
    """The user who started it (others' phones are not ours to list or stop)."""
    process: HostProcess
    """The phone's process (``pid`` with its start time and command line)."""
    adb_server: HostProcess | None = None
    """Its private adb server, stopped when a dead phone's record is dropped."""

    def adb_command(self, *args: str) -> str:
        """How to reach the phone with the adbutils-bundled adb (for people to copy)."""
        return shlex.join([self.adb_path, "-P", str(self.adb_port), "-s", self.serial, *args])


def state_dir() -> Path:
    """Where detached phones are recorded (``$MGB_STATE_DIR`` or ``~/.cache``)."""
    configured = os.environ.get(STATE_ENV)
    path = Path(configured) if configured else Path.home() / ".cache/mobilegym-bridge/virtual"
    path.mkdir(parents=True, exist_ok=True)
    return path


def remember(path: Path, record: VirtualRecord) -> None:
    """Write the record a detached phone leaves while it runs (atomic)."""
    write_atomic(path, record.model_dump_json(indent=1).encode())


def forget(path: Path) -> None:
    """Remove a record (a phone that stopped); a missing one is fine."""
    path.unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a child of ours that exited is reaped, not counted)."""
    try:
        if os.waitpid(pid, os.WNOHANG)[0] == pid:
            return False
    except ChildProcessError:
        pass  # not our child: ask the kernel below
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def running() -> list[tuple[Path, VirtualRecord]]:
    """The current user's detached phones that are still running, oldest record first
    (the records of dead ones are dropped, and the adb servers they left are stopped)."""
    found = []
    for path in sorted(state_dir().glob("*.json"), key=lambda p: p.stat().st_mtime):
        try:
            record = VirtualRecord.model_validate_json(path.read_text("utf-8"))
        except (OSError, ValidationError):
            continue  # not a record of this version (or being written): not ours to touch
        if record.uid != os.getuid():
            continue
        if _alive(record.pid) and record.process.running():
            found.append((path, record))
            continue
        if record.adb_server is not None:
            record.adb_server.stop()
        forget(path)
    return found


def _gone(pid: int) -> Callable[[], bool]:
    """Whether ``pid`` has exited, asked each time it is called."""
    return lambda: not _alive(pid)


def _wait(condition: Callable[[], bool], timeout_s: float, interval_s: float = 0.1) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(interval_s)  # polling a condition with a deadline
    return condition()


def start_detached(start_command: Sequence[str], timeout_s: float = 120.0) -> VirtualRecord:
    """Run ``start_command --record PATH`` in the background, in its own session (a command
    that serves the phone until SIGTERM and writes a :class:`VirtualRecord` to ``PATH``
    once it is online); that record."""
    folder = state_dir()
    token = secrets.token_hex(4)
    record_path, log_path = folder / f"{token}.json", folder / f"{token}.log"
    command = [*start_command, "--record", str(record_path)]
    # posix_spawn, not Popen: the child is meant to outlive this process, in its own session.
    pid = os.posix_spawn(
        command[0],
        command,
        os.environ,
        file_actions=[
            (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
            (os.POSIX_SPAWN_OPEN, 1, str(log_path), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644),
            (os.POSIX_SPAWN_DUP2, 1, 2),
        ],
        setsid=True,
    )
    if not _wait(lambda: record_path.exists() or not _alive(pid), timeout_s):
        os.kill(pid, signal.SIGTERM)
        raise DetachError(
            f"the virtual phone did not come online in {timeout_s:.0f} s; see {log_path}"
        )
    if not record_path.exists():
        tail = log_path.read_text("utf-8", errors="replace").strip().splitlines()[-5:]
        raise DetachError("the virtual phone exited while starting:\n" + "\n".join(tail))
    return VirtualRecord.model_validate_json(record_path.read_text("utf-8"))


def stop(serial: str | None, timeout_s: float = 60.0) -> list[VirtualRecord]:
    """Stop the detached phone with ``serial`` (every one when None); the ones stopped."""
    chosen = [(p, r) for p, r in running() if serial is None or r.serial == serial]
    if not chosen:
        known = ", ".join(r.serial for _, r in running()) or "none is running"
        wanted = f"with serial {serial}" if serial else "started with --detach"
        raise DetachError(f"no virtual phone {wanted} (detached phones: {known})")
    ours = [record.pid for _, record in chosen if record.process.running()]  # checked once
    for pid in ours:
        os.kill(pid, signal.SIGTERM)
    for path, record in chosen:
        # then wait on the pid itself (an exiting process briefly shows no command line);
        # _alive reaps the phone when it is our own child
        if record.pid in ours and not _wait(_gone(record.pid), timeout_s):
            record.process.stop(timeout_s=5.0)  # SIGKILL now: it ignored SIGTERM
        forget(path)
        Path(record.log).unlink(missing_ok=True)
    return [record for _, record in chosen]
