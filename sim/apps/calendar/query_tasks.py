"""Questions over Calendar, and a hybrid that deletes a project's events and counts them.

Every question is about events the task seeds in its own calendar (account ``mobilegym``,
:data:`~sim.apps.calendar.tasks.IN_TASK_CALENDAR`) under distinctive titles, and its truth
is read from the phone right after posing — ``content query`` of those rows, epoch ms said
as the phone's local date or time (``as_time``) — never predicted from world data. The
oracles read their answers from the screen (a search result's date, the event card's time
or place), so they answer from whatever the phone shows. Times are matched as times
(``16:00`` = ``4 pm`` = ``下午4点``), dates as dates, titles and places as text.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from itertools import permutations
from typing import Annotated, Any

from bridge.android_contract import EVENTS, sql_text
from bridge.plans import (
    AnswerStep,
    EachStep,
    NoteStep,
    Plan,
    Recall,
    Selector,
    TapStep,
)
from bridge.spec.base import TruthRef
from bridge.spec.clock import LocalTime, LocalTimeFact, TimeAs
from bridge.spec.rows import RowsCheck, RowsFact, RowsSelector
from bridge.taskspec import CheckRule, Truth
from sim.apps.calendar.tasks import (
    DELETE_EVENT,
    IN_TASK_CALENDAR,
    WEEK,
    CalendarTask,
    Seeded,
    day_phrase,
    later,
    open_day,
    open_event,
    other_seeded,
    search_event,
    titled,
)
from sim.apps.calendar.times import local_datetime
from sim.state import DEFAULT_CLOCK_MS
from sim.tasks.base import AnswerSpec, TaskTemplate, WrongPlan
from sim.tasks.params import Choice, Integer, TaskParams

__all__ = [
    "PROJECTS",
    "TEMPLATES",
    "DeleteProjectEvents",
    "QueryEventDate",
    "QueryEventLocation",
    "QueryEventTime",
    "QueryFirstProjectEvent",
    "project_rows",
    "simulated_date",
]

World = Mapping[str, Mapping[str, Any]]

PROJECTS: dict[str, tuple[str, ...]] = {
    "Zephyr": ("Zephyr standup", "Zephyr design review", "Zephyr client demo", "Zephyr kickoff",
               "Zephyr retro"),
    "Orion": ("Orion standup", "Orion budget sync", "Orion user interviews", "Orion kickoff",
              "Orion launch rehearsal"),
    "北极星": ("北极星 站会", "北极星 设计评审", "北极星 客户演示", "北极星 启动会", "北极星 复盘"),
    "青松": ("青松 周会", "青松 需求评审", "青松 上线演练", "青松 启动会", "青松 总结会"),
}  # fmt: skip
"""Projects and their events' titles (each title starts with the project's name)."""
_FIRST_TIMES = ("09:30", "11:00", "15:00")
"""When a day's three project events start (which event gets which time is a parameter)."""
_ORDERS = tuple(permutations(range(3)))


def project_rows(project: str) -> str:
    """The ``--where`` of the live events of ``project`` (titles start with its name; LIKE,
    as on a phone, ignores ASCII case)."""
    return f"deleted=0 AND title LIKE {sql_text(project + '%')}"


def simulated_date(days: int) -> str:
    """The simulator's date ``days`` after its start (the oracle's prediction only: on a
    phone the oracle reads the date from the screen)."""
    return (local_datetime(DEFAULT_CLOCK_MS).date() + timedelta(days=days)).isoformat()


def _seeded_fact(title: str, column: str, as_time: TimeAs | None = None) -> RowsFact:
    return RowsFact(uri=EVENTS, where=titled(title), column=column, within=IN_TASK_CALENDAR,
                    as_time=as_time)  # fmt: skip


def _note(key: str, rid: str) -> NoteStep:
    return NoteStep(key=key, rows=Selector(resource_id=rid))


class WeekEvent(TaskParams):
    """An event of the seeded week (``target``: its title)."""

    target: Annotated[str, Choice(tuple(event.title for event in WEEK))]
    event: Seeded


class _WeekQuery(CalendarTask[WeekEvent]):
    """A question about one event of the seeded week."""

    kind = "query"
    Params = WeekEvent

    def derive(self, sampled: Mapping[str, Any], world: World) -> dict[str, Any]:
        event = next(e for e in WEEK if e.title == sampled["target"])
        return {"event": event.model_dump()}

    def seeds(self, p: WeekEvent) -> list[Seeded]:
        return list(WEEK)


