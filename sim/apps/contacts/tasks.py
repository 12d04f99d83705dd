"""Task templates over the Contacts app: create, star, delete and edit contacts.

Judged as a phone sees contacts: ContactsContract's ``contacts`` and ``data`` rows, found by
display name (``content query --uri content://com.android.contacts/contacts --where
"display_name='张三'"``), so a phone whose people differ from the simulator's world is posed
and judged the same way: the people a task names are inserted when missing, a name the task
will create is deleted first. Phone numbers are compared as Android compares them
(:func:`bridge.spec.answers.answer_matches` ``phone``: ``13912345678`` is ``+86 139 1234 5678``).
Questions about contacts are in :mod:`sim.apps.contacts.query_tasks`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from functools import cache
from typing import Annotated, Any, ClassVar, TypeVar

from bridge.android_contract import (
    CONTACTS,
    DATA,
    EMAIL,
    EMAIL_TYPE_WORK,
    ORGANIZATION,
    PHONE,
    RAW_CONTACTS,
    sql_text,
)
from bridge.plans import (
    FinishStep,
    NoteStep,
    OpenAppStep,
    Plan,
    Selector,
    TapStep,
    TypeStep,
)
from bridge.spec.base import Scalar, TruthRef
from bridge.spec.contacts import EnsureContact
from bridge.spec.rows import DeleteRows, RowsCheck, RowsSelector, WatchedRows
from bridge.taskspec import CheckRule, EnsureOp
from sim.apps.contacts.app import ContactsApp
from sim.tasks.base import P, TaskTemplate, WrongPlan
from sim.tasks.params import Choice, Integer, TaskParams, WorldChoice

__all__ = [
    "CONTACTS_WATCH",
    "NEW_NAMES",
    "TEMPLATES",
    "ContactsTask",
    "CreateContact",
    "CreateContactWithCompany",
    "CreateContactWorkEmail",
    "DeleteContact",
    "EditContactPhone",
    "StarContact",
    "UnstarContact",
    "contacts_text",
    "created_checks",
    "editor_plan",
    "ensure_person",
    "named",
    "named_rows",
    "note_section",
    "open_contact",
    "person_rows",
    "phone_check",
    "single_phone",
    "world_contact",
    "world_contacts",
]

World = Mapping[str, Mapping[str, Any]]

NEW_NAMES = ("Lucas Meyer", "周雨桐", "Sofia Rossi", "黄子涵", "Daniel Park", "林可欣")
"""Names of contacts to create: none is in world data."""

CONTACTS_WATCH = (
    WatchedRows(uri=CONTACTS, projection=["_id", "display_name", "starred"]),
    WatchedRows(uri=DATA, projection=["_id", "contact_id", "mimetype", "data1", "data2", "data4"]),
)
"""The contacts rows every Contacts task diffs for side effects."""

Prefix = Annotated[str, Choice(("139", "186", "152", "177", "158"))]
Line = Annotated[int, Integer(10_000_000, 99_999_999)]
"""A Chinese mobile number as two parameters (derived into ``phone``: ``139 1234 5678``)."""


def _phone(sampled: Mapping[str, Any]) -> str:
    line = str(sampled["line"])
    return f"{sampled['prefix']} {line[:4]} {line[4:]}"


# ---------------------------------------------------------------- shared helpers


def world_contacts(world: World) -> list[Mapping[str, Any]]:
    """The contacts of the Contacts app's world data."""
    return list(world["contacts"]["contacts"])


def named(world: World) -> list[Mapping[str, Any]]:
    """World contacts whose name no other contact has (a name then says whom a task means)."""
    contacts = world_contacts(world)
    counts = Counter(c["name"] for c in contacts)
    return [c for c in contacts if counts[c["name"]] == 1]


def single_phone(world: World) -> list[Mapping[str, Any]]:
    """Uniquely named world contacts with exactly one phone number."""
    return [c for c in named(world) if len(c["phones"]) == 1]


def world_contact(world: World, contact_id: str) -> Mapping[str, Any]:
    """The world contact ``contact_id``."""
    return next(c for c in world_contacts(world) if c["id"] == contact_id)


def named_rows(name: str, mimetype: str | None = None) -> str:
    """The ``--where`` of the rows of the contacts named ``name`` (data rows of one kind)."""
    where = f"display_name={sql_text(name)}"
    return where if mimetype is None else f"{where} AND mimetype={sql_text(mimetype)}"


