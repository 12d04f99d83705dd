r"""The virtual phone's file system: ``/sdcard`` is the instance's storage tree, the rest the
phone's own.

Every path under ``/sdcard`` (and its aliases ``/storage/emulated/0``,
``/storage/self/primary``, ``/mnt/sdcard``) reads and writes the simulator instance's
``os.storage`` (:mod:`sim.storage`): what the Files app shows, what a judge reads, what a
snapshot keeps. Bytes the tree does not keep (big or binary files, such as a UI dump or a
pushed image) stay in :attr:`PhoneFiles.blobs` by inode. Paths elsewhere —
``/data/local/tmp``, where uiautomator2 pushes its jar — live in :attr:`PhoneFiles.local`;
a directory there exists when a file lies under it, when it is one of :data:`BASE_DIRS`,
or when ``mkdir`` left a marker key ending in ``/``. Only ``/sdcard`` and
``/data/local/tmp`` are writable, as for adb's ``shell`` user.

Owners are a phone's: ``/sdcard`` files ``u0_a150 media_rw`` (the FUSE daemon's view),
files the shell creates or ``adb push``\ es to ``/data/local/tmp`` ``shell shell`` with the
pushed mode, ``/system/bin`` entries ``root shell`` (toybox's commands as symlinks to
``toybox``: :attr:`PhoneFiles.system_bin`, which the shell that owns the command table
fills), devices ``root root``. ``/dev/zero`` and
``/dev/urandom`` give as many bytes as a reader asks for (:func:`read_file`'s ``limit``;
64 KiB for a reader that reads to the end, where a phone's would never stop), and
``/proc/version`` is the kernel's (:mod:`device.virtual.kernel`).

:class:`PhoneFiles` is also a mapping of file path to bytes (``phone.files["/sdcard/a"]``).
"""

from __future__ import annotations

import posixpath
import random
import stat as stat_module
import zlib
from collections.abc import Callable, Iterator, Mapping, MutableMapping
from dataclasses import dataclass
from typing import TypeVar

from device.virtual import kernel
from device.virtual.errors import FsError
from sim import storage as sdcard
from sim.errors import StorageError
from sim.storage import Storage

__all__ = [
    "BASE_DIRS",
    "PhoneFiles",
    "Stat",
    "copy",
    "is_dir",
    "list_dir",
    "make_dir",
    "move",
    "normalize",
    "read_file",
    "remove",
    "set_mtime",
    "stat",
    "writable",
    "write_file",
]

BASE_DIRS = frozenset(
    {
        "/",
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
    }
)
"""Directories outside ``/sdcard`` every phone has."""
_R = TypeVar("_R")
_ALIASES = ("/storage/emulated/0", "/storage/self/primary", "/mnt/sdcard")
_WRITABLE = ("/sdcard", "/data/local/tmp")
_DEVICES = ("/dev/null", "/dev/zero", "/dev/urandom", "/dev/random")
_PROC = {"/proc/version": kernel.proc_version}
_ENDLESS_READ = 64 * 1024
DIR_MODE = stat_module.S_IFDIR | 0o771
FILE_MODE = stat_module.S_IFREG | 0o660
CHAR_MODE = stat_module.S_IFCHR | 0o666
LINK_MODE = stat_module.S_IFLNK | 0o777
SDCARD_UID, SDCARD_GID = 10150, 1023
"""``u0_a150`` / ``media_rw``: who ``/sdcard`` files belong to."""
SHELL_UID = 2000
_SHELL_FILE_MODE = stat_module.S_IFREG | 0o666
_SYSTEM_DIRS = {
    "/data/local/tmp": (stat_module.S_IFDIR | 0o771, SHELL_UID, SHELL_UID),
    "/system/bin": (stat_module.S_IFDIR | 0o751, 0, SHELL_UID),
    "/proc": (stat_module.S_IFDIR | 0o555, 0, 0),
}
_BUILD_TIME_MS = 1_230_768_000_000
"""AOSP's fixed timestamp of system files (2009-01-01 00:00 UTC)."""


