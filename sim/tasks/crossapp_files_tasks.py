"""Cross-app templates over Files and Calendar, judged as each app's own templates are.

* Files → Calendar (:class:`EventFromInvitation`): an invitation seeded in the task's
  folder (the day said relative to today, so a phone's own date works) becomes an event,
  judged as ``calendar/CreateEventWithLocation``: one event of that title, its start and
  end the phone's own times of that day, its ``eventLocation`` the invitation's place.
* Calendar → Files (:class:`FolderForEventDate`): an event seeded in the task's calendar
  names a folder ``YYYY-MM-DD``; the date is a truth read on the phone (the event's
  ``dtstart`` as a local date), the folder's path names it (``{truth.date}``).

Both are phone-judgeable (no ``requires``) and watch the task's folder as well as the
events and reminders (:func:`~sim.apps.files.tasks.watching`).
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Annotated, Any

from bridge.android_contract import EVENTS, sql_text
from bridge.plans import FinishStep, Plan, Selector, TapStep, TypeStep
from bridge.spec.base import Scalar, TruthRef
from bridge.spec.clock import LocalTime, LocalTimeFact
from bridge.spec.files import FolderCheck, PathCheck
from bridge.spec.rows import DeleteRows, RowsCheck, RowsFact, RowsSelector
from bridge.taskspec import CheckRule, EnsureOp, TaskSpec, Truth
from sim.apps.calendar.query_tasks import simulated_date
from sim.apps.calendar.tasks import (
    IN_TASK_CALENDAR,
    CalendarTask,
    Seeded,
    created_rows,
    day_phrase,
    later,
    new_event_plan,
    open_event,
    titled,
)
from sim.apps.files.tasks import FolderWords, new_folder, open_folder, seed_folder, watching
from sim.tasks.base import P, World, WrongPlan
from sim.tasks.params import Choice, Integer, TaskParams

__all__ = ["TEMPLATES", "EventFromInvitation", "FilesCalendarTask", "FolderForEventDate"]

_SAVE = TapStep(on=Selector(resource_id="action_done"))


class FilesCalendarTask(FolderWords, CalendarTask[P]):
    """A Calendar task that also seeds a folder: that folder is watched too, and named in
    instructions as ``{dir}``."""

    def expected_files(self, p: P) -> list[str]:
        """Path globs under Download this instance may change."""
        return []

    def spec(self, p: P, lang: str) -> TaskSpec:
        """The bound spec, watching the task's folder (:func:`watching`)."""
        return watching(super().spec(p, lang), self.expected_files(p))


def _event_is(name: str, title: str, column: str, value: Scalar | TruthRef) -> RowsCheck:
    """Some live event titled ``title`` has ``column`` = ``value``."""
    return RowsCheck(name=name, uri=EVENTS, where=titled(title), column=column, expect="any",
                     value=value)  # fmt: skip


# ---------------------------------------------------------------- files → calendar

_INVITES = "邀请函"
_INVITE_TITLES = ("Dinner with Lily", "老同学聚餐", "Team dinner", "生日晚宴")
"""Titles of the invited events: none is in world data or another task's."""
_INVITE_PLACES = ("老北京饭店", "外婆家 西湖店", "Din Tai Fung, Sanlitun")


class Invitation(TaskParams):
    """The invitation: its event's title, day (after today), start and place; two hours."""

    title: Annotated[str, Choice(_INVITE_TITLES)]
    days: Annotated[int, Integer(1, 2)]
    start: Annotated[str, Choice(("18:30", "19:00", "19:30"))]
    place: Annotated[str, Choice(_INVITE_PLACES)]


def invitation_text(p: Invitation) -> str:
    """The invitation file's text, in Chinese and English (the day said relative to the
    day it is read: a phone's own today)."""
    end = later(p.start, 120)
    zh = f"诚邀您参加“{p.title}”。\n时间：{day_phrase(p.days, 'zh')} {p.start} 到 {end}\n"
    en = f'You are invited to "{p.title}".\nWhen: {day_phrase(p.days, "en")}, {p.start} to {end}\n'
    return f"{zh}地点：{p.place}\n\n{en}Where: {p.place}\n"


