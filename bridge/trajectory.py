"""Trajectories on disk: a run directory that survives a kill and resumes where it stopped.

Layout::

    RUN/manifest.json                   RunManifest (config, versions, seeds)
    RUN/results.jsonl                   one EpisodeRecord per finished episode (append-only)
    RUN/episodes/<id>/episode.json      the EpisodeRecord
    RUN/episodes/<id>/steps.jsonl       one StepRecord per step, appended as the episode runs
    RUN/episodes/<id>/frames/NNNN.jpg   the screenshot the policy saw (.jpg, .png or .webp)
    RUN/episodes/<id>/trees/NNNN.xml    the UI tree XML of that step
    RUN/.lock                           while a process writes the run: who (bridge.run_lock)

Whole files are written to a temp file in the same directory, fsynced and renamed over the
target. JSONL files grow by one ``os.write`` of a whole line (``O_APPEND``), then fsync. A
last line without its newline was torn by a kill: readers ignore it, and it is truncated
before anything is appended (or by :meth:`RunStore.repair`). A whole last line of
``results.jsonl`` that is no JSON (NULs or garbage: a write lost to a power loss) is treated
the same way, its bytes kept in ``RUN/damaged/``; a bad line elsewhere raises
:class:`TrajectoryError` naming file, line and what to do. The ``results.jsonl`` line
commits an episode (``episode.json`` is written first); an env cannot resume mid-episode, so
:meth:`RunStore.begin_episode` discards a directory without a result. An ``infra_error``
result is not final: a rerun appends a newer line, and the latest wins.

A committed episode whose files are damaged (directory deleted, ``episode.json`` missing or
unreadable, steps cut: :meth:`RunStore.damaged`) is pending again. Its rerun sets the old
result aside, never deleting it: what is left of the directory moves to
``RUN/damaged/<id>.<n>/`` and ``RUN/damaged/set_aside.jsonl`` names the ``results.jsonl``
line (by its hash) that readers then skip.

Stored step records keep the observation's ``ui`` list (the policy's input, which element
targets refer to) and drop only the screenshot bytes, which are in the frame file; likewise
for ``result.observation`` (its screenshot is the next step's frame).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import threading
import uuid
from collections.abc import Iterable
from datetime import datetime, timezone
from pathlib import Path
from typing import get_args

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from bridge.durable import append_line, cut_last_line, cut_torn_tail, fsync_path, write_atomic
from bridge.errors import TrajectoryError
from bridge.records import EpisodeRecord, StepRecord
from bridge.run_files import (
    RERUN_FIX,
    SetAside,
    episode_damage,
    is_garbage,
    line_sha256,
    load_results,
    parse_record,
    read_records,
    refuse_if_final,
)
from bridge.run_lock import LOCK_NAME, RunLock
from bridge.schema import SCHEMA_VERSION, SchemaVersion, Screenshot

__all__ = ["EpisodeWriter", "RunManifest", "RunStore", "SetAside", "validate_episode_id"]


_READABLE: tuple[str, ...] = get_args(SchemaVersion)
"""Schema versions of run manifests this code opens (every version it reads)."""

_SAFE_ID = re.compile(r"[A-Za-z0-9._-]{1,200}")
_EXTENSIONS = {"jpeg": "jpg", "png": "png", "webp": "webp"}
_MANIFEST, _RESULTS, _EPISODES = "manifest.json", "results.jsonl", "episodes"
_EPISODE_JSON, _STEPS = "episode.json", "steps.jsonl"
_DAMAGED, _SET_ASIDE = "damaged", "set_aside.jsonl"
_MANIFEST_FIX = "restore manifest.json from a copy (the results and episodes do not need it)"
_ABSENT = object()
_ISO_8601 = r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})?$"


class RunManifest(BaseModel):
    """What a run is: its configuration, software versions and seeds (``manifest.json``).

    ``run_id`` (random) and ``created_at`` (now, UTC, ISO 8601) are filled in when omitted.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    schema_version: str = SCHEMA_VERSION
    run_id: str = Field(default_factory=lambda: uuid.uuid4().hex, min_length=1)
    created_at: str = Field(
        default_factory=lambda: datetime.now(timezone.utc).isoformat(), pattern=_ISO_8601
    )
    config: dict[str, JsonValue] = Field(default_factory=dict)
    versions: dict[str, str] = Field(default_factory=dict)
    seeds: list[int] | dict[str, int] = Field(default_factory=list)
    fingerprints: dict[str, JsonValue] = Field(default_factory=dict)
    """The harness fingerprint of each policy, by role (``base``, ``trained``): the runner
    that writes it compares it on resume (``config`` is its CLI's options, ``versions``
    plain strings); empty in runs made before fingerprints."""
    grids: list[dict[str, JsonValue]] = Field(default_factory=list)
    """The episode grids later invocations added, in order (each its extendable config
    lists and its seeds); ``config`` and ``seeds`` are the first invocation's. A run grown
    by ``--tasks b --seeds 5`` ran those episodes only, not every task of ``config`` with
    every seed: widening ``config`` would claim a cross product never run."""

    def episode_grids(self) -> list[dict[str, JsonValue]]:
        """Every grid the run was asked for, the first invocation's first (its extendable
        lists are whatever keys the later grids name)."""
        keys = {key for grid in self.grids for key in grid} - {"seeds"}
        first: dict[str, JsonValue] = {key: self.config.get(key) for key in sorted(keys)}
        return [{**first, "seeds": _json_seeds(self.seeds)}, *self.grids]


