"""What the event card, the editor and search show: template values from the state.

Routes: ``/event`` (``id``: AOSP's EventInfoActivity), ``/edit`` (``id`` or nothing for a
new event: EditEventActivity) and ``/search`` (SearchActivity). Open dialogs (``dialog``),
the editor's error and its starting drafts (``original``) live in the route's params (UI
state), never in the overlay. Pure: nothing here changes the state.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from sim.app import AppContext
from sim.apps.calendar import editor
from sim.apps.calendar.labels import (
    calendar_label,
    event_title,
    event_when,
    reminder_label,
    row_when,
)
from sim.apps.calendar.model import event_reminders, get_row, search, visible_events
from sim.apps.calendar.views import overlay
from sim.pickers import picker_view
from sim.pickers.formats import date_medium, is_24_hour, time_text
from sim.state import int_param

__all__ = [
    "REMINDER_CHOICES",
    "SEARCH_KEY",
    "editor_values",
    "event_values",
    "search_values",
]

SEARCH_KEY = "calendar.search"
"""Draft key of the search box."""
REMINDER_CHOICES = (-1, 0, 5, 10, 15, 30, 60, 1440)
"""The editor's reminder choices in minutes (-1: none), as its dialog lists them."""

Values = dict[str, Any]


def _dialog(ctx: AppContext) -> str | None:
    dialog = ctx.route.params.get("dialog")
    return dialog if isinstance(dialog, str) else None


def event_values(ctx: AppContext) -> Values:
    """The event card: title, when, where, description, calendar, reminders; delete dialog."""
    event_id = int_param(ctx.route.params.get("id") or 0)
    event = get_row(ctx.world, overlay(ctx), "events", event_id)
    if event is None:
        return {"event": None}
    calendar = get_row(ctx.world, overlay(ctx), "calendars", event["calendar_id"])
    when, time_line = event_when(ctx, event)
    reminders = event_reminders(ctx.world, overlay(ctx), event_id)
    return {
        "event": {"id": event_id},
        "title": event_title(ctx, event),
        "when": when,
        "time": time_line,
        "location": event.get("eventLocation") or "",
        "description": event.get("description") or "",
        "calendar": calendar_label(ctx, calendar),
        "reminders": [reminder_label(ctx, r["minutes"]) for r in reversed(reminders)],
        "dialog": _dialog(ctx),
    }


def search_values(ctx: AppContext) -> Values:
    """The search box and the events matching it, by start, each with its date."""
    query = ctx.field(SEARCH_KEY)
    found = search(visible_events(ctx.world, overlay(ctx)), query)
    rows = [{"id": e["_id"], "title": event_title(ctx, e), "when": row_when(ctx, e)} for e in found]
    return {
        "key": SEARCH_KEY,
        "query": query,
        "focused": ctx.state.ui.focus == SEARCH_KEY,
        "rows": rows,
        "count": ctx.t("results_count", n=len(rows)) if rows else "",
        "empty": ctx.t("no_results") if query.strip() and not rows else "",
    }


def _text_box(ctx: AppContext, name: str) -> Values:
    field_key = editor.key(name)
    return {
        "key": field_key,
        "value": ctx.field(field_key),
        "focused": ctx.state.ui.focus == field_key,
    }


def _bound(ctx: AppContext, which: str) -> Values:
    """One of the From/To rows: its date button and time button texts."""
    fields = ctx.state.ui.fields
    day = date.fromisoformat(fields[editor.key(f"{which}_date")])
    start, end = editor.bounds(fields)
    moment = start if which == "start" else end
    return {
        "date": date_medium(day, ctx.lang),
        "time": time_text(moment, ctx.lang, is_24_hour(ctx.settings)),
    }


def _reminder_dialog(ctx: AppContext, current: int) -> list[Values]:
    return [
        {"label": reminder_label(ctx, m), "checked": m == current, "args": {"minutes": m}}
        for m in REMINDER_CHOICES
    ]


def editor_values(ctx: AppContext) -> Values:
    """The editor: title, all-day switch, From/To, location, description, reminder,
    calendar; the end-before-start error; the reminder, discard and picker dialogs."""
    fields = ctx.state.ui.fields
    reminder = int(fields.get(editor.key("reminder"), "-1"))
    calendar_id = int(fields.get(editor.key("calendar_id")) or 0)
    calendar = get_row(ctx.world, overlay(ctx), "calendars", calendar_id)
    error = ctx.route.params.get("error")
    dialog = _dialog(ctx)
    return {
        "heading": ctx.t("title_edit" if ctx.route.params.get("id") else "title_new"),
        "boxes": {name: _text_box(ctx, name) for name in editor.TEXT_FIELDS},
        "all_day": fields.get(editor.key("all_day")) == "1",
        "start": _bound(ctx, "start"),
        "end": _bound(ctx, "end"),
        "reminder": reminder_label(ctx, reminder),
        "calendar": calendar_label(ctx, calendar),
        "error": ctx.t(error) if isinstance(error, str) else None,
        "dialog": dialog,
        "reminder_options": _reminder_dialog(ctx, reminder) if dialog == "reminder" else [],
        "picker": picker_view(ctx),
    }
