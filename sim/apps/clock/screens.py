"""What the Clock's screens show: template values from the state (pure: nothing here
changes it).

Routes: ``/`` (AOSP's DeskClock; param ``tab``: ``alarm``, the default, ``clock``,
``timer`` or ``stopwatch``) and ``/cities`` (CitySelectionActivity, the searchable city
list). UI state lives in the route's params: the alarm expanded (``expanded``), an open
dialog (``dialog``: ``{"name": "label"|"remove_city", "id": …}``), the alarm just deleted
(``deleted``, for the snackbar's Undo) and an open time picker (:mod:`sim.pickers`).

A skin in :data:`WHEEL_SKINS` (HyperOS) sets an alarm's time on a page of its own, the
add/edit-alarm page with miuix's wheel pickers inline (:mod:`sim.pickers.wheels`), instead of
AOSP's dialog: the same open time picker, drawn otherwise (``editor`` below).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sim.app import AppContext
from sim.apps.clock.alarms import alarm_rows, get_alarm, next_trigger
from sim.apps.clock.cities import city_time, search_cities, selected_cities
from sim.apps.clock.labels import day_names, repeat_summary, world_line
from sim.apps.clock.state import StopwatchState, TimerState, clock_state
from sim.apps.clock.timers import (
    input_parts,
    stopwatch_elapsed,
    stopwatch_text,
    timer_left,
    timer_text,
)
from sim.pickers import PICKER_PARAM, picker_view
from sim.pickers.formats import date_header, is_24_hour, time_text
from sim.state import TIME_ZONE

__all__ = [
    "CITY_SEARCH_KEY",
    "LABEL_KEY",
    "NEW_ALARM",
    "TABS",
    "WHEEL_SKINS",
    "cities_values",
    "main_values",
    "overlay",
    "selected_tab",
]

TABS = ("alarm", "clock", "timer", "stopwatch")
"""The tabs along the top, in order."""
LABEL_KEY = "clock.label"
"""Draft key of the label dialog's text field."""
CITY_SEARCH_KEY = "clock.city_search"
"""Draft key of the city list's search box."""
NEW_ALARM = "new"
"""The time picker's target for a new alarm (an existing alarm's is its id)."""
WHEEL_SKINS = frozenset({"hyperos"})
"""The skins whose Clock sets a time with wheels on the alarm's page (HyperOS's DeskClock
bundles ``miuix.pickerwidget``), not with AOSP's dialog."""

Values = dict[str, Any]


def overlay(ctx: AppContext) -> Mapping[str, Any]:
    """The app's overlay for reading (``ctx.data`` would create one: renders stay pure)."""
    return ctx.state.apps.get(ctx.app.id) or ctx.app.initial_overlay()


def selected_tab(ctx: AppContext) -> str:
    """The tab on show."""
    tab = ctx.route.params.get("tab")
    return tab if isinstance(tab, str) and tab in TABS else "alarm"


def _dialog(ctx: AppContext) -> Mapping[str, Any] | None:
    dialog = ctx.route.params.get("dialog")
    return dialog if isinstance(dialog, dict) else None


def _alarm(ctx: AppContext, alarm: Mapping[str, Any], expanded: int | None) -> Values:
    shown = time_text(
        ctx.now().replace(hour=alarm["hour"], minute=alarm["minute"]),
        ctx.lang,
        is_24_hour(ctx.settings),
    )
    short, full = day_names(ctx.lang, "weekday_initials"), day_names(ctx.lang, "weekdays")
    days = [
        {"day": d, "text": short[d], "desc": full[d], "checked": d in alarm["days"]}
        for d in range(7)
    ]
    return {
        "id": alarm["id"],
        "time": shown,
        "desc": ctx.t("alarm_desc", time=shown),
        "label": alarm["label"],
        "summary": repeat_summary(alarm, ctx.now(), ctx.lang, ctx.t),
        "enabled": alarm["enabled"],
        "expanded": alarm["id"] == expanded,
        "days": days,
    }


def alarm_values(ctx: AppContext) -> Values:
    """The Alarm tab: the alarms by time of day, the label dialog, the Undo snackbar."""
    expanded = ctx.route.params.get("expanded")
    alarms = alarm_rows(ctx.world, overlay(ctx))
    dialog = _dialog(ctx)
    label = None
    if dialog and dialog.get("name") == "label":
        label = {
            "key": LABEL_KEY,
            "value": ctx.field(LABEL_KEY),
            "focused": ctx.state.ui.focus == LABEL_KEY,
        }
    return {
        "alarms": [_alarm(ctx, a, expanded if isinstance(expanded, int) else None) for a in alarms],
        "label_dialog": label,
        "snackbar": ctx.route.params.get("deleted") is not None,
    }


