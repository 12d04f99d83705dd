"""The one judge: pose a spec, remember what the phone held, and judge the end — in any world.

``pose(spec, state)`` runs the spec's ensure operations, reads its truths and the observable
state, and refuses a task whose goal already holds; ``judge(...)`` reads the checks, matches
the answers against the truths read at the start and diffs the observable state. Both run
over an :class:`~bridge.android_state.AndroidState`, so the simulator and a phone are judged
by this code and nothing else.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timedelta

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from bridge.android_contract import (
    CALENDAR_OWNER_ACCESS,
    CALENDARS,
    CONTACTS,
    DATA,
    EVENTS,
    NAME,
    ORGANIZATION,
    PHONE,
    PHONE_TYPE_MOBILE,
    RAW_CONTACTS,
    REMINDER_METHOD_ALERT,
    REMINDERS,
    as_sync_adapter,
    sql_text,
)
from bridge.android_state import AndroidState, BindValue, StateUnavailable
from bridge.answers import answer_matches
from bridge.errors import EnvError
from bridge.observed import ObservedState, observe, side_effects
from bridge.phone_time import (
    local_clock,
    local_ms,
    next_time_ms,
    say_time,
    zone_gap_hours,
    zone_time,
)
from bridge.schema import AnswerValue, Check, Verdict, VerdictKind
from bridge.spec_checks import (
    check_longest_offered,
    check_next_alarm,
    check_rows,
    check_setting,
)
from bridge.spec_files import check_folder, check_path, ensure_folder, read_files
from bridge.spec_rows import read_rows, said
from bridge.taskspec import (
    BondedFact,
    ClockFact,
    DeleteRows,
    DeliverSms,
    EnsureCalendar,
    EnsureContact,
    EnsureEvent,
    EnsureFolder,
    EnsureOp,
    Fact,
    FilesFact,
    FolderCheck,
    InsertRow,
    LocalTimeFact,
    LongestOfferedCheck,
    NextAlarmCheck,
    NextAlarmFact,
    NextTimeFact,
    PathCheck,
    PropFact,
    PutSetting,
    RowsCheck,
    RowsFact,
    SettingCheck,
    SettingFact,
    TaskSpec,
    Truth,
    UpdateRows,
    WifiFact,
    ZoneGapFact,
    ZoneTimeFact,
)

__all__ = [
    "StartRecord",
    "TaskNotPosed",
    "answer_checks",
    "apply_op",
    "judge",
    "pose",
    "read_checks",
    "read_fact",
    "read_truth",
]


class TaskNotPosed(EnvError):
    """The world did not take the task's start state (a write was refused, a truth could
    not be read) or the goal already holds after posing."""


class StartRecord(BaseModel):
    """What posing read: the truths (accepted values, the main one first) and the
    observable state at the start (None when this world cannot observe it: ``reason``)."""

    model_config = ConfigDict(extra="forbid")

    truths: dict[str, list[JsonValue]] = Field(default_factory=dict)
    observed: ObservedState | None = None
    unobservable: str | None = None


# ------------------------------------------------------------------ posing


async def _ensure_contact(state: AndroidState, op: EnsureContact) -> None:
    where = f"display_name={sql_text(op.name)}"
    if not await state.query(CONTACTS, ["_id"], where):
        await state.insert(RAW_CONTACTS, {"account_type": None, "account_name": None})
        raws = await state.query(RAW_CONTACTS, ["_id"])
        raw_id = max(int(str(row["_id"])) for row in raws)
        details: list[dict[str, BindValue]] = [{"mimetype": NAME, "data1": op.name}]
        details += [
            {"mimetype": PHONE, "data1": number, "data2": PHONE_TYPE_MOBILE} for number in op.phones
        ]
        if op.company is not None or op.title is not None:
            details.append({"mimetype": ORGANIZATION, "data1": op.company, "data4": op.title})
        for detail in details:
            await state.insert(DATA, {"raw_contact_id": raw_id, **detail})
        if not await state.query(CONTACTS, ["_id"], where):
            raise TaskNotPosed(
                f"the phone did not keep the contact {op.name!r} inserted for the task"
            )
    if op.starred is not None:
        await state.update(CONTACTS, {"starred": int(op.starred)}, where)


async def _calendar_id(state: AndroidState, account: str) -> int | None:
    where = f"account_name={sql_text(account)} AND account_type='LOCAL'"
    rows = await state.query(CALENDARS, ["_id"], where, "_id")
    return int(str(rows[0]["_id"])) if rows else None


async def _ensure_calendar(state: AndroidState, op: EnsureCalendar) -> None:
    calendar = await _calendar_id(state, op.account)
    if calendar is None:
        _, zone_name = await state.now()
        values: dict[str, BindValue] = {
            "account_name": op.account, "account_type": "LOCAL", "name": op.name,
            "calendar_displayName": op.name, "calendar_access_level": CALENDAR_OWNER_ACCESS,
            "ownerAccount": op.account, "visible": 1, "sync_events": 1,
            "calendar_color": -16540699, "calendar_timezone": zone_name,  # ARGB #FF039BE5
        }  # fmt: skip
        await state.insert(as_sync_adapter(CALENDARS, op.account), values)
        calendar = await _calendar_id(state, op.account)
        if calendar is None:
            raise TaskNotPosed(f"the phone did not keep the calendar {op.name!r} of the task")
    if op.clear:
        await state.delete(EVENTS, f"calendar_id={calendar}")


async def _ensure_event(state: AndroidState, op: EnsureEvent) -> None:
    calendar = await _calendar_id(state, op.account)
    if calendar is None:
        raise TaskNotPosed(f"no calendar of account {op.account!r}: ensure it before its events")
    now_ms, zone_name = await state.now()
    start = local_ms(now_ms, zone_name, op.start, op.all_day)
    end = local_ms(now_ms, zone_name, op.end, op.all_day)
    values: dict[str, BindValue] = {
        "calendar_id": calendar, "title": op.title, "dtstart": start, "dtend": end,
        "allDay": int(op.all_day), "eventTimezone": "UTC" if op.all_day else zone_name,
    }  # fmt: skip
    for column, text in (("eventLocation", op.location), ("description", op.description)):
        if text is not None:
            values[column] = text
    await state.insert(EVENTS, values)
    where = f"calendar_id={calendar} AND title={sql_text(op.title)} AND dtstart={start}"
    rows = await state.query(EVENTS, ["_id"], where, "_id DESC")
    if not rows:
        raise TaskNotPosed(f"the phone did not keep the event {op.title!r} of the task")
    for minutes in op.reminders:
        reminder = {"event_id": int(str(rows[0]["_id"])), "minutes": minutes,
                    "method": REMINDER_METHOD_ALERT}  # fmt: skip
        await state.insert(REMINDERS, reminder)


async def _deliver_sms(state: AndroidState, op: DeliverSms) -> None:
    now_ms, _ = await state.now()
    if op.clear:
        addresses = ",".join(sql_text(a) for a in sorted({m.address for m in op.messages}))
        await state.delete_sms(f"address IN ({addresses})")
    for message in sorted(op.messages, key=lambda m: -m.minutes_ago):  # oldest first
        date_ms = now_ms - message.minutes_ago * 60_000
        await state.deliver_sms(message.address, message.body, date_ms, message.read)


async def apply_op(state: AndroidState, op: EnsureOp) -> None:
    """Carry out one ensure operation."""
    if isinstance(op, PutSetting):
        await state.put_setting(op.namespace, op.key, op.value)
    elif isinstance(op, EnsureContact):
        await _ensure_contact(state, op)
    elif isinstance(op, UpdateRows):
        await state.update(op.uri, op.values, op.where)
    elif isinstance(op, DeleteRows):
        await state.delete(op.uri, op.where)
    elif isinstance(op, InsertRow):
        await state.insert(op.uri, op.values)
    elif isinstance(op, EnsureCalendar):
        await _ensure_calendar(state, op)
    elif isinstance(op, EnsureEvent):
        await _ensure_event(state, op)
    elif isinstance(op, DeliverSms):
        await _deliver_sms(state, op)
    elif isinstance(op, EnsureFolder):
        await ensure_folder(state, op)
    else:  # pragma: no cover - the union is closed
        raise TypeError(f"unknown ensure operation {op!r}")


async def read_fact(
    state: AndroidState, fact: Fact, truths: Mapping[str, list[JsonValue]] | None = None
) -> list[JsonValue]:
    """The values a fact reads now (absent values dropped); ``truths`` are those read before
    it, which a rows fact's ``where`` may name."""
    if isinstance(fact, SettingFact):
        value = await state.get_setting(fact.namespace, fact.key)
        return [] if value is None else [value]
    if isinstance(fact, PropFact):
        prop = await state.getprop(fact.key)
        return [prop] if prop else []
    if isinstance(fact, RowsFact):
        columns = [fact.column] + ([fact.number_column] if fact.number_column else [])
        rows = await read_rows(
            state, fact.uri, columns, fact.where, fact.within, truths or {}, fact.sort
        )
        if fact.number_column is not None:
            rows = [r for r in rows if answer_matches("phone", r[fact.number_column], fact.number)]
        values = await said(state, [row[fact.column] for row in rows], fact.as_time)
        found = [value for value in values if value is not None]
        return list[JsonValue](found) if fact.extract is None else _extracted(found, fact.extract)
    if isinstance(fact, ClockFact):
        return [(await state.now())[0]]
    if isinstance(fact, LocalTimeFact):
        now_ms, zone_name = await state.now()
        moment = local_ms(now_ms, zone_name, fact.when, fact.all_day)
        if fact.say is None:
            return [moment]
        return [say_time(moment, "UTC" if fact.all_day else zone_name, fact.say)]
    if isinstance(fact, NextTimeFact):
        now_ms, zone_name = await state.now()
        at = fact.at
        if fact.of_truth is not None:
            at = local_clock(int(str((truths or {})[fact.of_truth][0])), zone_name)
        assert at is not None  # the model validates one of the two
        shifted = datetime.strptime(at, "%H:%M") + timedelta(minutes=fact.offset_minutes)
        return [next_time_ms(now_ms, zone_name, shifted.strftime("%H:%M"), fact.days)]
    if isinstance(fact, NextAlarmFact):
        ring = await state.next_alarm()
        if ring is None:
            return []
        _, zone_name = await state.now()
        return [ring if fact.say is None else say_time(ring, zone_name, fact.say)]
    if isinstance(fact, ZoneGapFact):
        now_ms, _ = await state.now()
        gap = zone_gap_hours(now_ms, fact.ahead, fact.behind)
        return [int(gap) if gap.is_integer() else gap]
    if isinstance(fact, ZoneTimeFact):
        now_ms, zone_name = await state.now()
        return [zone_time(now_ms, zone_name, fact.at, fact.source_zone, fact.to)]
    if isinstance(fact, WifiFact):
        ssid = await state.wifi_ssid()
        return [] if ssid is None else [ssid]
    if isinstance(fact, FilesFact):
        return await read_files(state, fact)
    if isinstance(fact, BondedFact):
        return list(await state.bonded_devices())
    raise TypeError(f"unknown fact {fact!r}")  # pragma: no cover


