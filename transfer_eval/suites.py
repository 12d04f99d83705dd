"""Paired task suites: which (task, seed) pairs a transfer evaluation runs.

A suite is a JSON file in ``transfer_eval/suites/`` (or any path): fixed seeds, so two runs
of a suite pose exactly the same task instances in both worlds.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from bridge.errors import BridgeError

__all__ = ["Suite", "SuiteError", "SuiteInstance", "SuiteTask", "load_suite", "suite_names"]


class SuiteError(BridgeError, ValueError):
    """A suite that cannot be found or read; the message lists the shipped ones."""


class SuiteTask(BaseModel):
    """One task instance of a suite; ``lang`` overrides the suite's language."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    task_id: str
    seed: int = 0
    lang: str | None = Field(default=None, pattern="^(en|zh)$")


@dataclass(frozen=True)
class SuiteInstance:
    """A suite entry resolved: its label in reports and run ids, and what to instantiate."""

    label: str
    """The task id, or ``task_id_sSEED-LANG`` when the suite holds the task more than once."""
    task_id: str
    seed: int
    lang: str


class Suite(BaseModel):
    """A named list of paired task instances."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = ""
    description: str = ""
    lang: str = Field(default="en", pattern="^(en|zh)$")
    tasks: list[SuiteTask] = Field(min_length=1)

    @model_validator(mode="after")
    def _distinct(self) -> Suite:
        seen = [(t.task_id, t.seed, t.lang or self.lang) for t in self.tasks]
        twice = sorted(
            {f"{t} (seed {s}, {lang})" for t, s, lang in seen if seen.count((t, s, lang)) > 1}
        )
        if twice:
            raise ValueError(f"task instances listed twice: {', '.join(twice)}")
        return self

    def instances(self, lang: str | None = None) -> list[SuiteInstance]:
        """The entries in order, each with a label unique in the suite; ``lang`` poses every
        entry in that language instead (entries that then coincide are kept once)."""
        entries = list(
            dict.fromkeys((t.task_id, t.seed, lang or t.lang or self.lang) for t in self.tasks)
        )
        counts = Counter(task_id for task_id, _, _ in entries)
        return [
            SuiteInstance(
                task_id if counts[task_id] == 1 else f"{task_id}_s{seed}-{entry_lang}",
                task_id,
                seed,
                entry_lang,
            )
            for task_id, seed, entry_lang in entries
        ]


def suite_names() -> list[str]:
    """The suites shipped with the package."""
    folder = resources.files(__package__).joinpath("suites")
    return sorted(
        entry.name.removesuffix(".json")
        for entry in folder.iterdir()
        if entry.name.endswith(".json")
    )


def load_suite(name_or_path: str) -> Suite:
    """A shipped suite by name, or a suite JSON file by path."""
    path = Path(name_or_path)
    if path.suffix == ".json" and path.exists():
        text, name = path.read_text("utf-8"), path.stem
    elif name_or_path in suite_names():
        folder = resources.files(__package__).joinpath("suites")
        text, name = folder.joinpath(f"{name_or_path}.json").read_text("utf-8"), name_or_path
    else:
        raise SuiteError(
            f"no suite {name_or_path!r}; shipped suites: {', '.join(suite_names())}"
            " (or give a path to a suite .json file)"
        )
    try:
        suite = Suite.model_validate({**json.loads(text), "name": name})
    except (ValueError, ValidationError) as exc:
        raise SuiteError(f"suite {name_or_path!r} is not valid: {exc}") from exc
    return suite
