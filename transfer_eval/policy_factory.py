"""What every runner (sim runs, phone runs, transfer-eval) builds the same way: fresh
policies per episode from a spec (``scripted`` follows the task's oracle plan), the UI tree
saved per step, the versions a run records, and each policy's harness fingerprint.

The composition roots (sim runs, phone runs, transfer-eval) all build policies here, so a
spec means the same thing everywhere. A fingerprint (:func:`policy_fingerprint`) holds what
moves a policy's score besides its weights: the spec; for a VLM the adapter, its prompt's
hash, image handling, history, sampling and parser version
(:func:`policies.vlm.fingerprint.vlm_fingerprint`); for a learned policy its checkpoint's
hash; for a replay its recorded steps' hash; for a person (``human``) the version of what
they are shown and may type (no adapter, no sampling); and for every policy the judge,
simulator and app versions (SHA-256 of their sources and data, since a changed check or
screen moves a score as surely as a changed prompt).
"""

from __future__ import annotations

import hashlib
import platform
from collections.abc import Callable, Iterable
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import cv2
from pydantic import JsonValue

import bridge
import sim
from bridge.plans import Plan
from bridge.policy import Policy
from bridge.records import EpisodeRecord, TaskInstance
from bridge.schema import Observation, PolicyContext
from bridge.trajectory import RunStore
from bridge.uitree import to_xml
from policies.registry import HumanSpec, LearnedSpec, ReplaySpec, VLMSpec, load, parse_spec
from sim.skins import DEFAULT_SKIN
from sim.tasks.base import TaskTemplate

__all__ = [
    "checkpoint_hash",
    "fingerprint_changes",
    "harness_versions",
    "observed_worlds",
    "policy_factory",
    "policy_fingerprint",
    "report_fingerprints",
    "run_versions",
    "tree_xml",
]

_JUDGE_MODULES = (
    "android_contract", "android_state", "judge", "observed", "phone_time", "taskspec", "uitree",
)  # fmt: skip
"""The modules of bridge/ that pose and judge a task in both worlds, besides the spec
language's surfaces (``bridge/spec/``, every module of it)."""
_ABSENT = object()


def policy_factory(
    spec: str,
    template: TaskTemplate,
    task: TaskInstance,
    seed_offset: int = 0,
    skin: str = DEFAULT_SKIN,
) -> Callable[[], Policy]:
    """A factory of policies for one episode of ``task`` (a scripted oracle walks the
    screens of a phone in ``skin``)."""

    def plan_for(_instruction: str, _context: PolicyContext) -> Plan:
        return template.oracle_for(task, skin)

    return lambda: load(spec, plan_for=plan_for, seed=task.seed + seed_offset)


def tree_xml(observation: Observation) -> str | None:
    """The UI tree of a step as uiautomator XML (None when there is no tree)."""
    return to_xml(observation.ui) if observation.ui else None


def run_versions() -> dict[str, str]:
    """Software versions a run manifest records."""
    try:
        ours = version("mobilegym-bridge")
    except PackageNotFoundError:
        ours = "unknown"
    return {"mobilegym-bridge": ours, "python": platform.python_version()}


def checkpoint_hash(path: Path) -> str:
    """``sha256:`` and 12 hex digits over a checkpoint: a file's bytes, or a directory's
    files (by relative path, size and bytes, in path order)."""
    digest = hashlib.sha256()
    files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
    for file in files:
        name = file.relative_to(path).as_posix() if path.is_dir() else ""
        digest.update(f"{name}\0{file.stat().st_size}\0".encode())
        with file.open("rb") as stream:
            for chunk in iter(lambda: stream.read(1 << 20), b""):
                digest.update(chunk)
    return f"sha256:{digest.hexdigest()[:12]}"


def _files_hash(root: Path, files: Iterable[Path]) -> str:
    """``sha256:`` and 16 hex digits over files (by path relative to ``root``, and bytes)."""
    digest = hashlib.sha256()
    for file in sorted(files):
        digest.update(file.relative_to(root).as_posix().encode() + b"\0" + file.read_bytes())
    return f"sha256:{digest.hexdigest()[:16]}"


def _tree(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts]


def harness_versions() -> dict[str, JsonValue]:
    """The judge (bridge's task modules and the task catalogue), the simulator (sim/ but
    its apps and tasks) and each simulated app, as hashes of their sources and data."""
    bridge_dir, sim_dir = Path(bridge.__file__).parent, Path(sim.__file__).parent
    judged = [bridge_dir / f"{name}.py" for name in _JUDGE_MODULES] + _tree(bridge_dir / "spec")
    apps_dir, tasks_dir = sim_dir / "apps", sim_dir / "tasks"
    core = [p for p in _tree(sim_dir) if apps_dir not in p.parents and tasks_dir not in p.parents]
    apps = sorted(p for p in apps_dir.iterdir() if p.is_dir() and p.name != "__pycache__")
    return {
        "judge": _files_hash(bridge_dir.parent, [*judged, *_tree(tasks_dir)]),
        "simulator": _files_hash(sim_dir, core),
        "apps": {app.name: _files_hash(app, _tree(app)) for app in apps},
    }


