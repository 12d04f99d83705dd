"""Reading a run directory's files: records line by line, failures that name the file, the
line and what to do, and what is wrong (if anything) with a committed episode's files.

The checks here only read. :class:`bridge.trajectory.RunStore` decides what a damage means
(an episode to re-run on resume, a replay that refuses it).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from bridge.errors import TrajectoryError
from bridge.records import EpisodeRecord

__all__ = [
    "RERUN_FIX",
    "LoadedResults",
    "SetAside",
    "episode_damage",
    "is_garbage",
    "line_sha256",
    "load_results",
    "parse_record",
    "read_records",
    "refuse_if_final",
]

_M = TypeVar("_M", bound=BaseModel)
_EPISODE_JSON, _STEPS = "episode.json", "steps.jsonl"

RERUN_FIX = (
    "resume the run (the command that made it, with the same --out) to re-run the episode "
    "(what is left of it is kept in damaged/), or restore the episode directory from a copy"
)
"""What helps when a committed episode's files are damaged."""


def parse_record(model: type[_M], data: bytes, path: Path, line: int | None, fix: str) -> _M:
    """Validate JSON ``data`` as ``model``; a failure is one line naming the file (and the
    line), the problem and ``fix``, what to do about it."""
    try:
        return model.model_validate_json(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "top level"
        place = f"{path}, line {line}" if line is not None else str(path)
        if first["type"] == "extra_forbidden":
            raise TrajectoryError(
                f"{place} has a key this mobilegym-bridge does not know ({where!r}): open the "
                "run with the version that wrote it, or remove that key"
            ) from exc
        raise TrajectoryError(f"{place} is corrupt ({first['msg']} at {where}); {fix}") from exc


def read_records(path: Path, model: type[_M], fix: str) -> list[tuple[int, _M]]:
    """``(line number, record)`` pairs of the JSONL file ``path`` (none if it is absent),
    without a torn last line; a bad complete line raises, naming it and ``fix``."""
    lines = path.read_bytes().split(b"\n")[:-1] if path.exists() else []
    return [
        (number, parse_record(model, line, path, number, fix))
        for number, line in enumerate(lines, start=1)
        if line.strip()
    ]


def is_garbage(line: bytes) -> bool:
    """True for a line that is no JSON at all (NULs, cut-off or random bytes): what a lost
    write leaves, unlike a record of another schema, which is JSON and must never be cut."""
    if not line.strip():
        return False
    try:
        json.loads(line)
    except ValueError:
        return True
    return False


def _looks_whole(line: bytes) -> bool:
    """A cheap test that a step line was written whole (parsing every step of a long run on
    each resume would take seconds; a replay parses them and names any bad one)."""
    return line.startswith(b"{") and line.endswith(b"}") and b"\0" not in line


def _steps_damage(path: Path, record: EpisodeRecord) -> str | None:
    if not path.is_file():
        return None if record.steps == 0 else f"{path} is missing"
    lines = [line for line in path.read_bytes().split(b"\n")[:-1] if line.strip()]
    for number, line in enumerate(lines, start=1):
        if not _looks_whole(line):
            return f"{path}, line {number} is unreadable (not a whole JSON object)"
    if len(lines) != record.steps:
        return f"{path} holds {len(lines)} steps but the episode's result says {record.steps}"
    return None


def episode_damage(directory: Path, record: EpisodeRecord) -> str | None:
    """What is wrong with the files of the committed episode ``record`` in ``directory``
    (deleted, ``episode.json`` missing, unreadable or not its result, steps missing or cut),
    as the start of one line; None when they are whole."""
    if not directory.is_dir():
        return f"{directory} is missing (the episode directory was deleted)"
    path = directory / _EPISODE_JSON
    try:
        stored = parse_record(EpisodeRecord, path.read_bytes(), path, None, RERUN_FIX)
    except FileNotFoundError:
        return f"{path} is missing"
    except TrajectoryError as exc:
        return str(exc).split(";", 1)[0]
    if stored != record:
        return f"{path} is not the record results.jsonl holds for {record.episode_id!r}"
    return _steps_damage(directory / _STEPS, record)


class SetAside(BaseModel):
    """A committed result whose episode files were damaged, set aside when it was re-run
    (a line of ``RUN/damaged/set_aside.jsonl``); its ``results.jsonl`` line stays."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    episode_id: str
    result_sha256: str
    """SHA-256 of the ``results.jsonl`` line set aside (readers skip lines with it)."""
    problem: str
    kept_in: str | None = None
    """Where what was left of the episode directory went (relative to the run)."""


def line_sha256(line: bytes) -> str:
    """The hash :class:`SetAside` names a ``results.jsonl`` line by (without its newline)."""
    return hashlib.sha256(line.strip()).hexdigest()


def refuse_if_final(results: dict[str, EpisodeRecord], episode_id: str, where: object) -> None:
    """Raise if ``episode_id`` already has a final (not ``infra_error``) result in
    ``results``: an episode is written once."""
    previous = results.get(episode_id)
    if previous is not None and previous.outcome != "infra_error":
        raise TrajectoryError(
            f"{where}: episode {episode_id!r} already has a final result ({previous.outcome});"
            " an episode is written once (only infra_error results are retried)"
        )


def _episode_ids(lines: list[tuple[int, bytes]]) -> set[str]:
    """The episode ids the readable lines among ``lines`` name."""
    ids = set()
    for _, line in lines:
        try:
            data = json.loads(line)
        except ValueError:
            continue
        if isinstance(data, dict) and isinstance(data.get("episode_id"), str):
            ids.add(data["episode_id"])
    return ids


def _results_fix(path: Path, line: int, known: set[str]) -> str:
    """What helps with a bad line of results.jsonl: its record is also an episode.json."""
    orphans = sorted(
        found.parent.name
        for found in (path.parent / "episodes").glob(f"*/{_EPISODE_JSON}")
        if found.parent.name not in known
    )
    which = f" (episodes without a line: {', '.join(orphans[:5])})" if orphans else ""
    return (
        f"each result is also its episode's episodes/<id>/{_EPISODE_JSON}{which}: put that "
        f"record on line {line} as one line of JSON, or delete the line and resume to re-run "
        "that episode; or restore results.jsonl from a copy"
    )


class LoadedResults(BaseModel):
    """``results.jsonl`` as read: the latest record of each episode, its line, and the
    unreadable last line a lost write left (``bad_tail``, ignored like a torn line)."""

    model_config = ConfigDict(frozen=True)

    records: dict[str, EpisodeRecord]
    lines: dict[str, bytes]
    bad_tail: str | None = None


def load_results(path: Path, set_aside: frozenset[str]) -> LoadedResults:
    """Read ``results.jsonl``, skipping the lines ``set_aside`` names by hash and a last line
    that is no JSON; any other bad line raises, naming it and how to fix it."""
    lines = path.read_bytes().split(b"\n")[:-1] if path.exists() else []
    numbered = [
        (number, line)
        for number, line in enumerate(lines, start=1)
        if line.strip() and line_sha256(line) not in set_aside
    ]
    bad_tail = None
    if numbered and is_garbage(numbered[-1][1]):
        number = numbered.pop()[0]
        bad_tail = f"{path}, line {number} is not JSON (a write lost to a power loss or a kill)"
    records: dict[str, EpisodeRecord] = {}
    raw: dict[str, bytes] = {}
    for number, line in numbered:
        try:
            record = EpisodeRecord.model_validate_json(line)
        except ValidationError:  # said with what helps, which needs the other lines
            fix = _results_fix(path, number, _episode_ids(numbered))
            record = parse_record(EpisodeRecord, line, path, number, fix)  # raises
        refuse_if_final(records, record.episode_id, f"{path}, line {number}")
        records[record.episode_id], raw[record.episode_id] = record, line
    return LoadedResults(records=records, lines=raw, bad_tail=bad_tail)