@dataclass(frozen=True)
class Stat:
    """What ``stat`` reports for a path."""

    mode: int
    size: int
    mtime_ms: int = 0
    inode: int = 0
    uid: int = SDCARD_UID
    gid: int = SDCARD_GID
    link: str = ""
    """A symlink's target (empty for anything else)."""

    @property
    def is_dir(self) -> bool:
        """Whether this is a directory."""
        return stat_module.S_ISDIR(self.mode)


class PhoneFiles(MutableMapping[str, bytes]):
    """The phone's files; see the module docstring.

    Args:
        tree: The instance's current storage (read at every call: a reset replaces it).
        clock_ms: The instance's clock (times of new and changed files).
        changed: Called after a change under ``/sdcard`` (pages re-render).
    """

    def __init__(
        self,
        tree: Callable[[], Storage],
        clock_ms: Callable[[], int],
        changed: Callable[[], None] = lambda: None,
    ) -> None:
        self.tree, self.clock_ms, self.changed = tree, clock_ms, changed
        self.local: dict[str, bytes] = {}
        """Files outside ``/sdcard`` by path (directory markers end in ``/``)."""
        self.blobs: dict[int, bytes] = {}
        """Bytes of ``/sdcard`` files the tree keeps only the size of, by inode."""
        self.modes: dict[str, int] = {}
        """Modes of files in :attr:`local` (``adb push`` keeps the host file's)."""
        self.system_bin: Mapping[str, str] = {}
        """``/system/bin`` by name: the symlink target (``toybox``) or ``""`` for a binary.
        The shell provides it (:func:`device.virtual.shell.system_bin_entries`): the
        listing is its command table's."""

    def __getitem__(self, path: str) -> bytes:
        try:
            return read_file(self, normalize(path))
        except FsError as exc:
            raise KeyError(path) from exc

    def __setitem__(self, path: str, data: bytes) -> None:
        write_file(self, normalize(path), data)

    def __delitem__(self, path: str) -> None:
        try:
            remove(self, normalize(path), recursive=False)
        except FsError as exc:
            raise KeyError(path) from exc

    def __iter__(self) -> Iterator[str]:
        yield from (key for key in self.local if not key.endswith("/"))
        tree = self.tree()
        for node in sdcard.walk(tree, tree.node(1)):
            if node.kind == "file":
                yield sdcard.path_of(tree, node)

    def __len__(self) -> int:
        return sum(1 for _ in self)


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


# ---------------------------------------------------------------- /sdcard: the tree


def _node(files: PhoneFiles, path: str) -> sdcard.Node | None:
    try:
        return sdcard.lookup(files.tree(), path)
    except StorageError:
        return None


def _tree_stat(node: sdcard.Node) -> Stat:
    if node.kind == "dir":
        return Stat(DIR_MODE, 4096, node.mtime_ms, node.id)
    return Stat(FILE_MODE, node.size, node.mtime_ms, node.id)


def _tree_call(files: PhoneFiles, work: Callable[[Storage], _R]) -> _R:
    try:
        result = work(files.tree())
    except StorageError as exc:
        raise FsError(str(exc)) from exc
    files.changed()
    return result


def _bytes_of(files: PhoneFiles, node: sdcard.Node) -> bytes:
    kept = sdcard.content(node)
    if kept is not None:
        return kept
    return files.blobs.get(node.id, b"\0" * node.size)


# ---------------------------------------------------------------- elsewhere: the phone's own


def _local_is_dir(files: PhoneFiles, path: str) -> bool:
    if path in BASE_DIRS or path + "/" in files.local:
        return True
    prefix = path.rstrip("/") + "/"
    return any(key.startswith(prefix) for key in files.local)


