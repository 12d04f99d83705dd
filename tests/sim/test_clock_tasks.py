"""The Clock and cross-app templates without a browser: DeskClock's alarms as its provider
shows them, the next-alarm judge (a phone's own sooner alarm, an alarm due during the
episode), and truths that follow the phone's own clock and zone rules, not the simulator's."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

import pytest

from bridge.android_contract import ALARMS, EVENTS
from bridge.errors import TaskNotPosed
from bridge.judge import judge, pose
from bridge.phone_time import next_time_ms
from sim.android_state import SimAndroidState
from sim.phone import Phone
from sim.providers import ProviderError
from sim.state import InstanceState
from sim.sync_call import complete
from sim.tasks.params import sample_params
from sim.tasks.registry import default_registry

REGISTRY = default_registry()
World = Mapping[str, Mapping[str, Any]]
COLUMNS = ["_id", "hour", "minutes", "daysofweek", "enabled", "label"]


def _android(phone: Phone, state: InstanceState | None = None) -> SimAndroidState:
    return SimAndroidState(phone, state or InstanceState(seed=0))


def _spec(world: World, task_id: str, **fixed: Any) -> Any:
    template = REGISTRY.get(task_id)
    typed = template.bind({**sample_params(template.Params, 0, world), **fixed}, world)
    return template.spec(typed, "en")


def _alarms(android: SimAndroidState, where: str | None = None) -> list[dict[str, Any]]:
    return complete(android.query(ALARMS, COLUMNS, where, "_id"))


class _PhoneAbroad(SimAndroidState):
    """A simulated phone whose clock and zone are another's (a unit-test stand-in)."""

    def __init__(self, phone: Phone, now_ms: int, zone: str) -> None:
        super().__init__(phone, InstanceState(seed=0))
        self._now = (now_ms, zone)

    async def now(self) -> tuple[int, str]:
        return self._now


def _ms(*parts: int, zone: Any = UTC) -> int:
    return int(datetime(*parts, tzinfo=zone).timestamp() * 1000)


# ---------------------------------------------------------------- the provider


def test_the_alarms_table_is_the_apps_alarms(phone: Phone) -> None:
    android = _android(phone)
    rows = _alarms(android)
    assert [(r["hour"], r["minutes"], r["daysofweek"]) for r in rows][:2] == [
        ("6", "30", "31"),  # Monday to Friday: bits 0x01 to 0x10
        ("7", "45", "0"),
    ]
    complete(android.insert(ALARMS, {"hour": 5, "minutes": 5, "label": "早", "daysofweek": 96}))
    complete(android.update(ALARMS, {"enabled": 0}, "hour=5 AND minutes=5"))
    view = phone.apps["clock"].view(android.state.apps["clock"])
    new = next(a for a in view["alarms"] if (a["hour"], a["minute"]) == (5, 5))
    assert (new["days"], new["label"], new["enabled"]) == ([5, 6], "早", False)
    complete(android.delete(ALARMS, "label='早'"))
    assert _alarms(android, "hour=5") == []


@pytest.mark.parametrize(
    ("values", "problem"),
    [({"hour": 25, "minutes": 0}, "hour 25 is out of range"),
     ({"hour": 7}, "minutes is required"),
     ({"hour": 7, "minutes": 0, "snooze": 5}, "no column 'snooze'"),
     ({"hour": 7, "minutes": 0, "daysofweek": 200}, "not a set of weekdays")],
)  # fmt: skip
def test_bad_alarm_rows_are_refused_with_the_column(
    phone: Phone, values: dict[str, Any], problem: str
) -> None:
    with pytest.raises(ProviderError, match=problem):
        complete(_android(phone).insert(ALARMS, values))


# ---------------------------------------------------------------- the next alarm


def test_add_alarm_is_the_next_alarm_exactly(phone: Phone, world: World) -> None:
    spec = _spec(world, "clock/AddAlarm-v1", at="14:10")
    for minute, success in ((15, False), (10, True)):
        android = _android(phone)
        start = complete(pose(spec, android))
        complete(android.insert(ALARMS, {"hour": 14, "minutes": minute}))
        verdict = complete(judge(spec, android, start))
        assert verdict.success is success, verdict.checks
        assert verdict.checks[0].expected == "2026-05-12 14:10"


def test_a_sooner_alarm_of_the_phones_own_is_not_judged(phone: Phone, world: World) -> None:
    android = _android(phone)
    complete(android.insert(ALARMS, {"hour": 10, "minutes": 0}))  # the user's, on
    with pytest.raises(TaskNotPosed, match=r"own alarm rings at 2026-05-12 10:00.*turn off"):
        complete(pose(_spec(world, "clock/AddAlarm-v1", at="14:10"), android))


def test_an_alarm_due_during_the_episode_is_not_posed(phone: Phone, world: World) -> None:
    android = _android(phone)
    android.state.os.clock_ms = _ms(2026, 5, 12, 10, 25) - 8 * 3_600_000  # 10:25 in Beijing
    with pytest.raises(TaskNotPosed, match="within 30 minutes"):
        complete(pose(_spec(world, "clock/AddAlarm-v1", at="10:40"), android))


def test_the_next_time_is_the_phones_next_matching_day() -> None:
    tuesday_noon = _ms(2026, 5, 12, 4, 0)  # 12:00 in Asia/Shanghai
    assert next_time_ms(tuesday_noon, "Asia/Shanghai", "12:00") == tuesday_noon + 86_400_000
    weekend = next_time_ms(tuesday_noon, "Asia/Shanghai", "08:00", [5, 6])
    assert weekend == _ms(2026, 5, 16, 0, 0)  # Saturday 08:00


# ---------------------------------------------------------------- the phone's clock decides


def test_world_clock_truths_follow_the_phones_date_and_rules(phone: Phone, world: World) -> None:
    winter = _PhoneAbroad(phone, _ms(2026, 1, 15, 12, 0), "Europe/London")
    summer = _android(phone)  # the simulator's May
    gap = _spec(world, "clock/CityTimeGap-v1", pair=("tokyo", "london"))
    assert complete(pose(gap, summer)).truths["hours"] == [8]
    assert complete(pose(gap, winter)).truths["hours"] == [9]  # London off summer time
    convert = _spec(world, "clock/ConvertCityTime-v1", pair=("new_york", "london"), at="09:30")
    assert complete(pose(convert, summer)).truths["time"] == ["14:30"]
    assert complete(pose(convert, winter)).truths["time"] == ["14:30"]  # both off DST
    march = _PhoneAbroad(phone, _ms(2026, 3, 20, 12, 0), "Europe/London")  # New York on DST
    assert complete(pose(convert, march)).truths["time"] == ["13:30"]


def test_the_first_event_is_the_tasks_not_the_users(phone: Phone, world: World) -> None:
    spec = _spec(world, "crossapp/AlarmBeforeFirstEvent-v1", first="13:15")
    android = _android(phone)
    early = _ms(2026, 5, 12, 3, 0)  # 11:00 in Beijing, in the user's own calendar
    row = {"calendar_id": 1, "title": "User's brunch", "dtstart": early,
           "dtend": early + 3_600_000, "eventTimezone": "Asia/Shanghai"}  # fmt: skip
    complete(android.insert(EVENTS, row))  # type: ignore[arg-type]
    start = complete(pose(spec, android))
    assert start.truths["ring"] == [_ms(2026, 5, 12, 4, 45)]  # 12:45, before the task's 13:15
    complete(android.insert(ALARMS, {"hour": 12, "minutes": 45}))
    assert complete(judge(spec, android, start)).success
