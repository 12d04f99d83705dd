"""Task templates over the Calendar app: create, delete, reschedule and edit events.

Judged as a phone sees its calendar: CalendarContract's ``events`` and ``reminders`` rows
(``content query --uri content://com.android.calendar/events --where "deleted=0 AND
title='牙医复诊'"``), times as epoch ms compared exactly with times on the phone's own clock
(:class:`~bridge.spec.clock.LocalTimeFact`: "in 3 days at 14:00" where the phone is, today, in
its zone — never the simulator's date). So that a real phone's own events are never read
for a truth nor touched:

* every task first ensures its own local calendar (account ``mobilegym``, emptied of
  events) and seeds the events it asks about there only; checks and truths about seeded
  events are scoped to that calendar (:data:`IN_TASK_CALENDAR`);
* an event the agent creates goes to the phone's default calendar (the user's), so it is
  found by a distinctive made-up title (:data:`NEW_TITLES`), and every event of that title
  is deleted when the task is posed, so it is never pre-satisfied;
* every where names ``deleted=0``: a phone marks an event of a synced calendar deleted
  until the next sync instead of removing the row.

The phone shows a 24-hour clock during a task (``system.time_12_24`` ``24``), as the
oracles type times into the time picker's hour and minute boxes. Oracles pick a day by
turning the day view from today ("Next day" N times) and create the event there, so no
plan names a date. Questions and the project hybrid are in
:mod:`sim.apps.calendar.query_tasks`.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta
from functools import cache
from typing import Annotated, Any, TypeVar

from bridge.android_contract import CALENDARS, EVENTS, REMINDERS, sql_text
from bridge.plans import FinishStep, OpenAppStep, Plan, Selector, TapStep, TypeStep
from bridge.spec.base import Scalar, TruthRef
from bridge.spec.calendar import EnsureCalendar, EnsureEvent
from bridge.spec.clock import LocalTime, LocalTimeFact
from bridge.spec.rows import DeleteRows, RowsCheck, RowsFact, RowsIn, RowsSelector, WatchedRows
from bridge.taskspec import CheckRule, EnsureOp, Truth
from sim.apps.calendar.app import CalendarApp
from sim.apps.settings.tasks import pick_radio
from sim.tasks.base import Level, P, TaskTemplate, WrongPlan, option_before, put
from sim.tasks.params import Choice, Integer, TaskParams

__all__ = [
    "ACCOUNT",
    "EVENTS_WATCH",
    "IN_TASK_CALENDAR",
    "NEW_TITLES",
    "REMINDERS_WATCH",
    "TEMPLATES",
    "WEEK",
    "CalendarTask",
    "CreateAllDayEvent",
    "CreateEvent",
    "CreateEventWithLocation",
    "CreateEventWithReminder",
    "DeleteEvent",
    "EditEventLocation",
    "RescheduleEvent",
    "Seeded",
    "calendar_text",
    "created_rows",
    "day_phrase",
    "ensure_seeded",
    "event_is",
    "later",
    "new_event_plan",
    "one_event",
    "open_day",
    "open_event",
    "reminder_phrase",
    "reminder_text",
    "search_event",
    "set_time",
    "titled",
]

World = Mapping[str, Mapping[str, Any]]

ACCOUNT = "mobilegym"
"""The account of the task's own local calendar (``EnsureCalendar``)."""
IN_TASK_CALENDAR = RowsIn(
    column="calendar_id",
    uri=CALENDARS,
    where=f"account_name={sql_text(ACCOUNT)} AND account_type='LOCAL'",
)
"""Only the rows of the task's own calendar (the user's events are never a truth)."""

EVENTS_WATCH = WatchedRows(
    uri=EVENTS,
    projection=["_id", "calendar_id", "title", "dtstart", "dtend", "allDay", "eventLocation",
                "description", "hasAlarm", "deleted"],
)  # fmt: skip
"""Every event row, diffed for side effects (``hasAlarm`` follows its reminders)."""
REMINDERS_WATCH = WatchedRows(uri=REMINDERS, projection=["_id", "event_id", "minutes", "method"])
"""Every reminder row, diffed for side effects (tasks that create no event)."""

NEW_TITLES = ("Dentist follow-up", "牙医复诊", "Visa interview", "家长会", "Piano recital",
              "体检复查")  # fmt: skip
