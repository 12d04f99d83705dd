"""``CalendarContract`` over MobileGym's Calendar (``apps.calendar.events``).

MobileGym keeps events as ``{id, type, title, description, location, allDay, startTs, endTs
(epoch ms; an all-day event from local midnight to the next), reminderMinutesBefore (one, or
null), alarmEnabled, calendarAccount (a label its UI shows)}`` in **one calendar**, with at
most **one reminder** per event. Android's tables, synthesized:

* ``content://com.android.calendar/calendars``: one row, MobileGym's calendar, ``_id`` 1,
  presented as the local calendar of account :data:`CALENDAR_ACCOUNT` (``mobilegym``, type
  ``LOCAL``, named ``MobileGym``): ``_id, account_name, account_type, name,
  calendar_displayName, calendar_access_level, visible, sync_events, ownerAccount,
  calendar_timezone``. It is every task's own calendar: a MobileGym phone starts fresh and
  holds no user's events, so what a task seeds and clears there is its own. No other calendar
  can exist: a sync adapter's insert of one (another account), an update or a delete of the
  calendar are refused; ``calendar_color`` is not held (MobileGym colours events).
* ``…/events``: ``_id, calendar_id, title, description, eventLocation, dtstart, dtend,
  duration, allDay, eventTimezone, hasAlarm, deleted, rrule, account_name, account_type,
  calendar_displayName``; all-day events at UTC midnight (``eventTimezone`` ``UTC``), as
  Android stores them; other events in the page's zone (MobileGym's events have none);
  ``duration`` and ``rrule`` NULL (MobileGym's events do not repeat), ``deleted`` 0.
* ``…/reminders``: ``_id`` (the event's: one reminder per event), ``event_id, minutes,
  method`` (4 ``METHOD_ALARM`` when the event's alarm is on, else 1 ``METHOD_ALERT``).

Writes go through ``__SIM__.setState`` on the Calendar's overlay (``events[]`` appends,
``events[id=X]`` updates or, with null, deletes): MobileGym has no calendar provider. An event
inserted here gets the id ``evt_mgb<_id>``; a second reminder of an event and a recurring
event are refused with the reason.
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from datetime import date, datetime, time, timedelta, timezone
from typing import Any
from zoneinfo import ZoneInfo

from bridge.android_contract import CALENDAR_OWNER_ACCESS, EVENT_WRITABLE, REMINDER_METHOD_ALERT
from mobilegym.android_state.base import unavailable
from mobilegym.android_state.rows_table import (
    Seen,
    Table,
    Values,
    flag,
    next_id,
    numbered,
    own_id,
    whole,
)
from mobilegym.android_state.sql_rows import SqlTable, SqlValue, SynthRow, columns
from mobilegym.page import MobileGymPage

__all__ = ["CALENDAR_ACCOUNT", "CALENDAR_ID", "EVENTS_PATH", "calendar_tables"]

CALENDAR_ACCOUNT = "mobilegym"
"""The account MobileGym's one calendar is presented under (module docstring)."""
CALENDAR_ID = 1
"""The ``_id`` of MobileGym's one calendar."""
EVENTS_PATH = ("apps", "calendar", "events")
"""Where MobileGym keeps its events in ``__SIM__.getState()``."""

_NAME = "MobileGym"
_METHOD_ALARM = 4
"""``Reminders.METHOD_ALARM``."""
_UTC = timezone.utc
_ONE_CALENDAR = (
    f"MobileGym has one calendar (presented as the local calendar of account "
    f"{CALENDAR_ACCOUNT!r}); it can hold no other, nor be changed or deleted"
)


def _utc_midnight(day: date) -> int:
    return int(datetime.combine(day, time(), _UTC).timestamp() * 1000)


def _local_midnight(day: date, tz: ZoneInfo) -> int:
    return int(datetime.combine(day, time(), tz).timestamp() * 1000)


def _local_date(ms: int, tz: ZoneInfo) -> date:
    return datetime.fromtimestamp(ms / 1000, tz).date()


def _utc_date(ms: int) -> date:
    return datetime.fromtimestamp(ms / 1000, _UTC).date()


# ---- reading


