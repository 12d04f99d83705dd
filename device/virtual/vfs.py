"""The virtual phone's file system: ``phone.files`` (path → bytes) with implied directories.

A directory exists when a file lies under it, when it is one of the phone's standard
directories (:data:`BASE_DIRS`), or when ``mkdir`` made it — an empty directory is kept as a
marker key ending in ``/`` with empty content (``"/sdcard/Download/"``). Paths are
normalised (``//``, ``.``, ``..``, trailing ``/``) and the shared-storage aliases
(``/storage/emulated/0``, ``/storage/self/primary``, ``/mnt/sdcard``) map to ``/sdcard``.
Only ``/sdcard`` and ``/data/local/tmp`` are writable, as for adb's ``shell`` user.
"""

from __future__ import annotations

import posixpath
import stat as stat_module
from dataclasses import dataclass

__all__ = [
    "BASE_DIRS",
    "FsError",
    "Stat",
    "is_dir",
    "list_dir",
    "make_dir",
    "normalize",
    "read_file",
    "remove",
    "stat",
    "writable",
    "write_file",
]

BASE_DIRS = frozenset(
    {
        "/",
        "/sdcard",
        "/data",
        "/data/local",
        "/data/local/tmp",
        "/storage",
        "/storage/emulated",
        "/system",
        "/system/bin",
        "/dev",
        "/proc",
        "/vendor",
        "/mnt",
        "/sdcard/Download",
        "/sdcard/DCIM",
        "/sdcard/Pictures",
        "/sdcard/Android",
    }
)
"""Directories every phone has."""
_ALIASES = ("/storage/emulated/0", "/storage/self/primary", "/mnt/sdcard")
_WRITABLE = ("/sdcard", "/data/local/tmp")
_SPECIAL = {"/dev/null": b"", "/dev/zero": b""}
DIR_MODE = stat_module.S_IFDIR | 0o771
FILE_MODE = stat_module.S_IFREG | 0o660
CHAR_MODE = stat_module.S_IFCHR | 0o666


class FsError(OSError):
    """A file operation failed; ``str()`` is the errno text Android prints."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


@dataclass(frozen=True)
class Stat:
    """What ``stat`` reports for a path."""

    mode: int
    size: int

    @property
    def is_dir(self) -> bool:
        """Whether this is a directory."""
        return stat_module.S_ISDIR(self.mode)


def normalize(path: str, cwd: str = "/") -> str:
    """Absolute, normalised path with shared-storage aliases mapped to ``/sdcard``."""
    full = posixpath.normpath(posixpath.join(cwd, path)) if path else cwd
    full = "/" + full.lstrip("/")
    for alias in _ALIASES:
        if full == alias or full.startswith(alias + "/"):
            full = "/sdcard" + full[len(alias) :]
    return full


def writable(path: str) -> bool:
    """Whether the shell user may create files at ``path``."""
    return any(path == root or path.startswith(root + "/") for root in _WRITABLE)


def is_dir(files: dict[str, bytes], path: str) -> bool:
    """Whether ``path`` (normalised) is a directory."""
    if path in BASE_DIRS or path + "/" in files:
        return True
    prefix = path.rstrip("/") + "/"
    return any(key.startswith(prefix) for key in files)


def stat(files: dict[str, bytes], path: str) -> Stat | None:
    """File or directory facts; None when nothing is at ``path``."""
    if path in _SPECIAL:
        return Stat(CHAR_MODE, 0)
    if path in files:
        return Stat(FILE_MODE, len(files[path]))
    if is_dir(files, path):
        return Stat(DIR_MODE, 4096)
    return None


def list_dir(files: dict[str, bytes], path: str) -> dict[str, Stat]:
    """Entries directly in directory ``path`` (no ``.``/``..``), by name."""
    prefix = "/" if path == "/" else path + "/"
    names: set[str] = set()
    candidates = [*files, *(d + "/" for d in BASE_DIRS)]
    for key in candidates:
        if key.startswith(prefix) and key != prefix:
            names.add(key[len(prefix) :].split("/", 1)[0])
    entries = {}
    for name in sorted(names):
        found = stat(files, prefix + name)
        if found is not None:
            entries[name] = found
    return entries


def read_file(files: dict[str, bytes], path: str) -> bytes:
    """The content of a regular file; :class:`FsError` otherwise."""
    if path in _SPECIAL:
        return _SPECIAL[path]
    if path in files:
        return files[path]
    if is_dir(files, path):
        raise FsError("Is a directory")
    raise FsError("No such file or directory")


def write_file(files: dict[str, bytes], path: str, data: bytes, append: bool = False) -> None:
    """Create or replace (or append to) a file; parents are implied (``fixed_push_mkdir``)."""
    if path in _SPECIAL:
        return
    if is_dir(files, path):
        raise FsError("Is a directory")
    if not writable(path):
        raise FsError(
            "Read-only file system" if path.startswith("/system") else "Permission denied"
        )
    files[path] = (files.get(path, b"") if append else b"") + data


def make_dir(files: dict[str, bytes], path: str, parents: bool) -> None:
    """``mkdir``: a marker for an empty directory; :class:`FsError` like toybox."""
    if path in files:
        raise FsError("File exists")
    if is_dir(files, path):
        if parents:
            return
        raise FsError("File exists")
    parent = posixpath.dirname(path)
    if not parents and not is_dir(files, parent):
        raise FsError("No such file or directory")
    if not writable(path):
        raise FsError("Permission denied")
    files[path + "/"] = b""


def remove(files: dict[str, bytes], path: str, recursive: bool) -> None:
    """``rm``: a file, or with ``recursive`` a directory and everything under it."""
    if path in files:
        if not writable(path):
            raise FsError("Permission denied")
        del files[path]
        return
    if not is_dir(files, path):
        raise FsError("No such file or directory")
    if not recursive:
        raise FsError("Is a directory")
    if path in BASE_DIRS or not writable(path):
        raise FsError("Permission denied")
    prefix = path + "/"
    for key in [k for k in files if k.startswith(prefix)]:
        del files[key]