"""Titles of events to create: none is in world data or seeded by any task."""
_STARTS = ("08:30", "09:15", "13:30", "14:00", "15:45", "18:30", "19:00")
"""Start times of events to create (never the editor's default, the next full hour)."""
_LENGTHS = (30, 60, 90, 120)
"""Lengths of events to create, in minutes."""
_PLACES = ("Blue Bottle Coffee, Sanlitun", "国家图书馆", "Room 402, Building B", "望京SOHO T1",
           "Riverside Park", "协和医院 门诊楼")  # fmt: skip
"""Places new and edited events are given (none is a seeded event's location)."""
_REMINDERS = (5, 15, 30, 60, 1440)
"""Reminders a task asks for, in minutes (never the editor's default of 10)."""


class Seeded(TaskParams):
    """An event a task seeds in its own calendar: ``days`` after the phone's today,
    ``start``–``end`` (``HH:MM``), at ``location``, with notes (``description``) and
    reminders (minutes before)."""

    title: str
    days: int
    start: str
    end: str
    location: str = ""
    description: str = ""
    reminders: tuple[int, ...] = ()


WEEK = (
    Seeded(title="Parent-teacher meeting", days=1, start="16:00", end="17:00",
           location="Sunshine Primary School", reminders=(30,)),
    Seeded(title="季度预算评审", days=2, start="10:30", end="12:00", location="8楼 星海会议室"),
    Seeded(title="Guitar lesson", days=3, start="19:00", end="20:00",
           location="Harmony Music Studio"),
    Seeded(title="牙齿美白", days=4, start="14:30", end="15:30", location="瑞尔齿科 国贸店",
           reminders=(60,)),
    Seeded(title="Book launch party", days=5, start="18:30", end="21:00",
           location="Page One Bookstore"),
    Seeded(title="篮球友谊赛", days=6, start="09:00", end="11:00", location="朝阳体育馆"),
)  # fmt: skip
"""The week a task seeds in its own calendar: what the questions and edits are about."""
_EDITABLE = tuple(event.title for event in WEEK if not event.reminders)
"""Events a task changes or deletes: none has reminders, so only its own row changes."""


# ---------------------------------------------------------------- spec helpers


def later(at: str, minutes: int) -> str:
    """``HH:MM`` ``minutes`` after ``at`` (the same day: callers keep within it)."""
    moment = datetime.strptime(at, "%H:%M") + timedelta(minutes=minutes)
    return moment.strftime("%H:%M")


def titled(title: str) -> str:
    """The ``--where`` of the live events titled ``title``."""
    return f"deleted=0 AND title={sql_text(title)}"


def created_rows(title: str) -> list[RowsSelector]:
    """What creating an event titled ``title`` may change: its row and its reminders (the
    phone's Calendar gives a new event its own default reminder)."""
    where = f"title={sql_text(title)}"
    return [
        RowsSelector(uri=EVENTS, where=where),
        RowsSelector(uri=REMINDERS, within=RowsIn(column="event_id", uri=EVENTS, where=where)),
    ]


def ensure_seeded(event: Seeded) -> EnsureEvent:
    """The ensure operation seeding ``event`` in the task's calendar."""
    return EnsureEvent(
        account=ACCOUNT,
        title=event.title,
        start=LocalTime(days=event.days, at=event.start),
        end=LocalTime(days=event.days, at=event.end),
        location=event.location or None,
        description=event.description or None,
        reminders=list(event.reminders),
    )


def _at(days: int, at: str | None = None, all_day: bool = False) -> LocalTimeFact:
    return LocalTimeFact(when=LocalTime(days=days, at=at), all_day=all_day)


def event_is(
    name: str, title: str, column: str, value: Scalar | TruthRef, scoped: bool = False
) -> RowsCheck:
    """Some live event titled ``title`` has ``column`` = ``value`` (``scoped``: in the
    task's calendar)."""
    return RowsCheck(
        name=name,
        uri=EVENTS,
        where=titled(title),
        column=column,
        expect="any",
        value=value,
        within=IN_TASK_CALENDAR if scoped else None,
    )


def one_event(title: str) -> RowsCheck:
    """Exactly one live event is titled ``title``."""
    return RowsCheck(name=f"events titled {title}", uri=EVENTS, where=titled(title),
                     expect="count", value=1)  # fmt: skip


