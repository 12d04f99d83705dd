"""The lock of a run directory: one process writes a run at a time; readers need no lock.

The writer holds ``RUN/.lock`` with ``flock``, and the file names it (pid, start time and
command line) so that a second writer is refused in one line that says who writes the run.
The kernel drops a ``flock`` when its holder dies, ``kill -9`` included, so a lock left by a
dead run is taken over without a word; a lock still held by a process that is not the one
the file names (an inherited descriptor outliving the writer) is taken over too, since the
pid and start time no longer name a live process. The file is removed when the writer
releases it, so a finished run holds no ``.lock``.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shlex
import sys
import time
from datetime import datetime
from pathlib import Path
from types import TracebackType

import psutil
from pydantic import BaseModel, ConfigDict, ValidationError

from bridge.errors import RunLocked

__all__ = ["LOCK_NAME", "RunHolder", "RunLock", "check_unlocked"]

LOCK_NAME = ".lock"
"""The lock file's name in a run directory."""

_SAME_START_S = 0.05
"""How far two readings of one process's start time may differ (the kernel's clock ticks)."""
_READ_WAIT_S = 2.0
"""How long to wait for a holder that has the lock to write its name into the file."""
_BRIEF_S = 0.5
"""How long a writer waits for the lock before it is refused: :func:`check_unlocked` holds
it shared for an instant, and a holder names itself an instant after it takes the lock."""
_POLL_S = 0.02


class RunHolder(BaseModel):
    """The process writing a run: pid, start time (epoch seconds) and command line."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    pid: int
    started: float
    command: str

    @classmethod
    def me(cls) -> RunHolder:
        """This process, with the command line a person typed (``transfer-eval --out x``)."""
        started = psutil.Process(os.getpid()).create_time()
        return cls(pid=os.getpid(), started=started, command=_typed_command(sys.argv))

    def alive(self) -> bool:
        """Whether this very process still runs (the pid with the same start time)."""
        try:
            started = psutil.Process(self.pid).create_time()
        except (psutil.NoSuchProcess, psutil.ZombieProcess):
            return False
        except psutil.AccessDenied:
            return True  # another user's live process: never take its run
        return abs(started - self.started) <= _SAME_START_S

    def describe(self) -> str:
        """``pid 1234, started 21:03:05: transfer-eval --device virtual ...``."""
        when = datetime.fromtimestamp(self.started)
        shown = when.strftime("%H:%M:%S" if when.date() == datetime.now().date() else "%c")
        return f"pid {self.pid}, started {shown}: {self.command}"


def _locked(root: Path, holder: RunHolder | None) -> RunLocked:
    """The one line that refuses a second writer, naming the first."""
    who = holder.describe() if holder is not None else "its lock file names no process yet"
    return RunLocked(
        f"{root} is being written by another run ({who}); wait for it to finish or give "
        "another --out"
    )


def _typed_command(argv: list[str]) -> str:
    """The command line as typed: the program's name, not its path (``python -m package``
    for a package's ``__main__``)."""
    if not argv:
        return "python"
    program = Path(argv[0])
    head = "python -c" if argv[0] == "-c" else program.name
    if program.name == "__main__.py":
        spec = getattr(sys.modules.get("__main__"), "__spec__", None)
        module = spec.name.removesuffix(".__main__") if spec is not None else program.parent.name
        head = f"python -m {module}"
    return " ".join([head, *map(shlex.quote, argv[1:])])


def _read_holder(path: Path, wait_s: float = _READ_WAIT_S) -> RunHolder | None:
    """Who the lock file names; None when it names nobody within ``wait_s`` (a holder writes
    its name just after it takes the lock)."""
    deadline = time.monotonic() + wait_s
    while True:
        with contextlib.suppress(OSError, ValidationError):
            return RunHolder.model_validate_json(path.read_bytes())
        if time.monotonic() >= deadline:
            return None
        time.sleep(_POLL_S)  # polling for the holder's name, bounded by the deadline


