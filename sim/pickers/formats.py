"""Dates and times written the way a phone writes them, in English and Chinese.

Shared by the pickers and by every app that shows a date or a clock time (Calendar,
Clock). The words and patterns are data (``sim/pickers/strings.json``); the 12- or 24-hour
clock follows Android's ``system.time_12_24`` setting (``12``: 12-hour, anything else:
24-hour, as the status bar reads it). Nothing here reads a clock: callers pass the date.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import date, datetime, time
from functools import cache
from importlib import resources
from typing import Any

__all__ = [
    "date_header",
    "date_long",
    "date_medium",
    "day_description",
    "is_24_hour",
    "month_title",
    "picker_strings",
    "time_range",
    "time_text",
    "weekday_initials",
]


@cache
def picker_strings(lang: str) -> Mapping[str, str]:
    """The pickers' and formats' strings in ``lang`` (English when there are none)."""
    text = resources.files("sim.pickers").joinpath("strings.json").read_text("utf-8")
    table: dict[str, dict[str, str]] = json.loads(text)
    return table.get(lang) or table["en"]


def _words(lang: str, key: str) -> list[str]:
    return picker_strings(lang)[key].split(",")


def is_24_hour(settings: Mapping[str, Mapping[str, Any]]) -> bool:
    """Whether the phone shows a 24-hour clock (``settings system time_12_24`` is not 12)."""
    return str(settings.get("system", {}).get("time_12_24", "24")) != "12"


def _date_values(day: date, lang: str) -> dict[str, object]:
    return {
        "weekday": _words(lang, "weekdays")[day.weekday()],
        "weekday_short": _words(lang, "weekdays_short")[day.weekday()],
        "month": _words(lang, "months")[day.month - 1],
        "month_short": _words(lang, "months_short")[day.month - 1],
        "month_num": day.month,
        "day": day.day,
        "year": day.year,
    }


def _format(key: str, day: date, lang: str) -> str:
    return picker_strings(lang)[key].format(**_date_values(day, lang))


def date_long(day: date, lang: str) -> str:
    """``Tuesday, May 12, 2026`` / ``2026年5月12日星期二``."""
    return _format("date_long", day, lang)


def date_medium(day: date, lang: str) -> str:
    """``Tue, May 12, 2026`` / ``2026年5月12日 周二``."""
    return _format("date_medium", day, lang)


def date_header(day: date, lang: str) -> str:
    """``Tue, May 12`` / ``5月12日 周二`` (the date picker's header, list headers)."""
    return _format("date_header", day, lang)


def day_description(day: date, lang: str) -> str:
    """``12 May 2026`` / ``2026年5月12日``: the content-desc of a day in a month grid."""
    return _format("day_desc", day, lang)


def month_title(year: int, month: int, lang: str) -> str:
    """``May 2026`` / ``2026年5月``."""
    return _format("month_title", date(year, month, 1), lang)


def weekday_initials(lang: str, first_weekday: int = 6) -> list[str]:
    """Column heads of a month grid starting on ``first_weekday`` (0 Monday … 6 Sunday)."""
    initials = _words(lang, "weekday_initials")
    return [initials[(first_weekday + i) % 7] for i in range(7)]


def time_text(moment: time | datetime, lang: str, twenty_four: bool) -> str:
    """``09:05`` (24-hour) or ``9:05 AM`` / ``上午9:05`` (12-hour)."""
    minute = f"{moment.minute:02d}"
    strings = picker_strings(lang)
    if twenty_four:
        return strings["time_24"].format(h=f"{moment.hour:02d}", m=minute)
    key = "time_pm" if moment.hour >= 12 else "time_am"
    return strings[key].format(h=(moment.hour % 12) or 12, m=minute)


def time_range(start: str, end: str, lang: str) -> str:
    """Two already formatted times as a range: ``10:00 – 11:00``."""
    return picker_strings(lang)["time_range"].format(start=start, end=end)
