"""Durable files: whole-file replacement and line appends that survive a kill.

A reader of a file written here sees the old content or the new, never half of it; an
appended JSON Lines file may end in one torn line after a kill, which :func:`cut_torn_tail`
removes before the next append (:func:`cut_last_line` also removes a whole last line its
caller finds unreadable, the NULs or garbage a power loss leaves). Files are created with
mode 0666 less the user's umask (0644 under umask 022), as ``open()`` would make them, so a
run directory can be shared or served without a chmod.
"""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import Callable
from pathlib import Path

from bridge.errors import TrajectoryError

__all__ = ["append_line", "cut_last_line", "cut_torn_tail", "fsync_path", "write_atomic"]

_NEW_FILE_MODE = 0o666
"""Mode of created files before the umask: what ``open()`` uses (mkstemp's 0600 is not)."""


def fsync_path(path: Path) -> None:
    """Flush ``path`` (a file, or a directory's entries) to disk; a no-op where unsupported."""
    with contextlib.suppress(OSError):  # Windows and some file systems refuse directories.
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def write_atomic(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data``: readers see the old file or the new one, never half.

    The file gets mode 0666 less the umask (a new file, and the old one's mode is not kept)."""
    temp = path.parent / f".{path.name}.{uuid.uuid4().hex[:12]}.tmp"
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, _NEW_FILE_MODE)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    fsync_path(path.parent)


def append_line(path: Path, line: str) -> None:
    """Append ``line`` and a newline to ``path`` with one write, then fsync."""
    if "\n" in line or "\r" in line:
        raise TrajectoryError(f"refusing to append a line with a line break to {path}")
    data = (line + "\n").encode("utf-8")
    created = not path.exists()
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, _NEW_FILE_MODE)
    try:
        if os.write(fd, data) != len(data):
            raise TrajectoryError(f"short write to {path}; is the disk full?")
        os.fsync(fd)
    finally:
        os.close(fd)
    if created:
        fsync_path(path.parent)


def cut_torn_tail(path: Path) -> bool:
    """Truncate a last line without its newline (a write torn by a kill); True if cut."""
    data = path.read_bytes() if path.exists() else b""
    if data.endswith(b"\n") or not data:
        return False
    os.truncate(path, data.rfind(b"\n") + 1)
    fsync_path(path)
    return True


def cut_last_line(
    path: Path, readable: Callable[[bytes], bool], keep: Callable[[bytes], None]
) -> bool:
    """Truncate a whole last line that ``readable`` refuses (garbage or NULs where a power
    loss lost the write), after handing its bytes to ``keep``; True if cut. A torn last line
    (no newline) is :func:`cut_torn_tail`'s."""
    data = path.read_bytes() if path.exists() else b""
    if not data.endswith(b"\n"):
        return False
    start = data.rfind(b"\n", 0, len(data) - 1) + 1
    if readable(data[start:-1]):
        return False
    keep(data[start:])
    os.truncate(path, start)
    fsync_path(path)
    return True
