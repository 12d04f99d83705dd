"""Task sets as data files: the suites a transfer evaluation runs and the splits ``mgb train``
trains and holds out on.

A suite is a JSON file in ``transfer_eval/suites/`` (or any path): a list of task instances
with fixed seeds, so two runs of a suite pose exactly the same instances in both worlds. Its
entries are listed one by one (``tasks``), as a ``grid`` of templates x a seed range, or as
a ``select``ion: every task of the registry passing some filters (the tasks a retail phone
can pose, of some apps, levels or kinds), resolved when the suite is loaded. A
split is a JSON file in ``transfer_eval/splits/`` holding two suites, ``train`` and ``test``,
whose seeds never overlap. Both kinds are read by one loader and validated alike.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar, get_args

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    ValidationInfo,
    model_validator,
)

from bridge.retail import retail_can_pose
from transfer_eval.errors import SuiteError

if TYPE_CHECKING:
    from sim.tasks.registry import TaskRegistry

_Set = TypeVar("_Set", "Suite", "Split")

__all__ = [
    "SeedRange",
    "Split",
    "Suite",
    "SuiteGrid",
    "SuiteInstance",
    "SuiteSelect",
    "SuiteTask",
    "load_split",
    "load_suite",
    "split_names",
    "suite_names",
]


class SuiteTask(BaseModel):
    """One task instance of a suite; ``lang`` overrides the suite's language."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    task_id: str
    seed: int = 0
    lang: str | None = Field(default=None, pattern="^(en|zh)$")