class QueryEventDate(_WeekQuery):
    """On what date a seeded event is. The truth is the phone's own: its ``dtstart`` said
    as the phone's local date; the answer is matched as a date (``May 14, 2026`` =
    ``2026年5月14日``). The oracle reads it off the search result."""

    id = "calendar/QueryEventDate-v1"
    level = "L1"
    instructions = {
        "en": 'On what date is the event "{target}"?',
        "zh": "日程“{target}”在哪一天？",
    }
    answer_fields = (AnswerSpec("date", "date", {"en": "Date", "zh": "日期"}),)

    def truths(self, p: WeekEvent) -> list[Truth]:
        return [Truth(name="date", fact=_seeded_fact(p.target, "dtstart", "local_date"))]

    def oracle(self, p: WeekEvent, lang: str) -> Plan:
        return [
            *search_event(p.target),
            _note("when", "summary"),
            AnswerStep(fields={"date": simulated_date(p.event.days)},
                       read={"date": Recall(key="when", op="text")}),
        ]  # fmt: skip


class QueryEventTime(_WeekQuery):
    """When a seeded event starts. The truth is its ``dtstart`` said as the phone's local
    time; the answer is matched as a time. The oracle reads the event card."""

    id = "calendar/QueryEventTime-v1"
    level = "L2"
    instructions = {
        "en": 'What time does the event "{target}" start?',
        "zh": "日程“{target}”几点开始？",
    }
    answer_fields = (AnswerSpec("time", "time", {"en": "Start time", "zh": "开始时间"}),)

    def truths(self, p: WeekEvent) -> list[Truth]:
        return [Truth(name="time", fact=_seeded_fact(p.target, "dtstart", "local_time"))]

    def oracle(self, p: WeekEvent, lang: str) -> Plan:
        return [
            *open_event(p.target),
            _note("time", "when_datetime_sub"),
            AnswerStep(fields={"time": p.event.start},
                       read={"time": Recall(key="time", op="text")}),
        ]  # fmt: skip


class QueryEventLocation(_WeekQuery):
    """Where a seeded event takes place. The truth is its ``eventLocation`` on the phone;
    the answer is matched as text. The oracle reads the event card."""

    id = "calendar/QueryEventLocation-v1"
    level = "L2"
    instructions = {
        "en": 'Where does the event "{target}" take place?',
        "zh": "日程“{target}”的地点在哪里？",
    }
    answer_fields = (AnswerSpec("location", "text", {"en": "Location", "zh": "地点"}),)

    def truths(self, p: WeekEvent) -> list[Truth]:
        return [Truth(name="location", fact=_seeded_fact(p.target, "eventLocation"))]

    def oracle(self, p: WeekEvent, lang: str) -> Plan:
        return [
            *open_event(p.target),
            _note("where", "where"),
            AnswerStep(fields={"location": p.event.location},
                       read={"location": Recall(key="where", op="text")}),
        ]  # fmt: skip


# ---------------------------------------------------------------- a project's day


class ProjectDay(TaskParams):
    """A project, the day asked about (after today), and which of its three events that
    day starts at which of :data:`_FIRST_TIMES` (``order``); ``first``/``time`` predicted."""

    project: Annotated[str, Choice(tuple(PROJECTS))]
    days: Annotated[int, Integer(2, 5)]
    order: Annotated[int, Integer(0, len(_ORDERS) - 1)]
    first: str
    time: str


def _other_project(project: str) -> str:
    names = list(PROJECTS)
    return names[(names.index(project) + 1) % len(names)]


