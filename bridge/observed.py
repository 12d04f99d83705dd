"""Side effects as a phone can see them: the observable state before and after, diffed.

The observable state of a spec is every settings namespace (minus the volatile keys Android
rewrites by itself, :func:`volatile_settings`, which a world may extend), the provider
rows the spec watches, keyed by ``_id``, and everything below the task folders it watches,
keyed by path. A changed setting is expected when a glob of the spec's
``expected.settings`` matches ``namespace.key``; a changed row when it matches one of the
spec's row selectors before or after the episode; a changed, added or removed path when a
glob of ``expected.files`` matches it (truths it names filled in). Everything else is a
side effect: ``namespace.key``, ``URI/_id`` or the absolute path (``/sdcard/Download/…``).
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
from collections.abc import Iterable, Mapping
from functools import cache
from importlib import resources

from pydantic import JsonValue

from bridge.android_state import NAMESPACES, TASK_FILES_ROOT, AndroidState, Row
from bridge.schema import ObservedState
from bridge.spec.files import bind_path, folder_tree
from bridge.spec.rows import RowsSelector, read_rows
from bridge.taskspec import TaskSpec

__all__ = ["ObservedState", "observe", "row_digest", "side_effects", "volatile_settings"]


@cache
def volatile_settings() -> tuple[str, ...]:
    """Globs of ``namespace.key`` that Android changes by itself (boot counters, addresses,
    timestamps): never a side effect of a task (``bridge/volatile_settings.txt``, read once)."""
    text = resources.files("bridge").joinpath("volatile_settings.txt").read_text("utf-8")
    lines = (line.split("#", 1)[0].strip() for line in text.splitlines())
    return tuple(line for line in lines if line)


def row_digest(row: Row) -> str:
    """A short digest of a row's printed values (equal rows, equal digests)."""
    text = json.dumps(row, sort_keys=True, ensure_ascii=False)
    return hashlib.blake2b(text.encode("utf-8"), digest_size=8).hexdigest()


async def _ids(state: AndroidState, selector: RowsSelector) -> list[str]:
    rows = await read_rows(state, selector.uri, ["_id"], selector.where, selector.within, {})
    return sorted(str(row["_id"]) for row in rows)


async def observe(spec: TaskSpec, state: AndroidState) -> ObservedState:
    """The observable state of ``spec`` now (raises ``StateUnavailable`` when a part of it
    cannot be read in this world)."""
    settings: dict[str, dict[str, str]] = {ns: await state.list_settings(ns) for ns in NAMESPACES}
    rows: dict[str, dict[str, str]] = {}
    for watched in spec.watch:
        found = await state.query(watched.uri, watched.projection)
        rows[watched.uri] = {str(row["_id"]): row_digest(row) for row in found}
    selected = [await _ids(state, selector) for selector in spec.expected.rows]
    files: dict[str, str] = {}
    for folder in spec.watch_folders:
        files.update(await folder_tree(state, folder.folder))
    return ObservedState(settings=settings, rows=rows, selected=selected, files=files)


def _setting_changes(before: ObservedState, after: ObservedState) -> list[str]:
    changed = []
    for ns in NAMESPACES:
        old, new = before.settings.get(ns, {}), after.settings.get(ns, {})
        changed += [
            f"{ns}.{key}" for key in sorted(set(old) | set(new)) if old.get(key) != new.get(key)
        ]
    return changed


def _file_changes(
    spec: TaskSpec,
    before: ObservedState,
    after: ObservedState,
    truths: Mapping[str, list[JsonValue]],
) -> list[str]:
    globs = [bind_path(glob, truths) for glob in spec.expected.files]
    old, new = before.files, after.files
    return [
        f"{TASK_FILES_ROOT}/{path}"
        for path in sorted(set(old) | set(new))
        if old.get(path) != new.get(path)
        and not any(fnmatch.fnmatchcase(path, glob) for glob in globs)
    ]


def side_effects(
    spec: TaskSpec,
    before: ObservedState,
    after: ObservedState,
    volatile: Iterable[str] = (),
    truths: Mapping[str, list[JsonValue]] | None = None,
) -> list[str]:
    """Changes of the observable state that the spec does not expect, as
    ``namespace.key`` for settings, ``URI/_id`` for rows and the absolute path for files
    (``truths``: those read at the start, which ``expected.files`` may name)."""
    allowed = (*spec.expected.settings, *volatile_settings(), *volatile)
    unexpected = [
        path
        for path in _setting_changes(before, after)
        if not any(fnmatch.fnmatchcase(path, glob) for glob in allowed)
    ]
    for uri in sorted(set(before.rows) | set(after.rows)):
        old, new = before.rows.get(uri, {}), after.rows.get(uri, {})
        expected: set[str] = set()
        for index, selector in enumerate(spec.expected.rows):
            if selector.uri == uri:
                expected.update(before.selected[index], after.selected[index])
        for row_id in sorted(set(old) | set(new), key=_id_order):
            if old.get(row_id) != new.get(row_id) and row_id not in expected:
                unexpected.append(f"{uri}/{row_id}")
    return unexpected + _file_changes(spec, before, after, truths or {})


def _id_order(row_id: str) -> tuple[int, str]:
    return (int(row_id), "") if row_id.isdigit() else (1 << 62, row_id)
