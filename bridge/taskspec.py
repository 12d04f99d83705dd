"""The task spec language: a task instance declared once, in terms a phone can observe.

A template (sim/tasks) binds its parameters into a :class:`TaskSpec` — plain data, no
parameters left, no template code needed to judge it — that survives a JSON round trip.
:mod:`bridge.judge` poses and judges a spec over any :class:`~bridge.android_state.AndroidState`,
so the simulator and a phone run the same code.

A spec says:

* ``ensure``: operations that pose the task on *any* phone, one that holds none of the
  simulator's world data included — a contact the task needs is inserted if missing, a name
  the task will create is deleted first, a setting is put away from its target, the events a
  task needs are seeded in a calendar of the task's own (never the user's);
* files: a task's own folder ``/sdcard/Download/<folder>`` is emptied and seeded
  (:class:`EnsureFolder`); facts and checks read that folder only (:class:`FilesFact`,
  :class:`PathCheck`, :class:`FolderCheck`), never the user's files;
* ``truths``: values read from the phone right after posing (the answer a query expects
  is what *this* phone holds, never the simulator's prediction), through a closed set of pure
  reductions (value, count, first, all);
* ``checks``: the goal, over settings, provider rows, properties and the episode's saved UI
  trees, with their tolerances stated once for both worlds;
* ``answers``: the typed answer fields and how each is matched to its truth;
* ``watch`` / ``watch_folders`` / ``expected``: the observable state diffed before/after
  (every settings namespace, the provider rows and the task folders named here) and the
  changes the task may make;
* ``requires``: facts a retail phone cannot be made to hold (the template then runs in the
  simulator and on the virtual phone only), each with the reason.

The nodes live with their surface in :mod:`bridge.spec` (``settings``, ``rows``, ``files``,
…), each with how it is posed, read and checked; this module composes them into the
spec's unions and :class:`TaskSpec`.
"""

from __future__ import annotations

from typing import Annotated, Any, Final, Literal

from pydantic import ConfigDict, Field, model_validator
from pydantic_core import PydanticCustomError

from bridge.spec.alarms import NextAlarmCheck, NextAlarmFact
from bridge.spec.answers import AnswerRule
from bridge.spec.base import TRUTH_REF, SpecNode
from bridge.spec.calendar import EnsureCalendar, EnsureEvent
from bridge.spec.clock import ClockFact, LocalTimeFact, NextTimeFact, ZoneGapFact, ZoneTimeFact
from bridge.spec.contacts import EnsureContact
from bridge.spec.files import EnsureFolder, FilesFact, FolderCheck, PathCheck, WatchedFolder
from bridge.spec.props import PropFact
from bridge.spec.radios import BondedFact, WifiFact
from bridge.spec.rows import (
    DeleteRows,
    InsertRow,
    RowsCheck,
    RowsFact,
    RowsSelector,
    UpdateRows,
    WatchedRows,
)
from bridge.spec.settings import PutSetting, SettingCheck, SettingFact
from bridge.spec.sms import DeliverSms
from bridge.spec.ui import LongestOfferedCheck

__all__ = [
    "SPEC_VERSION",
    "UNKNOWN_TRUTH",
    "CheckRule",
    "EnsureOp",
    "ExpectedChanges",
    "Fact",
    "Requirement",
    "TaskSpec",
    "Truth",
]

SPEC_VERSION: Final = 1

UNKNOWN_TRUTH = "unknown_truth"
"""The pydantic error type of a spec that names a truth it does not read first: the one rule
of a spec its JSON Schema cannot state (a server answers it as a task it cannot pose, not as
a body that breaks the schema)."""


EnsureOp = Annotated[
    PutSetting
    | EnsureContact
    | UpdateRows
    | DeleteRows
    | InsertRow
    | EnsureCalendar
    | EnsureEvent
    | DeliverSms
    | EnsureFolder,
    Field(discriminator="op"),
]


Fact = Annotated[
    SettingFact
    | PropFact
    | RowsFact
    | WifiFact
    | BondedFact
    | LocalTimeFact
    | NextTimeFact
    | NextAlarmFact
    | ZoneGapFact
    | ZoneTimeFact
    | ClockFact
    | FilesFact,
    Field(discriminator="source"),
]