def person_rows(name: str) -> list[RowsSelector]:
    """The rows a task may change about the person ``name``: the contact and its data."""
    return [
        RowsSelector(uri=CONTACTS, where=named_rows(name)),
        RowsSelector(uri=DATA, where=named_rows(name)),
    ]


class PhoneNumber(TaskParams):
    """A contact's number and its label."""

    type: str
    number: str


class EmailAddress(TaskParams):
    """A contact's email address and its label."""

    type: str
    address: str


class Person(TaskParams):
    """A contact of the simulator's world (or one a task adds), as world data holds it."""

    id: str
    name: str
    phones: list[PhoneNumber] = []
    emails: list[EmailAddress] = []
    company: str = ""
    title: str = ""
    starred: bool = False
    note: str = ""


def ensure_person(person: Person, starred: bool | None = None) -> EnsureContact:
    """An ensure operation for a world contact: inserted with its numbers and company when
    the phone lacks someone of that name."""
    return EnsureContact(
        name=person.name,
        phones=[phone.number for phone in person.phones],
        company=person.company or None,
        title=person.title or None,
        starred=starred,
    )


def created_checks(name: str) -> list[CheckRule]:
    """Exactly one contact named ``name`` (the task deleted that name before it began)."""
    return [
        RowsCheck(
            name="contacts named " + name,
            uri=CONTACTS,
            where=named_rows(name),
            expect="count",
            value=1,
        )
    ]


def phone_check(name: str, number: Scalar | TruthRef, only: bool = False) -> RowsCheck:
    """Some (``only``: the one) phone number of ``name`` is ``number``, as Android compares
    numbers."""
    return RowsCheck(
        name="phone",
        uri=DATA,
        where=named_rows(name, PHONE),
        column="data1",
        expect="only" if only else "any",
        value=number,
        match="number",
    )


def _detail(name: str, mimetype: str, column: str, value: str, label: str) -> RowsCheck:
    return RowsCheck(
        name=label,
        uri=DATA,
        where=named_rows(name, mimetype),
        column=column,
        expect="any",
        value=value,
    )


@cache
def _strings(lang: str) -> Mapping[str, str]:
    return ContactsApp().strings(lang)


def contacts_text(key: str, lang: str) -> str:
    """A Contacts UI string as the phone shows it in ``lang``."""
    return _strings(lang)[key]


def note_section(key: str, title: str | None = None) -> NoteStep:
    """Note the row titles of a list section: the one headed ``title``, else the first
    (search results). What a scripted oracle reads to answer from the screen."""
    header = Selector(resource_id="section_title")
    after = header if title is None else Selector(resource_id="section_title", text=title)
    return NoteStep(key=key, rows=Selector(resource_id="title"), after=after, until=header)


def open_contact(name: str) -> Plan:
    """Open Contacts, search ``name`` and open the contact's card."""
    return [
        OpenAppStep(app="contacts"),
        TypeStep(text=name, into=Selector(resource_id="search_src_text"), submit=True),
        TapStep(on=Selector(resource_id="title", text=name)),
    ]


def editor_plan(*fields: tuple[str, str]) -> Plan:
    """Type into editor fields, given as (resource id, text) pairs."""
    return [TypeStep(text=text, into=Selector(resource_id=rid)) for rid, text in fields]


_SAVE = TapStep(on=Selector(resource_id="editor_menu_save_button"))
_CREATE: Plan = [
    OpenAppStep(app="contacts"),
    TapStep(on=Selector(resource_id="floating_action_button")),
]


# ---------------------------------------------------------------- tasks


class NewContact(TaskParams):
    """A new contact's name and mobile number."""

    name: Annotated[str, Choice(NEW_NAMES)]
    prefix: Prefix
    line: Line
    phone: str


class NewColleague(TaskParams):
    """A new contact with a number, a company and a job title."""

    name: Annotated[str, Choice(NEW_NAMES)]
    prefix: Prefix
    line: Line
    company: Annotated[str, Choice(("字节跳动", "小米科技", "Acme, Inc.", "Globex", "北京大学"))]
    title: Annotated[str, Choice(("产品经理", "软件工程师", "Designer", "Sales Director"))]
    phone: str


class PersonParams(TaskParams):
    """A world contact (``contact``: its id; each template narrows whom it draws)."""

    contact: str
    name: str
    person: Person