def _calendar_rows(seen: Seen) -> list[SynthRow]:
    values: dict[str, SqlValue] = {
        "_id": CALENDAR_ID,
        "account_name": CALENDAR_ACCOUNT,
        "account_type": "LOCAL",
        "name": _NAME,
        "calendar_displayName": _NAME,
        "calendar_access_level": CALENDAR_OWNER_ACCESS,
        "visible": 1,
        "sync_events": 1,
        "ownerAccount": CALENDAR_ACCOUNT,
        "calendar_timezone": seen.zone_name,
    }
    return [SynthRow(values, ("calendar",))]


def _bounds(event: dict[str, Any], tz: ZoneInfo) -> tuple[int, int] | None:
    start, end = event.get("startTs"), event.get("endTs")
    if not isinstance(start, int | float) or not isinstance(end, int | float):
        return None
    if not event.get("allDay"):
        return int(start), int(end)
    first = _local_date(int(start), tz)
    last = max(_local_date(int(end), tz), first + timedelta(days=1))
    return _utc_midnight(first), _utc_midnight(last)


def _event_row(number: int, event: dict[str, Any], seen: Seen) -> SynthRow:
    bounds = _bounds(event, seen.zone)
    reminder = event.get("reminderMinutesBefore")
    values: dict[str, SqlValue] = {
        "_id": number,
        "calendar_id": CALENDAR_ID,
        "title": event.get("title"),
        "description": event.get("description") or None,
        "eventLocation": event.get("location") or None,
        "dtstart": None if bounds is None else bounds[0],
        "dtend": None if bounds is None else bounds[1],
        "allDay": int(bool(event.get("allDay"))),
        "eventTimezone": "UTC" if event.get("allDay") else seen.zone_name,
        "hasAlarm": int(isinstance(reminder, int | float)),
        "deleted": 0,
        "account_name": CALENDAR_ACCOUNT,
        "account_type": "LOCAL",
        "calendar_displayName": _NAME,
    }
    why = "MobileGym's event has no start and end time"
    unknown = {} if bounds else {"dtstart": why, "dtend": why}
    return SynthRow(values, (event["id"],), unknown)


def _event_rows(seen: Seen) -> list[SynthRow]:
    return [_event_row(number, event, seen) for number, event in numbered(seen)]


def _reminder_rows(seen: Seen) -> list[SynthRow]:
    rows = []
    for number, event in numbered(seen):
        minutes = event.get("reminderMinutesBefore")
        if isinstance(minutes, int | float):
            method = _METHOD_ALARM if event.get("alarmEnabled") else REMINDER_METHOD_ALERT
            values: dict[str, SqlValue] = {
                "_id": number,
                "event_id": number,
                "minutes": int(minutes),
                "method": method,
            }
            rows.append(SynthRow(values, (event["id"],)))
    return rows


# ---- writing


def _check(values: Values, allowed: AbstractSet[str], where: str) -> None:
    unknown = sorted(set(values) - allowed)
    if unknown:
        unavailable(
            f"column {unknown[0]} written into {where}",
            f"MobileGym's events take {', '.join(sorted(allowed))}",
        )
    for column in ("duration", "rrule"):
        if values.get(column):
            unavailable("a recurring event", "MobileGym's events do not repeat")
    if "calendar_id" in values and whole(values["calendar_id"], "calendar_id") != CALENDAR_ID:
        unavailable(f"calendar {values['calendar_id']}", _ONE_CALENDAR)


def _fields(android: Values, tz: ZoneInfo) -> dict[str, Any]:
    """MobileGym's event fields for an Android events row (its columns after a write)."""
    start = whole(android.get("dtstart"), "an event's dtstart")
    end = whole(android.get("dtend"), "an event's dtend")
    all_day = flag(android.get("allDay"))
    if all_day:  # Android's UTC midnights as MobileGym's local ones, whole days
        first = _utc_date(start)
        last = max(_utc_date(end), first + timedelta(days=1))
        start, end = _local_midnight(first, tz), _local_midnight(last, tz)
    return {
        "title": str(android.get("title") or ""),
        "allDay": all_day,
        "startTs": start,
        "endTs": end,
        "description": android.get("description") or None,
        "location": android.get("eventLocation") or None,
    }


async def _patch_event(page: MobileGymPage, event_id: str, patch: dict[str, Any] | None) -> None:
    await page.set_state({"apps": {"calendar": {f"events[id={event_id}]": patch}}})