def _extracted(values: list[str], pattern: str) -> list[JsonValue]:
    """Each value's first match of ``pattern`` (its first group when it has one)."""
    found: list[JsonValue] = []
    for value in values:
        match = re.search(pattern, value)
        if match is not None:
            found.append(match.group(1) if match.groups() else match.group(0))
    return found


def _most(values: list[JsonValue]) -> list[JsonValue]:
    """The values that occur most often, in order of first occurrence."""
    counts = Counter(str(value) for value in values)
    top = max(counts.values())
    return [value for value in dict.fromkeys(values) if counts[str(value)] == top]


async def read_truth(
    state: AndroidState, truth: Truth, before: Mapping[str, list[JsonValue]] | None = None
) -> list[JsonValue]:
    """A truth's accepted values, the main one first (``before``: the truths read earlier)."""
    values = await read_fact(state, truth.fact, before)
    if truth.reduce == "count":
        main: list[JsonValue] = [len(values)]
    elif truth.reduce == "value" and len(values) != 1:
        raise TaskNotPosed(f"truth {truth.name!r} should be one value, the phone holds {values}")
    elif not values:
        raise TaskNotPosed(f"truth {truth.name!r}: the phone holds no value for it")
    elif truth.reduce == "most":
        main = _most(values)
    else:
        main = values[:1] if truth.reduce in ("first", "value") else list(dict.fromkeys(values))
    extra = [v for fact in truth.also for v in await read_fact(state, fact, before)]
    return main + [v for v in dict.fromkeys(extra) if v not in main]


