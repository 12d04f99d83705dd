"""Files: a task's own folder under ``/sdcard/Download``, seeded when posing, its entries
read as a fact, its paths and entries checked. A task writes and reads its own folder only
(:class:`EnsureFolder` is the one write; every path a spec names is relative to
:data:`~bridge.android_state.TASK_FILES_ROOT`), never the user's files."""

from __future__ import annotations

import fnmatch
import posixpath
import re
from typing import Annotated, Literal

from pydantic import AfterValidator, Field, JsonValue
from pydantic.json_schema import WithJsonSchema

from bridge.android_state import TASK_FILES_ROOT, AndroidState, FileStat
from bridge.errors import EnvError
from bridge.phone_time import local_ms
from bridge.schema import CheckResult
from bridge.spec.base import (
    TRUTH_REF,
    CheckNode,
    EnsureNode,
    FactNode,
    Seen,
    SpecNode,
    TruthRef,
    Truths,
)
from bridge.spec.clock import LocalTime

__all__ = [
    "FOLDER_NAME_PATTERN",
    "IN_FOLDER_PATTERN",
    "EnsureFolder",
    "FilesFact",
    "FolderCheck",
    "FolderName",
    "InFolder",
    "PathCheck",
    "SeedFile",
    "WatchedFolder",
    "bind_path",
    "check_folder",
    "check_path",
    "ensure_folder",
    "folder_entries",
    "folder_tree",
    "read_files",
]


def _inside_folder(path: str) -> str:
    parts = path.split("/")
    if any(part in ("", ".", "..") or "\x00" in part for part in parts):
        raise ValueError(f"{path!r} is not a relative path inside a folder")
    return path


def _one_folder(name: str) -> str:
    if "/" in name:
        raise ValueError(f"{name!r} is a path: a task's folder is one name, without '/'")
    return _inside_folder(name)


_PART = r"(?:[^/.\x00][^/\x00]*|\.[^/.\x00][^/\x00]*|\.\.[^/\x00]+)"
"""One component of a path inside a folder: not empty, not ``.`` or ``..``, no NUL."""
IN_FOLDER_PATTERN = rf"^{_PART}(?:/{_PART})*$"
"""What :data:`InFolder` accepts, as the regular expression its JSON Schema states."""
FOLDER_NAME_PATTERN = rf"^{_PART}$"
"""What :data:`FolderName` accepts, as the regular expression its JSON Schema states."""

InFolder = Annotated[
    str,
    AfterValidator(_inside_folder),
    WithJsonSchema({"type": "string", "pattern": IN_FOLDER_PATTERN}),
]
"""A relative path with no ``.``/``..`` component and no empty one."""
FolderName = Annotated[
    str,
    AfterValidator(_one_folder),
    WithJsonSchema({"type": "string", "pattern": FOLDER_NAME_PATTERN}),
]
"""One component of an :data:`InFolder` path: a task's own folder under ``/sdcard/Download``."""


class SeedFile(SpecNode):
    """A text file a task seeds in its folder: ``path`` inside it (``sub/a.txt`` makes the
    subfolder), modified at ``mtime`` on the phone's own clock."""

    path: InFolder
    text: str = ""
    mtime: LocalTime = Field(default_factory=LocalTime)


class EnsureFolder(EnsureNode):
    """The task's own folder ``/sdcard/Download/<folder>``, removed with everything in it and
    made again with ``dirs`` (empty subfolders) and ``files``: all a task's files live there,
    the only place a judge writes."""

    op: Literal["ensure_folder"] = "ensure_folder"
    folder: FolderName
    dirs: list[InFolder] = Field(default_factory=list)
    files: list[SeedFile] = Field(default_factory=list)

    async def pose(self, state: AndroidState) -> None:
        """Empty the folder and seed it."""
        await ensure_folder(state, self)


class FilesFact(FactNode):
    """The entries of a folder under ``/sdcard/Download`` (``folder``: ``<task folder>`` or
    a path below it) of ``kind`` whose names match the glob ``name``, in ``order`` (name,
    mtime or size; ``descending`` for the newest or largest first), each read as ``field``:
    ``name``, ``size`` (bytes), ``mtime_ms`` or ``inode``. No folder: no values."""

    source: Literal["files"] = "files"
    folder: InFolder
    kind: Literal["file", "dir", "any"] = "file"
    name: str = "*"
    field: Literal["name", "size", "mtime_ms", "inode"] = "name"
    order: Literal["name", "mtime", "size"] = "name"
    descending: bool = False

    async def read(self, state: AndroidState, truths: Truths) -> list[JsonValue]:
        """The entries' fields, in order."""
        return await read_files(state, self)


class PathCheck(CheckNode):
    """A path under ``/sdcard/Download`` (inside the task's folder) is a ``file``, a ``dir``,
    ``exists`` as either, or is ``absent``; with ``inode``, the node there has the inode of
    that truth (a file seeded at pose renamed or moved, not copied). A ``guard`` is needed for
    success but no step of progress (a file the task must keep). ``path`` may name truths:
    ``{truth.NAME}`` is that truth's main value as text (a folder named after a date read on
    the phone)."""

    check: Literal["path"] = "path"
    name: str = Field(min_length=1)
    path: InFolder
    expect: Literal["file", "dir", "exists", "absent"]
    inode: TruthRef | None = None
    guard: bool = False

    async def evaluate(self, state: AndroidState, seen: Seen) -> list[CheckResult]:
        """The path's kind (and inode) now."""
        return [await check_path(state, self, seen.truths)]

    def truth_names(self) -> list[str]:
        """The truths its path and inode name."""
        names = TRUTH_REF.findall(self.path)
        return names + ([self.inode.truth] if self.inode is not None else [])