def clock_values(ctx: AppContext) -> Values:
    """The Clock tab: the phone's time and date, then each world clock."""
    now, twenty_four = ctx.now(), is_24_hour(ctx.settings)
    rows = []
    for city in selected_cities(ctx.world, overlay(ctx)):
        there = city_time(city, ctx.os.clock_ms, TIME_ZONE)
        rows.append(
            {
                "id": city.id,
                "name": city.name(ctx.lang),
                "time": time_text(there.local, ctx.lang, twenty_four),
                "line": world_line(there, ctx.t),
            }
        )
    dialog = _dialog(ctx)
    remove = None
    if dialog and dialog.get("name") == "remove_city":
        name = next((r["name"] for r in rows if r["id"] == dialog.get("id")), None)
        if name is not None:
            remove = {"id": dialog["id"], "title": ctx.t("remove_city_title", city=name)}
    return {
        "now_time": time_text(now, ctx.lang, twenty_four),
        "now_date": date_header(now.date(), ctx.lang),
        "cities": rows,
        "remove": remove,
    }


def timer_values(ctx: AppContext) -> Values:
    """The Timer tab: the keypad while setting, else the countdown and its buttons."""
    timer = clock_state(overlay(ctx)).timer or TimerState()
    if timer.duration_ms is None:
        hours, minutes, seconds = input_parts(timer.input)
        return {
            "setting": True,
            "parts": [
                {"value": f"{hours:02d}", "unit": ctx.t("hours_unit"), "rid": "hours"},
                {"value": f"{minutes:02d}", "unit": ctx.t("minutes_unit"), "rid": "minutes"},
                {"value": f"{seconds:02d}", "unit": ctx.t("seconds_unit"), "rid": "seconds"},
            ],
            "can_start": bool(timer.input.strip("0")),
        }
    left = timer_left(timer, ctx.os.clock_ms)
    running = timer.since is not None
    return {
        "setting": False,
        "left": timer_text(left),
        "running": running and left > 0,
        "done": left == 0,
    }


def stopwatch_values(ctx: AppContext) -> Values:
    """The Stopwatch tab: the time run, its buttons, the laps newest first."""
    watch = clock_state(overlay(ctx)).stopwatch or StopwatchState()
    elapsed = stopwatch_elapsed(watch, ctx.os.clock_ms)
    laps = list(watch.laps)
    rows = []
    for index, total in enumerate(laps):
        previous = laps[index - 1] if index else 0
        rows.append(
            {
                "name": ctx.t("lap_n", n=index + 1),
                "lap": stopwatch_text(total - previous),
                "total": stopwatch_text(total),
            }
        )
    return {
        "elapsed": stopwatch_text(elapsed),
        "running": watch.since is not None,
        "started": elapsed > 0 or watch.since is not None,
        "laps": list(reversed(rows)),
    }


def _span(minutes: int, ctx: AppContext) -> str:
    """``13 h 5 min`` / ``13小时5分钟``, ``1 d``, ``5 min``: the parts that are not zero."""
    days, rest = divmod(minutes, 24 * 60)
    hours, minutes = divmod(rest, 60)
    parts = [(days, "span_days"), (hours, "span_hours"), (minutes, "span_minutes")]
    shown = [ctx.t(key, n=n) for n, key in parts if n] or [ctx.t("span_minutes", n=0)]
    return ctx.t("span_sep").join(shown)


def editor_values(ctx: AppContext, picker: Mapping[str, Any]) -> Values:
    """The add/edit-alarm page of a wheel skin: its title, and when the time the wheels show
    would ring (the alarm's own repeat days honoured)."""
    state = ctx.route.params.get(PICKER_PARAM)
    target = str(state.get("target")) if isinstance(state, dict) else NEW_ALARM
    alarm = None if target == NEW_ALARM else get_alarm(ctx.world, overlay(ctx), int(target))
    picked, now = picker["time"], ctx.now()
    days = alarm["days"] if alarm is not None else []
    ring = next_trigger({"hour": picked.hour, "minute": picked.minute, "days": days}, now)
    minutes = -(-int((ring - now).total_seconds()) // 60)  # a part of a minute is one
    return {
        "title": ctx.t("add_alarm_title" if alarm is None else "edit_alarm_title"),
        "subtitle": ctx.t("rings_in", span=_span(minutes, ctx)),
    }


def main_values(ctx: AppContext) -> Values:
    """Everything ``main.html`` shows: the tabs and the tab on show; under a wheel skin with
    the time picker open, the alarm's page (``editor``)."""
    tab = selected_tab(ctx)
    builders = {
        "alarm": alarm_values,
        "clock": clock_values,
        "timer": timer_values,
        "stopwatch": stopwatch_values,
    }
    wheels = ctx.skin in WHEEL_SKINS
    picker = picker_view(ctx, wheels=wheels)
    editor = None
    if wheels and picker is not None and picker["kind"] == "time":
        editor = editor_values(ctx, picker)
    return {
        "tab": tab,
        "tabs": [{"id": name, "label": ctx.t(f"tab_{name}")} for name in TABS],
        "picker": picker,
        "editor": editor,
        **builders[tab](ctx),
    }


def cities_values(ctx: AppContext) -> Values:
    """The city list: the search box and the matching cities, the chosen ones checked."""
    query = ctx.field(CITY_SEARCH_KEY)
    chosen = {c.id for c in selected_cities(ctx.world, overlay(ctx))}
    found = search_cities(query)
    return {
        "key": CITY_SEARCH_KEY,
        "query": query,
        "focused": ctx.state.ui.focus == CITY_SEARCH_KEY,
        "rows": [{"id": c.id, "name": c.name(ctx.lang), "checked": c.id in chosen} for c in found],
    }
