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
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Final, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, JsonValue, model_validator
from pydantic.json_schema import WithJsonSchema
from pydantic_core import PydanticCustomError

from bridge.actions import require_tags
from bridge.android_state import BindValue, Namespace

__all__ = [
    "SPEC_VERSION",
    "UNKNOWN_TRUTH",
    "AnswerRule",
    "BondedFact",
    "Check",
    "ClockFact",
    "DeleteRows",
    "DeliverSms",
    "EnsureCalendar",
    "EnsureContact",
    "EnsureEvent",
    "EnsureFolder",
    "EnsureOp",
    "ExpectedChanges",
    "Fact",
    "FilesFact",
    "FolderCheck",
    "InboundSms",
    "InsertRow",
    "LocalTime",
    "LocalTimeFact",
    "LongestOfferedCheck",
    "NextAlarmCheck",
    "NextAlarmFact",
    "NextTimeFact",
    "PathCheck",
    "PropFact",
    "PutSetting",
    "Requirement",
    "RowsCheck",
    "RowsFact",
    "RowsIn",
    "RowsSelector",
    "SeedFile",
    "SettingCheck",
    "SettingFact",
    "TaskSpec",
    "TimeAs",
    "Truth",
    "TruthRef",
    "Truths",
    "UpdateRows",
    "WatchedFolder",
    "WatchedRows",
    "WifiFact",
    "ZoneGapFact",
    "ZoneTimeFact",
]

Truths = Mapping[str, Sequence[JsonValue]]
"""What a spec's truths read on the phone when it was posed: truth name → accepted values.
Checks, row filters and file paths bind them (``bridge.spec_checks``, ``spec_rows``,
``spec_files``)."""

SPEC_VERSION: Final = 1

UNKNOWN_TRUTH = "unknown_truth"
"""The pydantic error type of a spec that names a truth it does not read first: the one rule
of a spec its JSON Schema cannot state (a server answers it as a task it cannot pose, not as
a body that breaks the schema)."""


class _Spec(BaseModel):
    model_config = ConfigDict(
        extra="forbid", frozen=True, json_schema_extra=require_tags("op", "source", "check")
    )


Scalar = str | int | float | bool | None


class TruthRef(_Spec):
    """A value that is a truth read at the start (by name), e.g. the number to copy."""

    truth: str = Field(min_length=1)


# ------------------------------------------------------------------ posing


class PutSetting(_Spec):
    """Put a setting, applied as the user would (a phone's service follows)."""

    op: Literal["put_setting"] = "put_setting"
    namespace: Namespace
    key: str = Field(min_length=1)
    value: str


class EnsureContact(_Spec):
    """A contact named ``name`` exists: when the phone has none, one is inserted with these
    details (a phone's own contact of that name is kept as it is); ``starred`` is then set on
    every contact of that name when given."""

    op: Literal["ensure_contact"] = "ensure_contact"
    name: str = Field(min_length=1)
    phones: list[str] = Field(default_factory=list)
    company: str | None = None
    title: str | None = None
    starred: bool | None = None


class UpdateRows(_Spec):
    """``content update`` of the rows of ``uri`` matching ``where``."""

    op: Literal["update_rows"] = "update_rows"
    uri: str
    where: str
    values: dict[str, BindValue]


class DeleteRows(_Spec):
    """``content delete`` of the rows of ``uri`` matching ``where``."""

    op: Literal["delete_rows"] = "delete_rows"
    uri: str
    where: str


class InsertRow(_Spec):
    """``content insert`` of one row into ``uri`` (a task's own alarm: pair it with a
    :class:`DeleteRows` of the same time first, so posing twice leaves one)."""

    op: Literal["insert_row"] = "insert_row"
    uri: str
    values: dict[str, BindValue]


class LocalTime(_Spec):
    """A wall-clock time on the phone, relative to its own today: ``days`` after today (in
    the phone's time zone, read when the spec is posed or judged) at ``at`` (``HH:MM``,
    midnight when None). Never a date taken from the simulator's clock: a phone's today
    and zone are its own."""

    days: int = 0
    at: str | None = Field(default=None, pattern=r"^([01]\d|2[0-3]):[0-5]\d$")