async def pose(spec: TaskSpec, state: AndroidState) -> StartRecord:
    """Pose ``spec`` on ``state`` and record the start.

    Raises:
        TaskNotPosed: a truth cannot be read, or the goal holds already (never a free pass).
    """
    for op in spec.ensure:
        await apply_op(state, op)
    truths: dict[str, list[JsonValue]] = {}
    for truth in spec.truths:  # in order: a rows truth's where may name the earlier ones
        truths[truth.name] = await read_truth(state, truth, truths)
    for check in spec.checks:
        if isinstance(check, NextAlarmCheck):
            await _alarm_judgeable(state, check, truths)
    try:
        record = StartRecord(truths=truths, observed=await observe(spec, state))
    except StateUnavailable as exc:
        record = StartRecord(truths=truths, unobservable=str(exc))
    if not spec.answers and not spec.needs_trees and not spec.open_ended:
        start = [c for c in await read_checks(spec, state, record, trees=()) if not c.guard]
        if not start or all(check.passed for check in start):
            raise TaskNotPosed("the goal already holds after posing (or nothing is checked)")
    return record


async def _alarm_judgeable(
    state: AndroidState, check: NextAlarmCheck, truths: Mapping[str, list[JsonValue]]
) -> None:
    """A phone shows only its soonest alarm: the task's must be the one it would show, and
    must not ring during the episode.

    Raises:
        TaskNotPosed: this phone cannot judge the check (the message says why and what to do).
    """
    target = int(str(truths[check.value.truth][0]))
    now_ms, zone_name = await state.now()
    when = f"{say_time(target, zone_name, 'local_date')} {local_clock(target, zone_name)}"
    if target - now_ms < check.margin_minutes * 60_000:
        raise TaskNotPosed(
            f"{check.name}: the alarm would ring at {when}, within {check.margin_minutes} "
            "minutes, during the episode; pose the task at another time of day"
        )
    ring = await state.next_alarm()
    if ring is not None and ring < target:
        own = f"{say_time(ring, zone_name, 'local_date')} {local_clock(ring, zone_name)}"
        raise TaskNotPosed(
            f"{check.name}: this phone's own alarm rings at {own}, before the task's ({when}), "
            "and a phone shows only its soonest alarm; turn off the alarms before it to judge "
            "this task here"
        )


