"""``dumpsys alarm``: the virtual phone prints AOSP's next-alarm section from the Clock
app's alarms, and ``AdbAndroidState.next_alarm`` parses it to the simulator's own value."""

from __future__ import annotations

from datetime import datetime

import pytest

from bridge.errors import StateUnavailable
from device.android_state import AdbAndroidState, parse_next_alarm
from device.virtual.commands_alarms import format_duration, format_wall_time
from device.virtual.phone import VirtualPhone
from sim.android_state import SimAndroidState
from sim.apps.clock.alarms import alarm_rows, put_alarm
from sim.simulator import Simulator
from sim.state import DEFAULT_CLOCK_MS
from tests.device.parity import InMemoryShell

ANDROID_14 = "\n".join(
    [
        "Current Alarm Manager state:",
        "  Settings:",
        "    min_futurity=+5s0ms",
        "  nowRTC=1778549400000=2026-05-12 09:30:00.000 nowELAPSED=+3h1m2s3ms",
        "",
        "  Next alarm clock information: ",
        "    user:0 pendingSend:false time:1778623200000 = 2026-05-13 06:00:00.000 = +20h30m0s0ms",
        "    user:10 pendingSend:false time:1778549700000 = 2026-05-12 09:35:00.000 = +5m0s0ms",
        "",
        "  Pending user blocked background alarms: ",
        "    none",
        "",
    ]
)
"""A phone's dump, trimmed (AOSP prints the header with a trailing space)."""


def _ms(moment: datetime) -> int:
    return DEFAULT_CLOCK_MS + int((moment - datetime(2026, 5, 12, 9, 30)).total_seconds() * 1000)


def test_parse_next_alarm_reads_the_users_line() -> None:
    assert parse_next_alarm(ANDROID_14) == 1_778_623_200_000
    assert parse_next_alarm(ANDROID_14, user=10) == 1_778_549_700_000
    assert parse_next_alarm(ANDROID_14, user=11) is None
    unset = ANDROID_14.replace(
        "time:1778623200000 = 2026-05-13 06:00:00.000 = +20h30m0s0ms", "time:0"
    )
    assert parse_next_alarm(unset) is None
    empty = "Current Alarm Manager state:\n  Next alarm clock information: \n\n  Pending\n"
    assert parse_next_alarm(empty) is None
    flat = "Next alarm clock information:\nuser:0 pendingSend:true time:5000 = x\n"
    assert parse_next_alarm(flat) == 5000  # column 0, as some ROMs print it
    with pytest.raises(StateUnavailable, match="Next alarm clock information"):
        parse_next_alarm("Can't find service: alarm\n")


def test_formats_match_aosp() -> None:
    assert format_wall_time(1_778_623_200_000) == "2026-05-13 06:00:00.000"
    assert format_duration(73_800_000) == "+20h30m0s0ms"
    assert format_duration(90_061_001) == "+1d1h1m1s1ms"
    assert format_duration(-5_020) == "-5s20ms" and format_duration(0) == "0"


@pytest.mark.asyncio
async def test_virtual_dumpsys_alarm_parses_to_the_simulators_value() -> None:
    simulator = Simulator()
    virtual = VirtualPhone(simulator, simulator.create_instance(seed=0), serial="VP0ALARM")
    state = virtual.instance.state
    sim = SimAndroidState(simulator.phone, state)
    phone = AdbAndroidState(InMemoryShell(virtual), wait_s=0.0)
    output = await InMemoryShell(virtual)("dumpsys alarm")
    expected = _ms(datetime(2026, 5, 12, 22, 30))
    assert (
        f"  Next alarm clock information: \n    user:0 pendingSend:false time:{expected} = "
        "2026-05-12 22:30:00.000 = +13h0m0s0ms\n"
    ) in output
    assert "      triggerTime=2026-05-12 22:30:00.000\n" in output
    assert await phone.next_alarm() == await sim.next_alarm() == expected

    app = simulator.phone.apps["clock"]
    overlay = state.apps.setdefault("clock", app.initial_overlay())
    for alarm in alarm_rows(app.world, overlay):
        put_alarm(app.world, overlay, {**alarm, "enabled": alarm["id"] == 3})  # weekends 09:00
    assert await phone.next_alarm() == await sim.next_alarm() == _ms(datetime(2026, 5, 16, 9))

    state.os.clock_ms = _ms(datetime(2026, 5, 16, 9, 0))  # ringing now: next is Sunday's
    assert await phone.next_alarm() == await sim.next_alarm() == _ms(datetime(2026, 5, 17, 9))

    put_alarm(app.world, overlay, {**alarm_rows(app.world, overlay)[2], "enabled": False})
    assert await phone.next_alarm() is None and await sim.next_alarm() is None
    assert "user:0" not in await InMemoryShell(virtual)("dumpsys alarm")