# ---------------------------------------------------------------- words and plans


@cache
def _strings(lang: str) -> Mapping[str, str]:
    return CalendarApp().strings(lang)


def calendar_text(key: str, lang: str, **values: object) -> str:
    """A Calendar UI string as the phone shows it in ``lang``."""
    text = _strings(lang)[key]
    return text.format(**values) if values else text


def day_phrase(days: int, lang: str) -> str:
    """A day after today as people say it: ``tomorrow``, ``in 3 days`` / ``明天``, ``3天后``."""
    if lang == "zh":
        return {1: "明天", 2: "后天"}.get(days, f"{days}天后")
    return {1: "tomorrow", 2: "the day after tomorrow"}.get(days, f"in {days} days")


def _amount(minutes: int) -> tuple[str, int]:
    for unit, size in (("day", 1440), ("hour", 60)):
        if minutes % size == 0:
            return unit, minutes // size
    return "minute", minutes


def reminder_phrase(minutes: int, lang: str) -> str:
    """How long before, in an instruction: ``30 minutes``, ``1 day`` / ``30分钟``, ``1天``."""
    unit, n = _amount(minutes)
    if lang == "zh":
        return f"{n}" + {"day": "天", "hour": "小时", "minute": "分钟"}[unit]
    return f"{n} {unit}" + ("" if n == 1 else "s")


def reminder_text(minutes: int, lang: str) -> str:
    """The editor's reminder choice for ``minutes`` (``30 minutes before``, ``提前 1 天``)."""
    unit, n = _amount(minutes)
    return calendar_text(f"reminder_{unit}" + ("" if n == 1 else "s"), lang, n=n)


def open_day(days: int, lang: str) -> Plan:
    """Open Calendar's day view and turn it ``days`` days on from today."""
    next_day = TapStep(on=Selector(desc=calendar_text("next_day", lang)))
    return [
        OpenAppStep(app="calendar"),
        TapStep(on=Selector(text=calendar_text("view_day", lang))),  # the tab, first in order
        *[next_day] * days,
    ]


def set_time(which: str, at: str) -> Plan:
    """Type ``at`` into the time picker of the editor's ``start`` or ``end`` time."""
    hour, minute = at.split(":")
    return [
        TapStep(on=Selector(resource_id=f"{which}_time")),
        TypeStep(text=hour, into=Selector(resource_id="input_hour")),
        TypeStep(text=minute, into=Selector(resource_id="input_minute")),
        TapStep(on=Selector(resource_id="button1")),
    ]


def new_event_plan(days: int, title: str, lang: str, start: str | None, end: str | None) -> Plan:
    """Open the editor on a new event ``days`` from today, titled ``title``, from ``start``
    to ``end`` (times left as the editor proposes when None)."""
    plan = [
        *open_day(days, lang),
        TapStep(on=Selector(resource_id="floating_action_button")),
        TypeStep(text=title, into=Selector(resource_id="title", class_name="EditText")),
    ]
    if start is not None:
        plan += set_time("start", start)
    if end is not None:
        plan += set_time("end", end)
    return plan


def search_event(query: str) -> Plan:
    """Open Calendar's search and look for ``query``."""
    return [
        OpenAppStep(app="calendar"),
        TapStep(on=Selector(resource_id="action_search")),
        TypeStep(text=query, into=Selector(resource_id="search_src_text"), submit=True),
    ]


def open_event(title: str) -> Plan:
    """Search for ``title`` and open the event of that title."""
    return [*search_event(title), TapStep(on=Selector(resource_id="title", text=title))]


_SAVE = TapStep(on=Selector(resource_id="action_done"))


# ---------------------------------------------------------------- the base


class CalendarTask(TaskTemplate[P]):
    """A task over Calendar: the task's own calendar is posed first, events and reminders
    are watched for side effects."""

    apps: tuple[str, ...] = ("calendar",)
    watch: tuple[WatchedRows, ...] = (EVENTS_WATCH, REMINDERS_WATCH)

    def seeds(self, p: P) -> list[Seeded]:
        """The events this instance seeds in the task's calendar."""
        return []

    def posing(self, p: P) -> list[EnsureOp]:
        """Ensure operations after the calendar and its seeded events."""
        return []

    def ensure(self, p: P) -> list[EnsureOp]:
        """A 24-hour clock, the task's calendar emptied, its events, then :meth:`posing`."""
        ops: list[EnsureOp] = [
            put("system", "time_12_24", "24"),
            EnsureCalendar(account=ACCOUNT, name="MobileGym"),
        ]
        return [*ops, *(ensure_seeded(event) for event in self.seeds(p)), *self.posing(p)]


