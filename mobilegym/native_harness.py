"""MobileGym's Python harness (``bench_env``), imported from the user's checkout at run time,
and the fingerprint of that checkout.

We never ship MobileGym (its code is Apache-2.0, its data CC BY-NC 4.0): the user names the
root of their checkout, the folder holding ``bench_env/``, and we append it to ``sys.path``
once. ``bench_env`` is one module tree per process, so one process drives one checkout.

``bench_env`` is untyped. Everything we take from it is gathered in :class:`Harness` and typed
``Any`` there: this module is the boundary, and nothing past it names a ``bench_env`` module.
"""

from __future__ import annotations

import importlib
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from mobilegym.errors import MobileGymSourceError

__all__ = ["EXTRA", "VERSION_AXES", "Harness", "fingerprint", "load_harness"]

EXTRA = "pip install 'mobilegym-bridge[mobilegym]'"
"""How to install what ``bench_env`` imports (its ``requirements.txt``)."""

VERSION_AXES = ("HARNESS_VERSION", "TASKSET_VERSION", "SIM_VERSION", "DATA_VERSION")
"""The version constants of ``bench_env/version.py`` (absent from MobileGym v0.1.0's tree)."""

UNKNOWN = "unknown"


@dataclass(frozen=True)
class Harness:
    """The names of one checkout's ``bench_env`` that we call (all untyped: ``Any``).

    Attributes:
        root: The checkout's root (the folder holding ``bench_env/``).
        registry: A ``TaskRegistry`` (suites and task classes).
        instantiate: ``task.registry._instantiate``: a task instance seeded as their runner
            seeds it from ``--sample-seed``.
        controller: ``runner.base.Controller``: their setup entry (``Controller.setup``).
        evaluator: ``runner.base.Evaluator``: their judge entry (``Evaluator.evaluate``).
        execution_result: ``runner.base.ExecutionResult``: what their judge reads the
            agent's answer from.
        observation: ``env.base.Observation``: a judge input's start and end.
        stopwatch: ``env.stopwatch.StopWatch``: their setup times its phases on it.
        runner_config: ``config.RunnerConfig``: whose ``get_max_steps`` gives a task's budget.
        app_names: ``MobileGymEnv.APP_NAME_MAP``: app names their env opens by.
        resolve_split: ``splits.resolve_split``: the task ids of a named split.
    """

    root: Path
    registry: Any
    instantiate: Any
    controller: Any
    evaluator: Any
    execution_result: Any
    observation: Any
    stopwatch: Any
    runner_config: Any
    app_names: dict[str, str]
    resolve_split: Any

    def split_names(self) -> list[str]:
        """The named splits the checkout ships (``bench_env/splits/<name>.txt``)."""
        return sorted(path.stem for path in (self.root / "bench_env" / "splits").glob("*.txt"))


def _root(checkout: Path) -> Path:
    root = checkout.expanduser().resolve()
    if not (root / "bench_env" / "__init__.py").is_file():
        hint = " (its parent is the checkout)" if root.name == "bench_env" else ""
        raise MobileGymSourceError(
            f"{root}: no bench_env/ here{hint}; point at the root of a MobileGym checkout, "
            "the folder holding bench_env/"
        )
    return root


def _imported_from(module: ModuleType) -> Path | None:
    file = getattr(module, "__file__", None)
    return Path(file).resolve().parents[1] if file else None


def _import_bench_env(root: Path) -> ModuleType:
    loaded = sys.modules.get("bench_env")
    if loaded is None:
        if str(root) not in sys.path:
            # appended, not prepended: a checkout's top-level folders never shadow ours
            sys.path.append(str(root))
        try:
            loaded = importlib.import_module("bench_env")
        except ModuleNotFoundError as exc:
            if exc.name and exc.name.split(".")[0] == "bench_env":
                raise MobileGymSourceError(
                    f"{root}: bench_env is incomplete (no module {exc.name}); point at a "
                    "whole MobileGym checkout"
                ) from exc
            raise MobileGymSourceError(
                f"MobileGym's harness needs Python packages this environment lacks (no "
                f"module {exc.name!r}): {EXTRA}"
            ) from exc
    where = _imported_from(loaded)
    if where != root:
        raise MobileGymSourceError(
            f"bench_env is already imported from {where}; one process drives one MobileGym "
            f"checkout, not also {root}"
        )
    return loaded