class EnsureCalendar(_Spec):
    """The task's own local calendar (account ``account``, type ``LOCAL``), created as a sync
    adapter when missing, and emptied of events when ``clear``: seeded and created events
    of a task live there, the user's calendars are never read or touched by it."""

    op: Literal["ensure_calendar"] = "ensure_calendar"
    account: str = Field(min_length=1, pattern=r"^[A-Za-z0-9_.-]+$")
    name: str = Field(min_length=1)
    clear: bool = True


class EnsureEvent(_Spec):
    """An event in the task's calendar (an earlier :class:`EnsureCalendar` of ``account``):
    ``start``/``end`` on the phone's own clock; an all-day event spans whole days (stored at
    UTC midnight, as Android stores them); ``reminders`` in minutes before the start."""

    op: Literal["ensure_event"] = "ensure_event"
    account: str = Field(min_length=1, pattern=r"^[A-Za-z0-9_.-]+$")
    title: str = Field(min_length=1)
    start: LocalTime
    end: LocalTime
    all_day: bool = False
    location: str | None = None
    description: str | None = None
    reminders: list[int] = Field(default_factory=list)


class InboundSms(_Spec):
    """An SMS a task has delivered: from ``address``, ``minutes_ago`` minutes before the
    phone's clock when posed, already ``read`` or not."""

    address: str = Field(min_length=1)
    body: str = Field(min_length=1)
    minutes_ago: int = Field(default=1, ge=0)
    read: bool = False


class DeliverSms(_Spec):
    """The task's inbound SMS, delivered as a carrier delivers them
    (``AndroidState.deliver_sms``), oldest first; when ``clear``, every earlier SMS from or
    to their addresses is deleted first (``AndroidState.delete_sms``), so the task's
    conversations hold its own messages only. Only a phone that lets the judge write SMS
    (the simulator; the virtual phone through ``su``) takes it: a template with this op
    declares a :class:`Requirement`."""

    op: Literal["deliver_sms"] = "deliver_sms"
    messages: list[InboundSms] = Field(min_length=1)
    clear: bool = True


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


class SeedFile(_Spec):
    """A text file a task seeds in its folder: ``path`` inside it (``sub/a.txt`` makes the
    subfolder), modified at ``mtime`` on the phone's own clock."""

    path: InFolder
    text: str = ""
    mtime: LocalTime = Field(default_factory=LocalTime)


class EnsureFolder(_Spec):
    """The task's own folder ``/sdcard/Download/<folder>``, removed with everything in it and
    made again with ``dirs`` (empty subfolders) and ``files``: all a task's files live there,
    the only place a judge writes."""

    op: Literal["ensure_folder"] = "ensure_folder"
    folder: FolderName
    dirs: list[InFolder] = Field(default_factory=list)
    files: list[SeedFile] = Field(default_factory=list)


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


# ------------------------------------------------------------------ facts and truths


class SettingFact(_Spec):
    """A setting's printed value (None: ``null``)."""

    source: Literal["setting"] = "setting"
    namespace: Namespace
    key: str


class PropFact(_Spec):
    """A system property (``getprop``); "" counts as absent."""

    source: Literal["prop"] = "prop"
    key: str


class RowsIn(_Spec):
    """Only the rows whose ``column`` is one of the ``of`` values of the rows of ``uri``
    matching ``where``: a join done by the judge with two queries, as a phone's provider
    has no joins across its tables (the reminders of the events titled X)."""

    column: str = Field(min_length=1)
    uri: str
    where: str | None = None
    of: str = "_id"


TimeAs = Literal["local_date", "local_time", "utc_date"]
"""An epoch-ms value as people say it: the phone's local date (``2026-05-14``) or time
(``14:00``), or the UTC date (the day of an all-day event, stored at UTC midnight)."""


