"""The pickers inside an app: opening them, their tap handlers, and handing the value back.

An app that uses the pickers mixes :class:`PickerHost` into its class (before
:class:`~sim.app.App`, so its handlers are collected) and implements
:meth:`PickerHost.picked_date` / :meth:`PickerHost.picked_time`; a screen opens one with
:func:`open_date_picker` / :func:`open_time_picker`, its template renders
:func:`picker_view` with the macros of ``pickers.html``, and the app's ``on_back`` calls
:func:`close_picker` first. The picker's state sits in the current route's params under
``"picker"`` (UI state: snapshots and forks keep an open picker as it is).

A time picker opens as AOSP's dialog with typed fields, or as wheels (``wheels=True``: the
app's skin draws miuix's wheel pickers, :mod:`sim.pickers.wheels`) over the same state.

Actions (``data-action`` → handler, ``data-arg-*`` in brackets): ``picker_prev``,
``picker_next`` (month arrows), ``picker_day[date]`` (select a day), ``picker_am_pm[half]``
(``am``/``pm``), ``picker_wheel[wheel, value]`` (a row of a wheel), ``picker_ok``,
``picker_cancel``.
"""

from __future__ import annotations

from datetime import date, time
from typing import Any

from sim.app import AppContext, Event, on
from sim.errors import SimError
from sim.pickers.date_picker import date_state, date_view, select_day, selected_date, shift_month
from sim.pickers.formats import is_24_hour
from sim.pickers.time_picker import (
    hour_key,
    minute_key,
    parse_time,
    time_state,
    time_texts,
    time_view,
)
from sim.pickers.wheels import home_wheels, select_row, settle_wheels, wheels_view

__all__ = [
    "PICKER_PARAM",
    "PickerHost",
    "close_picker",
    "open_date_picker",
    "open_time_picker",
    "picker_view",
]

PICKER_PARAM = "picker"
"""The route parameter holding an open picker's state."""


def _state(ctx: AppContext) -> dict[str, Any] | None:
    state = ctx.route.params.get(PICKER_PARAM)
    return state if isinstance(state, dict) else None


def open_date_picker(ctx: AppContext, target: str, value: date) -> None:
    """Open the date picker over the current screen for ``target``, ``value`` selected."""
    ctx.focus(None)
    ctx.route.params[PICKER_PARAM] = date_state(target, value)


def open_time_picker(ctx: AppContext, target: str, value: time, *, wheels: bool = False) -> None:
    """Open the time picker for ``target``, its fields showing ``value``: the hour focused
    (the keyboard shows, as in AOSP's keyboard-input mode), or with ``wheels`` no field
    focused and every wheel at home (:mod:`sim.pickers.wheels`)."""
    twenty_four = is_24_hour(ctx.settings)
    hour, minute = time_texts(value, twenty_four)
    ctx.set_field(hour_key(ctx.app.id), hour)
    ctx.set_field(minute_key(ctx.app.id), minute)
    ctx.route.params[PICKER_PARAM] = time_state(target, value)
    if wheels:
        ctx.focus(None)
        home_wheels(ctx.state.ui.scroll, ctx.app.id, twenty_four)
        return
    ctx.focus(hour_key(ctx.app.id), submit="picker_ok")
    ctx.state.ui.keyboard_mode = "123"  # the fields are numeric: the IME opens on digits


def close_picker(ctx: AppContext) -> bool:
    """Close an open picker without a value (Back, Cancel); whether one was open."""
    state = ctx.route.params.pop(PICKER_PARAM, None)
    if state is None:
        return False
    prefix = f"{ctx.app.id}.picker."
    ctx.clear_fields(prefix)
    scroll = ctx.state.ui.scroll
    for key in [k for k in scroll if k.startswith(prefix)]:  # the wheels' offsets
        del scroll[key]
    ctx.focus(None)
    if isinstance(state, dict) and state.get("kind") == "time":
        ctx.state.ui.keyboard_mode = "abc"
    return True