# ---------------------------------------------------------------- creating


class NewEvent(TaskParams):
    """A new event: its title, day (after today), start and length (``end`` derived)."""

    title: Annotated[str, Choice(NEW_TITLES)]
    days: Annotated[int, Integer(1, 5)]
    start: Annotated[str, Choice(_STARTS)]
    minutes: Annotated[int, Choice(_LENGTHS)]
    end: str


class NewEventWithReminder(NewEvent):
    """A new event with a reminder (``reminder`` minutes before)."""

    days: Annotated[int, Integer(1, 4)]
    reminder: Annotated[int, Choice(_REMINDERS)]


class NewEventAt(NewEvent):
    """A new event with a location."""

    place: Annotated[str, Choice(_PLACES)]


_NewP = TypeVar("_NewP", bound="NewEvent | NewAllDay")
_TimedP = TypeVar("_TimedP", bound=NewEvent)


class _CreateTask(CalendarTask[_NewP]):
    """Create the event titled ``p.title``: none has that title at the start. The new event
    and its reminders may change (the phone's Calendar gives a new event its own default
    reminder); every other event and reminder row is diffed for side effects."""

    level: Level = "L3"
    kind = "operate"

    def posing(self, p: _NewP) -> list[EnsureOp]:
        return [DeleteRows(uri=EVENTS, where=f"title={sql_text(p.title)}")]

    def expected_rows(self, p: _NewP) -> list[RowsSelector]:
        return created_rows(p.title)

    def text_values(self, p: _NewP, lang: str) -> dict[str, Any]:
        return {**p.model_dump(), "day": day_phrase(p.days, lang)}


class _CreateTimedTask(_CreateTask[_TimedP]):
    """Create an event from a start to an end (``end`` derived from the length)."""

    def derive(self, sampled: Mapping[str, Any], world: World) -> dict[str, Any]:
        return {"end": later(sampled["start"], sampled["minutes"])}

    def truths(self, p: _TimedP) -> list[Truth]:
        return [
            Truth(name="start", fact=_at(p.days, p.start)),
            Truth(name="end", fact=_at(p.days, p.end)),
        ]

    def goal(self, p: _TimedP) -> list[CheckRule]:
        return [
            one_event(p.title),
            event_is("start", p.title, "dtstart", TruthRef(truth="start")),
            event_is("end", p.title, "dtend", TruthRef(truth="end")),
        ]


class CreateEvent(_CreateTimedTask[NewEvent]):
    """An event on a day after today, from one time to another. A phone judges it by
    ``content query`` of the events titled so: exactly one, ``dtstart``/``dtend`` equal to
    that day's times on the phone's clock (epoch ms, the editor saves whole minutes)."""

    id = "calendar/CreateEvent-v1"
    instructions = {
        "en": 'Add an event "{title}" {day} from {start} to {end}.',
        "zh": "在日历中添加日程“{title}”，时间是{day} {start} 到 {end}。",
    }
    Params = NewEvent

    def oracle(self, p: NewEvent, lang: str) -> Plan:
        return [*new_event_plan(p.days, p.title, lang, p.start, p.end), _SAVE, FinishStep()]