class FolderCheck(CheckNode):
    """The entries of ``kind`` in a folder under ``/sdcard/Download`` are exactly ``names``
    (no more, no fewer)."""

    check: Literal["folder"] = "folder"
    name: str = Field(min_length=1)
    folder: InFolder
    kind: Literal["file", "dir", "any"] = "file"
    names: list[str]
    guard: bool = False

    async def evaluate(self, state: AndroidState, seen: Seen) -> list[CheckResult]:
        """The folder's entries now."""
        return [await check_folder(state, self)]


class WatchedFolder(SpecNode):
    """A folder under ``/sdcard/Download`` (a task's own) snapshotted before and after with
    everything below it, keyed by path: a file's kind, size, modification time and inode, a
    folder's kind and inode (a folder's own time follows its entries)."""

    folder: InFolder


def _full(path: str) -> str:
    return f"{TASK_FILES_ROOT}/{path}"


async def ensure_folder(state: AndroidState, op: EnsureFolder) -> None:
    """Empty the task's folder and seed it: its subfolders, then its files (times on the
    phone's own clock)."""
    base = _full(op.folder)
    await state.remove(base)
    await state.make_dir(base)
    for folder in op.dirs:
        await state.make_dir(f"{base}/{folder}")
    now_ms, zone_name = await state.now()
    for seeded in op.files:
        path = f"{base}/{seeded.path}"
        if "/" in seeded.path:
            await state.make_dir(posixpath.dirname(path))
        await state.write_file(path, seeded.text, local_ms(now_ms, zone_name, seeded.mtime))


def bind_path(path: str, truths: Truths) -> str:
    """``path`` (or a path glob) with every ``{truth.NAME}`` replaced by that truth's main
    value as text; a value that would leave its path component (a ``/``) is refused.

    Raises:
        EnvError: a named truth was not read, or its value holds a ``/``.
    """

    def text(match: re.Match[str]) -> str:
        name = match.group(1)
        if not truths.get(name):
            raise EnvError(f"the spec's path names truth {name!r}, which was not read")
        value = str(truths[name][0])
        if "/" in value or value in ("", ".", ".."):
            raise EnvError(f"truth {name!r} ({value!r}) cannot be a name in a path")
        return value

    return TRUTH_REF.sub(text, path)


async def folder_tree(state: AndroidState, folder: str) -> dict[str, str]:
    """Every entry below a folder under ``/sdcard/Download``, by its path relative to that
    root: ``file SIZE MTIME_MS INODE`` or ``dir INODE`` (a folder's own time and size
    follow its entries, so they are left out). No folder: no entries."""
    found: dict[str, str] = {}
    pending = [folder]
    while pending:
        current = pending.pop()
        for entry in await state.list_files(_full(current)):
            path = f"{current}/{entry.name}"
            if entry.kind == "dir":
                found[path] = f"dir {entry.inode}"
                pending.append(path)
            else:
                found[path] = f"file {entry.size} {entry.mtime_ms} {entry.inode}"
    return dict(sorted(found.items()))


def _kind_ok(entry: FileStat, kind: str) -> bool:
    return kind == "any" or entry.kind == kind


async def folder_entries(
    state: AndroidState, folder: str, kind: str, name: str = "*"
) -> list[FileStat]:
    """The entries of ``kind`` in a folder under ``/sdcard/Download`` whose names match the
    glob ``name``, by name."""
    entries = await state.list_files(_full(folder))
    return [e for e in entries if _kind_ok(e, kind) and fnmatch.fnmatchcase(e.name, name)]


_ORDER = {"name": "name", "mtime": "mtime_ms", "size": "size"}


async def read_files(state: AndroidState, fact: FilesFact) -> list[JsonValue]:
    """The values of a :class:`~bridge.spec.files.FilesFact`, in its order (ties by name)."""
    entries = await folder_entries(state, fact.folder, fact.kind, fact.name)
    key = _ORDER[fact.order]
    entries.sort(key=lambda e: e.name)
    entries.sort(key=lambda e: getattr(e, key), reverse=fact.descending)
    return [getattr(entry, fact.field) for entry in entries]


def _shown(found: FileStat | None) -> str:
    return "absent" if found is None else found.kind


async def check_path(state: AndroidState, rule: PathCheck, truths: Truths) -> CheckResult:
    """A path's kind, and with ``inode`` that it is the node seeded at pose (a path naming
    a truth is read with its value, :func:`bind_path`)."""
    path = bind_path(rule.path, truths)
    found = await state.stat_path(_full(path))
    kind_ok = {
        "file": found is not None and found.kind == "file",
        "dir": found is not None and found.kind == "dir",
        "exists": found is not None,
        "absent": found is None,
    }[rule.expect]
    expected: str = rule.expect
    actual, passed = _shown(found), kind_ok
    if rule.inode is not None:
        expected = f"{rule.expect} with the inode of {rule.inode.truth}"
        same = found is not None and any(found.inode == t for t in truths[rule.inode.truth])
        passed = kind_ok and same
        if found is not None and not same:
            actual = f"{found.kind} with another inode (a copy, not the file seeded)"
    return CheckResult(
        name=rule.name,
        expected=expected,
        actual=actual,
        passed=passed,
        evidence=f"stat -c '%i %F' {_full(path)!r}",
        guard=rule.guard,
    )


async def check_folder(state: AndroidState, rule: FolderCheck) -> CheckResult:
    """A folder holds exactly the names of the rule (entries of its kind)."""
    names = [e.name for e in await folder_entries(state, rule.folder, rule.kind)]
    return CheckResult(
        name=rule.name,
        expected=list[JsonValue](sorted(rule.names)),
        actual=list[JsonValue](names),
        passed=sorted(names) == sorted(rule.names),
        evidence=f"ls -a {_full(rule.folder)!r}",
        guard=rule.guard,
    )
