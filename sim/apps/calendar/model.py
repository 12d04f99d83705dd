"""The Calendar data model: CalendarContract-shaped rows over world data and an overlay.

State is shaped as Android's ``CalendarProvider2`` keeps it, three tables of rows with
Android's column names (the provider, :mod:`sim.apps.calendar.provider`, adds only derived
columns), so the app and ``content query`` read the very same rows:

* calendar: ``_id, account_name, account_type, name, calendar_displayName, calendar_color,
  calendar_access_level, visible, sync_events, ownerAccount, calendar_timezone``;
* event: ``_id, calendar_id, title, description, eventLocation, dtstart, dtend, allDay,
  eventTimezone, hasAlarm`` (epoch ms; see :mod:`sim.apps.calendar.times`);
* reminder: ``_id, event_id, minutes, method`` (method 1 = alert).

World data (``world.json``) writes events readably: ``start``/``end`` as local ISO
date-times of the phone's zone (``2026-05-12T10:00``) or, for all-day events, dates with
``end`` exclusive (``2026-05-16`` … ``2026-05-17``), and ``reminders`` as a list of minutes;
:func:`world_tables` turns them into rows (reminder ids in file order). The overlay of an
instance is ``{"calendars"|"events"|"reminders": {"<_id>": row | None}, "next_id": {...}}``,
None being a tombstone of a world row (typed for readers:
:class:`sim.apps.calendar.state.CalendarState`). Ids are integers that are never reused: a new row
gets one more than any id the table ever had (``next_id``), as SQLite's AUTOINCREMENT.

Deleting an event removes it and its reminders (a local calendar has no sync adapter to
wait for, so Android deletes it outright and ``deleted`` is always 0). Pure functions over
plain dicts: no UI, no clock, no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import date
from typing import Any

from pydantic import BaseModel

from sim.app import derived_from_world
from sim.apps.calendar.state import Table, calendar_state
from sim.apps.calendar.times import event_days, parse_world_time
from sim.state import TIME_ZONE

__all__ = [
    "LOCAL_ACCOUNT",
    "METHOD_ALERT",
    "NO_REMINDER",
    "OWNER_ACCESS",
    "TABLES",
    "add_reminder",
    "agenda",
    "create_calendar",
    "day_events",
    "default_calendar_id",
    "default_reminder",
    "delete_calendar",
    "delete_event",
    "event_reminders",
    "get_row",
    "normalize",
    "put_row",
    "remove_reminder",
    "save_event",
    "search",
    "sort_key",
    "table_rows",
    "visible_events",
    "world_tables",
]

TABLES: tuple[Table, ...] = ("calendars", "events", "reminders")
LOCAL_ACCOUNT = "LOCAL"
"""``CalendarContract.ACCOUNT_TYPE_LOCAL``."""
OWNER_ACCESS = 700
"""``Calendars.CAL_ACCESS_OWNER``."""
METHOD_ALERT = 1
"""``Reminders.METHOD_ALERT``: what the app's reminders use."""
NO_REMINDER = -1
"""The editor's "None" (and the default-reminder setting's "no reminder")."""

Row = dict[str, Any]
_INT = object()  # marker: an integer column
_DEFAULTS: dict[str, dict[str, Any]] = {
    "calendars": {
        "account_name": None,
        "account_type": LOCAL_ACCOUNT,
        "name": None,
        "calendar_displayName": None,
        "calendar_color": -14_069_085,
        "calendar_access_level": OWNER_ACCESS,
        "visible": 1,
        "sync_events": 1,
        "ownerAccount": None,
        "calendar_timezone": TIME_ZONE,
    },
    "events": {
        "calendar_id": _INT,
        "title": None,
        "description": None,
        "eventLocation": None,
        "dtstart": _INT,
        "dtend": _INT,
        "allDay": 0,
        "eventTimezone": TIME_ZONE,
        "hasAlarm": 0,
    },
    "reminders": {"event_id": _INT, "minutes": _INT, "method": METHOD_ALERT},
}
_FLAGS = {"visible", "sync_events", "allDay", "hasAlarm"}
_LABELS = "labels"
"""World calendars may name themselves per language (``{"zh": "我的日历"}``): the app shows
that label, the provider prints ``calendar_displayName``."""


def normalize(table: Table, row: Mapping[str, Any]) -> Row:
    """A row of ``table`` with every column present, ints as ints, flags as 0/1."""
    out: Row = {"_id": int(row["_id"])}
    for column, default in _DEFAULTS[table].items():
        value = row.get(column, None if default is _INT else default)
        if column in _FLAGS:
            value = 1 if value else 0
        elif value is not None and (default is _INT or isinstance(default, int)):
            value = int(value)
        out[column] = value
    if table == "calendars" and row.get(_LABELS):
        out[_LABELS] = dict(row[_LABELS])
    return out


# ---- world data and the overlay