# ------------------------------------------------------------------ judging


async def read_checks(
    spec: TaskSpec,
    state: AndroidState,
    start: StartRecord,
    trees: Sequence[str],
    answer: Mapping[str, AnswerValue] | None = None,
) -> list[Check]:
    """The spec's checks now (answers matched only by :func:`judge`)."""
    checks: list[Check] = []
    for rule in spec.checks:
        if isinstance(rule, SettingCheck):
            checks.append(await check_setting(state, rule, start.truths))
        elif isinstance(rule, RowsCheck):
            checks.append(await check_rows(state, rule, start.truths))
        elif isinstance(rule, NextAlarmCheck):
            checks.append(await check_next_alarm(state, rule, start.truths))
        elif isinstance(rule, LongestOfferedCheck):
            checks += await check_longest_offered(state, rule, trees, answer)
        elif isinstance(rule, PathCheck):
            checks.append(await check_path(state, rule, start.truths))
        elif isinstance(rule, FolderCheck):
            checks.append(await check_folder(state, rule))
    return checks


def answer_checks(
    spec: TaskSpec, start: StartRecord, answer: Mapping[str, AnswerValue] | None
) -> list[Check]:
    """One check per answer field: the answer against the truth read at the start."""
    checks = []
    for rule in spec.answers:
        truths = start.truths[rule.truth]
        given = (answer or {}).get(rule.field)
        passed = any(answer_matches(rule.match, given, t, rule.tolerance) for t in truths)
        checks.append(
            Check(
                name=f"answer.{rule.field}",
                expected=truths[0] if len(truths) == 1 else truths,
                actual=given,
                passed=passed,
                evidence=f"matched as {rule.match} against the truth read at the start",
            )
        )
    return checks


def _kind(spec: TaskSpec) -> VerdictKind:
    if spec.needs_trees:
        return "ui"
    return "state" if spec.checks else "answer"


async def judge(
    spec: TaskSpec,
    state: AndroidState,
    start: StartRecord,
    *,
    answer: Mapping[str, AnswerValue] | None = None,
    trees: Sequence[str] = (),
    volatile: Iterable[str] = (),
) -> Verdict:
    """The verdict of the episode now: checks, answers and observable side effects."""
    checks = await read_checks(spec, state, start, trees, answer)
    checks += answer_checks(spec, start, answer)
    clean: bool | None
    effects: list[str] = []
    reason = start.unobservable
    if start.observed is None:
        clean = None
    else:
        try:
            after = await observe(spec, state)
        except StateUnavailable as exc:
            clean, reason = None, str(exc)
        else:
            effects = side_effects(spec, start.observed, after, volatile, start.truths)
            clean = not effects
    return Verdict.from_checks(
        checks, clean=clean, clean_reason=reason, side_effects=effects, kind=_kind(spec)
    )
