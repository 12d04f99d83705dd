"""Calendar: the task's own local calendar and its events, written through the calendar
provider's rows; the user's calendars are never read or touched by a task."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from bridge.android_contract import (
    CALENDAR_OWNER_ACCESS,
    CALENDARS,
    EVENTS,
    REMINDER_METHOD_ALERT,
    REMINDERS,
    as_sync_adapter,
    sql_text,
)
from bridge.android_state import AndroidState, BindValue
from bridge.errors import TaskNotPosed
from bridge.phone_time import local_ms
from bridge.spec.base import EnsureNode
from bridge.spec.clock import LocalTime

__all__ = ["EnsureCalendar", "EnsureEvent"]


class EnsureCalendar(EnsureNode):
    """The task's own local calendar (account ``account``, type ``LOCAL``), created as a sync
    adapter when missing, and emptied of events when ``clear``: seeded and created events
    of a task live there, the user's calendars are never read or touched by it."""

    op: Literal["ensure_calendar"] = "ensure_calendar"
    account: str = Field(min_length=1, pattern=r"^[A-Za-z0-9_.-]+$")
    name: str = Field(min_length=1)
    clear: bool = True

    async def pose(self, state: AndroidState) -> None:
        """Create the calendar when missing; empty it when ``clear``."""
        await _ensure_calendar(state, self)


class EnsureEvent(EnsureNode):
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

    async def pose(self, state: AndroidState) -> None:
        """Insert the event and its reminders."""
        await _ensure_event(state, self)


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