class CreateEventWithReminder(_CreateTimedTask[NewEventWithReminder]):
    """An event with a reminder. A phone judges the event as :class:`CreateEvent` and its
    reminder by ``content query`` of the reminders whose ``event_id`` is that event's
    (two queries: a provider has no joins): one of them ``minutes`` = N."""

    id = "calendar/CreateEventWithReminder-v1"
    instructions = {
        "en": 'Add an event "{title}" {day} from {start} to {end}, and remind me {reminder} '
        "before it starts.",
        "zh": "在日历中添加日程“{title}”，时间是{day} {start} 到 {end}，并提前{reminder}提醒我。",
    }
    Params = NewEventWithReminder

    def goal(self, p: NewEventWithReminder) -> list[CheckRule]:
        reminder = RowsCheck(
            name="reminder",
            uri=REMINDERS,
            column="minutes",
            expect="any",
            value=p.reminder,
            within=RowsIn(column="event_id", uri=EVENTS, where=titled(p.title)),
        )
        return [*super().goal(p), reminder]

    def text_values(self, p: NewEventWithReminder, lang: str) -> dict[str, Any]:
        return {**super().text_values(p, lang), "reminder": reminder_phrase(p.reminder, lang)}

    def oracle(self, p: NewEventWithReminder, lang: str) -> Plan:
        return [
            *new_event_plan(p.days, p.title, lang, p.start, p.end),
            TapStep(on=Selector(resource_id="reminder")),
            TapStep(on=Selector(resource_id="radio", text=reminder_text(p.reminder, lang))),
            _SAVE,
            FinishStep(),
        ]


class CreateEventWithLocation(_CreateTimedTask[NewEventAt]):
    """An event at a place (Latin or Chinese, one with a comma). A phone judges it as
    :class:`CreateEvent`, and the event's ``eventLocation`` is the place exactly."""

    id = "calendar/CreateEventWithLocation-v1"
    instructions = {
        "en": 'Add an event "{title}" {day} from {start} to {end} at "{place}".',
        "zh": "在日历中添加日程“{title}”，时间是{day} {start} 到 {end}，地点“{place}”。",
    }
    Params = NewEventAt

    def goal(self, p: NewEventAt) -> list[CheckRule]:
        return [*super().goal(p), event_is("location", p.title, "eventLocation", p.place)]

    def oracle(self, p: NewEventAt, lang: str) -> Plan:
        return [
            *new_event_plan(p.days, p.title, lang, p.start, p.end),
            TypeStep(text=p.place, into=Selector(resource_id="location")),
            _SAVE,
            FinishStep(),
        ]


class NewAllDay(TaskParams):
    """A new all-day event on a day after today."""

    title: Annotated[str, Choice(("Team offsite", "搬家", "Hackathon", "年假", "Mom's visit"))]
    days: Annotated[int, Integer(1, 3)]


class CreateAllDayEvent(_CreateTask[NewAllDay]):
    """An all-day event. A phone judges it by ``content query``: one event of that title,
    ``allDay`` 1, ``dtstart`` the UTC midnight of that day of the phone's calendar and
    ``dtend`` the next one (Android's all-day convention)."""

    id = "calendar/CreateAllDayEvent-v1"
    level = "L2"
    instructions = {
        "en": 'Add an all-day event "{title}" {day}.',
        "zh": "在日历中添加{day}的全天日程“{title}”。",
    }
    Params = NewAllDay

    def derive(self, sampled: Mapping[str, Any], world: World) -> dict[str, Any]:
        return {}

    def truths(self, p: NewAllDay) -> list[Truth]:
        return [
            Truth(name="day", fact=_at(p.days, all_day=True)),
            Truth(name="next_day", fact=_at(p.days + 1, all_day=True)),
        ]

    def goal(self, p: NewAllDay) -> list[CheckRule]:
        return [
            one_event(p.title),
            event_is("all day", p.title, "allDay", 1),
            event_is("start", p.title, "dtstart", TruthRef(truth="day")),
            event_is("end", p.title, "dtend", TruthRef(truth="next_day")),
        ]

    def oracle(self, p: NewAllDay, lang: str) -> Plan:
        return [
            *new_event_plan(p.days, p.title, lang, None, None),
            TapStep(on=Selector(resource_id="is_all_day")),
            _SAVE,
            FinishStep(),
        ]


# ---------------------------------------------------------------- changing seeded events


def _seeded(title: str) -> Seeded:
    return next(event for event in WEEK if event.title == title)


class SeededTarget(TaskParams):
    """An event of the seeded week that has no reminders (``target``: its title)."""

    target: Annotated[str, Choice(_EDITABLE)]
    event: Seeded


class NewStart(SeededTarget):
    """A seeded event and the time it moves to (``end`` keeps its length)."""

    start: Annotated[str, Choice(("08:00", "11:30", "13:00", "15:15", "17:45", "20:00"))]
    end: str


class NewPlace(SeededTarget):
    """A seeded event and its new location."""

    place: Annotated[str, Choice(_PLACES)]