class LocalTimeFact(_Spec):
    """A time on the phone's own clock as epoch milliseconds (what ``dtstart`` holds): ``when``
    in the phone's zone, or the UTC midnight of its day for ``all_day`` (Android's all-day
    convention)."""

    source: Literal["local_time"] = "local_time"
    when: LocalTime
    all_day: bool = False
    say: TimeAs | None = None
    """Read as people say it (see :data:`TimeAs`) instead of epoch ms."""


class RowsFact(_Spec):
    """One column of the provider rows matching ``where`` (optionally only the rows whose
    ``number_column`` is the phone number ``number``, as Android compares numbers).

    ``where`` may name truths read before this one: ``{truth.NAME}`` is that truth's main
    value as an SQL literal (the bounds of a day on this phone). ``within`` keeps only rows
    related to another table's rows. ``as_time`` reads an epoch-ms column as people say it
    (:data:`TimeAs`)."""

    source: Literal["rows"] = "rows"
    uri: str
    where: str | None = None
    column: str
    sort: str | None = None
    number_column: str | None = None
    number: str | None = None
    within: RowsIn | None = None
    as_time: TimeAs | None = None
    extract: str | None = None
    """A regular expression: each value becomes its first match (its first group when it
    has one), a value without a match is dropped (the code in an SMS body)."""


class ClockFact(_Spec):
    """The phone's clock now, epoch ms (when a task was posed: what a message sent during
    the episode must be newer than)."""

    source: Literal["clock"] = "clock"


def _next_time_schema(schema: dict[str, Any]) -> None:
    """:class:`NextTimeFact`'s schema: its tag required, and exactly one of ``at`` or
    ``of_truth`` (the other absent or null)."""
    require_tags("source")(schema)
    schema["oneOf"] = [
        {
            "required": ["at"],
            "properties": {"at": {"type": "string"}, "of_truth": {"type": "null"}},
        },
        {
            "required": ["of_truth"],
            "properties": {"of_truth": {"type": "string"}, "at": {"type": "null"}},
        },
    ]


class NextTimeFact(_Spec):
    """The next moment, strictly after now on the phone's clock, its wall clock reads a time
    of day, as epoch ms (when an alarm set for that time rings): ``at`` (``HH:MM``), or the
    local time of day of truth ``of_truth`` (epoch ms, an event's start); moved by
    ``offset_minutes`` (-30: half an hour before); on one of ``days`` (0 Monday … 6 Sunday;
    any day when empty)."""

    model_config = ConfigDict(json_schema_extra=_next_time_schema)

    source: Literal["next_time"] = "next_time"
    at: str | None = Field(default=None, pattern=r"^([01]\d|2[0-3]):[0-5]\d$")
    of_truth: str | None = None
    offset_minutes: int = 0
    days: list[Annotated[int, Field(ge=0, le=6)]] = Field(default_factory=list)
    """0 (Monday) to 6 (Sunday)."""

    @model_validator(mode="after")
    def _one_time(self) -> NextTimeFact:
        if (self.at is None) == (self.of_truth is None):
            raise ValueError("a next-time fact names either a time of day or a truth")
        return self


class NextAlarmFact(_Spec):
    """When the phone's next alarm clock rings (``dumpsys alarm``), as epoch ms or as people
    say it (``say``); absent when no alarm is set."""

    source: Literal["next_alarm"] = "next_alarm"
    say: TimeAs | None = None


class ZoneGapFact(_Spec):
    """How many hours the clocks of zone ``ahead`` are ahead of zone ``behind`` now on the
    phone's clock (IANA names; DST as each zone has it today: a phone's truth, never the
    simulator's), e.g. 1 for Europe/Paris over Europe/London."""

    source: Literal["zone_gap"] = "zone_gap"
    ahead: str = Field(min_length=1)
    behind: str = Field(min_length=1)


