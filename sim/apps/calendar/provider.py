"""CalendarContract over the simulated calendar: the ``com.android.calendar`` provider.

The model (:mod:`sim.apps.calendar.model`) already keeps Android's rows; this module
declares them as tables (:mod:`sim.providers.table`) and turns writes into the model's own
functions, so the app and ``content`` always agree:

* ``content://com.android.calendar/calendars`` — ``_id, account_name, account_type, name,
  calendar_displayName, calendar_color, calendar_access_level, visible, sync_events,
  ownerAccount, calendar_timezone``;
* ``…/events`` — ``_id, calendar_id, title, description, eventLocation, dtstart, dtend,
  duration, allDay, eventTimezone, hasAlarm, deleted, rrule`` and, as Android's events view
  joins them, the calendar's ``account_name, account_type, calendar_displayName``
  (``duration`` and ``rrule`` are NULL: the phone has no recurring events; ``deleted`` 0);
* ``…/reminders`` — ``_id, event_id, minutes, method`` (1 = alert).

Writes, as ``CalendarProvider2`` allows the shell:

* events: insert needs ``calendar_id`` (an existing calendar), ``dtstart``,
  ``eventTimezone`` and ``dtend`` (``duration`` and ``rrule`` are refused: no recurring
  events here); all-day events are moved to UTC midnight with ``eventTimezone`` ``UTC``.
  Update any of the writable columns; delete removes the event and its reminders.
* reminders: insert (``event_id``, ``minutes``, optional ``method``, default 0 =
  ``METHOD_DEFAULT``) sets the event's ``hasAlarm``; update ``minutes``/``method``;
  delete (an event left without reminders gets ``hasAlarm`` 0).
* calendars: insert and delete only as a sync adapter, i.e. with the URI
  ``…/calendars?caller_is_syncadapter=true&account_name=NAME&account_type=LOCAL`` (a plain
  insert is refused, as on a phone); anyone may update ``visible``, ``sync_events``,
  ``calendar_displayName`` and ``calendar_color``, a sync adapter every column.

Failures are ``IllegalArgumentException`` (a missing or bad value, with its name) or
``UnsupportedOperationException`` (what only a sync adapter may do).
"""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from typing import Any

from bridge.android_contract import CALENDAR_AUTHORITY, EVENT_WRITABLE
from sim.apps.calendar import model
from sim.apps.calendar.state import Table
from sim.apps.calendar.times import DAY_MS, utc_date, utc_midnight_ms
from sim.providers.errors import UNSUPPORTED_OPERATION, ProviderError
from sim.providers.table import Column, Provider, ProviderContext, ProviderTable, Values

__all__ = ["SYNC_ADAPTER_PARAM", "calendar_provider"]

SYNC_ADAPTER_PARAM = "caller_is_syncadapter"
"""``CalendarContract.CALLER_IS_SYNCADAPTER``: the query parameter a sync adapter sets."""

_APP = "calendar"
_CALENDAR_COLUMNS = (
    "account_name",
    "account_type",
    "name",
    "calendar_displayName",
    "calendar_color",
    "calendar_access_level",
    "visible",
    "sync_events",
    "ownerAccount",
    "calendar_timezone",
)
_CALENDAR_USER = {"visible", "sync_events", "calendar_displayName", "calendar_color"}
_EVENT_REQUIRED = ("calendar_id", "dtstart", "eventTimezone")
_INTEGERS = {"calendar_id", "dtstart", "dtend", "event_id", "minutes", "method", "allDay"}
Row = Mapping[str, Any]


# ---- state


def _rows(table: Table, ctx: ProviderContext) -> list[dict[str, Any]]:
    return model.table_rows(ctx.world(_APP), ctx.overlay(_APP), table)


def _event_rows(ctx: ProviderContext) -> list[dict[str, Any]]:
    calendars = {c["_id"]: c for c in _rows("calendars", ctx)}
    rows = []
    for event in _rows("events", ctx):
        calendar = calendars.get(event["calendar_id"], {})
        rows.append(
            {
                **event,
                "duration": None,
                "deleted": 0,
                "rrule": None,
                "account_name": calendar.get("account_name"),
                "account_type": calendar.get("account_type"),
                "calendar_displayName": calendar.get("calendar_displayName"),
            }
        )
    return rows


# ---- checks