class ContactsTask(TaskTemplate[P]):
    """A task over Contacts: its rows are watched for side effects."""

    apps = ("contacts",)
    watch = CONTACTS_WATCH


class _CreateTask(ContactsTask[P]):
    """Create a contact named ``p[name_param]``: nobody has that name at the start."""

    name_param: ClassVar[str] = "name"

    def ensure(self, p: P) -> list[EnsureOp]:
        return [DeleteRows(uri=RAW_CONTACTS, where=named_rows(getattr(p, self.name_param)))]

    def expected_rows(self, p: P) -> list[RowsSelector]:
        return person_rows(getattr(p, self.name_param))


class CreateContact(_CreateTask[NewContact]):
    """C1: a new contact with a name and a mobile number."""

    id = "contacts/CreateContact-v1"
    level = "L2"
    kind = "operate"
    instructions = {
        "en": 'Add a new contact "{name}" with the mobile number {phone}.',
        "zh": "新建联系人“{name}”，手机号码是 {phone}。",
    }
    Params = NewContact

    def derive(self, sampled: Mapping[str, Any], world: World) -> dict[str, Any]:
        return {"phone": _phone(sampled)}

    def goal(self, p: NewContact) -> list[CheckRule]:
        return [*created_checks(p.name), phone_check(p.name, p.phone)]

    def oracle(self, p: NewContact, lang: str) -> Plan:
        fields = editor_plan(("name_edit", p.name), ("phone_edit", p.phone))
        return [*_CREATE, *fields, _SAVE, FinishStep()]


class CreateContactWithCompany(_CreateTask[NewColleague]):
    """C2: a new contact with a phone, a company and a job title."""

    id = "contacts/CreateContactWithCompany-v1"
    level = "L3"
    kind = "operate"
    instructions = {
        "en": 'Create a contact "{name}" with the phone number {phone}, the company "{company}" '
        'and the job title "{title}".',
        "zh": "新建联系人“{name}”，电话 {phone}，公司“{company}”，职位“{title}”。",
    }
    Params = NewColleague

    def derive(self, sampled: Mapping[str, Any], world: World) -> dict[str, Any]:
        return {"phone": _phone(sampled)}

    def goal(self, p: NewColleague) -> list[CheckRule]:
        name = p.name
        return [
            *created_checks(name),
            phone_check(name, p.phone),
            _detail(name, ORGANIZATION, "data1", p.company, "company"),
            _detail(name, ORGANIZATION, "data4", p.title, "title"),
        ]

    def oracle(self, p: NewColleague, lang: str) -> Plan:
        fields = editor_plan(
            ("name_edit", p.name),
            ("phone_edit", p.phone),
            ("company_edit", p.company),
            ("title_edit", p.title),
        )
        return [*_CREATE, *fields, _SAVE, FinishStep()]


_EMAILS = {
    "Lucas Meyer": "lucas.meyer@example.com",
    "周雨桐": "zhouyutong@bytedance.com",
    "Sofia Rossi": "sofia.rossi@globex.com",
    "黄子涵": "huangzihan@mi.com",
    "Daniel Park": "dpark@acme.com",
    "林可欣": "linkexin@pku.edu.cn",
}
_WORK_LABEL = {"en": "Work", "zh": "单位"}
"""The email label Work as the editor's label picker shows it."""


class NewEmailContact(TaskParams):
    """A new contact's name and work email."""

    name: Annotated[str, Choice(tuple(_EMAILS))]
    email: str


class CreateContactWorkEmail(_CreateTask[NewEmailContact]):
    """C3: a new contact with an email labelled Work (the editor's default label is Home)."""

    id = "contacts/CreateContactWorkEmail-v1"
    level = "L3"
    kind = "operate"
    instructions = {
        "en": 'Create a contact "{name}" with the work email address {email}.',
        "zh": "新建联系人“{name}”，添加单位电子邮件 {email}。",
    }
    Params = NewEmailContact

    def derive(self, sampled: Mapping[str, Any], world: World) -> dict[str, Any]:
        return {"email": _EMAILS[sampled["name"]]}

    def goal(self, p: NewEmailContact) -> list[CheckRule]:
        name, emails = p.name, named_rows(p.name, EMAIL)
        work = f"{emails} AND data2={EMAIL_TYPE_WORK}"
        return [
            *created_checks(name),
            RowsCheck(name="email", uri=DATA, where=emails, column="data1", expect="any",
                      value=p.email, match="casefold"),
            RowsCheck(name="email label", uri=DATA, where=work, column="data1", expect="any",
                      value=p.email, match="casefold"),
        ]  # fmt: skip

    def oracle(self, p: NewEmailContact, lang: str) -> Plan:
        return [
            *_CREATE,
            *editor_plan(("name_edit", p.name), ("email_edit", p.email)),
            TapStep(on=Selector(resource_id="spinner", nth=1)),  # the email row's label
            TapStep(on=Selector(resource_id="radio", text=_WORK_LABEL[lang])),
            _SAVE,
            FinishStep(),
        ]


