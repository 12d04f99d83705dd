"""The Calendar templates without a browser: near misses get partial credit, side effects
are seen, and a phone whose calendar is its own (other calendars, events on the same days,
a 12-hour clock, leftovers of an earlier task) is posed and judged on the task's own rows
without its events being read or touched."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pytest

from bridge.android_contract import CALENDARS, EVENTS, REMINDERS, as_sync_adapter, sql_text
from bridge.judge import StartRecord, judge, pose
from bridge.schema import AnswerValue, Verdict
from bridge.taskspec import TaskSpec
from sim.android_state import SimAndroidState
from sim.apps.calendar.query_tasks import PROJECTS, project_rows
from sim.phone import Phone
from sim.state import InstanceState
from sim.sync_call import complete
from sim.tasks.params import sample_params
from sim.tasks.registry import default_registry

REGISTRY = default_registry()
CALENDAR_IDS = [task_id for task_id in REGISTRY.ids() if task_id.startswith("calendar/")]
World = Mapping[str, Mapping[str, Any]]
MINUTE = 60_000


@dataclass
class Posed:
    """A calendar task posed on a simulated phone, changed through the provider."""

    params: dict[str, Any]
    spec: TaskSpec
    android: SimAndroidState
    start: StartRecord

    def verdict(self, answer: Mapping[str, AnswerValue] | None = None) -> Verdict:
        return complete(judge(self.spec, self.android, self.start, answer=answer))

    def truth(self, name: str) -> Any:
        return self.start.truths[name][0]

    def add(self, title: str, start: int, end: int, **more: object) -> int:
        """An event the user adds in the default calendar (the world's, ``_id`` 1)."""
        row = {"calendar_id": 1, "title": title, "dtstart": start, "dtend": end,
               "eventTimezone": "Asia/Shanghai", **more}  # fmt: skip
        complete(self.android.insert(EVENTS, row))  # type: ignore[arg-type]
        return int(self.ids(f"title={sql_text(title)}")[-1])

    def ids(self, where: str) -> list[str]:
        rows = complete(self.android.query(EVENTS, ["_id"], where, "_id"))
        return [str(row["_id"]) for row in rows]

    def delete(self, where: str) -> None:
        complete(self.android.delete(EVENTS, where))

    def update(self, where: str, **values: object) -> None:
        complete(self.android.update(EVENTS, values, where))  # type: ignore[arg-type]


def _pose(
    phone: Phone, world: World, task_id: str, state: InstanceState | None = None, **fixed: Any
) -> Posed:
    template = REGISTRY.get(task_id)
    typed = template.bind({**sample_params(template.Params, 0, world), **fixed}, world)
    spec = template.spec(typed, "en")
    android = SimAndroidState(phone, state or InstanceState(seed=0))
    return Posed(typed.model_dump(mode="json"), spec, android, complete(pose(spec, android)))


def _passed(verdict: Verdict) -> list[bool]:
    return [check.passed for check in verdict.checks]


# ---------------------------------------------------------------- near misses


def test_create_event_needs_both_times_exactly(phone: Phone, world: World) -> None:
    fixed = {"title": "Visa interview", "days": 3, "start": "14:00", "minutes": 90}
    posed = _pose(phone, world, "calendar/CreateEvent-v1", **fixed)
    start, end = posed.truth("start"), posed.truth("end")
    assert end - start == 90 * MINUTE
    posed.add("Visa interview", start, end - 30 * MINUTE)  # the default hour, not 90 minutes
    near = posed.verdict()
    assert _passed(near) == [True, True, False] and 0 < near.progress < 1
    posed.update("title='Visa interview'", dtend=end)
    done = posed.verdict()
    assert done.success and done.clean is True
    posed.delete("title='Dentist'")  # the user's own event: a side effect
    assert posed.verdict().clean is False


def test_an_all_day_event_sits_at_utc_midnight(phone: Phone, world: World) -> None:
    posed = _pose(phone, world, "calendar/CreateAllDayEvent-v1", title="搬家", days=2)
    day, next_day = posed.truth("day"), posed.truth("next_day")
    assert day % (1440 * MINUTE) == 0 and next_day - day == 1440 * MINUTE
    posed.add("搬家", day - 8 * 60 * MINUTE, next_day - 8 * 60 * MINUTE)  # local midnights
    assert _passed(posed.verdict()) == [True, False, False, False]
    posed.update("title='搬家'", allDay=1, dtstart=day, dtend=next_day, eventTimezone="UTC")
    assert posed.verdict().success


def test_the_reminder_is_the_new_events(phone: Phone, world: World) -> None:
    fixed = {"title": "牙医复诊", "days": 1, "start": "09:15", "minutes": 60, "reminder": 30}
    posed = _pose(phone, world, "calendar/CreateEventWithReminder-v1", **fixed)
    event = posed.add("牙医复诊", posed.truth("start"), posed.truth("end"))
    complete(posed.android.insert(REMINDERS, {"event_id": 7, "minutes": 30, "method": 1}))
    near = posed.verdict()  # 30 minutes, but on the user's Dentist
    assert _passed(near) == [True, True, True, False] and near.progress == 0.75
    complete(posed.android.insert(REMINDERS, {"event_id": event, "minutes": 30, "method": 1}))
    assert posed.verdict().success


def test_deleting_the_wrong_event_breaks_the_guard(phone: Phone, world: World) -> None:
    posed = _pose(phone, world, "calendar/DeleteEvent-v1", target="Guitar lesson")
    assert posed.start.truths == {"others": [5]}
    posed.delete("title='Guitar lesson'")
    done = posed.verdict()
    assert done.success and done.clean is True
    posed.delete("title='Book launch party'")
    verdict = posed.verdict()
    assert _passed(verdict) == [True, False] and not verdict.success and verdict.clean is False


def test_reschedule_keeps_the_length(phone: Phone, world: World) -> None:
    posed = _pose(phone, world, "calendar/RescheduleEvent-v1", target="篮球友谊赛", start="13:00")
    assert posed.params["end"] == "15:00"  # two hours, as seeded
    posed.update("title='篮球友谊赛'", dtstart=posed.truth("start"))
    near = posed.verdict()
    assert _passed(near) == [True, False] and near.progress == 0.5
    posed.update("title='篮球友谊赛'", dtend=posed.truth("end"))
    assert posed.verdict().success


def test_the_project_cleanup_counts_and_keeps_the_others(phone: Phone, world: World) -> None:
    posed = _pose(phone, world, "calendar/DeleteProjectEvents-v1", project="Zephyr", count=4)
    assert posed.start.truths == {"count": [4], "others": [3]}
    titles = PROJECTS["Zephyr"]
    for title in titles[:3]:
        posed.delete(f"title={sql_text(title)}")
    near = posed.verdict({"count": 4})
    assert _passed(near) == [False, True, True] and near.progress == 0.5
    posed.delete(project_rows("Zephyr"))
    assert posed.verdict({"count": "4 events"}).success
    assert not posed.verdict({"count": 3}).success


def test_the_first_project_event_is_judged_per_field(phone: Phone, world: World) -> None:
    fixed = {"project": "Orion", "days": 3, "order": 4}
    posed = _pose(phone, world, "calendar/QueryFirstProjectEvent-v1", **fixed)
    assert posed.start.truths["title"] == [posed.params["first"]]
    assert posed.start.truths["time"] == ["09:30"] == [posed.params["time"]]
    near = posed.verdict({"title": posed.params["first"], "time": "8:00"})  # the kickoff's
    assert _passed(near) == [True, False] and near.progress == 0.5
    assert posed.verdict({"title": posed.params["first"].upper(), "time": "9:30 am"}).success


# ---------------------------------------------------------------- a phone of its own


def _own_calendar_phone(phone: Phone) -> SimAndroidState:
    """A phone whose user has a synced calendar of their own with events on the coming
    days, and a 12-hour clock."""
    state = InstanceState(seed=0)
    android = SimAndroidState(phone, state)
    account = {"account_name": "mia@example.com", "account_type": "com.google",
               "name": "Mia", "calendar_displayName": "Mia"}  # fmt: skip
    complete(android.insert(as_sync_adapter(CALENDARS, "mia@example.com", "com.google"), account))
    [mine] = complete(android.query(CALENDARS, ["_id"], "account_name='mia@example.com'"))
    now = state.os.clock_ms
    for days, title in ((1, "Sprint planning"), (3, "Dinner with Sam"), (5, "Orion fan club")):
        start = now + days * 1440 * MINUTE
        row = {"calendar_id": int(str(mine["_id"])), "title": title, "dtstart": start,
               "dtend": start + 60 * MINUTE, "eventTimezone": "Asia/Shanghai"}  # fmt: skip
        complete(android.insert(EVENTS, row))  # type: ignore[arg-type]
    complete(android.put_setting("system", "time_12_24", "12"))
    return android


def _users_rows(android: SimAndroidState) -> list[dict[str, Any]]:
    where = "calendar_id IN (1, 2)"  # the world's calendar and the user's synced one
    return complete(android.query(EVENTS, ["_id", "title", "dtstart", "dtend"], where, "_id"))


@pytest.mark.parametrize("task_id", CALENDAR_IDS)
def test_a_phone_with_its_own_calendar_is_posed_on_the_tasks_rows(
    phone: Phone, world: World, task_id: str
) -> None:
    for seed in range(4):
        for lang in ("en", "zh"):
            task = REGISTRY.instantiate(task_id, seed, lang)
            assert task.spec is not None
            plain = SimAndroidState(phone, InstanceState(seed=seed))
            expected = complete(pose(task.spec, plain)).truths
            android = _own_calendar_phone(phone)
            before = _users_rows(android)
            if seed % 2:  # an earlier task's leftovers: the task's calendar is emptied first
                complete(pose(task.spec, android))
            start = complete(pose(task.spec, android))  # raises TaskNotPosed when solved
            assert start.truths == expected, (seed, lang)
            assert complete(android.get_setting("system", "time_12_24")) == "24"
            made = task.params.get("title") if "Create" in task_id else None
            kept = [row for row in before if row["title"] != made]
            assert _users_rows(android) == kept, (seed, lang)  # the user's events untouched
            verdict = complete(judge(task.spec, android, start))
            assert not verdict.success and verdict.clean is True, (seed, lang)
