"""The event editor's drafts: field keys, and the mapping between drafts and event rows.

Drafts live in the instance's UI state (``ui.fields``, strings only), one key each under
``calendar.edit.``: ``title``, ``location``, ``description`` (text boxes), ``all_day``
(``0``/``1``), ``start_date``/``end_date`` (ISO dates; an all-day event's end date is its
last day, as the editor shows it), ``start_time``/``end_time`` (``HH:MM``, kept while
all-day hides them), ``reminder`` (minutes, ``-1`` for none) and ``calendar_id``. Pure
functions, so the editor's rules are testable without a page.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, datetime, time, timedelta
from typing import Any

from sim.apps.calendar.model import NO_REMINDER
from sim.apps.calendar.times import (
    HOUR_MS,
    event_days,
    local_datetime,
    local_ms,
    utc_midnight_ms,
)
from sim.state import TIME_ZONE

__all__ = [
    "EDIT_PREFIX",
    "TEXT_FIELDS",
    "bounds",
    "event_from_fields",
    "fields_for_event",
    "fields_for_new",
    "key",
    "reminder_minutes",
    "shift_bounds",
]

EDIT_PREFIX = "calendar.edit."
"""Prefix of every editor draft (cleared on save, cancel and discard)."""
TEXT_FIELDS = ("title", "location", "description")
"""The editor's text boxes, in screen order."""
_COLUMN = {"title": "title", "location": "eventLocation", "description": "description"}


def key(name: str) -> str:
    """Draft key of an editor field: ``key("title")`` → ``calendar.edit.title``."""
    return EDIT_PREFIX + name


def _hm(moment: time | datetime) -> str:
    return f"{moment.hour:02d}:{moment.minute:02d}"


def fields_for_new(day: date, now: datetime, calendar_id: int, reminder: int) -> dict[str, str]:
    """Drafts of a new event: on ``day`` at the next full hour after ``now``'s time of
    day, one hour long, with the default ``reminder``."""
    start = datetime.combine(day, time(now.hour)) + timedelta(hours=1)
    end = start + timedelta(milliseconds=HOUR_MS)
    return {
        **{key(name): "" for name in TEXT_FIELDS},
        key("all_day"): "0",
        key("start_date"): start.date().isoformat(),
        key("start_time"): _hm(start),
        key("end_date"): end.date().isoformat(),
        key("end_time"): _hm(end),
        key("reminder"): str(reminder),
        key("calendar_id"): str(calendar_id),
    }


def fields_for_event(event: Mapping[str, Any], reminders: list[int]) -> dict[str, str]:
    """Drafts prefilled from an event row and its reminders' minutes (the first shows)."""
    fields = {key(name): str(event.get(_COLUMN[name]) or "") for name in TEXT_FIELDS}
    first, last = event_days(event)
    if event["allDay"]:
        start, end = time(9), time(10)
    else:
        start = local_datetime(event["dtstart"]).time()
        end = local_datetime(event["dtend"]).time()
        last = local_datetime(event["dtend"]).date()
    fields.update(
        {
            key("all_day"): "1" if event["allDay"] else "0",
            key("start_date"): first.isoformat(),
            key("start_time"): _hm(start),
            key("end_date"): last.isoformat(),
            key("end_time"): _hm(end),
            key("reminder"): str(reminders[0] if reminders else NO_REMINDER),
            key("calendar_id"): str(event["calendar_id"]),
        }
    )
    return fields


def bounds(fields: Mapping[str, str]) -> tuple[datetime, datetime]:
    """The drafts' start and end as local wall times (dates at midnight when all-day)."""

    def moment(which: str) -> datetime:
        day = date.fromisoformat(fields[key(f"{which}_date")])
        if fields.get(key("all_day")) == "1":
            return datetime.combine(day, time())
        return datetime.combine(day, time.fromisoformat(fields[key(f"{which}_time")]))

    return moment("start"), moment("end")


def shift_bounds(
    fields: Mapping[str, str], target: str, day: date | None = None, at: time | None = None
) -> dict[str, str]:
    """The date/time drafts after picking ``day`` or ``at`` for ``target`` (``start`` or
    ``end``). A new start moves the end along, keeping the duration, as Android's editor
    does; a new end is taken as it is (Save refuses an end before the start)."""
    start, end = bounds(fields)
    old = start if target == "start" else end
    new = datetime.combine(day or old.date(), at or old.time())
    changed = {key(f"{target}_date"): new.date().isoformat()}
    if at is not None:
        changed[key(f"{target}_time")] = _hm(at)
    if target == "start":
        moved = end + (new - start)
        changed[key("end_date")] = moved.date().isoformat()
        if fields.get(key("all_day")) != "1":
            changed[key("end_time")] = _hm(moved)
    return changed


def event_from_fields(fields: Mapping[str, str]) -> tuple[dict[str, Any], str | None]:
    """The event columns the drafts describe, and an error string key (None: savable).

    Text is stripped (an empty title stays empty: the app shows it as "(No title)"). An
    all-day event is stored at UTC midnight of its first day until the midnight after its
    last, in ``UTC``; a timed one in the phone's zone.
    """
    row: dict[str, Any] = {_COLUMN[name]: fields.get(key(name), "").strip() for name in TEXT_FIELDS}
    start, end = bounds(fields)
    all_day = fields.get(key("all_day")) == "1"
    if all_day:
        row.update(
            allDay=1,
            eventTimezone="UTC",
            dtstart=utc_midnight_ms(start.date()),
            dtend=utc_midnight_ms(end.date() + timedelta(days=1)),
        )
    else:
        row.update(allDay=0, eventTimezone=TIME_ZONE, dtstart=local_ms(start), dtend=local_ms(end))
    row["calendar_id"] = int(fields.get(key("calendar_id")) or 0)
    return row, ("err_end_before_start" if end < start else None)


def reminder_minutes(fields: Mapping[str, str]) -> list[int]:
    """The reminder the drafts ask for: ``[minutes]``, or ``[]`` for none."""
    minutes = int(fields.get(key("reminder"), str(NO_REMINDER)))
    return [] if minutes < 0 else [minutes]
