"""Durable files: whole-file replacement and line appends that survive a kill.

A reader of a file written here sees the old content or the new, never half of it; an
appended JSON Lines file may end in one torn line after a kill, which :func:`cut_torn_tail`
removes before the next append.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from bridge.errors import TrajectoryError

__all__ = ["append_line", "cut_torn_tail", "fsync_path", "write_atomic"]


def fsync_path(path: Path) -> None:
    """Flush ``path`` (a file, or a directory's entries) to disk; a no-op where unsupported."""
    with contextlib.suppress(OSError):  # Windows and some file systems refuse directories.
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def write_atomic(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data``: readers see the old file or the new one, never half."""
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    fsync_path(path.parent)


def append_line(path: Path, line: str) -> None:
    """Append ``line`` and a newline to ``path`` with one write, then fsync."""
    if "\n" in line or "\r" in line:
        raise TrajectoryError(f"refusing to append a line with a line break to {path}")
    data = (line + "\n").encode("utf-8")
    created = not path.exists()
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
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