_TargetP = TypeVar("_TargetP", bound=SeededTarget)


class _SeededTask(CalendarTask[_TargetP]):
    """A task about one event of the seeded week, the others seeded beside it."""

    level: Level = "L2"
    kind = "operate"

    def derive(self, sampled: Mapping[str, Any], world: World) -> dict[str, Any]:
        return {"event": _seeded(sampled["target"]).model_dump()}

    def seeds(self, p: _TargetP) -> list[Seeded]:
        return list(WEEK)

    def expected_rows(self, p: _TargetP) -> list[RowsSelector]:
        return [RowsSelector(uri=EVENTS, where=f"title={sql_text(p.target)}")]

    def text_values(self, p: _TargetP, lang: str) -> dict[str, Any]:
        event = p.event
        return {**p.model_dump(), "day": day_phrase(event.days, lang), "old_start": event.start,
                "old_end": event.end}  # fmt: skip


class DeleteEvent(_SeededTask[SeededTarget]):
    """Delete one seeded event. A phone judges by ``content query`` in the task's calendar:
    no live event of that title is left, and (a guard) every other seeded event is."""

    id = "calendar/DeleteEvent-v1"
    instructions = {
        "en": 'Delete the event "{target}" ({day}) from my calendar.',
        "zh": "删除日历中{day}的日程“{target}”。",
    }
    Params = SeededTarget

    def truths(self, p: SeededTarget) -> list[Truth]:
        others = RowsFact(uri=EVENTS, where=f"deleted=0 AND title<>{sql_text(p.target)}",
                          column="_id", within=IN_TASK_CALENDAR)  # fmt: skip
        return [Truth(name="others", fact=others, reduce="count")]

    def goal(self, p: SeededTarget) -> list[CheckRule]:
        return [
            RowsCheck(name=f"{p.target} deleted", uri=EVENTS, where=titled(p.target),
                      expect="count", value=0, within=IN_TASK_CALENDAR),
            RowsCheck(name="the other events kept", uri=EVENTS,
                      where=f"deleted=0 AND title<>{sql_text(p.target)}", expect="count",
                      value=TruthRef(truth="others"), within=IN_TASK_CALENDAR, guard=True),
        ]  # fmt: skip

    def oracle(self, p: SeededTarget, lang: str) -> Plan:
        return [
            *open_event(p.target),
            TapStep(on=Selector(resource_id="info_action_delete")),
            TapStep(on=Selector(resource_id="button1")),
            FinishStep(),
        ]


