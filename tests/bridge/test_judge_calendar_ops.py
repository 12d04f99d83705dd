"""The judge's calendar operations and row reading, over a small SQLite-backed AndroidState
(a unit-test stand-in; the simulator's provider and the virtual phone are tested elsewhere):
the task's own calendar, events on the phone's own clock, truths named in a where, joins."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from datetime import datetime

import pytest

from bridge.android_contract import CALENDARS, EVENTS, REMINDERS
from bridge.judge import judge, pose
from bridge.spec.answers import AnswerRule
from bridge.spec.base import TruthRef
from bridge.spec.calendar import EnsureCalendar, EnsureEvent
from bridge.spec.clock import LocalTime, LocalTimeFact
from bridge.spec.rows import RowsCheck, RowsFact, RowsIn
from bridge.taskspec import TaskSpec, Truth

NOW = int(datetime.fromisoformat("2026-05-12T09:30:00+08:00").timestamp() * 1000)


class SqlState:
    """Provider tables as SQLite tables (columns appear as rows bring them)."""

    def __init__(self) -> None:
        self.db = sqlite3.connect(":memory:")
        self.uris: list[str] = []
        self._table(CALENDARS, ["account_name", "account_type", "name"])
        self._table(EVENTS, ["calendar_id", "title", "dtstart", "dtend", "allDay"])
        self._table(REMINDERS, ["event_id", "minutes", "method"])

    def _table(self, uri: str, columns: Sequence[str] = ()) -> str:
        name = uri.split("?")[0].rsplit("/", 1)[1]
        self.db.execute(f"CREATE TABLE IF NOT EXISTS {name} (_id INTEGER PRIMARY KEY)")
        have = {row[1] for row in self.db.execute(f"PRAGMA table_info({name})")}
        for column in columns:
            if column not in have:
                self.db.execute(f"ALTER TABLE {name} ADD COLUMN {column}")
        return name

    async def insert(self, uri: str, values: Mapping[str, object]) -> None:
        self.uris.append(uri)
        if uri.startswith(CALENDARS) and "caller_is_syncadapter=true" not in uri:
            raise PermissionError("only a sync adapter may insert a calendar")
        table = self._table(uri, list(values))
        marks = ",".join("?" * len(values))
        self.db.execute(f"INSERT INTO {table} ({','.join(values)}) VALUES ({marks})",
                        list(values.values()))  # fmt: skip

    async def query(
        self, uri: str, projection: Sequence[str], where: str | None = None, sort: str | None = None
    ) -> list[dict[str, str | None]]:
        table = self._table(uri, projection)
        sql = f"SELECT {','.join(projection)} FROM {table}"
        sql += f" WHERE {where}" if where else ""
        sql += f" ORDER BY {sort}" if sort else ""
        rows = self.db.execute(sql).fetchall()
        return [{c: None if v is None else str(v) for c, v in zip(projection, r, strict=True)}
                for r in rows]  # fmt: skip

    async def delete(self, uri: str, where: str | None) -> None:
        self.db.execute(f"DELETE FROM {self._table(uri)}" + (f" WHERE {where}" if where else ""))

    async def update(self, uri: str, values: Mapping[str, object], where: str | None) -> None:
        table = self._table(uri, list(values))
        sets = ",".join(f"{c}=?" for c in values)
        self.db.execute(f"UPDATE {table} SET {sets}" + (f" WHERE {where}" if where else ""),
                        list(values.values()))  # fmt: skip

    async def now(self) -> tuple[int, str]:
        return NOW, "Asia/Shanghai"

    async def list_settings(self, namespace: str) -> dict[str, str]:
        return {}


def _ms(text: str) -> int:
    return int(datetime.fromisoformat(text).timestamp() * 1000)


SEEDED = [
    EnsureCalendar(account="mobilegym", name="MobileGym"),
    EnsureEvent(account="mobilegym", title="Zephyr review", start=LocalTime(days=2, at="14:00"),
                end=LocalTime(days=2, at="15:00"), reminders=[30]),
    EnsureEvent(account="mobilegym", title="Zephyr kickoff", start=LocalTime(days=1, at="09:00"),
                end=LocalTime(days=1, at="10:00"), location="Room 3"),
    EnsureEvent(account="mobilegym", title="Holiday", start=LocalTime(days=3),
                end=LocalTime(days=4), all_day=True),
]  # fmt: skip


@pytest.mark.asyncio
async def test_the_tasks_calendar_and_events_are_seeded_on_the_phones_clock() -> None:
    state = SqlState()
    user = {"account_name": "me@example.com", "account_type": "com.google", "name": "Me"}
    await state.insert(CALENDARS + "?caller_is_syncadapter=true", user)
    await state.insert(EVENTS, {"calendar_id": 1, "title": "My dentist", "dtstart": 1})
    spec = TaskSpec(
        ensure=SEEDED,
        truths=[Truth(name="start", fact=RowsFact(uri=EVENTS, column="dtstart",
                                                  where="title='Zephyr review'",
                                                  as_time="local_time"))],
        answers=[AnswerRule(field="time", truth="start", match="time")],
    )  # fmt: skip
    start = await pose(spec, state)
    assert start.truths["start"] == ["14:00"]
    rows = await state.query(EVENTS, ["title", "dtstart", "allDay", "eventTimezone"], sort="_id")
    assert rows[0]["title"] == "My dentist"  # the user's own event is never touched
    assert rows[1]["dtstart"] == str(_ms("2026-05-14T14:00:00+08:00"))
    assert rows[3] == {"title": "Holiday", "dtstart": str(_ms("2026-05-15T00:00:00+00:00")),
                       "allDay": "1", "eventTimezone": "UTC"}  # fmt: skip
    reminders = await state.query(REMINDERS, ["event_id", "minutes", "method"])
    assert reminders == [{"event_id": "2", "minutes": "30", "method": "1"}]
    assert (await judge(spec, state, start, answer={"time": "2 pm"})).success
    # posing again clears the task's calendar first: the same events, not twice as many
    await pose(spec, state)
    assert len(await state.query(EVENTS, ["_id"])) == 4
    assert sum("caller_is_syncadapter=true&account_name=mobilegym" in u for u in state.uris) == 1


@pytest.mark.asyncio
async def test_a_where_names_earlier_truths_and_within_joins_two_tables() -> None:
    state = SqlState()
    spec = TaskSpec(
        ensure=SEEDED,
        truths=[
            Truth(name="minutes", fact=LocalTimeFact(when=LocalTime(), say="local_time")),
            Truth(name="day", fact=LocalTimeFact(when=LocalTime(days=1))),
            Truth(name="next_day", fact=LocalTimeFact(when=LocalTime(days=2))),
            Truth(name="first", reduce="first", fact=RowsFact(
                uri=EVENTS, column="title", sort="dtstart",
                where="dtstart >= {truth.day} AND dtstart < {truth.next_day}")),
        ],
        checks=[RowsCheck(name="reminder", uri=REMINDERS, column="minutes", expect="any",
                          value=TruthRef(truth="minutes"),
                          within=RowsIn(column="event_id", uri=EVENTS,
                                        where="title={truth.first}"))],
    )  # fmt: skip
    start = await pose(spec, state)
    assert start.truths["first"] == ["Zephyr kickoff"]
    verdict = await judge(spec, state, start)
    assert not verdict.success
    assert (
        "(and event_id in the _id of content://com.android.calendar/events --where "
        "\"title='Zephyr kickoff'\")" in verdict.checks[0].evidence
    )
    kickoff = (await state.query(EVENTS, ["_id"], "title='Zephyr kickoff'"))[0]["_id"]
    await state.insert(REMINDERS, {"event_id": int(kickoff), "minutes": "00:00", "method": 1})
    assert (await judge(spec, state, start)).success
    nope = RowsCheck(name="x", uri=EVENTS, expect="count", value=0, where="{truth.nope}")
    with pytest.raises(ValueError, match="check 'x' names truths not read before it: nope"):
        TaskSpec(checks=[nope])
    late = Truth(name="late", fact=RowsFact(uri=EVENTS, column="_id", where="{truth.later}"))
    with pytest.raises(ValueError, match="truth 'late' names truths not read before it"):
        TaskSpec(truths=[late, Truth(name="later", fact=LocalTimeFact(when=LocalTime()))])
