"""The Clock app without a browser: alarms and their order, repeat summaries, the next
alarm, world-clock offsets (DST included) in both languages, timer and stopwatch maths."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

import pytest

from sim.android_state import SimAndroidState, next_alarm_clock
from sim.app import Event
from sim.apps.clock import ClockApp
from sim.apps.clock.alarms import (
    alarm_rows,
    delete_alarm,
    next_alarm_ms,
    next_trigger,
    put_alarm,
    trigger_ms,
)
from sim.apps.clock.cities import CITIES, city_time, find_city, search_cities
from sim.apps.clock.labels import offset_text, repeat_summary, world_line
from sim.apps.clock.timers import (
    input_ms,
    input_parts,
    stopwatch_elapsed,
    stopwatch_text,
    timer_left,
    timer_text,
)
from sim.phone import Phone
from sim.simulator import installed_apps
from sim.state import DEFAULT_CLOCK_MS, TIME_ZONE, InstanceState

TUESDAY_0930 = datetime(2026, 5, 12, 9, 30)
"""The instance clock's default, as the phone's local time (a Tuesday)."""
SHANGHAI = "Asia/Shanghai"


def _strings(lang: str) -> Callable[..., str]:
    """The app's ``t`` for a language."""
    table = ClockApp().strings(lang)
    return lambda key, **values: table[key].format(**values) if values else table[key]


def _ms(moment: datetime) -> int:
    """Epoch ms of a local wall time of the phone (UTC+8)."""
    return DEFAULT_CLOCK_MS + int((moment - TUESDAY_0930).total_seconds() * 1000)


# ---- alarms


def test_world_alarms_are_sorted_by_time_of_day_and_new_ids_continue() -> None:
    app = ClockApp()
    overlay = app.initial_overlay()
    rows = alarm_rows(app.world, overlay)
    times = [(a["hour"], a["minute"]) for a in rows]
    assert times == [(6, 30), (7, 45), (9, 0), (13, 30), (22, 30)]
    assert {a["label"] for a in rows} >= {"起床", "Gym"}
    new = put_alarm(app.world, overlay, {"hour": 5, "minute": 5})
    assert new["id"] == 6 and new["enabled"] and new["days"] == []
    assert alarm_rows(app.world, overlay)[0]["id"] == 6
    delete_alarm(overlay, 6)
    delete_alarm(overlay, 1)
    assert put_alarm(app.world, overlay, {"hour": 1, "minute": 0})["id"] == 7  # never reused
    assert 1 not in {a["id"] for a in alarm_rows(app.world, overlay)}


def test_repeat_summaries_in_english_and_chinese() -> None:
    en, zh = _strings("en"), _strings("zh")

    def both(days: list[int], enabled: bool = True, hour: int = 8) -> tuple[str, str]:
        alarm = {"hour": hour, "minute": 0, "days": days, "enabled": enabled}
        return (
            repeat_summary(alarm, TUESDAY_0930, "en", en),
            repeat_summary(alarm, TUESDAY_0930, "zh", zh),
        )

    assert both(list(range(7))) == ("Every day", "每天")
    assert both([0, 1, 2, 3, 4]) == ("Weekdays", "工作日")
    assert both([5, 6]) == ("Weekends", "周末")
    assert both([0, 2]) == ("Mon, Wed", "周一、周三")
    assert both([], hour=8) == ("Tomorrow", "明天")  # 08:00 has passed at 09:30
    assert both([], hour=10) == ("Today", "今天")
    assert both([], enabled=False) == ("Not scheduled", "未安排")


