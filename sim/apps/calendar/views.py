"""The calendar views of ``/`` (AOSP's AllInOneActivity): month, day and agenda.

The route's params say what is on show: ``view`` (``month``, the default, ``day`` or
``agenda``) and ``day`` (the selected day, ISO; default today by the instance's clock).
Each ``*_values`` function returns exactly what ``main.html`` lays out; nothing here
changes the state (renders are pure).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date, timedelta
from typing import Any

from sim.app import AppContext
from sim.apps.calendar.labels import day_title, event_title, row_time
from sim.apps.calendar.model import agenda, day_events, table_rows, visible_events
from sim.apps.calendar.times import event_days
from sim.pickers.formats import date_long, day_description, month_title, weekday_initials

__all__ = ["VIEWS", "main_values", "overlay", "selected_day", "selected_view", "today"]

VIEWS = ("day", "month", "agenda")
"""The view switcher's entries, in the order it shows them."""
_DEFAULT_COLOR = "#1f6feb"

Values = dict[str, Any]


def overlay(ctx: AppContext) -> Mapping[str, Any]:
    """The app's overlay for reading (``ctx.data`` would create one: renders stay pure)."""
    return ctx.state.apps.get(ctx.app.id) or ctx.app.initial_overlay()


def today(ctx: AppContext) -> date:
    """The phone's date now."""
    return ctx.now().date()


def selected_day(ctx: AppContext) -> date:
    """The day the views are on (the route's ``day``, else today)."""
    value = ctx.route.params.get("day")
    return date.fromisoformat(value) if isinstance(value, str) else today(ctx)


def selected_view(ctx: AppContext) -> str:
    """``month``, ``day`` or ``agenda``."""
    value = ctx.route.params.get("view")
    return value if isinstance(value, str) and value in VIEWS else "month"


def _colors(ctx: AppContext) -> dict[int, str]:
    """CSS colour of each calendar (``calendar_color`` is a signed ARGB int)."""
    rows = table_rows(ctx.world, overlay(ctx), "calendars")
    return {c["_id"]: f"#{int(c['calendar_color']) & 0xFFFFFF:06x}" for c in rows}


def _row(ctx: AppContext, event: Mapping[str, Any], colors: Mapping[int, str]) -> Values:
    return {
        "id": event["_id"],
        "title": event_title(ctx, event),
        "time": row_time(ctx, event),
        "location": event.get("eventLocation") or "",
        "color": colors.get(event["calendar_id"], _DEFAULT_COLOR),
    }


def _count(ctx: AppContext, n: int) -> str:
    return ctx.t("one_event") if n == 1 else ctx.t("n_events", n=n)


def _grid_days(day: date) -> list[list[date]]:
    """The weeks (Sunday first) that hold a day of ``day``'s month: five or six rows."""
    first = day.replace(day=1)
    start = first - timedelta(days=(first.weekday() + 1) % 7)
    weeks = [[start + timedelta(days=row * 7 + i) for i in range(7)] for row in range(6)]
    return [week for week in weeks if any(d.month == day.month for d in week)]


def month_values(ctx: AppContext, events: Sequence[Mapping[str, Any]]) -> Values:
    """The month grid: today marked, the selected day outlined, a dot per event (three at
    most) on each day it occupies; days of the months around it greyed."""
    day, now, colors = selected_day(ctx), today(ctx), _colors(ctx)
    weeks = _grid_days(day)
    shown_first, shown_last = weeks[0][0], weeks[-1][-1]
    dots: dict[date, list[str]] = {}
    for event in events:
        first, last = event_days(event)
        cell = max(first, shown_first)
        while cell <= min(last, shown_last):
            dots.setdefault(cell, []).append(colors.get(event["calendar_id"], _DEFAULT_COLOR))
            cell += timedelta(days=1)

    def cell_values(cell: date) -> Values:
        found, desc = dots.get(cell, []), day_description(cell, ctx.lang)
        if found:
            desc = ctx.t("day_desc", date=desc, events=_count(ctx, len(found)))
        return {
            "day": cell.day,
            "date": cell.isoformat(),
            "desc": desc,
            "dots": found[:3],
            "today": cell == now,
            "selected": cell == day,
            "other": cell.month != day.month,
        }

    return {
        "weekdays": weekday_initials(ctx.lang),
        "weeks": [[cell_values(cell) for cell in week] for week in weeks],
    }


def day_values(ctx: AppContext, events: Sequence[Mapping[str, Any]]) -> Values:
    """One day: its all-day events, then its timed ones in order (or "No events")."""
    day, colors = selected_day(ctx), _colors(ctx)
    found = day_events(events, day)
    return {
        "date": date_long(day, ctx.lang),
        "all_day": [_row(ctx, e, colors) for e in found if e["allDay"]],
        "timed": [_row(ctx, e, colors) for e in found if not e["allDay"]],
    }


def agenda_values(ctx: AppContext, events: Sequence[Mapping[str, Any]]) -> Values:
    """Every event from the selected day on, under date headers (or "No events")."""
    now, colors = today(ctx), _colors(ctx)
    groups = [
        {
            "title": day_title(ctx, day, now),
            "date": day.isoformat(),
            "rows": [_row(ctx, e, colors) for e in found],
        }
        for day, found in agenda(events, selected_day(ctx))
    ]
    return {"groups": groups}


def _nav(ctx: AppContext, view: str) -> Values | None:
    """The previous/next arrows and the label between them (none in the agenda)."""
    day = selected_day(ctx)
    if view == "month":
        label = month_title(day.year, day.month, ctx.lang)
        return {"label": label, "prev": ctx.t("prev_month"), "next": ctx.t("next_month")}
    if view == "day":
        label = date_long(day, ctx.lang)
        return {"label": label, "prev": ctx.t("prev_day"), "next": ctx.t("next_day")}
    return None


def main_values(ctx: AppContext) -> Values:
    """Everything ``main.html`` shows: top bar, view switcher, arrows, the view."""
    view, day = selected_view(ctx), selected_day(ctx)
    events = visible_events(ctx.world, overlay(ctx))
    builders = {"month": month_values, "day": day_values, "agenda": agenda_values}
    return {
        "view": view,
        "title": month_title(day.year, day.month, ctx.lang),
        "tabs": [{"id": v, "label": ctx.t(f"view_{v}")} for v in VIEWS],
        "nav": _nav(ctx, view),
        "agenda_from": ctx.t("agenda_from", date=date_long(day, ctx.lang)),
        **builders[view](ctx, events),
    }