class EventFromInvitation(FilesCalendarTask[Invitation]):
    """Files → Calendar: read ``invitation.txt`` (an older one beside it is a decoy) and add
    its event with its time and place."""

    id = "crossapp/EventFromInvitation-v1"
    apps = ("files", "calendar")
    level = "L3"
    kind = "operate"
    Params = Invitation
    instructions = {
        "en": "Open invitation.txt in Download/{dir} and add the event it invites me to to my "
        "calendar, with its title, time and place.",
        "zh": "打开“下载/{dir}”里的 invitation.txt，把邀请的活动按其中的名称、时间和地点"
        "添加到日历。",
    }
    words = MappingProxyType({"dir": _INVITES})

    def posing(self, p: Invitation) -> list[EnsureOp]:
        old = "去年的年会邀请：2025年1月18日 18:00，国际饭店。\n"
        files = [("invitation.txt", 0, invitation_text(p)), ("invitation_2025.txt", 90, old)]
        return [
            DeleteRows(uri=EVENTS, where=f"title={sql_text(p.title)}"),
            seed_folder(_INVITES, files),
        ]

    def truths(self, p: Invitation) -> list[Truth]:
        return [
            Truth(name="start", fact=LocalTimeFact(when=LocalTime(days=p.days, at=p.start))),
            Truth(
                name="end", fact=LocalTimeFact(when=LocalTime(days=p.days, at=later(p.start, 120)))
            ),
        ]

    def goal(self, p: Invitation) -> list[CheckRule]:
        return [
            RowsCheck(name=f"events titled {p.title}", uri=EVENTS, where=titled(p.title),
                      expect="count", value=1),
            _event_is("start", p.title, "dtstart", TruthRef(truth="start")),
            _event_is("end", p.title, "dtend", TruthRef(truth="end")),
            _event_is("location", p.title, "eventLocation", p.place),
        ]  # fmt: skip

    def expected_rows(self, p: Invitation) -> list[RowsSelector]:
        return created_rows(p.title)

    def oracle(self, p: Invitation, lang: str) -> Plan:
        return [
            *open_folder(_INVITES),
            TapStep(on=Selector(text="invitation.txt", resource_id="title")),
            *new_event_plan(p.days, p.title, lang, p.start, later(p.start, 120)),
            TypeStep(text=p.place, into=Selector(resource_id="location")),
            _SAVE,
            FinishStep(),
        ]


# ---------------------------------------------------------------- calendar → files

_EVENT_DOCS = "活动资料"
_DATED_TITLES = ("新品发布会", "Client workshop", "年度体检", "Board review")
_EVENT_FILES = [("议程.docx", 3, "议程\n" * 10), ("参会名单.xlsx", 2, "姓名,部门\n" * 12)]


class DatedEvent(TaskParams):
    """The seeded event whose date names the folder (``event``, derived)."""

    title: Annotated[str, Choice(_DATED_TITLES)]
    days: Annotated[int, Integer(2, 6)]


def _dated(p: DatedEvent) -> Seeded:
    return Seeded(title=p.title, days=p.days, start="10:00", end="11:30", location="3F 大会议室")


class FolderForEventDate(FilesCalendarTask[DatedEvent]):
    """Calendar → Files: a folder named after a seeded event's date (``YYYY-MM-DD``), the
    date read on the phone; the folder's other files are kept."""

    id = "crossapp/FolderForEventDate-v1"
    apps = ("calendar", "files")
    level = "L2"
    kind = "operate"
    Params = DatedEvent
    instructions = {
        "en": "In Download/{dir}, create a folder named after the date of my calendar event "
        '"{title}", written as YYYY-MM-DD (like 2026-01-31).',
        "zh": "在“下载/{dir}”中新建一个文件夹，用日历中“{title}”日程的日期命名，"
        "格式为 YYYY-MM-DD（例如 2026-01-31）。",
    }
    words = MappingProxyType({"dir": _EVENT_DOCS})

    def seeds(self, p: DatedEvent) -> list[Seeded]:
        return [_dated(p)]

    def posing(self, p: DatedEvent) -> list[EnsureOp]:
        return [seed_folder(_EVENT_DOCS, _EVENT_FILES)]

    def truths(self, p: DatedEvent) -> list[Truth]:
        date = RowsFact(uri=EVENTS, where=titled(p.title), column="dtstart",
                        within=IN_TASK_CALENDAR, as_time="local_date")  # fmt: skip
        return [Truth(name="date", fact=date)]

    def goal(self, p: DatedEvent) -> list[CheckRule]:
        kept = FolderCheck(name="the files are kept", folder=_EVENT_DOCS,
                           names=[n for n, _, _ in _EVENT_FILES], guard=True)  # fmt: skip
        folder = PathCheck(name="the dated folder", path=f"{_EVENT_DOCS}/{{truth.date}}",
                           expect="dir")  # fmt: skip
        return [folder, kept]

    def expected_files(self, p: DatedEvent) -> list[str]:
        return [f"{_EVENT_DOCS}/{{truth.date}}"]

    def oracle(self, p: DatedEvent, lang: str) -> Plan:
        # the simulator's date of the event; on a phone the agent reads it on the screen
        return [
            *open_event(p.title),
            *open_folder(_EVENT_DOCS),
            *new_folder(simulated_date(p.days)),
            FinishStep(),
        ]


TEMPLATES = (EventFromInvitation(), FolderForEventDate())
"""The Files ↔ Calendar templates."""


# ---- wrong plans, which must not pass (tests/sim/test_tasks_e2e.py runs them):
# The day after.


def _invitation(p: dict[str, Any], lang: str, w: World) -> Plan:
    """The day after, two hours long."""
    return [
        *open_folder("邀请函"),
        TapStep(on=Selector(text="invitation.txt", resource_id="title")),
        *new_event_plan(p["days"] + 1, p["title"], lang, p["start"], later(p["start"], 120)),
        TypeStep(text=p["place"], into=Selector(resource_id="location")),
        TapStep(on=Selector(resource_id="action_done")),
        FinishStep(),
    ]


WRONG: dict[str, WrongPlan] = {
    "crossapp/EventFromInvitation-v1": _invitation,
    "crossapp/FolderForEventDate-v1": lambda p, lang, w: [
        *open_event(p["title"]),
        *open_folder("活动资料"),
        *new_folder(simulated_date(p["days"] + 1)),
        FinishStep(),
    ],
}
