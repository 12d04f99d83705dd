"""A spec's files through an ``AndroidState``: seeding a task folder, reading a folder's
entries as a fact, and checking paths — all under ``/sdcard/Download`` (a task's own
folder only: :class:`~bridge.taskspec.EnsureFolder` is the one write, and every path a spec
names is relative to :data:`~bridge.android_state.TASK_FILES_ROOT`).
"""

from __future__ import annotations

import fnmatch
import posixpath
import re

from pydantic import JsonValue

from bridge.android_state import TASK_FILES_ROOT, AndroidState, FileStat
from bridge.errors import EnvError
from bridge.phone_time import local_ms
from bridge.schema import Check
from bridge.taskspec import EnsureFolder, FilesFact, FolderCheck, PathCheck, Truths

__all__ = [
    "bind_path",
    "check_folder",
    "check_path",
    "ensure_folder",
    "folder_entries",
    "folder_tree",
    "read_files",
]

_TRUTH = re.compile(r"\{truth\.([A-Za-z_]\w*)\}")


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

    return _TRUTH.sub(text, path)


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
    """The values of a :class:`~bridge.taskspec.FilesFact`, in its order (ties by name)."""
    entries = await folder_entries(state, fact.folder, fact.kind, fact.name)
    key = _ORDER[fact.order]
    entries.sort(key=lambda e: e.name)
    entries.sort(key=lambda e: getattr(e, key), reverse=fact.descending)
    return [getattr(entry, fact.field) for entry in entries]


def _shown(found: FileStat | None) -> str:
    return "absent" if found is None else found.kind


async def check_path(state: AndroidState, rule: PathCheck, truths: Truths) -> Check:
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
    return Check(
        name=rule.name,
        expected=expected,
        actual=actual,
        passed=passed,
        evidence=f"stat -c '%i %F' {_full(path)!r}",
        guard=rule.guard,
    )


async def check_folder(state: AndroidState, rule: FolderCheck) -> Check:
    """A folder holds exactly the names of the rule (entries of its kind)."""
    names = [e.name for e in await folder_entries(state, rule.folder, rule.kind)]
    return Check(
        name=rule.name,
        expected=list[JsonValue](sorted(rule.names)),
        actual=list[JsonValue](names),
        passed=sorted(names) == sorted(rule.names),
        evidence=f"ls -a {_full(rule.folder)!r}",
        guard=rule.guard,
    )
