"""The event editor's handlers (``/edit``, AOSP's EditEventActivity), mixed into the app.

Actions (``data-action`` → handler, ``data-arg-*`` in brackets): ``toggle_all_day``,
``pick_date[target]`` / ``pick_time[target]`` (``start``/``end``: opens a picker, see
:mod:`sim.pickers`), ``pick_reminder`` and ``set_reminder[minutes]``, ``save``,
``editor_cancel`` (the Cancel button, like Back: asks before dropping changes),
``discard`` and ``keep_editing`` (the discard dialog's buttons).

The drafts the editor started from are kept in the route's ``original`` param, so Back and
Cancel know whether anything changed.
"""

from __future__ import annotations

from datetime import date, time
from typing import Any

from sim.app import AppContext, Event, on
from sim.apps.calendar import editor
from sim.apps.calendar.model import (
    default_calendar_id,
    default_reminder,
    event_reminders,
    get_row,
    save_event,
)
from sim.apps.calendar.times import event_days
from sim.pickers import PickerHost, open_date_picker, open_time_picker
from sim.state import Route, int_param

__all__ = ["EditorHandlers", "below", "edit_event", "leave", "new_event"]


def below(ctx: AppContext) -> Route | None:
    """The route under the current one in the app's back stack."""
    task = ctx.os.task(ctx.app.id)
    return task.stack[-2] if task is not None and len(task.stack) > 1 else None


def leave(ctx: AppContext) -> None:
    """Go back one screen, or to the calendar when this is the task's only screen."""
    if below(ctx) is None:
        ctx.replace("/")
    else:
        ctx.back()


def _editor_fields(ctx: AppContext) -> dict[str, str]:
    fields = ctx.state.ui.fields
    return {k: v for k, v in sorted(fields.items()) if k.startswith(editor.EDIT_PREFIX)}


def _open_editor(ctx: AppContext, fields: dict[str, str], **params: Any) -> None:
    ctx.clear_fields(editor.EDIT_PREFIX)
    for field_key, value in fields.items():
        ctx.set_field(field_key, value)
    ctx.navigate("/edit", original=dict(sorted(fields.items())), **params)


def new_event(ctx: AppContext, day: date) -> None:
    """Open the editor on a new event on ``day`` (next full hour, one hour, default reminder)."""
    overlay = ctx.state.apps.get(ctx.app.id) or {}
    calendar_id = default_calendar_id(ctx.world, overlay) or 0
    reminder = default_reminder(ctx.world, overlay)
    _open_editor(ctx, editor.fields_for_new(day, ctx.now(), calendar_id, reminder))


def edit_event(ctx: AppContext, event_id: int) -> None:
    """Open the editor on an existing event (nothing happens if it is gone)."""
    overlay = ctx.state.apps.get(ctx.app.id) or {}
    event = get_row(ctx.world, overlay, "events", event_id)
    if event is None:
        return
    minutes = [r["minutes"] for r in event_reminders(ctx.world, overlay, event_id)]
    _open_editor(ctx, editor.fields_for_event(event, minutes), id=event_id)


def _dirty(ctx: AppContext) -> bool:
    return _editor_fields(ctx) != ctx.route.params.get("original")