def load_harness(checkout: Path) -> Harness:
    """Import ``bench_env`` from ``checkout`` (once per process) and gather what we call.

    Raises:
        MobileGymSourceError: ``checkout`` holds no ``bench_env/``, its Python needs are
            not installed (the message names the extra), or another checkout's
            ``bench_env`` is already imported.
    """
    root = _root(checkout)
    _import_bench_env(root)
    registry = importlib.import_module("bench_env.task.registry")
    runner = importlib.import_module("bench_env.runner.base")
    env_base = importlib.import_module("bench_env.env.base")
    gym_env = importlib.import_module("bench_env.env.mobile_gym")
    return Harness(
        root=root,
        registry=registry.TaskRegistry(),
        instantiate=registry._instantiate,
        controller=runner.Controller,
        evaluator=runner.Evaluator,
        execution_result=runner.ExecutionResult,
        observation=env_base.Observation,
        stopwatch=importlib.import_module("bench_env.env.stopwatch").StopWatch,
        runner_config=importlib.import_module("bench_env.config").RunnerConfig,
        app_names=dict(gym_env.MobileGymEnv.APP_NAME_MAP),
        resolve_split=importlib.import_module("bench_env.splits").resolve_split,
    )


def _git(root: Path, *args: str) -> str | None:
    git = shutil.which("git")
    if git is None or not (root / ".git").exists():
        return None
    done = subprocess.run(  # local reads only: rev-parse and status never reach a remote
        [git, "-C", str(root), *args], capture_output=True, text=True, timeout=10, check=False
    )
    return done.stdout.strip() if done.returncode == 0 else None


_PROVENANCE = "PROVENANCE.md"
"""A note a copy of MobileGym made without git may carry, naming the commit it was taken from."""
_NOTED_COMMIT = re.compile(r"\bcommit\s+`([0-9a-f]{7,40})`")
"""A commit as such a note names it: the word, then the hash in backticks."""


def _commit(root: Path) -> tuple[str, str, str]:
    """(the commit, where it was read, whether the tree has local changes): git's HEAD in a
    git checkout; else the one commit a ``PROVENANCE.md`` names (its dirtiness unknown);
    else ``unknown`` throughout. A note naming several commits is no answer either."""
    head = _git(root, "rev-parse", "HEAD")
    if head:
        status = _git(root, "status", "--porcelain", "--untracked-files=no")
        return head, "git", UNKNOWN if status is None else str(bool(status)).lower()
    note = root / _PROVENANCE
    named = (
        set(_NOTED_COMMIT.findall(note.read_text(encoding="utf-8"))) if note.is_file() else set()
    )
    if len(named) == 1:
        return named.pop(), _PROVENANCE, UNKNOWN
    return UNKNOWN, UNKNOWN, UNKNOWN


def _version_axes(root: Path) -> dict[str, str]:
    if not (root / "bench_env" / "version.py").is_file():
        return {axis.lower(): UNKNOWN for axis in VERSION_AXES}
    module = importlib.import_module("bench_env.version")
    return {axis.lower(): str(getattr(module, axis, UNKNOWN)) for axis in VERSION_AXES}


def fingerprint(harness: Harness) -> dict[str, str]:
    """Which harness judged: the checkout; its commit, where that was read (``git``, or
    ``PROVENANCE.md`` for a copy made without git) and whether it had local changes
    (``unknown`` where nothing says); and ``bench_env/version.py``'s four version axes
    (``unknown`` when the file is absent, as in v0.1.0). Nothing is guessed."""
    root = harness.root
    commit, source, dirty = _commit(root)
    return {
        "harness": "mobilegym bench_env",
        "checkout": str(root),
        "commit": commit,
        "commit_from": source,
        "dirty": dirty,
        **_version_axes(root),
    }
