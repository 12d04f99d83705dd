"""The Calendar's overlay, typed: what :mod:`sim.apps.calendar.model` (through the app's
handlers and the provider, :mod:`sim.apps.calendar.provider`) writes into
``InstanceState.apps["calendar"]``: changed rows of Android's three tables by ``_id`` (None a
tombstone of a world row) and the next id of each table.

Rows are stored as :func:`sim.apps.calendar.model.normalize` makes them: every column, ints
as ints (None where a value was never given), flags 0/1; text columns hold what the editor
or ``content`` wrote (the provider stores TEXT as text).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import Field

from sim.state import OverlayModel, parse_overlay

__all__ = [
    "CalendarRow",
    "CalendarSettings",
    "CalendarState",
    "EventRow",
    "ReminderRow",
    "Table",
    "calendar_state",
]

Table = Literal["calendars", "events", "reminders"]


class _Row(OverlayModel):
    """A row of one of the tables; columns keep Android's names (``_id`` as ``id``)."""

    id: int = Field(alias="_id")


class CalendarRow(_Row):
    """A ``calendars`` row; ``labels`` (the name per language) only where world data gave it."""

    account_name: str | None
    account_type: str | None
    name: str | None
    calendar_displayName: str | None
    calendar_color: int | None
    calendar_access_level: int | None
    visible: int
    sync_events: int
    ownerAccount: str | None
    calendar_timezone: str | None
    labels: dict[str, str] | None = None


class EventRow(_Row):
    """An ``events`` row (times epoch ms)."""

    calendar_id: int | None
    title: str | None
    description: str | None
    eventLocation: str | None
    dtstart: int | None
    dtend: int | None
    allDay: int
    eventTimezone: str | None
    hasAlarm: int


class ReminderRow(_Row):
    """A ``reminders`` row (``method`` 1 an alert)."""

    event_id: int | None
    minutes: int | None
    method: int | None


class CalendarSettings(OverlayModel):
    """The app's own settings over world data's ``settings`` (read; no code writes them yet)."""

    default_reminder: int | None = None


class CalendarState(OverlayModel):
    """``{"calendars"|"events"|"reminders": {"<_id>": row | None}, "next_id": {table: n}}``."""

    calendars: dict[str, CalendarRow | None] = Field(default_factory=dict)
    events: dict[str, EventRow | None] = Field(default_factory=dict)
    reminders: dict[str, ReminderRow | None] = Field(default_factory=dict)
    next_id: dict[Table, int] = Field(default_factory=dict)
    """The id each table's next new row gets at least (ids are never reused)."""
    settings: CalendarSettings | None = None

    def changed(self, table: Table) -> Mapping[str, _Row | None]:
        """The changed rows of ``table`` by ``_id``."""
        rows: dict[Table, Mapping[str, _Row | None]] = {
            "calendars": self.calendars,
            "events": self.events,
            "reminders": self.reminders,
        }
        return rows[table]


def calendar_state(overlay: Mapping[str, Any]) -> CalendarState:
    """The Calendar's overlay, typed (``OverlayInvalid`` when it does not fit)."""
    return parse_overlay(CalendarState, "calendar", overlay)