def _check_columns(values: Row, allowed: AbstractSet[str] | tuple[str, ...], what: str) -> None:
    unknown = sorted(set(values) - set(allowed))
    if unknown:
        raise ProviderError(
            f"column '{unknown[0]}' cannot be written {what} on the simulated phone "
            f"(writable: {', '.join(sorted(allowed))})"
        )


def _check_integers(values: Row) -> None:
    for column in sorted(_INTEGERS & set(values)):
        if values[column] is not None and not isinstance(values[column], int):
            raise ProviderError(f"{column} must be an integer, got {values[column]!r}")


def _sync_account(ctx: ProviderContext) -> tuple[str, str] | None:
    """The account a sync adapter names in the URI; None for an ordinary caller."""
    if str(ctx.params.get(SYNC_ADAPTER_PARAM, "")).lower() != "true":
        return None
    name, kind = ctx.params.get("account_name"), ctx.params.get("account_type")
    if not name or not kind:
        raise ProviderError(
            "a sync adapter must name its account: add account_name=NAME&account_type=TYPE "
            "to the URI"
        )
    return name, kind


def _sync_only(ctx: ProviderContext, what: str) -> tuple[str, str]:
    account = _sync_account(ctx)
    if account is None:
        raise ProviderError(
            f"only a sync adapter may {what}: use content://{CALENDAR_AUTHORITY}/calendars?"
            f"{SYNC_ADAPTER_PARAM}=true&account_name=NAME&account_type=LOCAL",
            UNSUPPORTED_OPERATION,
        )
    return account


def _calendar_exists(ctx: ProviderContext, calendar_id: Any) -> None:
    if model.get_row(ctx.world(_APP), ctx.overlay(_APP), "calendars", calendar_id) is None:
        raise ProviderError(f"calendar_id {calendar_id} is not a calendar on this phone")


def _event_times(values: dict[str, Any]) -> dict[str, Any]:
    """An all-day event's bounds moved to UTC midnight, its zone UTC (as Android fixes them)."""
    if not values.get("allDay"):
        return values
    start = utc_midnight_ms(utc_date(int(values["dtstart"])))
    end = utc_midnight_ms(utc_date(int(values["dtend"])))
    return {**values, "eventTimezone": "UTC", "dtstart": start, "dtend": max(end, start + DAY_MS)}


# ---- calendars


def _insert_calendar(ctx: ProviderContext, values: Values) -> int:
    name, kind = _sync_only(ctx, "create a calendar")
    _check_columns(values, _CALENDAR_COLUMNS, "into calendars")
    for column, wanted in (("account_name", name), ("account_type", kind)):
        if values.get(column, wanted) != wanted:
            raise ProviderError(f"{column} {values[column]!r} is not the URI's account {wanted!r}")
    row = {**values, "account_name": name, "account_type": kind}
    return model.create_calendar(ctx.world(_APP), ctx.writable_overlay(_APP), row)


def _update_calendars(ctx: ProviderContext, rows: list[Row], values: Values) -> None:
    allowed = _CALENDAR_COLUMNS if _sync_account(ctx) else _CALENDAR_USER
    _check_columns(values, allowed, "into calendars by this caller")
    world, overlay = ctx.world(_APP), ctx.writable_overlay(_APP)
    for row in rows:
        current = model.get_row(world, overlay, "calendars", row["_id"]) or {}
        model.put_row(world, overlay, "calendars", {**current, **values})


def _delete_calendars(ctx: ProviderContext, rows: list[Row]) -> None:
    _sync_only(ctx, "delete a calendar")
    for row in rows:
        model.delete_calendar(ctx.world(_APP), ctx.writable_overlay(_APP), row["_id"])


# ---- events


def _insert_event(ctx: ProviderContext, values: Values) -> int:
    _check_columns(values, EVENT_WRITABLE, "into events")
    _check_integers(values)
    for column in _EVENT_REQUIRED:
        if values.get(column) is None:
            raise ProviderError(f"{column} is required to insert an event")
    if values.get("rrule"):
        raise ProviderError("rrule: recurring events are not supported by the simulated phone")
    if values.get("dtend") is None:
        raise ProviderError("dtend is required for a non-recurring event")
    if values.get("duration"):
        raise ProviderError("an event cannot have both dtend and duration")
    _calendar_exists(ctx, values["calendar_id"])
    row = {k: v for k, v in values.items() if k not in ("duration", "rrule")}
    return model.save_event(ctx.world(_APP), ctx.writable_overlay(_APP), _event_times(row))


