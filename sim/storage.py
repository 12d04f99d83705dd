"""The phone's shared storage (``/sdcard``) as one tree in the instance's OS state.

Nodes carry inode-like ids: a rename or a move keeps a node's id, a copy gets a new one, so a
judge can tell "renamed" from "copied and deleted" as ``stat -c %i`` tells it on a phone.
Times are epoch milliseconds of the instance's seeded clock (callers pass ``now_ms``), never
the host's. A small text file keeps its text in the tree (:data:`MAX_TEXT_BYTES`); anything
bigger or binary keeps only its size (the virtual phone holds such bytes itself), so a
snapshot stays kilobytes.

Every function here is pure over a :class:`Storage` (no I/O) and fails with a POSIX-like
:class:`StorageError` whose ``str()`` is the text toybox prints (``No such file or
directory``). Paths are absolute under :data:`ROOT` (``/sdcard/Download/a.txt``).
"""

from __future__ import annotations

import json
import posixpath
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from functools import cache
from importlib import resources
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from sim.errors import (
    AlreadyExists,
    InvalidMove,
    IsADirectory,
    NotADirectory,
    NotEmpty,
    NotFound,
    PermissionDenied,
)
from sim.phone_clock import DEFAULT_CLOCK_MS, SIM_UTC_OFFSET_HOURS

__all__ = [
    "MAX_TEXT_BYTES",
    "ROOT",
    "STANDARD_DIRS",
    "Node",
    "Storage",
    "children",
    "copy",
    "default_storage",
    "lookup",
    "make_dir",
    "move",
    "path_of",
    "remove",
    "resolve",
    "set_mtime",
    "touch",
    "under_root",
    "walk",
    "write",
]

ROOT = "/sdcard"
"""The shared storage's path (``/storage/emulated/0`` on a phone; aliases map here)."""
STANDARD_DIRS = (
    "Alarms",
    "Android",
    "DCIM",
    "Documents",
    "Download",
    "Movies",
    "Music",
    "Notifications",
    "Pictures",
    "Podcasts",
    "Ringtones",
)
"""The directories every Android phone's shared storage has."""
MAX_TEXT_BYTES = 8192
"""Files up to this size that are UTF-8 text keep their text in the state."""
ROOT_ID = 1
Kind = Literal["dir", "file"]


class Node(BaseModel):
    """One file or directory."""

    model_config = ConfigDict(extra="forbid")

    id: int
    name: str
    parent: int | None
    """The directory's id; None only for the root."""
    kind: Kind
    size: int = 0
    mtime_ms: int
    text: str | None = None
    """The content of a small text file (None: a directory, or bytes not kept here)."""


class Storage(BaseModel):
    """The tree: nodes by id, and the next id to hand out."""

    model_config = ConfigDict(extra="forbid")

    next_id: int = ROOT_ID + 1
    nodes: dict[int, Node] = Field(default_factory=dict)

    def node(self, node_id: int) -> Node:
        """The node ``node_id`` (it must exist)."""
        return self.nodes[node_id]


# ---------------------------------------------------------------- paths


def under_root(path: str) -> bool:
    """Whether the normalised absolute ``path`` lies in the storage."""
    return path == ROOT or path.startswith(ROOT + "/")


def _parts(path: str) -> list[str]:
    full = posixpath.normpath(path)
    if not under_root(full):
        raise ValueError(f"{path!r} is not under {ROOT}")
    return [part for part in full[len(ROOT) :].split("/") if part]


def children(storage: Storage, dir_id: int) -> list[Node]:
    """The entries of a directory, by name."""
    return sorted((n for n in storage.nodes.values() if n.parent == dir_id), key=lambda n: n.name)


def _child(storage: Storage, dir_id: int, name: str) -> Node | None:
    return next((n for n in storage.nodes.values() if n.parent == dir_id and n.name == name), None)


def lookup(storage: Storage, path: str) -> Node | None:
    """The node at ``path``, None when nothing is there.

    Raises:
        NotADirectory: a component on the way is a file.
    """
    node = storage.nodes.get(ROOT_ID)
    for part in _parts(path):
        if node is None:
            return None
        if node.kind != "dir":
            raise NotADirectory(path)
        node = _child(storage, node.id, part)
    return node


def resolve(storage: Storage, path: str) -> Node:
    """The node at ``path``; :class:`NotFound` when there is none."""
    node = lookup(storage, path)
    if node is None:
        raise NotFound(path)
    return node


def path_of(storage: Storage, node: Node) -> str:
    """The absolute path of ``node``."""
    names: list[str] = []
    while node.parent is not None:
        names.append(node.name)
        node = storage.node(node.parent)
    return "/".join([ROOT, *reversed(names)])