def picker_view(ctx: AppContext, *, wheels: bool = False) -> dict[str, Any] | None:
    """The open picker's template values (``kind`` is ``date`` or ``time``), or None; with
    ``wheels``, a time picker's values have its wheels' too (``wheels`` and the ``time``
    they show, :func:`sim.pickers.wheels.wheels_view`)."""
    state = _state(ctx)
    if state is None:
        return None
    if state.get("kind") == "date":
        return {"kind": "date", **date_view(state, ctx.lang, ctx.now().date())}
    ui, twenty_four = ctx.state.ui, is_24_hour(ctx.settings)
    values = time_view(state, ctx.lang, twenty_four, ui.fields, ui.focus, ctx.app.id)
    if wheels:
        values |= wheels_view(state, ctx.lang, twenty_four, ui.fields, ui.scroll, ctx.app.id)
    return {"kind": "time", **values}


class PickerHost:
    """Mixin of an :class:`~sim.app.App` that opens the pickers (see the module docstring)."""

    def picked_date(self, ctx: AppContext, target: str, value: date) -> None:
        """OK in the date picker chose ``value`` for ``target``."""
        raise NotImplementedError

    def picked_time(self, ctx: AppContext, target: str, value: time) -> None:
        """OK in the time picker chose ``value`` for ``target``."""
        raise NotImplementedError

    @staticmethod
    def _open(ctx: AppContext, kind: str) -> dict[str, Any]:
        state = _state(ctx)
        if state is None or state.get("kind") != kind:
            raise SimError(f"no {kind} picker is open: the template offers a stale action")
        return state

    @on("picker_prev")
    def picker_prev(self, ctx: AppContext, event: Event) -> None:
        """Show the previous month."""
        shift_month(self._open(ctx, "date"), -1)

    @on("picker_next")
    def picker_next(self, ctx: AppContext, event: Event) -> None:
        """Show the next month."""
        shift_month(self._open(ctx, "date"), 1)

    @on("picker_day")
    def picker_day(self, ctx: AppContext, event: Event) -> None:
        """Select the tapped day."""
        select_day(self._open(ctx, "date"), date.fromisoformat(event.arg("date")))

    @on("picker_am_pm")
    def picker_am_pm(self, ctx: AppContext, event: Event) -> None:
        """Choose AM or PM (12-hour mode)."""
        self._open(ctx, "time")["pm"] = event.arg("half") == "pm"

    @on("picker_wheel")
    def picker_wheel(self, ctx: AppContext, event: Event) -> None:
        """A tap on a row of a wheel: its value becomes the wheel's."""
        state, ui = self._open(ctx, "time"), ctx.state.ui
        try:
            index = int(event.arg("value"))
            twenty_four = is_24_hour(ctx.settings)
            select_row(
                state, ui.fields, ui.scroll, ctx.app.id, twenty_four, event.arg("wheel"), index
            )
        except ValueError as exc:
            raise SimError(f"picker_wheel: {exc}: the template offers a row no wheel has") from exc

    @on("picker_cancel")
    def picker_cancel(self, ctx: AppContext, event: Event) -> None:
        """Close the picker; nothing changes."""
        close_picker(ctx)

    @on("picker_ok")
    def picker_ok(self, ctx: AppContext, event: Event) -> None:
        """Hand the picked value to the app, or say the typed time is not valid."""
        state = _state(ctx)
        if state is None:
            return
        target = str(state["target"])
        if state.get("kind") == "date":
            value = selected_date(state)
            close_picker(ctx)
            self.picked_date(ctx, target, value)
            return
        ui, twenty_four = ctx.state.ui, is_24_hour(ctx.settings)
        settle_wheels(state, ui.fields, ui.scroll, ctx.app.id, twenty_four)  # a scroll pending
        typed = parse_time(
            ctx.field(hour_key(ctx.app.id)),
            ctx.field(minute_key(ctx.app.id)),
            bool(state.get("pm")),
            twenty_four,
        )
        if typed is None:
            state["error"] = True
            return
        close_picker(ctx)
        self.picked_time(ctx, target, typed)