_PersonP = TypeVar("_PersonP", bound=PersonParams)


class _PersonTask(ContactsTask[_PersonP]):
    """A task about the world contact ``p.contact`` (its name in ``p.name``)."""

    def derive(self, sampled: Mapping[str, Any], world: World) -> dict[str, Any]:
        contact = world_contact(world, sampled["contact"])
        return {"name": contact["name"], "person": dict(contact)}

    def expected_rows(self, p: _PersonP) -> list[RowsSelector]:
        return person_rows(p.name)


class Unstarred(PersonParams):
    """A uniquely named world contact who is not a favourite."""

    contact: Annotated[str, WorldChoice(lambda w: [c["id"] for c in named(w) if not c["starred"]])]


class Starred(PersonParams):
    """A uniquely named world favourite."""

    contact: Annotated[str, WorldChoice(lambda w: [c["id"] for c in named(w) if c["starred"]])]


class Named(PersonParams):
    """A uniquely named world contact."""

    contact: Annotated[str, WorldChoice(lambda w: [c["id"] for c in named(w)])]


class NewNumberFor(PersonParams):
    """A world contact with one mobile number, and the number to replace it with."""

    contact: Annotated[
        str,
        WorldChoice(
            lambda w: [c["id"] for c in single_phone(w) if c["phones"][0]["type"] == "mobile"]
        ),
    ]
    prefix: Prefix
    line: Line
    phone: str


class _StarTask(_PersonTask[PersonParams]):
    """Star or unstar one contact (C4/C5); it starts the other way."""

    level = "L2"
    kind = "operate"
    starred: ClassVar[bool] = True

    def ensure(self, p: PersonParams) -> list[EnsureOp]:
        return [ensure_person(p.person, starred=not self.starred)]

    def goal(self, p: PersonParams) -> list[CheckRule]:
        return [
            RowsCheck(name="starred", uri=CONTACTS, where=named_rows(p.name),
                      column="starred", expect="all", value=int(self.starred))
        ]  # fmt: skip

    def expected_rows(self, p: PersonParams) -> list[RowsSelector]:
        return person_rows(p.name)[:1]

    def oracle(self, p: PersonParams, lang: str) -> Plan:
        return [
            *open_contact(p.name),
            TapStep(on=Selector(resource_id="menu_star")),
            FinishStep(),
        ]


class StarContact(_StarTask):
    """C4: add a contact to favourites."""

    id = "contacts/StarContact-v1"
    instructions = {"en": "Add {name} to favorites.", "zh": "把“{name}”加入收藏。"}
    Params = Unstarred


class UnstarContact(_StarTask):
    """C5: remove one of the seeded favourites (张三, 中国移动, Charlie, 妈妈)."""

    id = "contacts/UnstarContact-v1"
    instructions = {"en": "Remove {name} from favorites.", "zh": "把“{name}”从收藏中移除。"}
    Params = Starred
    starred = False


class DeleteContact(_PersonTask[PersonParams]):
    """C6: delete one contact (nobody of that name is left; nothing else may change)."""

    id = "contacts/DeleteContact-v1"
    level = "L2"
    kind = "operate"
    instructions = {"en": "Delete the contact {name}.", "zh": "删除联系人“{name}”。"}
    Params = Named

    def ensure(self, p: PersonParams) -> list[EnsureOp]:
        return [ensure_person(p.person)]

    def goal(self, p: PersonParams) -> list[CheckRule]:
        return [
            RowsCheck(name="contacts named " + p.name, uri=CONTACTS,
                      where=named_rows(p.name), expect="count", value=0)
        ]  # fmt: skip

    def oracle(self, p: PersonParams, lang: str) -> Plan:
        return [
            *open_contact(p.name),
            TapStep(on=Selector(resource_id="menu_delete")),
            TapStep(on=Selector(resource_id="button1")),
            FinishStep(),
        ]