def _json_seeds(seeds: list[int] | dict[str, int]) -> JsonValue:
    return list(seeds) if isinstance(seeds, list) else dict(seeds)


def validate_episode_id(episode_id: str) -> str:
    """Return ``episode_id`` if it is a safe directory name, else raise TrajectoryError.

    Safe: 1-200 characters from ``[A-Za-z0-9._-]``, no ``..`` anywhere, not ``.`` — so the
    id always names exactly one directory inside ``RUN/episodes``.
    """
    if not _SAFE_ID.fullmatch(episode_id) or ".." in episode_id or episode_id == ".":
        raise TrajectoryError(
            f"episode id {episode_id!r} is not a safe directory name; use 1-200 characters "
            "from A-Z a-z 0-9 . _ - without '..' (e.g. 'contacts.AddContact-v1_s3')"
        )
    return episode_id


class RunStore:
    """A run directory: manifest, committed results, episodes. Made by :meth:`create` or
    :meth:`open`; thread-safe (the runner writes from worker threads), one writing process:
    a store made with ``create(..., lock=True)`` holds the run's lock
    (:mod:`bridge.run_lock`) until :meth:`close` or the end of its ``with`` block."""

    def __init__(self, root: Path, manifest: RunManifest) -> None:
        """Wrap a run directory; use :meth:`create` or :meth:`open` instead."""
        self.root = root
        self.manifest = manifest
        self.results_path = root / _RESULTS
        self._results: dict[str, EpisodeRecord] = {}
        self._lines: dict[str, bytes] = {}
        self._bad_tail: str | None = None
        self._damage: dict[str, str] | None = None
        self._active: set[str] = set()
        self._lock = threading.Lock()
        self._tail_checked = False
        self._run_lock: RunLock | None = None

    @classmethod
    def create(
        cls,
        root: str | Path,
        manifest: RunManifest,
        *,
        resume: bool = False,
        extendable: Iterable[str] = (),
        lock: bool = False,
    ) -> RunStore:
        """Start a run in ``root`` (new or empty), or with ``resume`` continue the run there:
        same ``config`` and ``seeds`` required, original manifest kept, torn lines repaired.

        ``extendable`` names list-valued config keys (``tasks``, ``langs``) that may grow:
        a resume that adds items to them (or new seeds) extends the run, and the manifest
        then lists the union (the episodes already there keep their results).

        With ``lock``, the run is locked for this process before anything in it is written,
        until :meth:`close`; while another live process writes it, this raises
        :class:`~bridge.run_lock.RunLocked` having written nothing."""
        root = Path(root)
        _check_target(root, resume)  # before anything is written, a lock file included
        root.mkdir(parents=True, exist_ok=True)
        held = RunLock.acquire(root) if lock else None
        try:
            exists = _check_target(root, resume)  # again: no other writer changes it now
            store = cls._resumed(root, manifest, frozenset(extendable)) if exists else None
            if store is None:
                write_atomic(root / _MANIFEST, manifest.model_dump_json(indent=2).encode("utf-8"))
                (root / _EPISODES).mkdir(exist_ok=True)
                fsync_path(root)
                store = cls(root, manifest)
        except BaseException:
            if held is not None:
                held.release()
            raise
        store._run_lock = held
        return store

    @classmethod
    def _resumed(cls, root: Path, manifest: RunManifest, keys: frozenset[str]) -> RunStore:
        """The run in ``root`` opened to go on as ``manifest`` says (see :meth:`create`)."""
        store = cls.open(root)
        _check_same_run(store.manifest, manifest, root, ignore=keys)
        grown = _extended(store.manifest, manifest, keys)
        if grown != store.manifest:
            write_atomic(root / _MANIFEST, grown.model_dump_json(indent=2).encode("utf-8"))
            store.manifest = grown
        store.repair()
        return store

    def close(self) -> None:
        """Release the run's lock if this store holds it (idempotent); reading goes on."""
        if self._run_lock is not None:
            self._run_lock.release()
            self._run_lock = None

    def __enter__(self) -> RunStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @classmethod
    def open(cls, root: str | Path) -> RunStore:
        """Open an existing run directory to read (or resume) it."""
        root = Path(root)
        if not root.is_dir():
            raise TrajectoryError(f"run directory {root} does not exist; check the path")
        if not (root / _MANIFEST).is_file():
            raise TrajectoryError(f"{root} is not a run directory: {_MANIFEST} is missing")
        store = cls(root, _load_manifest(root / _MANIFEST))
        loaded = load_results(store.results_path, _set_aside_lines(root / _DAMAGED / _SET_ASIDE))
        store._results, store._lines = dict(loaded.records), dict(loaded.lines)
        store._bad_tail = loaded.bad_tail
        return store

    def completed(self) -> dict[str, EpisodeRecord]:
        """The latest committed record of each episode in ``results.jsonl``, by id."""
        with self._lock:
            return dict(self._results)

    def pending(self, episode_ids: Iterable[str], *, retry_infra_errors: bool = True) -> list[str]:
        """The ids among ``episode_ids`` without a result (in order), whose files are
        damaged (:meth:`damaged`), or, with ``retry_infra_errors``, whose latest result is
        ``infra_error`` (retried, not scored)."""
        done, damaged = self.completed(), self.damaged()
        return [
            episode_id
            for episode_id in map(validate_episode_id, episode_ids)
            if episode_id not in done
            or episode_id in damaged
            or (retry_infra_errors and done[episode_id].outcome == "infra_error")
        ]

    def damaged(self) -> dict[str, str]:
        """Committed episodes whose files are damaged, by id: one line on what is wrong
        (their directory deleted, ``episode.json`` missing or unreadable, steps cut)."""
        with self._lock:
            return dict(self._damaged_locked())

    def _damaged_locked(self) -> dict[str, str]:
        if self._damage is None:
            self._damage = {
                episode_id: problem
                for episode_id, record in sorted(self._results.items())
                if (problem := episode_damage(self.episode_dir(episode_id), record)) is not None
            }
        return self._damage

    def resume_notices(self) -> list[str]:
        """What resuming this run repairs or runs again, one line each: an unreadable last
        line of ``results.jsonl`` and every damaged episode (see :meth:`damaged`)."""
        tail = [f"{self._bad_tail}: cut, its bytes kept in {_DAMAGED}/"] if self._bad_tail else []
        rerun = [f"re-running {i}: {problem}" for i, problem in self.damaged().items()]
        return tail + rerun

    def repair(self) -> list[Path]:
        """Truncate torn last lines of all JSONL files, and a last line of ``results.jsonl``
        that is no JSON (kept in ``RUN/damaged/``), while nothing writes; returns the files."""
        steps = sorted((self.root / _EPISODES).glob(f"*/{_STEPS}"))
        results = self._cut_results_tail()
        return [self.results_path] * results + [path for path in steps if cut_torn_tail(path)]

    def _cut_results_tail(self) -> bool:
        """Cut a torn or garbage last line of ``results.jsonl`` (never a readable record)."""
        torn = cut_torn_tail(self.results_path)
        garbage = cut_last_line(self.results_path, lambda line: not is_garbage(line), self._keep)
        self._bad_tail = None
        return torn or garbage

    def _keep(self, data: bytes) -> None:
        """Save bytes a repair cuts in ``RUN/damaged/`` (nothing is thrown away)."""
        folder = self.root / _DAMAGED
        folder.mkdir(exist_ok=True)
        write_atomic(_free_name(folder, "results-tail", ".bin"), data)

    def episode_dir(self, episode_id: str) -> Path:
        """``RUN/episodes/<id>`` for a valid id (the directory may not exist)."""
        return self.root / _EPISODES / validate_episode_id(episode_id)

    def begin_episode(self, episode_id: str) -> EpisodeWriter:
        """Start writing ``episode_id`` from scratch, discarding any partial directory."""
        directory = self.episode_dir(episode_id)
        with self._lock:
            if episode_id in self._active:
                raise TrajectoryError(f"episode {episode_id!r} is already being written")
            if episode_id in self._damaged_locked():
                self._set_aside(episode_id)
            refuse_if_final(self._results, episode_id, self.results_path)
            self._active.add(episode_id)
        if directory.exists():
            shutil.rmtree(directory)
        (directory / "frames").mkdir(parents=True)
        (directory / "trees").mkdir()
        fsync_path(directory.parent)
        return EpisodeWriter(self, episode_id, directory)

    def _set_aside(self, episode_id: str) -> None:
        """Move a damaged episode's remains to ``RUN/damaged/`` and record its result line as
        set aside, so that it can be run again; the ``results.jsonl`` line itself stays."""
        folder = self.root / _DAMAGED
        folder.mkdir(exist_ok=True)
        directory, kept = self.episode_dir(episode_id), None
        if directory.exists():  # moved first: a kill now leaves the result, to set aside again
            target = _free_name(folder, episode_id)
            os.replace(directory, target)
            kept = target.relative_to(self.root).as_posix()
        problem = (self._damage or {}).pop(episode_id, "")
        line = self._lines.pop(episode_id)
        entry = SetAside(
            episode_id=episode_id, result_sha256=line_sha256(line), problem=problem, kept_in=kept
        )
        append_line(folder / _SET_ASIDE, entry.model_dump_json())
        del self._results[episode_id]

    def read_episode(self, episode_id: str) -> EpisodeRecord:
        """The ``episode.json`` of a committed episode."""
        if episode_id not in self.completed():
            raise TrajectoryError(f"episode {episode_id!r} has no result (not run, or cut off)")
        path = self.episode_dir(episode_id) / _EPISODE_JSON
        try:
            return parse_record(EpisodeRecord, path.read_bytes(), path, None, RERUN_FIX)
        except FileNotFoundError as exc:
            raise TrajectoryError(
                f"{path} is missing though the episode has a result; {RERUN_FIX}"
            ) from exc

    def read_steps(self, episode_id: str) -> list[StepRecord]:
        """The step records of an episode (complete or partial), ignoring a torn last line."""
        records = read_records(self.episode_dir(episode_id) / _STEPS, StepRecord, RERUN_FIX)
        return [record for _, record in records]

    def frame_path(self, episode_id: str, step: int) -> Path:
        """The screenshot file of ``step`` (``frames/NNNN.<ext>``)."""
        return self._step_file(episode_id, "frames", step)

    def tree_path(self, episode_id: str, step: int) -> Path:
        """The UI tree XML file of ``step`` (``trees/NNNN.xml``)."""
        return self._step_file(episode_id, "trees", step)

    def _step_file(self, episode_id: str, kind: str, step: int) -> Path:
        matches = sorted((self.episode_dir(episode_id) / kind).glob(f"{step:04d}.*"))
        if not matches:
            raise TrajectoryError(f"episode {episode_id!r} has no {kind} file for step {step}")
        return matches[0]

    def _commit(self, record: EpisodeRecord) -> None:
        with self._lock:
            refuse_if_final(self._results, record.episode_id, self.results_path)
            if not self._tail_checked:  # never glue a line onto one torn by a kill
                self._cut_results_tail()
                self._tail_checked = True
            line = record.model_dump_json()
            append_line(self.results_path, line)
            self._results[record.episode_id] = record
            self._lines[record.episode_id] = line.encode("utf-8")
            if self._damage is not None:
                self._damage.pop(record.episode_id, None)
            self._active.discard(record.episode_id)

    def _release(self, episode_id: str) -> None:
        with self._lock:
            self._active.discard(episode_id)