def _update_events(ctx: ProviderContext, rows: list[Row], values: Values) -> None:
    _check_columns(values, EVENT_WRITABLE, "into events")
    _check_integers(values)
    if values.get("rrule") or values.get("duration"):
        raise ProviderError("rrule, duration: recurring events are not supported here")
    for column in ("calendar_id", "dtstart", "dtend", "eventTimezone"):
        if column in values and values[column] is None:
            raise ProviderError(f"{column} cannot be NULL")
    if "calendar_id" in values:
        _calendar_exists(ctx, values["calendar_id"])
    world, overlay = ctx.world(_APP), ctx.writable_overlay(_APP)
    changes = {k: v for k, v in values.items() if k not in ("duration", "rrule")}
    for row in rows:
        current = model.get_row(world, overlay, "events", row["_id"]) or {}
        model.save_event(world, overlay, _event_times({**current, **changes}))


def _delete_events(ctx: ProviderContext, rows: list[Row]) -> None:
    for row in rows:
        model.delete_event(ctx.world(_APP), ctx.writable_overlay(_APP), row["_id"])


# ---- reminders


def _insert_reminder(ctx: ProviderContext, values: Values) -> int:
    _check_columns(values, ("event_id", "minutes", "method"), "into reminders")
    _check_integers(values)
    for column in ("event_id", "minutes"):
        if values.get(column) is None:
            raise ProviderError(f"{column} is required to insert a reminder")
    if model.get_row(ctx.world(_APP), ctx.overlay(_APP), "events", values["event_id"]) is None:
        raise ProviderError(f"event_id {values['event_id']} is not an event on this phone")
    row = {"method": 0, **values}
    return model.add_reminder(ctx.world(_APP), ctx.writable_overlay(_APP), row)


def _update_reminders(ctx: ProviderContext, rows: list[Row], values: Values) -> None:
    _check_columns(values, ("minutes", "method"), "into reminders")
    _check_integers(values)
    world, overlay = ctx.world(_APP), ctx.writable_overlay(_APP)
    for row in rows:
        current = model.get_row(world, overlay, "reminders", row["_id"]) or {}
        model.put_row(world, overlay, "reminders", {**current, **values})


def _delete_reminders(ctx: ProviderContext, rows: list[Row]) -> None:
    for row in rows:
        model.remove_reminder(ctx.world(_APP), ctx.writable_overlay(_APP), row["_id"])


# ---- the declaration

_ID = Column("_id", "INTEGER")


def _int(name: str) -> Column:
    return Column(name, "INTEGER")


def calendar_provider() -> Provider:
    """The ``com.android.calendar`` provider (see the module docstring)."""
    calendar_ints = {"calendar_color", "calendar_access_level", "visible", "sync_events"}
    calendars = ProviderTable(
        name="calendars",
        columns=(
            _ID,
            *(_int(c) if c in calendar_ints else Column(c) for c in _CALENDAR_COLUMNS),
        ),
        rows=lambda ctx: _rows("calendars", ctx),
        insert=_insert_calendar,
        update=_update_calendars,
        delete=_delete_calendars,
    )
    events = ProviderTable(
        name="events",
        columns=(
            _ID,
            _int("calendar_id"),
            Column("title"),
            Column("description"),
            Column("eventLocation"),
            _int("dtstart"),
            _int("dtend"),
            Column("duration"),
            _int("allDay"),
            Column("eventTimezone"),
            _int("hasAlarm"),
            _int("deleted"),
            Column("rrule"),
            Column("account_name"),
            Column("account_type"),
            Column("calendar_displayName"),
        ),
        rows=_event_rows,
        insert=_insert_event,
        update=_update_events,
        delete=_delete_events,
    )
    reminders = ProviderTable(
        name="reminders",
        columns=(_ID, _int("event_id"), _int("minutes"), _int("method")),
        rows=lambda ctx: _rows("reminders", ctx),
        insert=_insert_reminder,
        update=_update_reminders,
        delete=_delete_reminders,
    )
    return Provider(CALENDAR_AUTHORITY, (calendars, events, reminders))