class EditContactPhone(_PersonTask[NewNumberFor]):
    """Replace a contact's only (mobile) number with a new one."""

    id = "contacts/EditContactPhone-v1"
    level = "L3"
    kind = "operate"
    instructions = {
        "en": "Change {name}'s mobile number to {phone}.",
        "zh": "把“{name}”的手机号码改成 {phone}。",
    }
    Params = NewNumberFor

    def derive(self, sampled: Mapping[str, Any], world: World) -> dict[str, Any]:
        return {**super().derive(sampled, world), "phone": _phone(sampled)}

    def ensure(self, p: NewNumberFor) -> list[EnsureOp]:
        return [ensure_person(p.person)]

    def goal(self, p: NewNumberFor) -> list[CheckRule]:
        return [phone_check(p.name, p.phone, only=True)]

    def oracle(self, p: NewNumberFor, lang: str) -> Plan:
        return [
            *open_contact(p.name),
            TapStep(on=Selector(resource_id="menu_edit")),
            *editor_plan(("phone_edit", p.phone)),
            _SAVE,
            FinishStep(),
        ]


TEMPLATES: tuple[TaskTemplate, ...] = (
    CreateContact(),
    CreateContactWithCompany(),
    CreateContactWorkEmail(),
    StarContact(),
    UnstarContact(),
    DeleteContact(),
    EditContactPhone(),
)


# ---- wrong plans, which must not pass (tests/sim/test_tasks_e2e.py runs them):
# A wrong digit, swapped fields, the default label, the wrong contact.


def typo(number: str) -> str:
    """``number`` with its last digit changed (a wrong plan's number)."""
    return number[:-1] + str((int(number[-1]) + 1) % 10)


def other_name(p: dict[str, Any], world: World) -> str:
    """Another named contact than the task's ``name`` (a wrong plan's)."""
    return next(c["name"] for c in named(world) if c["name"] != p["name"])


def _star_other(p: dict[str, Any], lang: str, world: World) -> Plan:
    """Star (or unstar) the first other contact in the same state as the target."""
    target = next(c for c in named(world) if c["id"] == p["contact"])
    other = next(
        c for c in named(world) if c["starred"] == target["starred"] and c["id"] != p["contact"]
    )
    return [
        *open_contact(other["name"]),
        TapStep(on=Selector(resource_id="menu_star")),
        FinishStep(),
    ]


WRONG: dict[str, WrongPlan] = {
    "contacts/CreateContact-v1": lambda p, lang, w: [
        OpenAppStep(app="contacts"),
        TapStep(on=Selector(resource_id="floating_action_button")),
        *editor_plan(("name_edit", p["name"]), ("phone_edit", typo(p["phone"]))),
        _SAVE,
        FinishStep(),
    ],
    "contacts/CreateContactWithCompany-v1": lambda p, lang, w: [
        OpenAppStep(app="contacts"),
        TapStep(on=Selector(resource_id="floating_action_button")),
        *editor_plan(
            ("name_edit", p["name"]),
            ("phone_edit", p["phone"]),
            ("company_edit", p["title"]),
            ("title_edit", p["company"]),
        ),
        _SAVE,
        FinishStep(),
    ],
    "contacts/CreateContactWorkEmail-v1": lambda p, lang, w: [
        OpenAppStep(app="contacts"),
        TapStep(on=Selector(resource_id="floating_action_button")),
        *editor_plan(("name_edit", p["name"]), ("email_edit", p["email"])),
        _SAVE,  # still labelled Home
        FinishStep(),
    ],
    "contacts/StarContact-v1": _star_other,
    "contacts/UnstarContact-v1": _star_other,
    "contacts/DeleteContact-v1": lambda p, lang, w: [
        *open_contact(other_name(p, w)),
        TapStep(on=Selector(resource_id="menu_delete")),
        TapStep(on=Selector(resource_id="button1")),
        FinishStep(),
    ],
    "contacts/EditContactPhone-v1": lambda p, lang, w: [
        *open_contact(p["name"]),
        TapStep(on=Selector(resource_id="menu_edit")),
        TapStep(on=Selector(resource_id="add_phone")),
        TypeStep(text=p["phone"], into=Selector(resource_id="phone_edit", nth=1)),
        _SAVE,
        FinishStep(),
    ],
}