class EpisodeWriter:
    """Writes one episode's steps, frames and trees, then commits its record."""

    def __init__(self, store: RunStore, episode_id: str, directory: Path) -> None:
        """Made by :meth:`RunStore.begin_episode`."""
        self.episode_id = episode_id
        self.directory = directory
        self._store = store
        self._steps = 0
        self._open = True

    def write_step(
        self, record: StepRecord, screenshot: Screenshot | None = None, tree_xml: str | None = None
    ) -> StepRecord:
        """Save the frame and tree of step ``record`` (steps in order 0, 1, 2, ...), then append
        it to ``steps.jsonl``. ``screenshot`` defaults to the observation's. Returns the stored
        record: no screenshots, ``frame``/``tree`` relative to the episode directory."""
        self._check_open()
        if record.step != self._steps:
            raise TrajectoryError(
                f"{self.episode_id!r}: expected step {self._steps}, got {record.step}"
            )
        no_shot = {"screenshot": None}
        update: dict[str, object] = {"observation": record.observation.model_copy(update=no_shot)}
        if record.result is not None:
            observation = record.result.observation.model_copy(update=no_shot)
            update["result"] = record.result.model_copy(update={"observation": observation})
        shot = screenshot or record.observation.screenshot
        if shot is not None:
            update["frame"] = frame = f"frames/{record.step:04d}.{_EXTENSIONS[shot.format]}"
            write_atomic(self.directory / frame, shot.data)
        if tree_xml is not None:
            update["tree"] = tree = f"trees/{record.step:04d}.xml"
            write_atomic(self.directory / tree, tree_xml.encode("utf-8"))
        stored = record.model_copy(update=update)
        append_line(self.directory / _STEPS, stored.model_dump_json())
        self._steps += 1
        return stored

    def finish(self, record: EpisodeRecord) -> None:
        """Write ``episode.json``, then commit ``record`` with a line in ``results.jsonl``."""
        self._check_open()
        if record.episode_id != self.episode_id:
            raise TrajectoryError(f"got a record of {record.episode_id!r}, not {self.episode_id!r}")
        if record.steps != self._steps:
            raise TrajectoryError(
                f"{self.episode_id!r}: record says {record.steps} steps, {self._steps} written"
            )
        write_atomic(self.directory / _EPISODE_JSON, record.model_dump_json(indent=2).encode())
        self._store._commit(record)
        self._open = False

    def close(self) -> None:
        """Stop writing; an unfinished episode stays partial until begun again."""
        if self._open:
            self._open = False
            self._store._release(self.episode_id)

    def _check_open(self) -> None:
        if not self._open:
            raise TrajectoryError(f"the writer of episode {self.episode_id!r} is closed")