def walk(storage: Storage, node: Node) -> Iterator[Node]:
    """``node`` and everything under it, parents before children."""
    yield node
    if node.kind == "dir":
        for child in children(storage, node.id):
            yield from walk(storage, child)


def _parent_dir(storage: Storage, path: str) -> tuple[Node, str]:
    """The existing directory that will hold ``path``, and the new entry's name."""
    parts = _parts(path)
    if not parts:
        raise AlreadyExists(path)
    parent = resolve(storage, posixpath.dirname(posixpath.normpath(path)))
    if parent.kind != "dir":
        raise NotADirectory(path)
    return parent, parts[-1]


def _new(storage: Storage, parent: Node, name: str, kind: Kind, now_ms: int) -> Node:
    node = Node(id=storage.next_id, name=name, parent=parent.id, kind=kind, mtime_ms=now_ms)
    storage.next_id += 1
    storage.nodes[node.id] = node
    parent.mtime_ms = now_ms
    return node


# ---------------------------------------------------------------- changes


def make_dir(storage: Storage, path: str, now_ms: int, parents: bool = False) -> Node:
    """``mkdir [-p]``: the directory at ``path``.

    Raises:
        AlreadyExists: something is there (without ``parents``, or a file is there).
        NotFound: the parent is missing (without ``parents``).
    """
    found = lookup(storage, path)
    if found is not None:
        if parents and found.kind == "dir":
            return found
        raise AlreadyExists(path)
    if parents:
        parent_path = posixpath.dirname(posixpath.normpath(path))
        if lookup(storage, parent_path) is None:
            make_dir(storage, parent_path, now_ms, parents=True)
    parent, name = _parent_dir(storage, path)
    return _new(storage, parent, name, "dir", now_ms)


def _set_content(node: Node, data: bytes) -> None:
    node.size = len(data)
    node.text = None
    if len(data) <= MAX_TEXT_BYTES:
        try:
            node.text = data.decode("utf-8")
        except UnicodeDecodeError:
            node.text = None


def content(node: Node) -> bytes | None:
    """The bytes of a file the tree keeps (None: only its size is kept)."""
    if node.text is None:
        return b"" if node.size == 0 else None
    return node.text.encode("utf-8")


def write(
    storage: Storage, path: str, data: str | bytes, now_ms: int, append: bool = False
) -> Node:
    """Create or replace (or append to) the file at ``path``; a replaced file keeps its id.

    Raises:
        IsADirectory: ``path`` is a directory.
        NotFound: its parent directory is missing.
    """
    raw = data.encode("utf-8") if isinstance(data, str) else data
    node = lookup(storage, path)
    if node is None:
        parent, name = _parent_dir(storage, path)
        node = _new(storage, parent, name, "file", now_ms)
    elif node.kind == "dir":
        raise IsADirectory(path)
    if append:
        old = content(node)
        raw = (old if old is not None else b"\0" * node.size) + raw
    _set_content(node, raw)
    node.mtime_ms = now_ms
    return node


def touch(storage: Storage, path: str, mtime_ms: int, create: bool = True) -> Node:
    """``touch``: set the modification time, creating an empty file when absent."""
    node = lookup(storage, path)
    if node is None:
        if not create:
            raise NotFound(path)
        node = write(storage, path, b"", mtime_ms)
    node.mtime_ms = mtime_ms
    return node


def set_mtime(storage: Storage, path: str, mtime_ms: int) -> Node:
    """Set the modification time of an existing node."""
    return touch(storage, path, mtime_ms, create=False)


def _inside(storage: Storage, node: Node, ancestor: Node) -> bool:
    current: Node | None = node
    while current is not None:
        if current.id == ancestor.id:
            return True
        current = storage.nodes.get(current.parent) if current.parent is not None else None
    return False


def _target(storage: Storage, source: Node, dst: str) -> tuple[Node, str, Node | None]:
    """Where ``source`` goes for ``mv``/``cp`` to ``dst``: (directory, name, replaced)."""
    found = lookup(storage, dst)
    if found is not None and found.kind == "dir":
        parent, name = found, source.name
        found = _child(storage, parent.id, name)
    else:
        parent, name = _parent_dir(storage, dst)
    if source.kind == "dir" and _inside(storage, parent, source):
        raise InvalidMove(dst)
    if found is not None and found.id != source.id:
        if found.kind == "dir" and source.kind != "dir":
            raise IsADirectory(dst)
        if found.kind != "dir" and source.kind == "dir":
            raise NotADirectory(dst)
        if found.kind == "dir" and children(storage, found.id):
            raise NotEmpty(dst)
    return parent, name, found


