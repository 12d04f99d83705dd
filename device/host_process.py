"""Processes we start on this host, named so that a reused pid is never taken for ours.

A pid alone is not a process: after one exits, the kernel hands its number to the next
process that starts. A :class:`HostProcess` is a pid with its start time and command line
(psutil reads both from the kernel), so ``stop`` signals a process only while all three
still match: a record left by a killed run can be acted on safely, however old it is.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import psutil
from pydantic import BaseModel, ConfigDict, ValidationError

from bridge.durable import write_atomic

__all__ = ["HostProcess"]

_SAME_START_S = 0.05
"""How far two readings of one process's start time may differ (the kernel's clock ticks)."""


class HostProcess(BaseModel):
    """A process on this machine: pid, start time (epoch seconds) and command line."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    pid: int
    started: float
    command: list[str]

    @classmethod
    def of(cls, pid: int) -> HostProcess:
        """The process ``pid`` as it is now.

        Raises:
            ProcessLookupError: no such process (it exited).
        """
        try:
            process = psutil.Process(pid)
            with process.oneshot():
                return cls(pid=pid, started=process.create_time(), command=process.cmdline())
        except (psutil.NoSuchProcess, psutil.ZombieProcess) as exc:
            raise ProcessLookupError(f"no process {pid}") from exc

    def running(self) -> bool:
        """Whether this very process still runs (same pid, start time and command)."""
        try:
            now = HostProcess.of(self.pid)
        except ProcessLookupError:
            return False
        except psutil.AccessDenied:
            return False  # another user's process: never ours
        same_start = abs(now.started - self.started) <= _SAME_START_S
        return same_start and now.command == self.command

    def stop(self, timeout_s: float = 10.0) -> bool:
        """SIGTERM, then SIGKILL after ``timeout_s``; False when it was not running (or is
        not this process any more: nothing is signalled then)."""
        if not self.running():
            return False
        try:
            process = psutil.Process(self.pid)
            process.terminate()
            _, alive = psutil.wait_procs([process], timeout=timeout_s)
            for survivor in alive:
                survivor.kill()
            psutil.wait_procs(alive, timeout=timeout_s)
        except psutil.NoSuchProcess:
            pass  # it exited on its own meanwhile
        return True

    # ---- records on disk
    def remember(self, path: Path) -> None:
        """Write this process to ``path`` (atomically), for a later run to find."""
        write_atomic(path, self.model_dump_json(indent=1).encode())

    @classmethod
    def recalled(cls, path: Path) -> HostProcess | None:
        """The process recorded at ``path``; None when there is no (readable) record."""
        try:
            return cls.model_validate_json(path.read_bytes())
        except (OSError, ValidationError):
            return None

    @classmethod
    def reap(cls, path: Path, timeout_s: float = 10.0) -> HostProcess | None:
        """Stop the process recorded at ``path`` if it still runs, and remove the record;
        the process that was stopped, if any."""
        found = cls.recalled(path)
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        if found is not None and found.stop(timeout_s):
            return found
        return None