def policy_fingerprint(spec: str) -> dict[str, JsonValue]:
    """The harness fingerprint of the policy ``spec`` names (built, never run: a VLM's
    endpoint is not asked), with the judge, simulator and app versions."""
    parsed = parse_spec(spec)
    found: dict[str, JsonValue] = {"spec": str(parsed), "kind": parsed.kind}
    if isinstance(parsed, VLMSpec):
        from policies.vlm.base import VLMPolicy
        from policies.vlm.fingerprint import vlm_fingerprint

        policy = parsed.build(seed=0)
        assert isinstance(policy, VLMPolicy)  # what a vlm: spec builds
        found["vlm"] = vlm_fingerprint(policy).model_dump(mode="json")
    elif isinstance(parsed, LearnedSpec):
        path = parsed.path()
        found["checkpoint"] = "missing" if path is None else checkpoint_hash(path)
    elif isinstance(parsed, ReplaySpec):
        steps = Path(parsed.run) / "episodes" / parsed.episode / "steps.jsonl"
        found["recording"] = checkpoint_hash(steps) if steps.is_file() else "missing"
    elif isinstance(parsed, HumanSpec):
        from policies.human import INTERFACE_VERSION

        found["human"] = {"interface": f"policies.human@{INTERFACE_VERSION}", "adapter": None}
    return {**found, **harness_versions()}


def _flat(value: JsonValue, prefix: str = "") -> dict[str, JsonValue]:
    if isinstance(value, dict):
        out: dict[str, JsonValue] = {}
        for key, item in value.items():
            out.update(_flat(item, f"{prefix}.{key}" if prefix else key))
        return out
    return {prefix: value}


def fingerprint_changes(old: dict[str, JsonValue], new: dict[str, JsonValue]) -> list[str]:
    """What differs between two runs' fingerprints, one ``where old → new`` per leaf, in
    key order (``trained vlm.sampling.temperature 0.0 → 0.7``)."""
    before, after = _flat(old), _flat(new)
    return [
        f"{key.replace('.', ' ', 1)} {before.get(key, '(none)')} → {after.get(key, '(none)')}"
        for key in sorted(before.keys() | after.keys())
        if before.get(key, _ABSENT) != after.get(key, _ABSENT)
    ]


def _backend_text(record: EpisodeRecord) -> str:
    """``device Redmi Note 12 Turbo, Android 14, serial X`` (a virtual phone's serial is
    left out: it is a fresh loopback port each session)."""
    backend = record.backend
    if backend is None:
        return "unknown"
    parts = [backend.kind, backend.model or "unknown model"]
    parts += [f"Android {backend.android_version}"] if backend.android_version else []
    parts += [f"serial {backend.serial}"] if backend.serial and backend.kind == "device" else []
    return ", ".join(parts)


def _image_text(store: RunStore, episode_id: str) -> str | None:
    """``1080x2400 jpg``: the first frame the policy was sent, as stored (its exact bytes)."""
    frame = next(iter(sorted((store.root / "episodes" / episode_id / "frames").glob("*"))), None)
    if frame is None:
        return None
    image = cv2.imread(str(frame), cv2.IMREAD_UNCHANGED)
    if image is None:
        return f"unreadable {frame.suffix.lstrip('.')}"
    return f"{image.shape[1]}x{image.shape[0]} {frame.suffix.lstrip('.')}"


def observed_worlds(store: RunStore, role: str) -> dict[str, JsonValue]:
    """What a policy's episodes met in each world: the backends their records name and the
    size and encoding of the screenshots sent to the policy."""
    records = store.completed()
    seen: dict[str, JsonValue] = {}
    for world in ("sim", "real"):
        mine = sorted(k for k in records if f"__{role}__{world}__" in k)
        images = {text for k in mine if (text := _image_text(store, k)) is not None}
        seen[world] = {
            "backend": list[JsonValue](sorted({_backend_text(records[k]) for k in mine})),
            "image": list[JsonValue](sorted(images)),
        }
    return seen


def report_fingerprints(store: RunStore) -> dict[str, dict[str, JsonValue]]:
    """The fingerprint per policy for ``report.json``: the manifest's, with what its
    episodes met in each world (``observed``); empty for a run made before fingerprints."""
    recorded = store.manifest.fingerprints
    return {
        role: {**value, "observed": observed_worlds(store, role)}
        for role, value in recorded.items()
        if isinstance(value, dict)
    }