def test_next_trigger_honours_repeat_days() -> None:
    at = {"hour": 9, "minute": 30, "days": []}
    assert next_trigger(at, TUESDAY_0930) == datetime(2026, 5, 13, 9, 30)  # strictly after now
    assert next_trigger({**at, "minute": 31}, TUESDAY_0930) == datetime(2026, 5, 12, 9, 31)
    monday = {"hour": 7, "minute": 0, "days": [0]}
    assert next_trigger(monday, TUESDAY_0930) == datetime(2026, 5, 18, 7, 0)
    tuesday_early = {"hour": 7, "minute": 0, "days": [1]}
    assert next_trigger(tuesday_early, TUESDAY_0930) == datetime(2026, 5, 19, 7, 0)
    weekend = {"hour": 9, "minute": 0, "days": [5, 6]}
    assert next_trigger(weekend, TUESDAY_0930) == datetime(2026, 5, 16, 9, 0)
    assert trigger_ms(weekend, DEFAULT_CLOCK_MS, SHANGHAI) == _ms(datetime(2026, 5, 16, 9, 0))


def test_next_alarm_is_the_soonest_enabled_one_or_none() -> None:
    alarms = [
        {"hour": 10, "minute": 0, "days": [], "enabled": False},  # sooner, but off
        {"hour": 7, "minute": 0, "days": [2], "enabled": True},  # Wednesday 07:00
        {"hour": 23, "minute": 0, "days": [5], "enabled": True},  # Saturday
    ]
    assert next_alarm_ms(alarms, DEFAULT_CLOCK_MS, SHANGHAI) == _ms(datetime(2026, 5, 13, 7, 0))
    off = [a | {"enabled": False} for a in alarms]
    assert next_alarm_ms(off, DEFAULT_CLOCK_MS, SHANGHAI) is None
    assert next_alarm_ms([], DEFAULT_CLOCK_MS, SHANGHAI) is None


@pytest.mark.asyncio
async def test_sim_android_state_next_alarm_follows_the_clock_app() -> None:
    phone, state = Phone(installed_apps()), InstanceState()
    android = SimAndroidState(phone, state)
    assert await android.next_alarm() == _ms(datetime(2026, 5, 12, 22, 30))  # the one-time 22:30
    app = phone.apps["clock"]
    overlay = state.apps.setdefault("clock", app.initial_overlay())
    alarm5 = next(a for a in alarm_rows(app.world, overlay) if a["id"] == 5)
    put_alarm(app.world, overlay, {**alarm5, "enabled": False})
    # next: the weekday 06:30 on Wednesday
    assert await android.next_alarm() == _ms(datetime(2026, 5, 13, 6, 30))
    for alarm in alarm_rows(app.world, overlay):
        put_alarm(app.world, overlay, {**alarm, "enabled": False})
    assert next_alarm_clock(phone, state) is None
    state.os.clock_ms += 1  # still none: nothing on
    assert await android.next_alarm() is None


# ---- world clocks


def test_world_clock_offsets_use_each_zones_own_dst() -> None:
    en, zh = _strings("en"), _strings("zh")
    london, new_york = find_city("london"), find_city("new_york")
    assert london is not None and new_york is not None
    summer = city_time(london, DEFAULT_CLOCK_MS, TIME_ZONE)  # May: British Summer Time
    assert (summer.offset_minutes, summer.day_delta) == (-7 * 60, 0)
    assert summer.local == datetime(2026, 5, 12, 2, 30)
    winter_ms = _ms(datetime(2026, 1, 13, 9, 30))
    assert city_time(london, winter_ms, TIME_ZONE).offset_minutes == -8 * 60  # GMT
    nyc = city_time(new_york, DEFAULT_CLOCK_MS, TIME_ZONE)  # EDT: 21:30 the day before
    assert (nyc.offset_minutes, nyc.day_delta) == (-12 * 60, -1)
    assert world_line(nyc, en) == "Yesterday, −12 hrs"
    assert world_line(nyc, zh) == "昨天，−12小时"
    # March 2026: the US is on daylight time (from the 8th), Europe not yet (the 29th)
    march_ms = _ms(datetime(2026, 3, 20, 9, 30))
    paris = find_city("paris")
    assert paris is not None
    gap = (
        city_time(paris, march_ms, TIME_ZONE).offset_minutes
        - city_time(new_york, march_ms, TIME_ZONE).offset_minutes
    )
    assert gap == 5 * 60  # 6 h the rest of the year
    auckland = city_time(find_city("auckland"), DEFAULT_CLOCK_MS, TIME_ZONE)  # type: ignore[arg-type]
    assert world_line(auckland, en) == "Today, +4 hrs"
    kolkata = city_time(find_city("kolkata"), DEFAULT_CLOCK_MS, TIME_ZONE)  # type: ignore[arg-type]
    assert world_line(kolkata, en) == "Today, −2 hrs 30 mins"
    assert world_line(kolkata, zh) == "今天，−2小时30分钟"
    assert offset_text(60, en) == "+1 hr" and offset_text(0, zh) == "时间相同"
    tokyo = city_time(find_city("tokyo"), _ms(datetime(2026, 5, 12, 23, 30)), TIME_ZONE)  # type: ignore[arg-type]
    assert world_line(tokyo, en) == "Tomorrow, +1 hr"


