"""World clocks: the city catalogue, the cities chosen, and each one's time and offset.

Every city has an IANA zone, and its time is that zone's own at the instance's clock
(daylight saving included, as on a phone: never a fixed offset). The phone's own zone is
:data:`sim.state.TIME_ZONE`. The overlay keeps the chosen cities as ``"cities": [ids]``
(absent: the world's ``cities`` list), in the order they were added.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any
from zoneinfo import ZoneInfo

from sim.apps.clock.state import clock_state

__all__ = [
    "CITIES",
    "City",
    "CityTime",
    "city_time",
    "find_city",
    "search_cities",
    "selected_cities",
    "set_selected",
]


@dataclass(frozen=True)
class City:
    """A city of the picker: id, names in English and Chinese, IANA zone."""

    id: str
    en: str
    zh: str
    zone: str

    def name(self, lang: str) -> str:
        """The city's name in ``lang``."""
        return self.zh if lang == "zh" else self.en


CITIES: tuple[City, ...] = tuple(
    City(*fields)
    for fields in (
        ("amsterdam", "Amsterdam", "阿姆斯特丹", "Europe/Amsterdam"),
        ("auckland", "Auckland", "奥克兰", "Pacific/Auckland"),
        ("bangkok", "Bangkok", "曼谷", "Asia/Bangkok"),
        ("beijing", "Beijing", "北京", "Asia/Shanghai"),
        ("berlin", "Berlin", "柏林", "Europe/Berlin"),
        ("cairo", "Cairo", "开罗", "Africa/Cairo"),
        ("chicago", "Chicago", "芝加哥", "America/Chicago"),
        ("dubai", "Dubai", "迪拜", "Asia/Dubai"),
        ("hong_kong", "Hong Kong", "香港", "Asia/Hong_Kong"),
        ("honolulu", "Honolulu", "檀香山", "Pacific/Honolulu"),
        ("kolkata", "Kolkata", "加尔各答", "Asia/Kolkata"),
        ("london", "London", "伦敦", "Europe/London"),
        ("los_angeles", "Los Angeles", "洛杉矶", "America/Los_Angeles"),
        ("madrid", "Madrid", "马德里", "Europe/Madrid"),
        ("moscow", "Moscow", "莫斯科", "Europe/Moscow"),
        ("new_york", "New York", "纽约", "America/New_York"),
        ("paris", "Paris", "巴黎", "Europe/Paris"),
        ("rome", "Rome", "罗马", "Europe/Rome"),
        ("sao_paulo", "São Paulo", "圣保罗", "America/Sao_Paulo"),
        ("seoul", "Seoul", "首尔", "Asia/Seoul"),
        ("singapore", "Singapore", "新加坡", "Asia/Singapore"),
        ("sydney", "Sydney", "悉尼", "Australia/Sydney"),
        ("tokyo", "Tokyo", "东京", "Asia/Tokyo"),
        ("toronto", "Toronto", "多伦多", "America/Toronto"),
        ("vancouver", "Vancouver", "温哥华", "America/Vancouver"),
    )
)
"""The cities a user can add, alphabetical by English name."""
_BY_ID = {city.id: city for city in CITIES}


def find_city(city_id: str) -> City | None:
    """A catalogue city by id."""
    return _BY_ID.get(city_id)


def selected_cities(world: Mapping[str, Any], overlay: Mapping[str, Any]) -> list[City]:
    """The world clocks on the Clock tab, in the order they were added."""
    ids = clock_state(overlay).cities
    if ids is None:
        ids = world.get("cities", [])
    return [city for city_id in ids if (city := find_city(str(city_id))) is not None]


def set_selected(overlay: dict[str, Any], cities: list[City]) -> None:
    """Store the chosen cities."""
    overlay["cities"] = [city.id for city in cities]


def search_cities(query: str) -> list[City]:
    """Catalogue cities whose English or Chinese name contains ``query`` (case-blind)."""
    needle = query.strip().casefold()
    return [c for c in CITIES if needle in c.en.casefold() or needle in c.zh.casefold()]


@dataclass(frozen=True)
class CityTime:
    """A city's wall time and how it stands to the phone's."""

    local: datetime
    """The city's naive wall time."""
    offset_minutes: int
    """The city's UTC offset minus the phone's, in minutes (DST of both applied)."""
    day_delta: int
    """The city's date minus the phone's: -1 yesterday, 0 today, 1 tomorrow."""


def _utc(now_ms: int) -> datetime:
    return datetime(1970, 1, 1, tzinfo=timezone.utc) + timedelta(milliseconds=now_ms)


def city_time(city: City, now_ms: int, home_zone: str) -> CityTime:
    """``city``'s time at epoch ``now_ms`` against the phone's zone ``home_zone``."""
    instant = _utc(now_ms)
    there = instant.astimezone(ZoneInfo(city.zone))
    here = instant.astimezone(ZoneInfo(home_zone))
    offset = (there.utcoffset() or timedelta()) - (here.utcoffset() or timedelta())
    return CityTime(
        local=there.replace(tzinfo=None),
        offset_minutes=int(offset.total_seconds() // 60),
        day_delta=(there.date() - here.date()).days,
    )