class ZoneTimeFact(_Spec):
    """What a clock in zone ``to`` reads (``HH:MM``) when one in zone ``source_zone`` reads
    ``at`` on the phone's today (the offsets of that day, DST included)."""

    source: Literal["zone_time"] = "zone_time"
    at: str = Field(pattern=r"^([01]\d|2[0-3]):[0-5]\d$")
    source_zone: str = Field(min_length=1)
    to: str = Field(min_length=1)


class WifiFact(_Spec):
    """The Wi-Fi network the phone is connected to."""

    source: Literal["wifi_ssid"] = "wifi_ssid"


class BondedFact(_Spec):
    """The names of the paired Bluetooth devices."""

    source: Literal["bonded_devices"] = "bonded_devices"


class FilesFact(_Spec):
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


class Truth(_Spec):
    """A value read right after posing; ``reduce`` turns the fact's values into one:
    ``value`` (the single value), ``count``, ``first``, ``all`` (every value is accepted),
    ``most`` (the value that occurs most often; every value tied for most is accepted).
    ``also`` facts are accepted answers too (a model code and its marketing name)."""

    name: str = Field(min_length=1)
    fact: Fact
    reduce: Literal["value", "count", "first", "all", "most"] = "value"
    also: list[Fact] = Field(default_factory=list)


# ------------------------------------------------------------------ checks


Compare = Literal["eq", "ne", "zero", "nonzero", "ge", "le", "primary"]
"""``primary``: the first item of a comma-separated list equals the value (a locale list:
``zh-CN,en-US`` has the primary locale ``zh-CN``)."""


class SettingCheck(_Spec):
    """A setting compared with a value: numbers numerically (within ``tolerance``), other
    text exactly; ``zero``/``nonzero`` need no value."""

    check: Literal["setting"] = "setting"
    namespace: Namespace
    key: str
    op: Compare = "eq"
    value: Scalar | TruthRef = None
    tolerance: float = Field(default=0.0, ge=0)


class RowsCheck(_Spec):
    """A condition on the provider rows matching ``where`` (``column`` of each):

    * ``count``: exactly ``value`` rows;
    * ``any``: some row's column is ``value``;
    * ``all``: at least one row, and every row's column is ``value``;
    * ``only``: exactly one row, and its column is ``value``.

    ``match`` says how a column is compared: ``exact`` text, ``casefold`` text, ``number``
    (phone numbers as Android compares them). A ``guard`` is what the task must not break:
    needed for success, no step of progress. ``where`` may name truths (``{truth.NAME}``),
    ``within`` relates the rows to another table's, ``as_time`` compares an epoch-ms column
    as people say it — as in :class:`RowsFact`.
    """

    check: Literal["rows"] = "rows"
    name: str = Field(min_length=1)
    uri: str
    where: str | None = None
    column: str = "_id"
    expect: Literal["count", "any", "all", "only"]
    value: Scalar | TruthRef = None
    match: Literal["exact", "casefold", "number"] = "exact"
    guard: bool = False
    within: RowsIn | None = None
    as_time: TimeAs | None = None


class NextAlarmCheck(_Spec):
    """The phone's next alarm clock rings at truth ``value`` (epoch ms, a
    :class:`NextTimeFact`). A phone shows only its soonest alarm, so
    a task is posed only when nothing of the phone's own rings before ``value``, and when
    ``value`` is at least ``margin_minutes`` away (it must not ring during the episode);
    otherwise this phone cannot judge it and says so."""

    check: Literal["next_alarm"] = "next_alarm"
    name: str = Field(min_length=1)
    value: TruthRef
    margin_minutes: int = Field(default=30, ge=0)


class LongestOfferedCheck(_Spec):
    """XPath over the episode's saved UI trees: the longest duration any screen's chooser
    offered; the setting must hold it and the answer ``answer_field`` must give it in
    ``answer_unit_ms`` (a ROM decides what "longest" means, so its own screens do)."""

    check: Literal["longest_offered"] = "longest_offered"
    namespace: Namespace
    key: str
    answer_field: str
    answer_unit_ms: int = Field(default=60_000, gt=0)


class PathCheck(_Spec):
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