def _check_target(root: Path, resume: bool) -> bool:
    """Whether ``root`` holds a run to go on with (with ``resume``); False for a new or
    empty one (a lock file aside); anything else raises TrajectoryError."""
    if (root / _MANIFEST).exists():
        if not resume:
            raise TrajectoryError(f"{root} already holds a run; resume it or pick a new dir")
        return True
    if root.exists() and any(p.name != LOCK_NAME for p in root.iterdir()):
        raise TrajectoryError(
            f"{root} is not empty and is not a run (no {_MANIFEST}): use a new --out"
        )
    return False


def _load_manifest(path: Path) -> RunManifest:
    raw = path.read_bytes()
    try:
        data = json.loads(raw)
    except ValueError as exc:
        raise TrajectoryError(f"{path} is not valid JSON ({exc}); {_MANIFEST_FIX}") from exc
    version = data.get("schema_version") if isinstance(data, dict) else None
    if version not in _READABLE:  # older runs are read (their records are judged anew)
        raise TrajectoryError(
            f"{path} has schema_version {version!r} but this mobilegym-bridge reads "
            f"{', '.join(_READABLE)}; open it with a matching version, or start a new run"
        )
    return parse_record(RunManifest, raw, path, None, _MANIFEST_FIX)


def _set_aside_lines(path: Path) -> frozenset[str]:
    """Hashes of the ``results.jsonl`` lines set aside (see :class:`SetAside`)."""
    fix = f"restore {path.name} from a copy, or delete it to count the set-aside results again"
    return frozenset(entry.result_sha256 for _, entry in read_records(path, SetAside, fix))