class Truth(SpecNode):
    """A value read right after posing; ``reduce`` turns the fact's values into one:
    ``value`` (the single value), ``count``, ``first``, ``all`` (every value is accepted),
    ``most`` (the value that occurs most often; every value tied for most is accepted).
    ``also`` facts are accepted answers too (a model code and its marketing name)."""

    name: str = Field(min_length=1)
    fact: Fact
    reduce: Literal["value", "count", "first", "all", "most"] = "value"
    also: list[Fact] = Field(default_factory=list)


CheckRule = Annotated[
    SettingCheck | RowsCheck | NextAlarmCheck | LongestOfferedCheck | PathCheck | FolderCheck,
    Field(discriminator="check"),
]

"""The goal's checks; a verdict's lines are :class:`~bridge.schema.CheckResult`."""


class ExpectedChanges(SpecNode):
    """What the task may change: setting globs (``global.wifi_on``, ``global.*_saved_state``),
    provider rows (a changed row is expected when it matches a selector before or after the
    episode) and path globs under ``/sdcard/Download`` of a watched folder (``改名/a.txt``,
    ``整理PDF/final/*``; ``*`` matches ``/`` too; ``{truth.NAME}`` names a truth's main
    value)."""

    settings: list[str] = Field(default_factory=list)
    rows: list[RowsSelector] = Field(default_factory=list)
    files: list[str] = Field(default_factory=list)


class Requirement(SpecNode):
    """A fact a retail phone cannot be made to hold, and why."""

    fact: str
    reason: str


def _known(names: list[str], read: list[str], user: str) -> None:
    unknown = [name for name in names if name not in read]
    if unknown:
        raise PydanticCustomError(
            UNKNOWN_TRUTH,
            "{user} names truths not read before it: {unknown}",
            {"user": user, "unknown": ", ".join(unknown)},
        )


_OPEN_ENDED_CHECKS_NOTHING: dict[str, Any] = {
    "anyOf": [
        {"properties": {"open_ended": {"const": False}}},
        {"properties": {"checks": {"maxItems": 0}, "answers": {"maxItems": 0}}},
    ]
}
""":class:`TaskSpec`'s rule in its JSON Schema: an open-ended spec has no checks or answers."""


class TaskSpec(SpecNode):
    """One bound task instance, judged the same way in every world (module docstring).

    Its JSON Schema states every rule but one: a ``{truth.NAME}`` (and a check's truth) must
    name a truth read before it, which fails with the error type :data:`UNKNOWN_TRUTH`.
    """

    model_config = ConfigDict(json_schema_extra=_OPEN_ENDED_CHECKS_NOTHING)

    spec_version: Literal[1] = SPEC_VERSION
    apps: list[str] = Field(default_factory=list)
    """App ids the task uses (stopped before the episode so they start fresh)."""
    ensure: list[EnsureOp] = Field(default_factory=list)
    truths: list[Truth] = Field(default_factory=list)
    checks: list[CheckRule] = Field(default_factory=list)
    answers: list[AnswerRule] = Field(default_factory=list)
    watch: list[WatchedRows] = Field(default_factory=list)
    watch_folders: list[WatchedFolder] = Field(default_factory=list)
    expected: ExpectedChanges = Field(default_factory=ExpectedChanges)
    requires: list[Requirement] = Field(default_factory=list)
    open_ended: bool = False
    """Nothing to judge on purpose: a console session a person steers without a task. Only
    such a spec may check nothing (any other is refused when posed, never a free pass)."""

    @model_validator(mode="after")
    def _open_ended_checks_nothing(self) -> TaskSpec:
        if self.open_ended and (self.checks or self.answers):
            raise ValueError("an open-ended spec checks nothing: drop its checks and answers")
        return self

    @model_validator(mode="after")
    def _wheres_name_known_truths(self) -> TaskSpec:
        """A ``{truth.NAME}`` names a truth read before it (for a truth) or at all (for a
        check), so a spec cannot fail half-way through posing or judging."""
        read: list[str] = []
        for truth in self.truths:
            for fact in (truth.fact, *truth.also):
                _known(fact.truth_names(), read, f"truth {truth.name!r}")
            read.append(truth.name)
        for check in self.checks:
            _known(check.truth_names(), read, f"check {getattr(check, 'name', check.check)!r}")
        for selector in self.expected.rows:  # read before and after, without truths
            _known(selector.truth_names(), [], f"expected rows of {selector.uri}")
        for glob in self.expected.files:
            _known(TRUTH_REF.findall(glob), read, f"expected file {glob!r}")
        return self

    @property
    def needs_trees(self) -> bool:
        """Whether judging reads the episode's saved UI trees."""
        return any(isinstance(check, LongestOfferedCheck) for check in self.checks)
