"""Cross-app templates: a fact found in one app acted on in another, judged the way each
app's own templates are judged on a phone.

* Calendar → Clock: an alarm half an hour before the first event of today, or when the last
  one ends (:class:`AlarmBeforeFirstEvent`, :class:`AlarmAtLastEventEnd`): the events are
  seeded in the task's own calendar, their times read back as truths, and the alarm judged
  by the phone's next alarm clock (``dumpsys alarm``), as :class:`~sim.apps.clock.tasks.AddAlarm`.
* Clock → Calendar: an event when the next alarm rings (:class:`EventAtNextAlarm`), the
  truth read from the phone's own alarm.
* Calendar → Contacts: star the person of an event, name the company of the person of
  another (:class:`StarLunchContact`, :class:`QueryMeetingCompany`).
* Contacts → Calendar: an event whose location is a contact's number
  (:class:`CallEventWithNumber`), the number read from the phone's own contact.

Every one is phone-judgeable (no ``requires``). Seeded events live only in the task's
calendar; contacts are ensured by name, as the Contacts templates do.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, TypeVar

from bridge.android_contract import (
    CONTACTS,
    DATA,
    EVENTS,
    ORGANIZATION,
    PHONE,
    RAW_CONTACTS,
    sql_text,
)
from bridge.plans import AnswerStep, FinishStep, OpenAppStep, Plan, Selector, TapStep, TypeStep
from bridge.spec.alarms import NextAlarmCheck, NextAlarmFact
from bridge.spec.base import TruthRef
from bridge.spec.clock import LocalTime, LocalTimeFact, NextTimeFact
from bridge.spec.rows import DeleteRows, RowsCheck, RowsFact, RowsSelector
from bridge.taskspec import CheckRule, EnsureOp, Truth
from sim.apps.calendar.tasks import (
    IN_TASK_CALENDAR,
    CalendarTask,
    Seeded,
    created_rows,
    day_phrase,
    event_is,
    later,
    new_event_plan,
    one_event,
    open_day,
    open_event,
)
from sim.apps.clock.tasks import add_alarm_plan
from sim.apps.contacts.tasks import (
    CONTACTS_WATCH,
    NEW_NAMES,
    Person,
    created_checks,
    editor_plan,
    ensure_person,
    named,
    named_rows,
    open_contact,
    person_rows,
    phone_check,
    single_phone,
    typo,
    world_contact,
)
from sim.tasks.base import AnswerSpec, WrongPlan
from sim.tasks.params import Choice, Integer, TaskParams, WorldChoice

__all__ = [
    "TEMPLATES",
    "AlarmAtLastEventEnd",
    "AlarmBeforeFirstEvent",
    "CallEventWithNumber",
    "ContactFromEventDetails",
    "EventAtNextAlarm",
    "QueryMeetingCompany",
    "StarLunchContact",
    "first_event_today",
]

World = Mapping[str, Mapping[str, Any]]

_TODAY_TITLES = ("Design review", "周会", "Client call", "牙科复查", "Team lunch", "读书会")
"""Titles of the events seeded today (none another template's)."""
_FIRST_STARTS = ("12:00", "12:30", "13:15", "14:00")
"""Starts of today's first seeded event: its alarm half an hour before is later than the
simulator's 09:30 start by more than the margin, and sooner than its 22:30 alarm."""
_SAVE = TapStep(on=Selector(resource_id="action_done"))


def first_event_today(sampled: Mapping[str, Any]) -> list[Seeded]:
    """Today's three seeded events, listed out of order: the first starts at ``first``, the
    others ``gap`` hours apart; each lasts an hour."""
    start, gap, offset = sampled["first"], sampled["gap"], sampled["titles"]
    starts = [start, later(start, gap * 60), later(start, 2 * gap * 60)]
    titles = [_TODAY_TITLES[(offset + i) % len(_TODAY_TITLES)] for i in range(3)]
    events = [
        Seeded(title=t, days=0, start=s, end=later(s, 60))
        for t, s in zip(titles, starts, strict=True)
    ]
    return [events[1], events[2], events[0]]


class TodayEvents(TaskParams):
    """Three events today in the task's calendar (see :func:`first_event_today`)."""

    first: Annotated[str, Choice(_FIRST_STARTS)]
    gap: Annotated[int, Integer(2, 3)]
    titles: Annotated[int, Integer(0, len(_TODAY_TITLES) - 1)]


def _first_of_today(column: str, sort: str) -> RowsFact:
    """``column`` of the task calendar's live events, in ``sort`` order (the first is the
    truth: only today's events are seeded there)."""
    return RowsFact(uri=EVENTS, where="deleted=0", within=IN_TASK_CALENDAR, column=column,
                    sort=sort)  # fmt: skip


class _TodayAlarm(CalendarTask[TodayEvents]):
    """An alarm set from today's seeded events, judged by the phone's next alarm."""

    apps = ("calendar", "clock")
    kind = "operate"
    level = "L2"
    Params = TodayEvents

    def seeds(self, p: TodayEvents) -> list[Seeded]:
        return first_event_today(p.model_dump())

    def goal(self, p: TodayEvents) -> list[CheckRule]:
        return [NextAlarmCheck(name="next alarm", value=TruthRef(truth="ring"))]

    def ring(self, p: TodayEvents) -> str:
        """The alarm's time in the simulator (the oracle's only)."""
        raise NotImplementedError

    def oracle(self, p: TodayEvents, lang: str) -> Plan:
        return [*open_day(0, lang), *add_alarm_plan(self.ring(p), lang), FinishStep()]


class AlarmBeforeFirstEvent(_TodayAlarm):
    """Calendar → Clock: an alarm 30 minutes before today's first event (the earliest
    ``dtstart`` of the task's calendar, read on the phone)."""

    id = "crossapp/AlarmBeforeFirstEvent-v1"
    instructions = {
        "en": "Set an alarm 30 minutes before my first event today.",
        "zh": "在我今天第一个日程开始前30分钟设一个闹钟。",
    }

    def truths(self, p: TodayEvents) -> list[Truth]:
        first = _first_of_today("dtstart", "dtstart")
        return [
            Truth(name="first", fact=first, reduce="first"),
            Truth(name="ring", fact=NextTimeFact(of_truth="first", offset_minutes=-30)),
        ]

    def ring(self, p: TodayEvents) -> str:
        return later(p.first, -30)


class AlarmAtLastEventEnd(_TodayAlarm):
    """Calendar → Clock: an alarm when today's last event ends (the latest ``dtend``)."""

    id = "crossapp/AlarmAtLastEventEnd-v1"
    instructions = {
        "en": "Set an alarm for when my last event today ends.",
        "zh": "在我今天最后一个日程结束的时间设一个闹钟。",
    }

    def truths(self, p: TodayEvents) -> list[Truth]:
        last = _first_of_today("dtend", "dtend DESC")
        return [
            Truth(name="end", fact=last, reduce="first"),
            Truth(name="ring", fact=NextTimeFact(of_truth="end")),
        ]

    def ring(self, p: TodayEvents) -> str:
        return later(p.first, 2 * p.gap * 60 + 60)


# ---------------------------------------------------------------- clock → calendar

_ALARM_TITLES = ("Morning check-in", "起床打卡", "Stretch break", "晨读")


class AlarmEvent(TaskParams):
    """The title of an event to create at the next alarm."""

    title: Annotated[str, Choice(_ALARM_TITLES)]


class EventAtNextAlarm(CalendarTask[AlarmEvent]):
    """Clock → Calendar: an event that starts when the phone's next alarm rings (any
    length), the truth read from the phone's own next alarm clock."""

    id = "crossapp/EventAtNextAlarm-v1"
    apps = ("clock", "calendar")
    level = "L3"
    kind = "operate"
    instructions = {
        "en": 'Add an event "{title}" to my calendar that starts when my next alarm rings.',
        "zh": "在日历中添加日程“{title}”，开始时间就是我下一个闹钟响的时间。",
    }
    Params = AlarmEvent

    def posing(self, p: AlarmEvent) -> list[EnsureOp]:
        return [DeleteRows(uri=EVENTS, where=f"title={sql_text(p.title)}")]

    def truths(self, p: AlarmEvent) -> list[Truth]:
        return [Truth(name="ring", fact=NextAlarmFact())]

    def goal(self, p: AlarmEvent) -> list[CheckRule]:
        return [one_event(p.title), event_is("start", p.title, "dtstart", TruthRef(truth="ring"))]

    def expected_rows(self, p: AlarmEvent) -> list[RowsSelector]:
        return created_rows(p.title)

    def oracle(self, p: AlarmEvent, lang: str) -> Plan:
        # the simulator's next alarm: the one-time 22:30 alarm of its start day
        return [
            OpenAppStep(app="clock"),  # the Alarm tab is its first screen
            *new_event_plan(0, p.title, lang, "22:30", "23:00"),
            _SAVE,
            FinishStep(),
        ]


# ---------------------------------------------------------------- calendar ↔ contacts


class EventPerson(TaskParams):
    """A world contact an event is with, and another (a decoy event's), on ``days``."""

    contact: str
    other: str
    name: str
    person: Person
    decoy: Person
    days: Annotated[int, Integer(1, 4)]


_EventP = TypeVar("_EventP", bound=EventPerson)


class _PersonEventTask(CalendarTask[_EventP]):
    """A task about the person of a seeded event; contacts are watched too."""

    watch = (*CalendarTask.watch, *CONTACTS_WATCH)

    def derive(self, sampled: Mapping[str, Any], world: World) -> dict[str, Any]:
        contact = world_contact(world, sampled["contact"])
        decoy = world_contact(world, sampled["other"])
        return {"name": contact["name"], "person": dict(contact), "decoy": dict(decoy)}

    def text_values(self, p: _EventP, lang: str) -> dict[str, Any]:
        return {**p.model_dump(), "day": day_phrase(p.days, lang)}


def _unstarred(world: World) -> list[str]:
    return [c["id"] for c in named(world) if not c["starred"]]


class LunchWith(EventPerson):
    """A non-favourite to star (lunch) and another non-favourite (coffee, the decoy)."""

    contact: Annotated[str, WorldChoice(_unstarred)]
    other: Annotated[str, WorldChoice(lambda w: _unstarred(w)[::-1])]


class StarLunchContact(_PersonEventTask[LunchWith]):
    """Calendar → Contacts: star the person of the lunch event; the person of the coffee
    the same day stays as they were (contacts are diffed)."""

    id = "crossapp/StarLunchContact-v1"
    apps = ("calendar", "contacts")
    level = "L2"
    kind = "operate"
    instructions = {
        "en": "Add the person I'm having lunch with {day} to my favorite contacts.",
        "zh": "把{day}和我一起吃午饭的人加入联系人收藏。",
    }
    Params = LunchWith

    def seeds(self, p: LunchWith) -> list[Seeded]:
        return [
            Seeded(title=f"Coffee with {p.decoy.name}", days=p.days, start="16:00", end="16:30"),
            Seeded(title=f"Lunch with {p.name}", days=p.days, start="12:00", end="13:00"),
        ]

    def posing(self, p: LunchWith) -> list[EnsureOp]:
        return [ensure_person(p.person, starred=False), ensure_person(p.decoy, starred=False)]

    def goal(self, p: LunchWith) -> list[CheckRule]:
        return [
            RowsCheck(name="starred", uri=CONTACTS, where=named_rows(p.name), column="starred",
                      expect="all", value=1)
        ]  # fmt: skip

    def expected_rows(self, p: LunchWith) -> list[RowsSelector]:
        return person_rows(p.name)[:1]

    def oracle(self, p: LunchWith, lang: str) -> Plan:
        return [
            *open_day(p.days, lang),
            *open_contact(p.name),
            TapStep(on=Selector(resource_id="menu_star")),
            FinishStep(),
        ]


def _with_company(world: World) -> list[str]:
    return [c["id"] for c in named(world) if c.get("company")]


class MeetingWith(EventPerson):
    """A contact with a company (the meeting) and another (a decoy meeting a day later)."""

    contact: Annotated[str, WorldChoice(_with_company)]
    other: Annotated[str, WorldChoice(lambda w: _with_company(w)[::-1])]
    days: Annotated[int, Integer(1, 3)]


class QueryMeetingCompany(_PersonEventTask[MeetingWith]):
    """Calendar → Contacts: the company of the person of the meeting on a day, read from
    the phone's contact of that name."""

    id = "crossapp/QueryMeetingCompany-v1"
    apps = ("calendar", "contacts")
    level = "L2"
    kind = "query"
    instructions = {
        "en": "Which company does the person I'm meeting {day} work for?",
        "zh": "我{day}要见的那个人在哪家公司工作？",
    }
    Params = MeetingWith
    answer_fields = (AnswerSpec("company", "text", {"en": "Company", "zh": "公司"}),)

    def derive(self, sampled: Mapping[str, Any], world: World) -> dict[str, Any]:
        derived = super().derive(sampled, world)
        if derived["decoy"]["company"] == derived["person"]["company"]:
            derived["decoy"] = dict(world_contact(world, _with_company(world)[0]))
        return derived

    def seeds(self, p: MeetingWith) -> list[Seeded]:
        return [
            Seeded(title=f"Meeting with {p.name}", days=p.days, start="10:00", end="11:00"),
            Seeded(title=f"Meeting with {p.decoy.name}", days=p.days + 1, start="10:00",
                   end="11:00"),
        ]  # fmt: skip

    def posing(self, p: MeetingWith) -> list[EnsureOp]:
        return [ensure_person(p.person), ensure_person(p.decoy)]

    def truths(self, p: MeetingWith) -> list[Truth]:
        fact = RowsFact(uri=DATA, where=named_rows(p.name, ORGANIZATION), column="data1")
        return [Truth(name="company", fact=fact, reduce="first")]

    def oracle(self, p: MeetingWith, lang: str) -> Plan:
        return [
            *open_day(p.days, lang),
            *open_contact(p.name),
            AnswerStep(fields={"company": p.person.company}),
        ]


class CallWith(TaskParams):
    """A world contact with one number, and when tomorrow to call them."""

    contact: Annotated[str, WorldChoice(lambda w: [c["id"] for c in single_phone(w)])]
    name: str
    person: Person
    start: Annotated[str, Choice(("09:15", "11:45", "14:30", "17:15"))]
    title: str


class CallEventWithNumber(CalendarTask[CallWith]):
    """Contacts → Calendar: an event "Call NAME" tomorrow whose location is NAME's number,
    the number read from the phone's contact and compared as Android compares numbers."""

    id = "crossapp/CallEventWithNumber-v1"
    apps = ("contacts", "calendar")
    level = "L3"
    kind = "operate"
    instructions = {
        "en": 'Add an event "{title}" tomorrow at {start}, with {name}\'s phone number as its '
        "location.",
        "zh": "在日历中添加日程“{title}”，时间是明天{start}，地点填{name}的电话号码。",
    }
    Params = CallWith
    watch = (*CalendarTask.watch, *CONTACTS_WATCH)

    def derive(self, sampled: Mapping[str, Any], world: World) -> dict[str, Any]:
        contact = world_contact(world, sampled["contact"])
        return {
            "name": contact["name"],
            "person": dict(contact),
            "title": f"Call {contact['name']}",
        }

    def posing(self, p: CallWith) -> list[EnsureOp]:
        return [ensure_person(p.person), DeleteRows(uri=EVENTS, where=f"title={sql_text(p.title)}")]

    def truths(self, p: CallWith) -> list[Truth]:
        number = RowsFact(uri=DATA, where=named_rows(p.name, PHONE), column="data1")
        start = LocalTimeFact(when=LocalTime(days=1, at=p.start))
        return [Truth(name="number", fact=number, reduce="first"), Truth(name="start", fact=start)]

    def goal(self, p: CallWith) -> list[CheckRule]:
        location = event_is("location", p.title, "eventLocation", TruthRef(truth="number"))
        return [
            one_event(p.title),
            event_is("start", p.title, "dtstart", TruthRef(truth="start")),
            location.model_copy(update={"match": "number"}),
        ]

    def expected_rows(self, p: CallWith) -> list[RowsSelector]:
        return created_rows(p.title)

    def oracle(self, p: CallWith, lang: str) -> Plan:
        return [
            *open_contact(p.name),
            *new_event_plan(1, p.title, lang, p.start, None),
            TypeStep(text=p.person.phones[0].number, into=Selector(resource_id="location")),
            _SAVE,
            FinishStep(),
        ]


_CANDIDATE_NUMBERS = ("138 0013 8421", "+1 415 555 0188", "186 2745 9903", "+44 20 7946 0321")
"""Numbers written into a seeded event's description (none a world contact's)."""


class Candidate(TaskParams):
    """A person named in an event (a new contact's name) and the number in its notes."""

    name: Annotated[str, Choice(NEW_NAMES)]
    number: Annotated[str, Choice(_CANDIDATE_NUMBERS)]
    days: Annotated[int, Integer(1, 3)]
    title: str


class ContactFromEventDetails(CalendarTask[Candidate]):
    """Calendar → Contacts: a new contact from an event's title and description; nobody of
    that name is there at the start, and the number is compared as Android compares numbers
    (a phone judges both with ``content query``)."""

    id = "crossapp/ContactFromEventDetails-v1"
    apps = ("calendar", "contacts")
    level = "L2"
    kind = "operate"
    instructions = {
        "en": 'My event "{title}" {day} has the candidate\'s phone number in its notes. Save '
        "{name} as a new contact with that number.",
        "zh": "我{day}的日程“{title}”的备注里有候选人的电话。把{name}存为新联系人，号码就用那个。",
    }
    Params = Candidate
    watch = (*CalendarTask.watch, *CONTACTS_WATCH)

    def derive(self, sampled: Mapping[str, Any], world: World) -> dict[str, Any]:
        return {"title": f"Interview: {sampled['name']}"}

    def seeds(self, p: Candidate) -> list[Seeded]:
        return [Seeded(title=p.title, days=p.days, start="15:00", end="16:00",
                       description=f"Phone: {p.number}")]  # fmt: skip

    def posing(self, p: Candidate) -> list[EnsureOp]:
        return [DeleteRows(uri=RAW_CONTACTS, where=named_rows(p.name))]

    def goal(self, p: Candidate) -> list[CheckRule]:
        return [*created_checks(p.name), phone_check(p.name, p.number)]

    def expected_rows(self, p: Candidate) -> list[RowsSelector]:
        return person_rows(p.name)

    def text_values(self, p: Candidate, lang: str) -> dict[str, Any]:
        return {**p.model_dump(), "day": day_phrase(p.days, lang)}

    def oracle(self, p: Candidate, lang: str) -> Plan:
        fields = editor_plan(("name_edit", p.name), ("phone_edit", p.number))
        create: Plan = [OpenAppStep(app="contacts"),
                        TapStep(on=Selector(resource_id="floating_action_button"))]  # fmt: skip
        save = TapStep(on=Selector(resource_id="editor_menu_save_button"))
        return [*open_event(p.title), *create, *fields, save, FinishStep()]


TEMPLATES = (
    AlarmBeforeFirstEvent(),
    AlarmAtLastEventEnd(),
    EventAtNextAlarm(),
    StarLunchContact(),
    QueryMeetingCompany(),
    CallEventWithNumber(),
    ContactFromEventDetails(),
)


# ---- wrong plans, which must not pass (tests/sim/test_tasks_e2e.py runs them):
# The wrong event's time, the decoy person, the number in the wrong field.

WRONG: dict[str, WrongPlan] = {
    "crossapp/AlarmBeforeFirstEvent-v1": lambda p, lang, w: [
        *open_day(0, lang),  # half an hour before the first event in the list, not of the day
        *add_alarm_plan(later(first_event_today(p)[0].start, -30), lang),
        FinishStep(),
    ],
    "crossapp/AlarmAtLastEventEnd-v1": lambda p, lang, w: [
        *open_day(0, lang),  # the last event in the list, not the last of the day
        *add_alarm_plan(first_event_today(p)[-1].end, lang),
        FinishStep(),
    ],
    "crossapp/EventAtNextAlarm-v1": lambda p, lang, w: [
        OpenAppStep(app="clock"),  # the first alarm of the list, not the next to ring
        *new_event_plan(0, p["title"], lang, "06:30", "07:00"),
        TapStep(on=Selector(resource_id="action_done")),
        FinishStep(),
    ],
    "crossapp/StarLunchContact-v1": lambda p, lang, w: [
        *open_day(p["days"], lang),
        *open_contact(p["decoy"]["name"]),
        TapStep(on=Selector(resource_id="menu_star")),
        FinishStep(),
    ],
    "crossapp/QueryMeetingCompany-v1": lambda p, lang, w: [
        *open_day(p["days"], lang),
        AnswerStep(fields={"company": p["decoy"]["company"]}),
    ],
    "crossapp/CallEventWithNumber-v1": lambda p, lang, w: [
        *open_contact(p["name"]),
        *new_event_plan(1, p["title"], lang, p["start"], None),
        TypeStep(text=p["person"]["phones"][0]["number"], into=Selector(resource_id="description")),
        TapStep(on=Selector(resource_id="action_done")),
        FinishStep(),
    ],
    "crossapp/ContactFromEventDetails-v1": lambda p, lang, w: [
        *open_event(p["title"]),
        OpenAppStep(app="contacts"),
        TapStep(on=Selector(resource_id="floating_action_button")),
        *editor_plan(("name_edit", p["name"]), ("phone_edit", typo(p["number"]))),
        TapStep(on=Selector(resource_id="editor_menu_save_button")),
        FinishStep(),
    ],
}