def _try_flock(fd: int, operation: int, wait_s: float = 0.0) -> bool:
    """``flock`` within ``wait_s`` seconds (0: at once); False when another open file
    holds the lock all that time."""
    deadline = time.monotonic() + wait_s
    while True:
        try:
            fcntl.flock(fd, operation | fcntl.LOCK_NB)
        except BlockingIOError:
            if time.monotonic() >= deadline:
                return False
            time.sleep(_POLL_S)  # polling for the lock, bounded by the deadline
        else:
            return True


def _stale(path: Path, holder: RunHolder) -> bool:
    """Whether the locked file's ``holder`` is gone for good: it names no live process, and
    still the same one a moment later (a new holder overwrites a dead one's name an instant
    after taking the lock)."""
    if holder.alive():
        return False
    deadline = time.monotonic() + _BRIEF_S
    while time.monotonic() < deadline:
        if _read_holder(path, wait_s=0) != holder:
            return False  # a new holder named itself
        time.sleep(_POLL_S)  # polling for a new name, bounded by the deadline
    return True


def _same_file(fd: int, path: Path) -> bool:
    """Whether ``path`` still names the file open at ``fd`` (a releasing writer unlinks it)."""
    try:
        named = path.stat()
    except FileNotFoundError:
        return False
    held = os.fstat(fd)
    return (named.st_dev, named.st_ino) == (held.st_dev, held.st_ino)


class RunLock:
    """The held lock of one run directory; :meth:`release` (or the ``with`` block's end)
    gives it up. Made by :meth:`acquire`."""

    def __init__(self, path: Path, fd: int) -> None:
        """Wrap a locked file descriptor; use :meth:`acquire` instead."""
        self.path = path
        self._fd: int | None = fd

    @classmethod
    def acquire(cls, root: Path) -> RunLock:
        """Lock the existing directory ``root`` for this process and write its name.

        Raises:
            RunLocked: another live process holds it, naming that process.
        """
        path = root / LOCK_NAME
        for _ in range(3):  # the holder may release (and unlink) it between open and flock
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o666)
            if not _try_flock(fd, fcntl.LOCK_EX, _BRIEF_S):
                os.close(fd)
                holder = _read_holder(path)
                if holder is None or not _stale(path, holder):
                    raise _locked(root, holder)
                with contextlib.suppress(FileNotFoundError):
                    path.unlink()  # held by a descriptor that outlived its writer
                continue
            if _same_file(fd, path):
                lock = cls(path, fd)
                lock._write(RunHolder.me())
                return lock
            os.close(fd)
        raise _locked(root, _read_holder(path, wait_s=0))

    def _write(self, holder: RunHolder) -> None:
        assert self._fd is not None
        data = holder.model_dump_json().encode("utf-8")
        os.ftruncate(self._fd, 0)
        os.pwrite(self._fd, data, 0)
        os.fsync(self._fd)

    @property
    def held(self) -> bool:
        """Whether this lock is still held (not released)."""
        return self._fd is not None

    def release(self) -> None:
        """Remove the lock file and give the lock up; idempotent."""
        fd, self._fd = self._fd, None
        if fd is None:
            return
        try:
            if _same_file(fd, self.path):
                self.path.unlink()
        finally:
            os.close(fd)

    def __enter__(self) -> RunLock:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()


def check_unlocked(root: Path) -> None:
    """Refuse at once, before a command starts any work or prints a bar, when another live
    process writes the run in ``root``; never writes (the lock itself is taken when the run
    is opened for writing, which refuses the same way).

    Raises:
        RunLocked: naming the process that writes the run.
    """
    path = root / LOCK_NAME
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except (FileNotFoundError, NotADirectoryError):
        return
    try:
        if _try_flock(fd, fcntl.LOCK_SH):
            return
    finally:
        os.close(fd)  # closing drops the shared lock taken to test it
    holder = _read_holder(path)
    if holder is None or not _stale(path, holder):
        raise _locked(root, holder)