@derived_from_world
def world_tables(world: Mapping[str, Any]) -> dict[str, list[Row]]:
    """World data as rows of the three tables (see the module docstring); shared, so
    copied before anything changes them."""
    calendars = [normalize("calendars", c) for c in world.get("calendars", [])]
    events: list[Row] = []
    reminders: list[Row] = []
    for item in world.get("events", []):
        start, all_day = parse_world_time(str(item["start"]))
        end, _ = parse_world_time(str(item["end"]))
        minutes = [int(m) for m in item.get("reminders", [])]
        row = {**item, "dtstart": start, "dtend": end, "allDay": all_day, "hasAlarm": minutes}
        if all_day:
            row["eventTimezone"] = "UTC"
        events.append(normalize("events", row))
        for m in minutes:
            reminders.append(
                normalize(
                    "reminders", {"_id": len(reminders) + 1, "event_id": item["_id"], "minutes": m}
                )
            )
    return {"calendars": calendars, "events": events, "reminders": reminders}


def _stored(row: BaseModel) -> Row:
    """A changed row as the overlay holds it (the columns it was stored with)."""
    return row.model_dump(by_alias=True, exclude_unset=True)


def table_rows(world: Mapping[str, Any], overlay: Mapping[str, Any], table: Table) -> list[Row]:
    """The effective rows of ``table``: world rows with the overlay applied, by ``_id``."""
    by_id = {row["_id"]: dict(row) for row in world_tables(world)[table]}
    for key, row in calendar_state(overlay).changed(table).items():
        if row is None:
            by_id.pop(int(key), None)
        else:
            by_id[int(key)] = normalize(table, {**_stored(row), "_id": int(key)})
    return [by_id[i] for i in sorted(by_id)]


def get_row(
    world: Mapping[str, Any], overlay: Mapping[str, Any], table: Table, row_id: int
) -> Row | None:
    """The effective row ``row_id`` of ``table``, None if there is none (or it was deleted)."""
    changed = calendar_state(overlay).changed(table)
    if str(row_id) in changed:
        found = changed[str(row_id)]
        return None if found is None else normalize(table, {**_stored(found), "_id": row_id})
    return next((dict(r) for r in world_tables(world)[table] if r["_id"] == row_id), None)


def _mint(world: Mapping[str, Any], overlay: dict[str, Any], table: Table) -> int:
    state = calendar_state(overlay)
    known = [r["_id"] for r in world_tables(world)[table]]
    known += [int(k) for k in state.changed(table)]
    number = max(state.next_id.get(table, 1), max(known, default=0) + 1)
    overlay.setdefault("next_id", {})[table] = number + 1
    return number


def put_row(world: Mapping[str, Any], overlay: dict[str, Any], table: Table, row: Row) -> int:
    """Create (no ``_id``) or replace a row of ``table``; returns its ``_id``."""
    row_id = int(row["_id"]) if row.get("_id") is not None else _mint(world, overlay, table)
    overlay.setdefault(table, {})[str(row_id)] = normalize(table, {**row, "_id": row_id})
    return row_id


def _drop(world: Mapping[str, Any], overlay: dict[str, Any], table: Table, row_id: int) -> None:
    changed = overlay.setdefault(table, {})
    if any(r["_id"] == row_id for r in world_tables(world)[table]):
        changed[str(row_id)] = None
    else:
        changed.pop(str(row_id), None)


# ---- calendars


def create_calendar(world: Mapping[str, Any], overlay: dict[str, Any], values: Row) -> int:
    """A new calendar; names default to the account's (as a sync adapter would set them)."""
    name = values.get("name") or values.get("account_name")
    row = {
        **values,
        "name": name,
        "calendar_displayName": values.get("calendar_displayName") or name,
        "ownerAccount": values.get("ownerAccount") or values.get("account_name"),
    }
    row.pop("_id", None)
    return put_row(world, overlay, "calendars", row)


def delete_calendar(world: Mapping[str, Any], overlay: dict[str, Any], calendar_id: int) -> None:
    """Delete a calendar with its events and their reminders."""
    for event in table_rows(world, overlay, "events"):
        if event["calendar_id"] == calendar_id:
            delete_event(world, overlay, event["_id"])
    _drop(world, overlay, "calendars", calendar_id)


def default_calendar_id(world: Mapping[str, Any], overlay: Mapping[str, Any]) -> int | None:
    """Where the editor puts a new event: the first visible calendar the owner can write."""
    writable = [
        c
        for c in table_rows(world, overlay, "calendars")
        if c["visible"] and c["calendar_access_level"] >= 500
    ]
    return writable[0]["_id"] if writable else None


# ---- events and reminders


def event_reminders(
    world: Mapping[str, Any], overlay: Mapping[str, Any], event_id: int
) -> list[Row]:
    """The event's reminders, soonest-before-the-event last (by minutes, then id)."""
    found = [r for r in table_rows(world, overlay, "reminders") if r["event_id"] == event_id]
    return sorted(found, key=lambda r: (r["minutes"], r["_id"]))