class EditorHandlers(PickerHost):
    """The editor's handlers (see the module docstring); a mixin of the Calendar app."""

    def _close_editor(self, ctx: AppContext) -> None:
        ctx.clear_fields(editor.EDIT_PREFIX)
        leave(ctx)

    def editor_back(self, ctx: AppContext) -> None:
        """Back or Cancel in the editor: ask first when something changed."""
        if _dirty(ctx):
            ctx.focus(None)
            ctx.route.params["dialog"] = "discard"
        else:
            self._close_editor(ctx)

    # ---- pickers
    def picked_date(self, ctx: AppContext, target: str, value: date) -> None:
        """A date picked for the start or the end."""
        fields = editor.shift_bounds(ctx.state.ui.fields, target, day=value)
        for field_key, text in fields.items():
            ctx.set_field(field_key, text)
        ctx.route.params.pop("error", None)

    def picked_time(self, ctx: AppContext, target: str, value: time) -> None:
        """A time picked for the start or the end."""
        fields = editor.shift_bounds(ctx.state.ui.fields, target, at=value)
        for field_key, text in fields.items():
            ctx.set_field(field_key, text)
        ctx.route.params.pop("error", None)

    @on("pick_date")
    def pick_date(self, ctx: AppContext, event: Event) -> None:
        """Open the date picker on the start or end date."""
        target = event.arg("target")
        day = date.fromisoformat(ctx.field(editor.key(f"{target}_date")))
        open_date_picker(ctx, target, day)

    @on("pick_time")
    def pick_time(self, ctx: AppContext, event: Event) -> None:
        """Open the time picker on the start or end time."""
        target = event.arg("target")
        open_time_picker(ctx, target, time.fromisoformat(ctx.field(editor.key(f"{target}_time"))))

    # ---- switches and choices
    @on("toggle_all_day")
    def toggle_all_day(self, ctx: AppContext, event: Event) -> None:
        """Switch between an all-day and a timed event (dates stay, times come back)."""
        on_now = ctx.field(editor.key("all_day")) == "1"
        ctx.set_field(editor.key("all_day"), "0" if on_now else "1")
        ctx.route.params.pop("error", None)

    @on("pick_reminder")
    def pick_reminder(self, ctx: AppContext, event: Event) -> None:
        """Open the reminder choices."""
        ctx.focus(None)
        ctx.route.params["dialog"] = "reminder"

    @on("set_reminder")
    def set_reminder(self, ctx: AppContext, event: Event) -> None:
        """Choose the reminder and close the choices."""
        ctx.set_field(editor.key("reminder"), str(int(event.arg("minutes"))))
        ctx.route.params.pop("dialog", None)

    # ---- leaving
    @on("editor_cancel")
    def editor_cancel(self, ctx: AppContext, event: Event) -> None:
        """The Cancel button."""
        self.editor_back(ctx)

    @on("discard")
    def discard(self, ctx: AppContext, event: Event) -> None:
        """Drop the changes and leave."""
        ctx.route.params.pop("dialog", None)
        self._close_editor(ctx)

    @on("keep_editing")
    def keep_editing(self, ctx: AppContext, event: Event) -> None:
        """Close the discard dialog and stay."""
        ctx.route.params.pop("dialog", None)

    @on("save")
    def save(self, ctx: AppContext, event: Event) -> None:
        """Refuse an end before the start (a message shows), else write the event."""
        fields = _editor_fields(ctx)
        row, error = editor.event_from_fields(fields)
        if error is None and not row["calendar_id"]:
            error = "err_no_calendar"
        if error is not None:
            ctx.focus(None)
            ctx.route.params["error"] = error
            return
        event_id = self._write(ctx, fields, row)
        if event_id is None:
            ctx.toast(ctx.t("not_found"))
        else:
            ctx.toast(ctx.t("toast_saved"))
            under = below(ctx)
            if under is not None and under.path == "/":
                under.params["day"] = event_days(row)[0].isoformat()
        self._close_editor(ctx)

    def _write(self, ctx: AppContext, fields: dict[str, str], row: dict[str, Any]) -> int | None:
        """Save the drafts' event; its id, or None when the event was deleted meanwhile."""
        original = ctx.route.params.get("original")
        original = original if isinstance(original, dict) else {}
        event_id = ctx.route.params.get("id")
        reminder_changed = fields.get(editor.key("reminder")) != original.get(
            editor.key("reminder")
        )
        if event_id is None:
            return save_event(ctx.world, ctx.data, row, editor.reminder_minutes(fields))
        current = get_row(ctx.world, ctx.data, "events", int_param(event_id))
        if current is None:
            return None
        if fields == original:
            return int_param(event_id)
        reminders = editor.reminder_minutes(fields) if reminder_changed else None
        return save_event(ctx.world, ctx.data, {**current, **row}, reminders)