class QueryFirstProjectEvent(CalendarTask[ProjectDay]):
    """Which of a project's events on a day comes first, and when it starts. The task's
    calendar holds three of the project's events that day, an earlier one that is not the
    project's, another project's, and the project's events of the days around it. On a
    phone the question stays honest because it asks about the project only (the user's own
    events that day are no part of it) and the truths are read in the task's calendar:
    the titles of the project's timed events starting that day (bounds: two times on the
    phone's clock), sorted by ``dtstart``, the first one and its start said as local time."""

    id = "calendar/QueryFirstProjectEvent-v1"
    level = "L2"
    kind = "query"
    instructions = {
        "en": "Of the {project} project's events {day}, which one comes first, and what time "
        "does it start?",
        "zh": "{day}的“{project}”项目日程中，最早的是哪一个？几点开始？",
    }
    Params = ProjectDay
    answer_fields = (
        AnswerSpec("title", "text", {"en": "First event", "zh": "最早的日程"}),
        AnswerSpec("time", "time", {"en": "Start time", "zh": "开始时间"}),
    )

    def derive(self, sampled: Mapping[str, Any], world: World) -> dict[str, Any]:
        titles = PROJECTS[sampled["project"]]
        order = _ORDERS[sampled["order"]]
        first = min(range(3), key=lambda i: _FIRST_TIMES[order[i]])
        return {"first": titles[first], "time": _FIRST_TIMES[order[first]]}

    def seeds(self, p: ProjectDay) -> list[Seeded]:
        titles, order, day = PROJECTS[p.project], _ORDERS[p.order], p.days
        other = PROJECTS[_other_project(p.project)]

        def event(title: str, days: int, start: str, minutes: int = 60) -> Seeded:
            return Seeded(title=title, days=days, start=start, end=later(start, minutes))

        return [
            event(titles[3], day - 1, "08:00"),
            *(event(titles[i], day, _FIRST_TIMES[order[i]], 45) for i in range(3)),
            event("Morning run", day, "07:00", 45),
            event(other[0], day, "08:30", 30).model_copy(update={"reminders": (10,)}),
            event(titles[4], day + 1, "08:15"),
        ]

    def truths(self, p: ProjectDay) -> list[Truth]:
        where = (f"{project_rows(p.project)} AND allDay=0 AND dtstart >= {{truth.day_start}} "
                 "AND dtstart < {truth.day_end}")  # fmt: skip

        def rows(column: str, as_time: TimeAs | None = None) -> RowsFact:
            return RowsFact(uri=EVENTS, where=where, sort="dtstart", within=IN_TASK_CALENDAR,
                            column=column, as_time=as_time)  # fmt: skip

        return [
            Truth(name="day_start", fact=LocalTimeFact(when=LocalTime(days=p.days))),
            Truth(name="day_end", fact=LocalTimeFact(when=LocalTime(days=p.days + 1))),
            Truth(name="title", fact=rows("title"), reduce="first"),
            Truth(name="time", fact=rows("dtstart", "local_time"), reduce="first"),
        ]

    def text_values(self, p: ProjectDay, lang: str) -> dict[str, Any]:
        return {**p.model_dump(), "day": day_phrase(p.days, lang)}

    def oracle(self, p: ProjectDay, lang: str) -> Plan:
        # The day view lists timed events by start: the first of the project's is the answer.
        return [
            *open_day(p.days, lang),
            TapStep(on=Selector(resource_id="event_title", text_contains=p.project)),
            _note("title", "title"),
            _note("time", "when_datetime_sub"),
            AnswerStep(
                fields={"title": p.first, "time": p.time},
                read={"title": Recall(key="title", op="text"),
                      "time": Recall(key="time", op="text")},
            ),
        ]  # fmt: skip


# ---------------------------------------------------------------- hybrid


class ProjectCleanup(TaskParams):
    """A project and how many of its events the task seeds (across the coming days)."""

    project: Annotated[str, Choice(tuple(PROJECTS))]
    count: Annotated[int, Integer(3, 5)]


_CLEANUP_TIMES = ("09:00", "14:30", "10:00", "16:15", "11:45")