class RescheduleEvent(_SeededTask[NewStart]):
    """Move a seeded event to another start the same day, its length kept. A phone judges
    by ``content query`` in the task's calendar: ``dtstart`` and ``dtend`` equal the new
    times of that day on the phone's clock."""

    id = "calendar/RescheduleEvent-v1"
    level = "L3"
    instructions = {
        "en": '"{target}" is {day} from {old_start} to {old_end}. Move it to start at {start} '
        "the same day, keeping its length.",
        "zh": "日程“{target}”在{day} {old_start} 到 {old_end}。把它改到当天 {start} 开始，"
        "时长不变。",
    }
    Params = NewStart

    def derive(self, sampled: Mapping[str, Any], world: World) -> dict[str, Any]:
        event = _seeded(sampled["target"])
        length = datetime.strptime(event.end, "%H:%M") - datetime.strptime(event.start, "%H:%M")
        end = later(sampled["start"], int(length.total_seconds()) // 60)
        return {"event": event.model_dump(), "end": end}

    def truths(self, p: NewStart) -> list[Truth]:
        days = p.event.days
        return [
            Truth(name="start", fact=_at(days, p.start)),
            Truth(name="end", fact=_at(days, p.end)),
        ]

    def goal(self, p: NewStart) -> list[CheckRule]:
        return [
            event_is("start", p.target, "dtstart", TruthRef(truth="start"), scoped=True),
            event_is("end", p.target, "dtend", TruthRef(truth="end"), scoped=True),
        ]

    def oracle(self, p: NewStart, lang: str) -> Plan:
        return [
            *open_event(p.target),
            TapStep(on=Selector(resource_id="info_action_edit")),
            *set_time("start", p.start),  # the end moves along, the length kept
            _SAVE,
            FinishStep(),
        ]


class EditEventLocation(_SeededTask[NewPlace]):
    """Change a seeded event's location. A phone judges by ``content query`` in the task's
    calendar: its ``eventLocation`` is the new place, and (a guard) its start is as seeded."""

    id = "calendar/EditEventLocation-v1"
    instructions = {
        "en": 'Change the location of "{target}" ({day}) to "{place}".',
        "zh": "把{day}的日程“{target}”的地点改为“{place}”。",
    }
    Params = NewPlace

    def truths(self, p: NewPlace) -> list[Truth]:
        return [Truth(name="start", fact=_at(p.event.days, p.event.start))]

    def goal(self, p: NewPlace) -> list[CheckRule]:
        kept = event_is("start kept", p.target, "dtstart", TruthRef(truth="start"), scoped=True)
        return [
            event_is("location", p.target, "eventLocation", p.place, scoped=True),
            kept.model_copy(update={"guard": True}),
        ]

    def oracle(self, p: NewPlace, lang: str) -> Plan:
        return [
            *open_event(p.target),
            TapStep(on=Selector(resource_id="info_action_edit")),
            TypeStep(text=p.place, into=Selector(resource_id="location")),
            _SAVE,
            FinishStep(),
        ]


TEMPLATES: tuple[TaskTemplate, ...] = (
    CreateEvent(),
    CreateAllDayEvent(),
    CreateEventWithReminder(),
    CreateEventWithLocation(),
    DeleteEvent(),
    RescheduleEvent(),
    EditEventLocation(),
)


# ---- wrong plans, which must not pass (tests/sim/test_tasks_e2e.py runs them):
# Half an hour off, a timed event, the next reminder, another place or event.

DELETE_EVENT = [
    TapStep(on=Selector(resource_id="info_action_delete")),
    TapStep(on=Selector(resource_id="button1")),
]
"""Delete the open event and confirm."""
_EDIT = TapStep(on=Selector(resource_id="info_action_edit"))


def _new_event(p: dict[str, Any], lang: str, end: str | None = None) -> Plan:
    """The editor on the task's new event, its end ``end`` (default: the task's)."""
    return new_event_plan(p["days"], p["title"], lang, p["start"], end or p["end"])


def other_seeded(p: dict[str, Any], *, editable: bool = False) -> dict[str, Any]:
    """Another event of the seeded week than ``target`` (one without reminders when
    ``editable``): a wrong plan's."""
    pool = [e for e in WEEK if e.title != p["target"] and not (editable and e.reminders)]
    return pool[0].model_dump()


WRONG: dict[str, WrongPlan] = {
    "calendar/CreateEvent-v1": lambda p, lang, w: [
        *_new_event(p, lang, end=later(p["end"], 30)),
        _SAVE,
        FinishStep(),
    ],
    "calendar/CreateAllDayEvent-v1": lambda p, lang, w: [
        *new_event_plan(p["days"], p["title"], lang, None, None),  # left a timed event
        _SAVE,
        FinishStep(),
    ],
    "calendar/CreateEventWithReminder-v1": lambda p, lang, w: [
        *_new_event(p, lang),
        TapStep(on=Selector(resource_id="reminder")),
        pick_radio(reminder_text(option_before((5, 15, 30, 60, 1440), p["reminder"]), lang)),
        _SAVE,
        FinishStep(),
    ],
    "calendar/CreateEventWithLocation-v1": lambda p, lang, w: [
        *_new_event(p, lang),
        TypeStep(text=p["place"], into=Selector(resource_id="description")),
        _SAVE,
        FinishStep(),
    ],
    "calendar/DeleteEvent-v1": lambda p, lang, w: [
        *open_event(other_seeded(p, editable=True)["title"]),
        *DELETE_EVENT,
        FinishStep(),
    ],
    "calendar/RescheduleEvent-v1": lambda p, lang, w: [
        *open_event(p["target"]),
        _EDIT,
        *set_time("start", later(p["start"], 60)),
        _SAVE,
        FinishStep(),
    ],
    "calendar/EditEventLocation-v1": lambda p, lang, w: [
        *open_event(p["target"]),
        _EDIT,
        TypeStep(text=p["place"], into=Selector(resource_id="description")),
        _SAVE,
        FinishStep(),
    ],
}