def save_event(
    world: Mapping[str, Any],
    overlay: dict[str, Any],
    event: Row,
    reminder_minutes: Sequence[int] | None = None,
) -> int:
    """Create or replace an event; with ``reminder_minutes``, replace its reminders too
    (alerts, ``hasAlarm`` following). Returns the event's ``_id``."""
    row = dict(event)
    if reminder_minutes is not None:
        row["hasAlarm"] = 1 if reminder_minutes else 0
    event_id = put_row(world, overlay, "events", row)
    if reminder_minutes is not None:
        for old in event_reminders(world, overlay, event_id):
            _drop(world, overlay, "reminders", old["_id"])
        for minutes in reminder_minutes:
            row = {"event_id": event_id, "minutes": minutes, "method": METHOD_ALERT}
            put_row(world, overlay, "reminders", row)
    return event_id


def delete_event(world: Mapping[str, Any], overlay: dict[str, Any], event_id: int) -> None:
    """Delete an event and its reminders."""
    for reminder in event_reminders(world, overlay, event_id):
        _drop(world, overlay, "reminders", reminder["_id"])
    _drop(world, overlay, "events", event_id)


def _set_alarm(world: Mapping[str, Any], overlay: dict[str, Any], event_id: int) -> None:
    event = get_row(world, overlay, "events", event_id)
    flag = 1 if event_reminders(world, overlay, event_id) else 0
    if event is not None and event["hasAlarm"] != flag:
        put_row(world, overlay, "events", {**event, "hasAlarm": flag})


def add_reminder(world: Mapping[str, Any], overlay: dict[str, Any], reminder: Row) -> int:
    """Add a reminder to its event (which then has ``hasAlarm`` 1); returns its ``_id``."""
    row = {k: v for k, v in reminder.items() if k != "_id"}
    reminder_id = put_row(world, overlay, "reminders", row)
    _set_alarm(world, overlay, int(row["event_id"]))
    return reminder_id


def remove_reminder(world: Mapping[str, Any], overlay: dict[str, Any], reminder_id: int) -> None:
    """Remove a reminder; an event left without any gets ``hasAlarm`` 0."""
    reminder = get_row(world, overlay, "reminders", reminder_id)
    if reminder is not None:
        _drop(world, overlay, "reminders", reminder_id)
        _set_alarm(world, overlay, reminder["event_id"])


def default_reminder(world: Mapping[str, Any], overlay: Mapping[str, Any]) -> int:
    """Minutes of the default reminder of new events (:data:`NO_REMINDER`: none)."""
    own = calendar_state(overlay).settings
    if own is not None and own.default_reminder is not None:
        return own.default_reminder
    return int(world.get("settings", {}).get("default_reminder", 10))


# ---- what the views list


def visible_events(world: Mapping[str, Any], overlay: Mapping[str, Any]) -> list[Row]:
    """Events of every visible calendar, in :func:`sort_key` order."""
    shown = {c["_id"] for c in table_rows(world, overlay, "calendars") if c["visible"]}
    found = [e for e in table_rows(world, overlay, "events") if e["calendar_id"] in shown]
    return sorted(found, key=sort_key)


def sort_key(event: Mapping[str, Any]) -> tuple[date, int, int, int, int]:
    """List order: by first day, all-day events first, then start, end and id."""
    first, _ = event_days(event)
    timed = 0 if event["allDay"] else 1
    return (first, timed, event["dtstart"], event["dtend"], event["_id"])


def day_events(events: Iterable[Mapping[str, Any]], day: date) -> list[Mapping[str, Any]]:
    """The events on ``day``: all-day ones first, then timed ones by start."""
    found = [e for e in events if event_days(e)[0] <= day <= event_days(e)[1]]
    return sorted(
        found, key=lambda e: (0 if e["allDay"] else 1, e["dtstart"], e["dtend"], e["_id"])
    )


def agenda(
    events: Iterable[Mapping[str, Any]], start: date, days: int = 366
) -> list[tuple[date, list[Mapping[str, Any]]]]:
    """Days from ``start`` (for ``days`` days) that have events, each with its events; an
    event spanning several days is listed on each."""
    found: dict[date, list[Mapping[str, Any]]] = {}
    for event in events:
        first, last = event_days(event)
        day = max(first, start)
        while day <= last and (day - start).days < days:
            found.setdefault(day, []).append(event)
            day = date.fromordinal(day.toordinal() + 1)
    return [(day, day_events(found[day], day)) for day in sorted(found)]


def search(events: Iterable[Mapping[str, Any]], query: str) -> list[Mapping[str, Any]]:
    """Events whose title, description or location contains ``query`` (ignoring case), by
    start; nothing for a blank query."""
    needle = query.strip().casefold()
    if not needle:
        return []
    fields = ("title", "description", "eventLocation")
    found = [e for e in events if any(needle in (e[f] or "").casefold() for f in fields)]
    return sorted(found, key=sort_key)
