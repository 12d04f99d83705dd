"""Times on the phone's own clock: a spec's LocalTime means the phone's today in its zone,
with the zone's DST; all-day days are UTC midnights; epoch ms said as dates and times."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bridge.errors import EnvError
from bridge.phone_time import local_ms, say_time
from bridge.spec.clock import LocalTime


def _ms(text: str) -> int:
    return int(datetime.fromisoformat(text).timestamp() * 1000)


def test_a_local_time_is_relative_to_the_phones_today_in_its_zone() -> None:
    now = _ms("2026-05-12T23:30:00+08:00")  # still the 12th in Shanghai, the 12th in UTC too
    assert local_ms(now, "Asia/Shanghai", LocalTime(days=2, at="14:00")) == _ms(
        "2026-05-14T14:00:00+08:00"
    )
    # the same instant is already the 13th in Tokyo: "in two days" is the 15th there
    assert local_ms(now, "Asia/Tokyo", LocalTime(days=2, at="09:05")) == _ms(
        "2026-05-15T09:05:00+09:00"
    )
    assert local_ms(now, "Asia/Shanghai", LocalTime()) == _ms("2026-05-12T00:00:00+08:00")


def test_dst_is_the_zones_own_and_all_day_is_utc_midnight() -> None:
    now = _ms("2026-03-28T12:00:00+00:00")  # London switches to BST on the 29th
    before = local_ms(now, "Europe/London", LocalTime(days=0, at="10:00"))
    after = local_ms(now, "Europe/London", LocalTime(days=1, at="10:00"))
    assert after - before == 23 * 3600 * 1000
    day = local_ms(now, "Europe/London", LocalTime(days=1, at="10:00"), all_day=True)
    assert day == int(datetime(2026, 3, 29, tzinfo=UTC).timestamp() * 1000)


def test_epoch_ms_said_as_people_say_it_and_bad_input() -> None:
    ms = _ms("2026-05-14T14:05:00+08:00")
    assert say_time(ms, "Asia/Shanghai", "local_time") == "14:05"
    assert say_time(str(ms), "Asia/Shanghai", "local_date") == "2026-05-14"
    assert say_time(_ms("2026-05-14T00:00:00+00:00"), "America/New_York", "utc_date") == (
        "2026-05-14"
    )
    assert say_time("NULL", "Asia/Shanghai", "local_time") is None
    with pytest.raises(EnvError, match="Mars/Olympus"):
        local_ms(ms, "Mars/Olympus", LocalTime())
    with pytest.raises(ValueError, match="pattern"):
        LocalTime(at="25:00")