def test_city_search_matches_english_and_chinese_names() -> None:
    assert [c.id for c in search_cities("york")] == ["new_york"]
    assert [c.id for c in search_cities("东京")] == ["tokyo"]
    assert len(search_cities("")) == len(CITIES)
    assert search_cities("atlantis") == []


# ---- timer and stopwatch


def test_timer_keypad_and_countdown() -> None:
    assert input_parts("130") == (0, 1, 30) and input_ms("130") == 90_000
    assert input_parts("12345") == (1, 23, 45)
    assert input_ms("90") == 90_000  # 90 seconds carry
    timer = {"duration_ms": 90_000, "left_ms": 90_000, "since": 1_000}
    assert timer_left(timer, 1_000) == 90_000
    assert timer_left(timer, 31_500) == 59_500 and timer_text(59_500) == "01:00"
    assert timer_left(timer, 200_000) == 0 and timer_text(0) == "00:00"
    assert timer_left({"left_ms": 5_000, "since": None}, 10**9) == 5_000  # paused
    assert timer_text(3_725_000) == "1:02:05"


def test_stopwatch_elapsed_and_text() -> None:
    watch = {"total_ms": 2_500, "since": 10_000}
    assert stopwatch_elapsed(watch, 12_340) == 4_840 and stopwatch_text(4_840) == "00:04.84"
    assert stopwatch_elapsed({"total_ms": 2_500, "since": None}, 99_999) == 2_500
    assert stopwatch_text(3_723_450) == "1:02:03.45"


def test_timer_and_stopwatch_handlers_run_on_the_instance_clock() -> None:
    """Handlers through an app context of a bare state: the values move only with the clock."""
    from sim.app import AppContext
    from sim.state import AppTask

    app, state = ClockApp(), InstanceState()
    state.os.tasks = [AppTask(app="clock")]
    state.os.foreground = "clock"
    ctx = AppContext(app, state, lambda template, values, skin="aosp": "")
    for digit in "0130":
        app.handle(ctx, Event("tap", "timer_digit", {"d": digit}))
    assert ctx.data["timer"]["input"] == "130"
    app.handle(ctx, Event("tap", "timer_start"))
    state.os.clock_ms += 30_000
    app.handle(ctx, Event("tap", "timer_pause"))
    assert ctx.data["timer"]["left_ms"] == 60_000
    state.os.clock_ms += 10**6  # paused: no change
    assert timer_left(ctx.data["timer"], state.os.clock_ms) == 60_000
    app.handle(ctx, Event("tap", "stopwatch_start"))
    state.os.clock_ms += 1_230
    app.handle(ctx, Event("tap", "stopwatch_lap"))
    state.os.clock_ms += 770
    app.handle(ctx, Event("tap", "stopwatch_pause"))
    assert ctx.data["stopwatch"] == {"since": None, "laps": [1_230], "total_ms": 2_000}
    app.handle(ctx, Event("tap", "stopwatch_reset"))
    assert ctx.data["stopwatch"] == {}
