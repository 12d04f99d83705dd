"""Clock text: an alarm's repeat summary and a world clock's day and offset, in the UI's
language. Pure: strings come through ``t`` (the app's strings), "now" is passed in."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

from sim.apps.clock.alarms import EVERY_DAY, WEEKDAYS, WEEKEND, next_trigger
from sim.apps.clock.cities import CityTime
from sim.pickers.formats import picker_strings

__all__ = ["day_names", "offset_text", "repeat_summary", "world_line"]

Strings = Callable[..., str]


def day_names(lang: str, key: str = "weekdays_short") -> list[str]:
    """Weekday names Monday first (``weekdays_short``: Mon / 周一; ``weekdays``: full)."""
    return picker_strings(lang)[key].split(",")


def repeat_summary(alarm: Mapping[str, Any], now: datetime, lang: str, t: Strings) -> str:
    """What the row says under the time: ``Every day``, ``Weekdays``, ``Weekends``,
    ``Mon, Wed`` for a repeating alarm; ``Today`` / ``Tomorrow`` for a one-time alarm that
    is on (when it will ring), ``Not scheduled`` for one that is off."""
    days = tuple(alarm.get("days") or ())
    if days == EVERY_DAY:
        return t("every_day")
    if days == WEEKDAYS:
        return t("weekdays")
    if days == WEEKEND:
        return t("weekends")
    if days:
        names = day_names(lang)
        return t("days_sep").join(names[d] for d in days)
    if not alarm.get("enabled"):
        return t("not_scheduled")
    ring = next_trigger(alarm, now)
    return t("today") if ring.date() == now.date() else t("tomorrow")


def offset_text(minutes: int, t: Strings) -> str:
    """``+6 hrs``, ``−13 hrs``, ``+1 hr``, ``−2 hrs 30 mins``, or ``Same time``."""
    if minutes == 0:
        return t("same_time")
    ahead = minutes > 0
    hours, mins = divmod(abs(minutes), 60)
    if mins:
        return t("hm_ahead" if ahead else "hm_behind", h=hours, m=mins)
    if hours == 1:
        return t("hour_ahead" if ahead else "hour_behind")
    return t("hours_ahead" if ahead else "hours_behind", h=hours)


def world_line(city: CityTime, t: Strings) -> str:
    """A world clock's second line: ``Tomorrow, +6 hrs`` / ``今天，−7小时``."""
    day = {-1: "yesterday", 0: "today", 1: "tomorrow"}.get(city.day_delta, "today")
    return t("city_offset", day=t(day), offset=offset_text(city.offset_minutes, t))