def _system_stat(files: PhoneFiles, path: str, inode: int) -> Stat | None:
    if path in _DEVICES:
        return Stat(CHAR_MODE, 0, _BUILD_TIME_MS, inode, 0, 0)
    if path in _PROC:
        return Stat(stat_module.S_IFREG | 0o444, 0, _BUILD_TIME_MS, inode, 0, 0)
    directory, name = posixpath.split(path)
    if directory == "/system/bin" and (target := files.system_bin.get(name)) is not None:
        if target:
            return Stat(LINK_MODE, len(target), _BUILD_TIME_MS, inode, 0, SHELL_UID, target)
        return Stat(stat_module.S_IFREG | 0o755, 65_536, _BUILD_TIME_MS, inode, 0, SHELL_UID)
    return None


def _local_stat(files: PhoneFiles, path: str) -> Stat | None:
    inode = zlib.crc32(path.encode("utf-8", "surrogateescape")) | 1 << 32
    system = _system_stat(files, path, inode)
    if system is not None:
        return system
    if path in files.local:
        mode = files.modes.get(path, _SHELL_FILE_MODE)
        size = len(files.local[path])
        return Stat(mode, size, files.clock_ms(), inode, SHELL_UID, SHELL_UID)
    if _local_is_dir(files, path):
        mode, uid, gid = _SYSTEM_DIRS.get(path, (DIR_MODE, 0, 0))
        if path.startswith("/data/local/tmp/"):
            uid = gid = SHELL_UID
        return Stat(mode, 4096, files.clock_ms(), inode, uid, gid)
    return None


def _local_list(files: PhoneFiles, path: str) -> dict[str, Stat]:
    prefix = "/" if path == "/" else path + "/"
    names: set[str] = set()
    system = [f"/system/bin/{name}" for name in files.system_bin] if path == "/system/bin" else []
    for key in [
        *files.local,
        *(d + "/" for d in BASE_DIRS),
        "/sdcard/",
        *_DEVICES,
        *_PROC,
        *system,
    ]:
        if key.startswith(prefix) and key != prefix:
            names.add(key[len(prefix) :].split("/", 1)[0])
    return {name: found for name in sorted(names) if (found := stat(files, prefix + name))}


def _device_bytes(files: PhoneFiles, path: str, limit: int | None) -> bytes:
    """What reading a device gives: nothing, zeros, or the instance's random bytes."""
    size = _ENDLESS_READ if limit is None else limit
    if path == "/dev/null":
        return b""
    if path == "/dev/zero":
        return bytes(size)
    return random.Random(f"{path}:{files.clock_ms()}").randbytes(size)


# ---------------------------------------------------------------- the commands' operations


def is_dir(files: PhoneFiles, path: str) -> bool:
    """Whether ``path`` (normalised) is a directory."""
    found = stat(files, path)
    return found is not None and found.is_dir


def stat(files: PhoneFiles, path: str) -> Stat | None:
    """File or directory facts; None when nothing is at ``path``."""
    if sdcard.under_root(path):
        node = _node(files, path)
        return None if node is None else _tree_stat(node)
    return _local_stat(files, path)


def list_dir(files: PhoneFiles, path: str) -> dict[str, Stat]:
    """Entries directly in directory ``path`` (no ``.``/``..``), by name."""
    if sdcard.under_root(path):
        node = _node(files, path)
        if node is None or node.kind != "dir":
            return {}
        return {n.name: _tree_stat(n) for n in sdcard.children(files.tree(), node.id)}
    return _local_list(files, path)


def read_file(files: PhoneFiles, path: str, limit: int | None = None) -> bytes:
    """The content of a regular file or device (``limit``: as much as a reader wants of an
    endless device); :class:`FsError` otherwise."""
    if sdcard.under_root(path):
        node = _node(files, path)
        if node is None:
            raise FsError("No such file or directory")
        if node.kind == "dir":
            raise FsError("Is a directory")
        return _bytes_of(files, node)
    if path in _DEVICES:
        return _device_bytes(files, path, limit)
    if path in _PROC:
        return _PROC[path]()
    if path in files.local:
        return files.local[path]
    if _local_is_dir(files, path):
        raise FsError("Is a directory")
    raise FsError("No such file or directory")


