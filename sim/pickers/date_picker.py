"""The date picker dialog's state and what it shows (pure functions, no page, no clock).

The state is a plain dict kept in the route's params (UI state, part of snapshots)::

    {"kind": "date", "target": "start", "selected": "2026-05-12", "year": 2026, "month": 5}

``target`` is the caller's name for the value being picked; ``year``/``month`` the month on
show (the arrows move it without changing the selection). The grid starts on Sunday, as
AOSP's picker does in the en-US and zh-CN locales; days of other months are blank cells.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, timedelta
from typing import Any

from sim.pickers.formats import (
    date_header,
    day_description,
    month_title,
    picker_strings,
    weekday_initials,
)

__all__ = ["date_state", "date_view", "month_grid", "select_day", "selected_date", "shift_month"]

_SUNDAY = 6


def date_state(target: str, value: date) -> dict[str, Any]:
    """A fresh picker for ``target`` showing ``value``'s month with ``value`` selected."""
    return {
        "kind": "date",
        "target": target,
        "selected": value.isoformat(),
        "year": value.year,
        "month": value.month,
    }


def selected_date(state: Mapping[str, Any]) -> date:
    """The day the picker has selected."""
    return date.fromisoformat(str(state["selected"]))


def shift_month(state: dict[str, Any], months: int) -> None:
    """Show the month ``months`` away (negative: earlier); the selection stays."""
    index = int(state["year"]) * 12 + int(state["month"]) - 1 + months
    state["year"], state["month"] = divmod(index, 12)
    state["month"] += 1


def select_day(state: dict[str, Any], day: date) -> None:
    """Select ``day`` (a tap on its cell) and show its month."""
    state.update(selected=day.isoformat(), year=day.year, month=day.month)


def month_grid(year: int, month: int, first_weekday: int = _SUNDAY) -> list[list[date | None]]:
    """Six weeks of the month: each row seven cells, days of other months as None."""
    first = date(year, month, 1)
    start = first - timedelta(days=(first.weekday() - first_weekday) % 7)
    cells = [start + timedelta(days=i) for i in range(42)]
    return [
        [day if day.month == month else None for day in cells[row * 7 : row * 7 + 7]]
        for row in range(6)
    ]


def date_view(state: Mapping[str, Any], lang: str, today: date) -> dict[str, Any]:
    """Everything ``pickers.html``'s ``date_picker`` macro lays out."""
    strings = picker_strings(lang)
    selected = selected_date(state)
    year, month = int(state["year"]), int(state["month"])
    weeks = [
        [
            None
            if day is None
            else {
                "day": day.day,
                "date": day.isoformat(),
                "desc": day_description(day, lang),
                "selected": day == selected,
                "today": day == today,
            }
            for day in week
        ]
        for week in month_grid(year, month)
    ]
    return {
        "year": selected.year,
        "header": date_header(selected, lang),
        "month_title": month_title(year, month, lang),
        "weekdays": weekday_initials(lang),
        "weeks": [week for week in weeks if any(week)],
        "prev_desc": strings["prev_month"],
        "next_desc": strings["next_month"],
        "ok": strings["ok"],
        "cancel": strings["cancel"],
    }