class DeleteProjectEvents(CalendarTask[ProjectCleanup]):
    """Hybrid: delete every event of a project and say how many there were. The task's
    calendar holds 3–5 of the project's events on different days and other events beside
    them (another project's, one with a reminder). A phone judges by ``content query`` in
    the task's calendar: no live event whose title starts with the project's name is left,
    (a guard) as many others as at the start are, and the answer is the number of the
    project's events read right after posing."""

    id = "calendar/DeleteProjectEvents-v1"
    level = "L3"
    kind = "hybrid"
    instructions = {
        "en": "Delete every event of the {project} project from my calendar, then tell me how "
        "many events you deleted.",
        "zh": "删除日历中“{project}”项目的所有日程，然后告诉我一共删除了几个。",
    }
    Params = ProjectCleanup
    answer_fields = (AnswerSpec("count", "number", {"en": "Events deleted", "zh": "删除的日程数"}),)

    def seeds(self, p: ProjectCleanup) -> list[Seeded]:
        titles, other = PROJECTS[p.project], PROJECTS[_other_project(p.project)]
        mine = [
            Seeded(title=titles[i], days=i + 1, start=_CLEANUP_TIMES[i],
                   end=later(_CLEANUP_TIMES[i], 60))
            for i in range(p.count)
        ]  # fmt: skip
        return [
            *mine,
            Seeded(title=other[0], days=1, start="13:00", end="13:30", reminders=(15,)),
            Seeded(title=other[1], days=3, start="09:30", end="10:30"),
            Seeded(title="Morning run", days=2, start="07:00", end="07:45"),
        ]

    def _others(self, p: ProjectCleanup) -> str:
        return f"deleted=0 AND title NOT LIKE {sql_text(p.project + '%')}"

    def truths(self, p: ProjectCleanup) -> list[Truth]:
        def count(where: str) -> RowsFact:
            return RowsFact(uri=EVENTS, where=where, column="_id", within=IN_TASK_CALENDAR)

        return [
            Truth(name="count", fact=count(project_rows(p.project)), reduce="count"),
            Truth(name="others", fact=count(self._others(p)), reduce="count"),
        ]

    def goal(self, p: ProjectCleanup) -> list[CheckRule]:
        return [
            RowsCheck(name=f"{p.project} events left", uri=EVENTS, where=project_rows(p.project),
                      expect="count", value=0, within=IN_TASK_CALENDAR),
            RowsCheck(name="the other events kept", uri=EVENTS, where=self._others(p),
                      expect="count", value=TruthRef(truth="others"), within=IN_TASK_CALENDAR,
                      guard=True),
        ]  # fmt: skip

    def expected_rows(self, p: ProjectCleanup) -> list[RowsSelector]:
        return [RowsSelector(uri=EVENTS, where=f"title LIKE {sql_text(p.project + '%')}")]

    def oracle(self, p: ProjectCleanup, lang: str) -> Plan:
        # Delete whatever the search shows of the project (the phone's events, not the world's).
        delete_each = EachStep(
            key="found",
            prefix=p.project,
            steps=[
                TapStep(on=Selector(resource_id="title", text="{item}")),
                TapStep(on=Selector(resource_id="info_action_delete")),
                TapStep(on=Selector(resource_id="button1")),
            ],
        )
        header = Selector(resource_id="section_title")
        found = NoteStep(key="found", rows=Selector(resource_id="title"), after=header,
                         until=header)  # fmt: skip
        return [
            *search_event(p.project),
            found,
            delete_each,
            AnswerStep(fields={"count": p.count}, read={"count": Recall(key="found")}),
        ]


TEMPLATES: tuple[TaskTemplate, ...] = (
    QueryEventDate(),
    QueryEventTime(),
    QueryEventLocation(),
    QueryFirstProjectEvent(),
    DeleteProjectEvents(),
)


# ---- wrong plans, which must not pass (tests/sim/test_tasks_e2e.py runs them):
# The day after, the end time, another event, one left behind.

WRONG: dict[str, WrongPlan] = {
    "calendar/QueryEventDate-v1": lambda p, lang, w: [
        *search_event(p["target"]),
        AnswerStep(fields={"date": simulated_date(p["event"]["days"] + 1)}),
    ],
    "calendar/QueryEventTime-v1": lambda p, lang, w: [
        *open_event(p["target"]),
        AnswerStep(fields={"time": p["event"]["end"]}),
    ],
    "calendar/QueryEventLocation-v1": lambda p, lang, w: [
        *open_event(p["target"]),
        AnswerStep(fields={"location": other_seeded(p)["location"]}),
    ],
    "calendar/QueryFirstProjectEvent-v1": lambda p, lang, w: [
        *open_day(p["days"], lang),  # the project's first event of the week, not of that day
        AnswerStep(fields={"title": PROJECTS[p["project"]][3], "time": "08:00"}),
    ],
    "calendar/DeleteProjectEvents-v1": lambda p, lang, w: [
        *search_event(p["project"]),
        *[
            step
            for title in PROJECTS[p["project"]][: p["count"] - 1]  # one left behind
            for step in (TapStep(on=Selector(resource_id="title", text=title)), *DELETE_EVENT)
        ],
        AnswerStep(fields={"count": p["count"]}),
    ],
}