def write_file(
    files: PhoneFiles, path: str, data: bytes, append: bool = False, mode: int | None = None
) -> None:
    """Create or replace (or append to) a file. Under ``/sdcard`` the parent must exist
    (adb's sync service makes it first); elsewhere parents are implied. ``mode`` (the
    permission bits ``adb push`` sends) is kept outside ``/sdcard``, whose FUSE daemon
    decides modes itself."""
    if path in _DEVICES:
        return
    if sdcard.under_root(path):
        node = _node(files, path)
        if append and node is not None and node.kind == "file":
            data = _bytes_of(files, node) + data
        if sdcard.lookup(files.tree(), posixpath.dirname(path)) is None:
            make_dir(files, posixpath.dirname(path), parents=True)  # as fixed_push_mkdir
        written = _tree_call(files, lambda t: sdcard.write(t, path, data, files.clock_ms()))
        assert isinstance(written, sdcard.Node)
        if written.text is None and written.size:
            files.blobs[written.id] = data
        else:
            files.blobs.pop(written.id, None)
        return
    if _local_is_dir(files, path):
        raise FsError("Is a directory")
    if not writable(path):
        raise FsError(
            "Read-only file system" if path.startswith("/system") else "Permission denied"
        )
    files.local[path] = (files.local.get(path, b"") if append else b"") + data
    if mode is not None:
        files.modes[path] = stat_module.S_IFREG | (mode & 0o7777)


def make_dir(files: PhoneFiles, path: str, parents: bool) -> None:
    """``mkdir``: :class:`FsError` like toybox."""
    if sdcard.under_root(path):
        _tree_call(files, lambda t: sdcard.make_dir(t, path, files.clock_ms(), parents))
        return
    if path in files.local:
        raise FsError("File exists")
    if _local_is_dir(files, path):
        if parents:
            return
        raise FsError("File exists")
    if not parents and not _local_is_dir(files, posixpath.dirname(path)):
        raise FsError("No such file or directory")
    if not writable(path):
        raise FsError("Permission denied")
    files.local[path + "/"] = b""


def remove(files: PhoneFiles, path: str, recursive: bool) -> None:
    """``rm``: a file, or with ``recursive`` a directory and everything under it."""
    if sdcard.under_root(path):
        removed = _tree_call(files, lambda t: sdcard.remove(t, path, recursive))
        for inode in removed:
            files.blobs.pop(inode, None)
        return
    if path in files.local:
        if not writable(path):
            raise FsError("Permission denied")
        del files.local[path]
        files.modes.pop(path, None)
        return
    if not _local_is_dir(files, path):
        raise FsError("No such file or directory")
    if not recursive:
        raise FsError("Is a directory")
    if path in BASE_DIRS or not writable(path):
        raise FsError("Permission denied")
    for key in [k for k in files.local if k.startswith(path + "/")]:
        del files.local[key]


def _outside_tree(src: str, dst: str) -> None:
    if not (sdcard.under_root(src) and sdcard.under_root(dst)):
        raise FsError(
            "Cross-device link" if writable(src) and writable(dst) else "Permission denied"
        )


def move(files: PhoneFiles, src: str, dst: str) -> None:
    """``mv`` within ``/sdcard`` (the node keeps its inode)."""
    _outside_tree(src, dst)
    _tree_call(files, lambda t: sdcard.move(t, src, dst, files.clock_ms()))


def copy(files: PhoneFiles, src: str, dst: str, recursive: bool) -> None:
    """``cp [-r]`` within ``/sdcard`` (copies get new inodes and the clock's time)."""
    _outside_tree(src, dst)
    copied = _tree_call(files, lambda t: sdcard.copy(t, src, dst, files.clock_ms(), recursive))
    for old, new in copied.items():
        if old in files.blobs:
            files.blobs[new] = files.blobs[old]


def set_mtime(files: PhoneFiles, path: str, mtime_ms: int, create: bool = True) -> None:
    """``touch``: set a node's time (creating an empty file when ``create``)."""
    if sdcard.under_root(path):
        _tree_call(files, lambda t: sdcard.touch(t, path, mtime_ms, create))
        return
    if stat(files, path) is None:
        if not create:
            raise FsError("No such file or directory")
        write_file(files, path, b"")