def _free_name(folder: Path, stem: str, suffix: str = "") -> Path:
    """``folder/<stem>.<n><suffix>`` for the smallest ``n`` not taken yet."""
    n = 1
    while (folder / f"{stem}.{n}{suffix}").exists():
        n += 1
    return folder / f"{stem}.{n}{suffix}"


def _extended(existing: RunManifest, wanted: RunManifest, keys: frozenset[str]) -> RunManifest:
    """The manifest of the run once ``wanted`` extends ``existing``: the run's own manifest
    with ``wanted``'s grid (its extendable keys and seeds) appended to :attr:`RunManifest.grids`
    when the run was not asked for that grid yet; ``existing`` unchanged when nothing is
    extendable or the grid is one it holds. Settings ``wanted`` adds that the run lacks (a
    newer option) are taken in."""
    if not keys:
        return existing
    names = sorted(keys & wanted.config.keys() - {"seeds"})
    grid: dict[str, JsonValue] = {key: wanted.config[key] for key in names}
    grid["seeds"] = _json_seeds(wanted.seeds) if "seeds" in keys else _json_seeds(existing.seeds)
    first = {key: existing.config.get(key) for key in names}
    asked = [{**first, "seeds": _json_seeds(existing.seeds)}]
    asked += [{key: g.get(key) for key in grid} for g in existing.grids]
    new = {k: v for k, v in wanted.config.items() if k not in keys and k not in existing.config}
    if grid in asked and not new:
        return existing
    config = {**existing.config, **new}
    grids = existing.grids if grid in asked else [*existing.grids, grid]
    return existing.model_copy(update={"config": config, "grids": grids})


def _check_same_run(
    existing: RunManifest, wanted: RunManifest, root: Path, ignore: frozenset[str] = frozenset()
) -> None:
    """Refuse to resume with other settings, naming each with its old and new value (keys in
    ``ignore``, and the seeds when ``seeds`` is in it, may differ: they extend the run)."""
    old, new = existing.config, wanted.config
    keys = sorted((old.keys() | new.keys()) - ignore)
    changed = [
        f"{key} {old.get(key, '(none)')!r} → {new.get(key, '(none)')!r}"
        for key in keys
        if old.get(key, _ABSENT) != new.get(key, _ABSENT)
    ]
    if existing.seeds != wanted.seeds and "seeds" not in ignore:
        changed.append(f"seeds {existing.seeds!r} → {wanted.seeds!r}")
    if changed:
        raise TrajectoryError(
            f"{root} holds a run with other settings ({'; '.join(changed)}); give a new --out, "
            "or the run's own settings to resume it"
        )