def remove(storage: Storage, path: str, recursive: bool = False) -> list[int]:
    """``rm [-r]``: the node at ``path`` (with everything under it); the removed ids.

    Raises:
        NotFound, IsADirectory (a directory without ``recursive``), PermissionDenied (root).
    """
    node = resolve(storage, path)
    if node.parent is None:
        raise PermissionDenied(path)
    if node.kind == "dir" and not recursive:
        raise IsADirectory(path)
    removed = [n.id for n in walk(storage, node)]
    for node_id in removed:
        del storage.nodes[node_id]
    return removed


def move(storage: Storage, src: str, dst: str, now_ms: int) -> Node:
    """``mv``: rename or move the node at ``src`` (its id and time kept); into ``dst`` when
    that is a directory. A file it replaces is removed."""
    source = resolve(storage, src)
    if source.parent is None:
        raise PermissionDenied(src)
    parent, name, replaced = _target(storage, source, dst)
    if replaced is not None and replaced.id != source.id:
        for node in list(walk(storage, replaced)):
            del storage.nodes[node.id]
    storage.node(source.parent).mtime_ms = now_ms
    source.parent, source.name = parent.id, name
    parent.mtime_ms = now_ms
    return source


def copy(
    storage: Storage, src: str, dst: str, now_ms: int, recursive: bool = False
) -> dict[int, int]:
    """``cp [-r]``: new nodes (new ids, time ``now_ms``) with the same content; returns the
    new id of every copied node by its source id (for bytes kept elsewhere)."""
    source = resolve(storage, src)
    if source.kind == "dir" and not recursive:
        raise IsADirectory(src)
    parent, name, replaced = _target(storage, source, dst)
    if replaced is not None and replaced.id == source.id:
        raise AlreadyExists(dst)  # toybox: 'x' and 'x' are the same file
    copied: dict[int, int] = {}
    if replaced is not None and source.kind == "file":
        replaced.size, replaced.text, replaced.mtime_ms = source.size, source.text, now_ms
        copied[source.id] = replaced.id
        return copied
    _copy_into(storage, source, parent, name, now_ms, copied)
    return copied


def _copy_into(
    storage: Storage, source: Node, parent: Node, name: str, now_ms: int, copied: dict[int, int]
) -> None:
    existing = _child(storage, parent.id, name)
    node = existing or _new(storage, parent, name, source.kind, now_ms)
    node.size, node.text, node.mtime_ms = source.size, source.text, now_ms
    copied[source.id] = node.id
    if source.kind == "dir":
        for child in children(storage, source.id):
            _copy_into(storage, child, node, child.name, now_ms, copied)


# ---------------------------------------------------------------- a fresh phone


def _local_ms(text: str) -> int:
    """Epoch ms of a local ``YYYY-MM-DD HH:MM`` wall time in the simulated zone."""

    zone = timezone(timedelta(hours=SIM_UTC_OFFSET_HOURS))
    moment = datetime.strptime(text, "%Y-%m-%d %H:%M").replace(tzinfo=zone)
    return int(moment.timestamp()) * 1000


@cache
def _user_files() -> tuple[tuple[str, str | None, int, str], ...]:
    """The phone owner's files of the Files app's world data: (path, text, size, mtime)."""
    try:
        text = resources.files("sim.apps.files").joinpath("world.json").read_text("utf-8")
    except (ModuleNotFoundError, FileNotFoundError):
        return ()
    entries = json.loads(text).get("sdcard", [])
    return tuple((e["path"], e.get("text"), int(e.get("size", 0)), e["mtime"]) for e in entries)


@cache
def _fresh_json() -> str:

    storage = Storage()
    storage.nodes[ROOT_ID] = Node(
        id=ROOT_ID, name="0", parent=None, kind="dir", mtime_ms=DEFAULT_CLOCK_MS
    )
    for name in STANDARD_DIRS:
        make_dir(storage, f"{ROOT}/{name}", DEFAULT_CLOCK_MS)
    for path, text, size, mtime in _user_files():
        full = f"{ROOT}/{path}"
        make_dir(storage, posixpath.dirname(full), _local_ms(mtime), parents=True)
        if path.endswith("/"):
            continue
        node = write(storage, full, text or "", _local_ms(mtime))
        if text is None:
            node.size = size
    return storage.model_dump_json()


def default_storage() -> Storage:
    """A fresh phone's storage: the standard directories and the owner's files (the Files
    app's world data, ``sdcard``), all times on the instance's starting clock."""
    return Storage.model_validate_json(_fresh_json())