async def _insert_event(page: MobileGymPage, seen: Seen, values: Values) -> None:
    _check(values, EVENT_WRITABLE, "events")
    number = next_id(number for number, _ in numbered(seen))
    event = {
        "id": own_id("evt", number),
        "type": "event",
        **_fields(values, seen.zone),
        "reminderMinutesBefore": None,
        "alarmEnabled": False,
    }
    await page.set_state({"apps": {"calendar": {"events[]": event}}})


async def _update_events(
    page: MobileGymPage, seen: Seen, rows: list[SynthRow], values: Values
) -> None:
    _check(values, EVENT_WRITABLE, "events")
    for row in rows:
        await _patch_event(page, row.ref[0], _fields({**row.values, **values}, seen.zone))


async def _delete_events(page: MobileGymPage, seen: Seen, rows: list[SynthRow]) -> None:
    for row in rows:
        await _patch_event(page, row.ref[0], None)


def _reminder(values: Values) -> dict[str, Any]:
    minutes = whole(values.get("minutes"), "a reminder's minutes")
    method = whole(values.get("method") or REMINDER_METHOD_ALERT, "a reminder's method")
    return {"reminderMinutesBefore": minutes, "alarmEnabled": method == _METHOD_ALARM}


async def _insert_reminder(page: MobileGymPage, seen: Seen, values: Values) -> None:
    unknown = sorted(set(values) - {"event_id", "minutes", "method"})
    if unknown:
        unavailable(
            f"column {unknown[0]} of a reminder", "reminders take event_id, minutes, method"
        )
    events = {str(number): event for number, event in numbered(seen)}
    event = events.get(str(values.get("event_id")))
    if event is None:
        unavailable(f"a reminder of event {values.get('event_id')}", "MobileGym has no such event")
    if isinstance(event.get("reminderMinutesBefore"), int | float):
        unavailable(
            f"a second reminder of event {values.get('event_id')}",
            "MobileGym keeps one reminder per event",
        )
    await _patch_event(page, event["id"], _reminder(values))


async def _update_reminders(
    page: MobileGymPage, seen: Seen, rows: list[SynthRow], values: Values
) -> None:
    if set(values) - {"minutes", "method"}:
        unavailable("a reminder's event or other columns", "reminders update minutes and method")
    for row in rows:
        await _patch_event(page, row.ref[0], _reminder({**row.values, **values}))


async def _delete_reminders(page: MobileGymPage, seen: Seen, rows: list[SynthRow]) -> None:
    for row in rows:
        await _patch_event(page, row.ref[0], {"reminderMinutesBefore": None, "alarmEnabled": False})


def calendar_tables() -> dict[str, Table]:
    """The ``com.android.calendar`` tables by name (module docstring)."""
    integers = ["calendar_access_level", "visible", "sync_events", "calendar_id", "dtstart",
                "dtend", "allDay", "hasAlarm", "deleted", "event_id", "minutes",
                "method"]  # fmt: skip
    calendars = SqlTable(
        "calendars",
        columns("_id", "account_name", "account_type", "name", "calendar_displayName",
                "calendar_access_level", "visible", "sync_events", "ownerAccount",
                "calendar_timezone", integers=integers),
        missing={"calendar_color": "MobileGym colours events, not its one calendar"},
    )  # fmt: skip
    events = SqlTable(
        "events",
        columns("_id", "calendar_id", "title", "description", "eventLocation", "dtstart", "dtend",
                "duration", "allDay", "eventTimezone", "hasAlarm", "deleted", "rrule",
                "account_name", "account_type", "calendar_displayName", integers=integers),
    )  # fmt: skip
    reminders = SqlTable(
        "reminders", columns("_id", "event_id", "minutes", "method", integers=integers)
    )
    return {
        "calendars": Table(calendars, EVENTS_PATH, _calendar_rows, refused=_ONE_CALENDAR),
        "events": Table(
            events,
            EVENTS_PATH,
            _event_rows,
            insert=_insert_event,
            update=_update_events,
            delete=_delete_events,
        ),
        "reminders": Table(
            reminders,
            EVENTS_PATH,
            _reminder_rows,
            insert=_insert_reminder,
            update=_update_reminders,
            delete=_delete_reminders,
        ),
    }