class FolderCheck(_Spec):
    """The entries of ``kind`` in a folder under ``/sdcard/Download`` are exactly ``names``
    (no more, no fewer)."""

    check: Literal["folder"] = "folder"
    name: str = Field(min_length=1)
    folder: InFolder
    kind: Literal["file", "dir", "any"] = "file"
    names: list[str]
    guard: bool = False


Check = Annotated[
    SettingCheck | RowsCheck | NextAlarmCheck | LongestOfferedCheck | PathCheck | FolderCheck,
    Field(discriminator="check"),
]


class AnswerRule(_Spec):
    """A typed answer field: its truth (by name) and how answers are matched."""

    field: str = Field(min_length=1)
    truth: str
    match: Literal["text", "choice", "number", "phone", "version", "date", "time"]
    tolerance: float = Field(default=0.0, ge=0)


# ------------------------------------------------------------------ side effects


class RowsSelector(_Spec):
    """Rows of ``uri`` matching ``where`` (all rows when None), related to another table's
    rows by ``within`` (the reminders of the event titled X); names no truths."""

    uri: str
    where: str | None = None
    within: RowsIn | None = None


class WatchedRows(_Spec):
    """Provider rows snapshotted before and after, keyed by ``_id``."""

    uri: str
    projection: list[str] = Field(min_length=1)


class WatchedFolder(_Spec):
    """A folder under ``/sdcard/Download`` (a task's own) snapshotted before and after with
    everything below it, keyed by path: a file's kind, size, modification time and inode, a
    folder's kind and inode (a folder's own time follows its entries)."""

    folder: InFolder


class ExpectedChanges(_Spec):
    """What the task may change: setting globs (``global.wifi_on``, ``global.*_saved_state``),
    provider rows (a changed row is expected when it matches a selector before or after the
    episode) and path globs under ``/sdcard/Download`` of a watched folder (``改名/a.txt``,
    ``整理PDF/final/*``; ``*`` matches ``/`` too; ``{truth.NAME}`` names a truth's main
    value)."""

    settings: list[str] = Field(default_factory=list)
    rows: list[RowsSelector] = Field(default_factory=list)
    files: list[str] = Field(default_factory=list)


class Requirement(_Spec):
    """A fact a retail phone cannot be made to hold, and why."""

    fact: str
    reason: str


_TRUTH_NAME = re.compile(r"\{truth\.([A-Za-z_]\w*)\}")


def _named_truths(rows: object) -> list[str]:
    """The truths a rows fact or check names in its ``where`` and ``within.where``."""
    wheres = [getattr(rows, "where", None)]
    within = getattr(rows, "within", None)
    if within is not None:
        wheres.append(within.where)
    names = [name for where in wheres if where for name in _TRUTH_NAME.findall(where)]
    of_truth = getattr(rows, "of_truth", None)
    return names + ([of_truth] if of_truth else [])


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


class TaskSpec(_Spec):
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
    checks: list[Check] = Field(default_factory=list)
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
                _known(_named_truths(fact), read, f"truth {truth.name!r}")
            read.append(truth.name)
        for check in self.checks:
            if isinstance(check, RowsCheck):
                _known(_named_truths(check), read, f"check {check.name!r}")
            elif isinstance(check, NextAlarmCheck):
                _known([check.value.truth], read, f"check {check.name!r}")
            elif isinstance(check, PathCheck):
                names = _TRUTH_NAME.findall(check.path)
                names += [check.inode.truth] if check.inode is not None else []
                _known(names, read, f"check {check.name!r}")
        for selector in self.expected.rows:  # read before and after, without truths
            _known(_named_truths(selector), [], f"expected rows of {selector.uri}")
        for glob in self.expected.files:
            _known(_TRUTH_NAME.findall(glob), read, f"expected file {glob!r}")
        return self

    @property
    def needs_trees(self) -> bool:
        """Whether judging reads the episode's saved UI trees."""
        return any(isinstance(check, LongestOfferedCheck) for check in self.checks)