class SeedRange(BaseModel):
    """``count`` consecutive seeds from ``first``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    first: int = 0
    count: int = Field(ge=1)

    def seeds(self) -> range:
        """The seeds, in order."""
        return range(self.first, self.first + self.count)


class SuiteGrid(BaseModel):
    """Every task x every seed of a range, seed-major; ``lang="alternate"`` poses even seeds
    in English and odd ones in Chinese (a split's training instances see both)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    tasks: list[str] = Field(min_length=1)
    seeds: SeedRange
    lang: Literal["en", "zh", "alternate"] = "alternate"

    def entries(self) -> list[SuiteTask]:
        """The grid as suite entries."""
        return [
            SuiteTask(
                task_id=task_id,
                seed=seed,
                lang=("en", "zh")[seed % 2] if self.lang == "alternate" else self.lang,
            )
            for seed in self.seeds.seeds()
            for task_id in self.tasks
        ]


class SuiteSelect(BaseModel):
    """Every task of the registry passing each filter given (an absent one passes all), in
    task-id order, once each at ``seed``, in ``lang`` (default: the suite's). ``retail``:
    whether a retail phone can pose it at that seed (:func:`bridge.retail.retail_can_pose`);
    ``apps``: it uses one of them (a cross-app task counts for each of its apps); ``levels``,
    ``kinds``: its template's."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    retail: bool | None = None
    apps: list[str] | None = Field(default=None, min_length=1)
    levels: list[str] | None = Field(default=None, min_length=1)
    kinds: list[str] | None = Field(default=None, min_length=1)
    seed: int = 0
    lang: Literal["en", "zh"] | None = None

    @model_validator(mode="before")
    @classmethod
    def _known_keys(cls, data: Any) -> Any:
        unknown = sorted(set(data) - set(cls.model_fields)) if isinstance(data, dict) else []
        if unknown:
            raise ValueError(f"unknown key {unknown[0]!r}; choices: {', '.join(cls.model_fields)}")
        return data

    @model_validator(mode="after")
    def _known_values(self, info: ValidationInfo) -> SuiteSelect:
        from sim.tasks.base import Kind, Level

        apps = sorted({app for template in _registry(info) for app in template.apps})
        for key, values, choices in (
            ("apps", self.apps, apps),
            ("levels", self.levels, get_args(Level)),
            ("kinds", self.kinds, get_args(Kind)),
        ):
            for value in values or ():
                if value not in choices:
                    raise ValueError(
                        f"unknown {key} value {value!r}; choices: {', '.join(choices)}"
                    )
        return self

    def entries(self, registry: TaskRegistry, lang: str) -> list[SuiteTask]:
        """The selected tasks of ``registry`` as suite entries (``lang``: the suite's)."""
        chosen = [
            task_id
            for task_id in registry.ids()
            if self._passes(registry, task_id, self.lang or lang)
        ]
        if not chosen:
            raise ValueError(f"no task passes the selection {self.model_dump(exclude_none=True)}")
        return [SuiteTask(task_id=t, seed=self.seed, lang=self.lang) for t in chosen]

    def _passes(self, registry: TaskRegistry, task_id: str, lang: str) -> bool:
        template = registry.get(task_id)
        return (
            (self.apps is None or bool(set(self.apps) & set(template.apps)))
            and (self.levels is None or template.level in self.levels)
            and (self.kinds is None or template.kind in self.kinds)
            and (
                self.retail is None
                or retail_can_pose(registry.instantiate(task_id, self.seed, lang)) == self.retail
            )
        )


def _registry(info: ValidationInfo) -> TaskRegistry:
    """The registry a selection resolves against: the validation context's, else every
    shipped template."""
    from sim.tasks.registry import default_registry

    given: TaskRegistry | None = (info.context or {}).get("registry")
    return given if given is not None else default_registry()


@dataclass(frozen=True)
class SuiteInstance:
    """A suite entry resolved: its label in reports and run ids, and what to instantiate."""

    label: str
    """The task id, or ``task_id_sSEED-LANG`` when the suite holds the task more than once."""
    task_id: str
    seed: int
    lang: str


class Suite(BaseModel):
    """A named list of task instances: ``tasks`` one by one, then the ``grid``'s, then those
    the ``select``ion picks from the task registry (the one in the validation context's
    ``"registry"``, else the default one)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = ""
    description: str = ""
    lang: str = Field(default="en", pattern="^(en|zh)$")
    tasks: list[SuiteTask] = Field(default_factory=list)
    grid: SuiteGrid | None = None
    select: SuiteSelect | None = None
    _selected: list[SuiteTask] = PrivateAttr(default_factory=list)

    @property
    def entries(self) -> list[SuiteTask]:
        """Every entry: the listed ones, then the grid's, then the selected ones."""
        return [*self.tasks, *(self.grid.entries() if self.grid else ()), *self._selected]

    def task_ids(self) -> list[str]:
        """The distinct task ids, in order."""
        return list(dict.fromkeys(t.task_id for t in self.entries))

    @model_validator(mode="after")
    def _resolve(self, info: ValidationInfo) -> Suite:
        if self.select is not None:
            self._selected = self.select.entries(_registry(info), self.lang)
        return self._distinct()

    def _distinct(self) -> Suite:
        if not self.entries:
            raise ValueError("a suite needs at least one entry in 'tasks', a 'grid' or 'select'")
        seen = Counter((t.task_id, t.seed, t.lang or self.lang) for t in self.entries)
        twice = sorted(f"{t} (seed {s}, {lang})" for (t, s, lang), n in seen.items() if n > 1)
        if twice:
            raise ValueError(f"task instances listed twice: {', '.join(twice)}")
        return self

    def instances(self, lang: str | None = None) -> list[SuiteInstance]:
        """The entries in order, each with a label unique in the suite; ``lang`` poses every
        entry in that language instead (entries that then coincide are kept once)."""
        entries = list(
            dict.fromkeys((t.task_id, t.seed, lang or t.lang or self.lang) for t in self.entries)
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


class Split(BaseModel):
    """Which task instances ``mgb train`` trains on and which it holds out: two suites whose
    seeds never overlap (an ``*-unseen`` split also holds out whole templates); ``apps``:
    the apps a policy trained on it may open (part of what it learns, so a split gives the
    same checkpoint however many apps the simulator has grown since)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = ""
    description: str = ""
    apps: list[str] = Field(min_length=1)
    train: Suite
    test: Suite

    @model_validator(mode="after")
    def _held_out(self) -> Split:
        shared = {t.seed for t in self.train.entries} & {t.seed for t in self.test.entries}
        if shared:
            raise ValueError(f"train and test share seeds {sorted(shared)[:5]}")
        return self


def _names(folder: str) -> list[str]:
    return sorted(
        entry.name.removesuffix(".json")
        for entry in resources.files(__package__).joinpath(folder).iterdir()
        if entry.name.endswith(".json")
    )


def suite_names() -> list[str]:
    """The suites shipped with the package."""
    return _names("suites")


def split_names() -> list[str]:
    """The training splits shipped with the package."""
    return _names("splits")


def _one_line(exc: ValidationError) -> str:
    """Pydantic's errors on one line: ``where: what`` each, a validator's own message bare."""
    said = []
    for error in exc.errors():
        where = ".".join(str(part) for part in error["loc"])
        raised = (error.get("ctx") or {}).get("error")
        what = str(raised) if error["type"] == "value_error" and raised else error["msg"]
        said.append(f"{where}: {what}" if where else what)
    return "; ".join(said)


def _load(
    kind: type[_Set], folder: str, name_or_path: str, registry: TaskRegistry | None = None
) -> _Set:
    """A shipped task set of ``folder`` by name, or a task-set JSON file by path; selections
    resolve against ``registry`` (default: every shipped template)."""
    noun = folder.removesuffix("s")
    path = Path(name_or_path)
    shipped = _names(folder)
    if path.suffix == ".json" and path.exists():
        text, name = path.read_text("utf-8"), path.stem
    elif name_or_path in shipped:
        entry = resources.files(__package__).joinpath(folder).joinpath(f"{name_or_path}.json")
        text, name = entry.read_text("utf-8"), name_or_path
    else:
        raise SuiteError(
            f"no {noun} {name_or_path!r}; shipped {folder}: {', '.join(shipped)}"
            f" (or give a path to a {noun} .json file)"
        )
    try:
        data = {**json.loads(text), "name": name}
        return kind.model_validate(data, context={"registry": registry})
    except ValidationError as exc:
        raise SuiteError(f"{noun} {name_or_path!r} is not valid: {_one_line(exc)}") from exc
    except ValueError as exc:
        raise SuiteError(f"{noun} {name_or_path!r} is not valid: {exc}") from exc


def load_suite(name_or_path: str, registry: TaskRegistry | None = None) -> Suite:
    """A shipped suite by name, or a suite JSON file by path; a selection resolves against
    ``registry`` (default: every shipped template)."""
    return _load(Suite, "suites", name_or_path, registry)


def load_split(name_or_path: str, registry: TaskRegistry | None = None) -> Split:
    """A shipped training split by name, or a split JSON file by path; a selection resolves
    against ``registry`` (default: every shipped template)."""
    return _load(Split, "splits", name_or_path, registry)
