"""Cross-app templates over Messages: an SMS read in one app and acted on in another.

* Contacts → Messages: a friend asks for a contact's number; the reply is judged in
  ``content://sms/sent`` (a message to the friend since the pose whose text is the number,
  compared as Android compares numbers) — :class:`ReplyWithContactNumber`.
* Messages → Calendar: an appointment an SMS announces becomes an event at the time it
  names, on the phone's own clock — :class:`EventFromSms`.
* Messages → Contacts: the number a courier texted from saved as a contact —
  :class:`SaveSenderAsContact`.

Each delivers its SMS into the inbox, which a retail phone's shell cannot do: they need
the simulator or the virtual phone (:data:`~sim.apps.messages.tasks.NEEDS_INBOX`), and are
judged there by the same spec as on any phone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Annotated, Any

from bridge.android_contract import EVENTS, RAW_CONTACTS, SMS, sql_text
from bridge.plans import FinishStep, OpenAppStep, Plan, Selector, TapStep
from bridge.spec.base import TruthRef
from bridge.spec.clock import LocalTime, LocalTimeFact
from bridge.spec.rows import DeleteRows, RowsCheck, RowsSelector
from bridge.spec.sms import InboundSms
from bridge.taskspec import CheckRule, EnsureOp, Truth
from sim.apps.calendar.tasks import (
    EVENTS_WATCH,
    REMINDERS_WATCH,
    created_rows,
    day_phrase,
    event_is,
    later,
    new_event_plan,
    one_event,
)
from sim.apps.contacts.tasks import (
    CONTACTS_WATCH,
    NEW_NAMES,
    Person,
    created_checks,
    editor_plan,
    ensure_person,
    open_contact,
    person_rows,
    phone_check,
    single_phone,
    typo,
    world_contact,
)
from sim.apps.messages.tasks import (
    INBOX,
    POSED,
    SMS_WATCH,
    MessagesTask,
    open_thread,
    reply_plan,
    sent_checks,
    to_number,
)
from sim.tasks.base import WrongPlan, put
from sim.tasks.params import Choice, Integer, TaskParams, WorldChoice

__all__ = [
    "COURIERS",
    "FRIEND",
    "TEMPLATES",
    "EventFromSms",
    "ReplyWithContactNumber",
    "SaveSenderAsContact",
]

World = Mapping[str, Mapping[str, Any]]

FRIEND = "+8617712345631"
"""The friend who asks for a number (no contact, no other task's sender)."""
_SAVE_CONTACT = TapStep(on=Selector(resource_id="editor_menu_save_button"))
_NEW_CONTACT: Plan = [OpenAppStep(app="contacts"),
                      TapStep(on=Selector(resource_id="floating_action_button"))]  # fmt: skip


class NumberAsked(TaskParams):
    """A world contact with one number whose number a friend asks for."""

    contact: Annotated[str, WorldChoice(lambda w: [c["id"] for c in single_phone(w)])]
    name: str
    person: Person


class ReplyWithContactNumber(MessagesTask[NumberAsked]):
    """Contacts → Messages: reply to a friend with a contact's phone number. The number is
    the contact's (ensured by name); the reply's text must be that number, compared as
    Android compares numbers."""

    id = "crossapp/ReplyWithContactNumber-v1"
    apps = ("messages", "contacts")
    level = "L2"
    kind = "operate"
    instructions = {
        "en": "My friend texted asking for {name}'s phone number. Reply with just the number.",
        "zh": "朋友发短信问{name}的电话号码，请回复他，只发号码。",
    }
    Params = NumberAsked
    watch = (SMS_WATCH, *CONTACTS_WATCH)

    def derive(self, sampled: Mapping[str, Any], world: World) -> dict[str, Any]:
        contact = world_contact(world, sampled["contact"])
        return {"name": contact["name"], "person": dict(contact)}

    def inbox(self, p: NumberAsked) -> Sequence[InboundSms]:
        ask = InboundSms(address=FRIEND, minutes_ago=4, body=f"你有{p.name}的电话吗？发我一下。")
        return [*INBOX, ask]

    def posing(self, p: NumberAsked) -> list[EnsureOp]:
        return [ensure_person(p.person)]

    def goal(self, p: NumberAsked) -> list[CheckRule]:
        number = p.person.phones[0].number
        sent, _ = sent_checks(FRIEND, number, who="the friend")
        says = RowsCheck(name="the reply is the number", uri=sent.uri, where=sent.where,
                         column="body", expect="any", value=number, match="number")  # fmt: skip
        return [sent, says]

    def expected_rows(self, p: NumberAsked) -> list[RowsSelector]:
        return [RowsSelector(uri=SMS, where=to_number(FRIEND))]

    def oracle(self, p: NumberAsked, lang: str) -> Plan:
        number = p.person.phones[0].number
        return [*open_contact(p.name), *open_thread(FRIEND), *reply_plan(number), FinishStep()]


_OFFICES = (("+8618612345641", "Bright Smile Dental"), ("+8618612345642", "仁和口腔诊所"))
_APPOINTMENT_TIMES = ("09:30", "11:00", "14:30", "16:00")


class Appointment(TaskParams):
    """An appointment an office texts: in ``days`` days at ``at``; its event's title."""

    office: Annotated[int, Integer(0, len(_OFFICES) - 1)]
    days: Annotated[int, Integer(2, 4)]
    at: Annotated[str, Choice(_APPOINTMENT_TIMES)]
    title: Annotated[str, Choice(("Dentist", "看牙", "Dental check-up"))]


def _appointment_text(p: Appointment) -> str:
    name = _OFFICES[p.office][1]
    return (f"{name}: your appointment is confirmed for {day_phrase(p.days, 'en')} at {p.at}. "
            "Reply C to cancel.")  # fmt: skip


class EventFromSms(MessagesTask[Appointment]):
    """Messages → Calendar: the appointment an SMS confirms, as an event at its time (the
    day is said relative to today, so a phone's own date is used: ``LocalTimeFact``)."""

    id = "crossapp/EventFromSms-v1"
    apps = ("messages", "calendar")
    level = "L3"
    kind = "operate"
    instructions = {
        "en": 'Add the appointment from the dental office\'s SMS to my calendar as "{title}".',
        "zh": "把牙科诊所短信里的预约加到日历，标题为“{title}”。",
    }
    Params = Appointment
    watch = (SMS_WATCH, EVENTS_WATCH, REMINDERS_WATCH)

    def inbox(self, p: Appointment) -> Sequence[InboundSms]:
        office = InboundSms(address=_OFFICES[p.office][0], minutes_ago=8, body=_appointment_text(p))
        return [*INBOX, office]

    def posing(self, p: Appointment) -> list[EnsureOp]:
        return [put("system", "time_12_24", "24"),
                DeleteRows(uri=EVENTS, where=f"title={sql_text(p.title)}")]  # fmt: skip

    def truths(self, p: Appointment) -> list[Truth]:
        start = LocalTimeFact(when=LocalTime(days=p.days, at=p.at))
        return [POSED, Truth(name="start", fact=start)]

    def goal(self, p: Appointment) -> list[CheckRule]:
        return [one_event(p.title), event_is("start", p.title, "dtstart", TruthRef(truth="start"))]

    def expected_rows(self, p: Appointment) -> list[RowsSelector]:
        read = RowsSelector(uri=SMS, where=to_number(_OFFICES[p.office][0]))
        return [read, *created_rows(p.title)]

    def oracle(self, p: Appointment, lang: str) -> Plan:
        return [
            *open_thread(_OFFICES[p.office][0]),
            *new_event_plan(p.days, p.title, lang, p.at, None),
            TapStep(on=Selector(resource_id="action_done")),
            FinishStep(),
        ]


COURIERS = (("95311", "【中通快递】"), ("95546", "【韵达快递】"), ("10690099887", "【京东物流】"))
"""Couriers that text (number, the brand their SMS starts with)."""


class Courier(TaskParams):
    """The courier that texts and the name to save its number under."""

    courier: Annotated[int, Integer(0, len(COURIERS) - 1)]
    name: Annotated[str, Choice(NEW_NAMES)]


class SaveSenderAsContact(MessagesTask[Courier]):
    """Messages → Contacts: the number a courier texted from, saved as a new contact (nobody
    of that name at the start; the number compared as Android compares numbers)."""

    id = "crossapp/SaveSenderAsContact-v1"
    apps = ("messages", "contacts")
    level = "L2"
    kind = "operate"
    instructions = {
        "en": 'Save the number the courier texted me from as a new contact named "{name}".',
        "zh": "把给我发快递短信的号码存成新联系人，名字叫“{name}”。",
    }
    Params = Courier
    watch = (SMS_WATCH, *CONTACTS_WATCH)

    def inbox(self, p: Courier) -> Sequence[InboundSms]:
        number, brand = COURIERS[p.courier]
        body = f"{brand}您的包裹正在派送中，快递员稍后联系您，请保持电话畅通。"
        note = InboundSms(address=number, minutes_ago=15, body=body)
        return [*INBOX, note]

    def posing(self, p: Courier) -> list[EnsureOp]:
        return [DeleteRows(uri=RAW_CONTACTS, where=f"display_name={sql_text(p.name)}")]

    def goal(self, p: Courier) -> list[CheckRule]:
        return [*created_checks(p.name), phone_check(p.name, COURIERS[p.courier][0])]

    def expected_rows(self, p: Courier) -> list[RowsSelector]:
        read = RowsSelector(uri=SMS, where=to_number(COURIERS[p.courier][0]))
        return [read, *person_rows(p.name)]

    def oracle(self, p: Courier, lang: str) -> Plan:
        fields = editor_plan(("name_edit", p.name), ("phone_edit", COURIERS[p.courier][0]))
        return [*open_thread(COURIERS[p.courier][0]), *_NEW_CONTACT, *fields, _SAVE_CONTACT,
                FinishStep()]  # fmt: skip


TEMPLATES = (ReplyWithContactNumber(), EventFromSms(), SaveSenderAsContact())


# ---- wrong plans, which must not pass (tests/sim/test_tasks_e2e.py runs them):
# A wrong digit, an hour late.

WRONG: dict[str, WrongPlan] = {
    "crossapp/ReplyWithContactNumber-v1": lambda p, lang, w: [
        *open_contact(p["name"]),
        *open_thread(FRIEND),
        *reply_plan(typo(p["person"]["phones"][0]["number"])),
        FinishStep(),
    ],
    "crossapp/EventFromSms-v1": lambda p, lang, w: [
        OpenAppStep(app="messages"),  # an hour late
        *new_event_plan(p["days"], p["title"], lang, later(p["at"], 60), None),
        TapStep(on=Selector(resource_id="action_done")),
        FinishStep(),
    ],
    "crossapp/SaveSenderAsContact-v1": lambda p, lang, w: [
        OpenAppStep(app="contacts"),
        TapStep(on=Selector(resource_id="floating_action_button")),
        *editor_plan(("name_edit", p["name"]), ("phone_edit", typo(COURIERS[p["courier"]][0]))),
        TapStep(on=Selector(resource_id="editor_menu_save_button")),
        FinishStep(),
    ],
}
