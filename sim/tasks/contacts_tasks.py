"""Task templates over the Contacts app: create, star, delete and edit contacts.

Judged on ``apps.contacts.contacts`` (the effective contacts, compared id by id). Contacts
the agent creates get ids ``n001``, ``n002``… (a setup that adds contacts uses ``s01``…), so
"the new contacts" are the ones whose id starts with ``n``. Phone numbers are compared as
Android does (:func:`~sim.apps.contacts.model.same_number`: ``13912345678`` is
``+86 139 1234 5678``). Each has a real-phone probe over the contacts provider (C1–C6).
Questions about contacts are in :mod:`sim.tasks.contacts_query_tasks`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from functools import cache
from typing import Any, ClassVar

from bridge.plans import (
    FinishStep,
    NoteStep,
    OpenAppStep,
    Plan,
    Selector,
    TapStep,
    TypeStep,
)
from bridge.schema import Check
from sim.apps.contacts.app import ContactsApp
from sim.apps.contacts.model import NEW_ID_PREFIX, same_number, set_starred
from sim.tasks.base import SetupContext, TaskTemplate
from sim.tasks.judge import check
from sim.tasks.params import Choice, Integer, WorldChoice

__all__ = [
    "NEW_NAMES",
    "TEMPLATES",
    "CreateContact",
    "CreateContactWithCompany",
    "CreateContactWorkEmail",
    "DeleteContact",
    "EditContactPhone",
    "StarContact",
    "UnstarContact",
    "contact_by_id",
    "contacts_text",
    "created_checks",
    "editor_plan",
    "named",
    "note_section",
    "number_check",
    "open_contact",
    "single_phone",
    "world_contacts",
]

World = Mapping[str, Mapping[str, Any]]

NEW_NAMES = ("Lucas Meyer", "周雨桐", "Sofia Rossi", "黄子涵", "Daniel Park", "林可欣")
"""Names of contacts to create: none is in world data."""

_PHONE_PARAMS = {
    "prefix": Choice(("139", "186", "152", "177", "158")),
    "line": Integer(10_000_000, 99_999_999),
}
"""A Chinese mobile number as two parameters (derived into ``phone``: ``139 1234 5678``)."""


def _phone(p: Mapping[str, Any]) -> str:
    line = str(p["line"])
    return f"{p['prefix']} {line[:4]} {line[4:]}"


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


def _world_contact(world: World, contact_id: str) -> Mapping[str, Any]:
    return next(c for c in world_contacts(world) if c["id"] == contact_id)


def contact_by_id(state: Mapping[str, Any], contact_id: str) -> Mapping[str, Any] | None:
    """The contact ``contact_id`` in a judged state, None if it does not exist."""
    contacts = state["apps"]["contacts"]["contacts"]
    return next((c for c in contacts if c["id"] == contact_id), None)


def _new_contacts(state: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return [c for c in state["apps"]["contacts"]["contacts"] if c["id"].startswith(NEW_ID_PREFIX)]


def created_checks(
    state: Mapping[str, Any], name: str
) -> tuple[list[Check], Mapping[str, Any] | None]:
    """Exactly one contact was created, and it is named ``name``; returns it if it was."""
    new = _new_contacts(state)
    found = next((c for c in new if c["name"] == name), None)
    actual = found["name"] if found else [c["name"] for c in new]
    return [check("new contacts", 1, len(new)), check("name", name, actual)], found


def number_check(name: str, expected: str, numbers: list[str]) -> Check:
    """Passes when one of ``numbers`` is ``expected`` as Android compares numbers."""
    return Check(
        name=name,
        expected=expected,
        actual=numbers,
        passed=any(same_number(expected, number) for number in numbers),
        evidence="same_number: equal digits, or equal last 7+ digits",
    )


def _numbers(contact: Mapping[str, Any] | None) -> list[str]:
    return [p["number"] for p in contact["phones"]] if contact else []


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
_CREATE = [OpenAppStep(app="contacts"), TapStep(on=Selector(resource_id="floating_action_button"))]


# ---------------------------------------------------------------- create


class CreateContact(TaskTemplate):
    """C1: a new contact with a name and a mobile number."""

    id = "contacts/CreateContact-v1"
    apps = ("contacts",)
    level = "L2"
    kind = "operate"
    instructions = {
        "en": 'Add a new contact "{name}" with the mobile number {phone}.',
        "zh": "新建联系人“{name}”，手机号码是 {phone}。",
    }
    params = {"name": Choice(NEW_NAMES), **_PHONE_PARAMS}
    expected_changes = ("apps.contacts.contacts.n*",)

    def derive(self, p: dict[str, Any], world: World) -> dict[str, Any]:
        return {"phone": _phone(p)}

    def checks(self, state: Mapping[str, Any], p: dict[str, Any]) -> list[Check]:
        checks, found = created_checks(state, p["name"])
        return [*checks, number_check("phone", p["phone"], _numbers(found))]

    def oracle(self, p: dict[str, Any], lang: str) -> Plan:
        fields = editor_plan(("name_edit", p["name"]), ("phone_edit", p["phone"]))
        return [*_CREATE, *fields, _SAVE, FinishStep()]


class CreateContactWithCompany(TaskTemplate):
    """C2: a new contact with a phone, a company and a job title."""

    id = "contacts/CreateContactWithCompany-v1"
    apps = ("contacts",)
    level = "L3"
    kind = "operate"
    instructions = {
        "en": 'Create a contact "{name}" with the phone number {phone}, the company "{company}" '
        'and the job title "{title}".',
        "zh": "新建联系人“{name}”，电话 {phone}，公司“{company}”，职位“{title}”。",
    }
    params = {
        "name": Choice(NEW_NAMES),
        **_PHONE_PARAMS,
        "company": Choice(("字节跳动", "小米科技", "Acme Corp", "Globex", "北京大学")),
        "title": Choice(("产品经理", "软件工程师", "Designer", "Sales Director")),
    }
    expected_changes = ("apps.contacts.contacts.n*",)

    def derive(self, p: dict[str, Any], world: World) -> dict[str, Any]:
        return {"phone": _phone(p)}

    def checks(self, state: Mapping[str, Any], p: dict[str, Any]) -> list[Check]:
        checks, found = created_checks(state, p["name"])
        return [
            *checks,
            number_check("phone", p["phone"], _numbers(found)),
            check("company", p["company"], found["company"] if found else None),
            check("title", p["title"], found["title"] if found else None),
        ]

    def oracle(self, p: dict[str, Any], lang: str) -> Plan:
        fields = editor_plan(
            ("name_edit", p["name"]),
            ("phone_edit", p["phone"]),
            ("company_edit", p["company"]),
            ("title_edit", p["title"]),
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


class CreateContactWorkEmail(TaskTemplate):
    """C3: a new contact with an email labelled Work (the editor's default label is Home)."""

    id = "contacts/CreateContactWorkEmail-v1"
    apps = ("contacts",)
    level = "L3"
    kind = "operate"
    instructions = {
        "en": 'Create a contact "{name}" with the work email address {email}.',
        "zh": "新建联系人“{name}”，添加单位电子邮件 {email}。",
    }
    params = {"name": Choice(tuple(_EMAILS))}
    expected_changes = ("apps.contacts.contacts.n*",)

    def derive(self, p: dict[str, Any], world: World) -> dict[str, Any]:
        return {"email": _EMAILS[p["name"]]}

    def checks(self, state: Mapping[str, Any], p: dict[str, Any]) -> list[Check]:
        checks, found = created_checks(state, p["name"])
        emails = list(found["emails"]) if found else []
        wanted = p["email"].casefold()
        match = next((e for e in emails if e["address"].casefold() == wanted), None)
        addresses = [e["address"] for e in emails]
        return [
            *checks,
            Check(name="email", expected=p["email"], actual=addresses, passed=match is not None),
            check("email label", "work", match["type"] if match else None),
        ]

    def oracle(self, p: dict[str, Any], lang: str) -> Plan:
        return [
            *_CREATE,
            *editor_plan(("name_edit", p["name"]), ("email_edit", p["email"])),
            TapStep(on=Selector(resource_id="spinner", nth=1)),  # the email row's label
            TapStep(on=Selector(resource_id="radio", text=_WORK_LABEL[lang])),
            _SAVE,
            FinishStep(),
        ]


# ---------------------------------------------------------------- favourites


class _StarTask(TaskTemplate):
    """Star or unstar one contact (C4/C5); the setup makes sure it starts the other way."""

    apps = ("contacts",)
    level = "L2"
    kind = "operate"
    starred: ClassVar[bool] = True
    expected_changes = ("apps.contacts.contacts.{contact}.starred",)

    def derive(self, p: dict[str, Any], world: World) -> dict[str, Any]:
        return {"name": _world_contact(world, p["contact"])["name"]}

    def setup(self, s: SetupContext, p: dict[str, Any]) -> None:
        set_starred(s.overlay("contacts"), p["contact"], not self.starred, s.world("contacts"))

    def checks(self, state: Mapping[str, Any], p: dict[str, Any]) -> list[Check]:
        contact = contact_by_id(state, p["contact"])
        return [check("starred", self.starred, contact["starred"] if contact else None)]

    def oracle(self, p: dict[str, Any], lang: str) -> Plan:
        return [
            *open_contact(p["name"]),
            TapStep(on=Selector(resource_id="menu_star")),
            FinishStep(),
        ]


class StarContact(_StarTask):
    """C4: add a contact to favourites."""

    id = "contacts/StarContact-v1"
    instructions = {"en": "Add {name} to favorites.", "zh": "把“{name}”加入收藏。"}
    params = {"contact": WorldChoice(lambda w: [c["id"] for c in named(w) if not c["starred"]])}


class UnstarContact(_StarTask):
    """C5: remove one of the seeded favourites (张三, 中国移动, Charlie, 妈妈)."""

    id = "contacts/UnstarContact-v1"
    instructions = {"en": "Remove {name} from favorites.", "zh": "把“{name}”从收藏中移除。"}
    params = {"contact": WorldChoice(lambda w: [c["id"] for c in named(w) if c["starred"]])}
    starred = False


# ---------------------------------------------------------------- delete and edit


class DeleteContact(TaskTemplate):
    """C6: delete one contact (its id disappears; nothing else may change)."""

    id = "contacts/DeleteContact-v1"
    apps = ("contacts",)
    level = "L2"
    kind = "operate"
    instructions = {"en": "Delete the contact {name}.", "zh": "删除联系人“{name}”。"}
    params = {"contact": WorldChoice(lambda w: [c["id"] for c in named(w)])}
    expected_changes = ("apps.contacts.contacts.{contact}",)

    def derive(self, p: dict[str, Any], world: World) -> dict[str, Any]:
        return {"name": _world_contact(world, p["contact"])["name"]}

    def checks(self, state: Mapping[str, Any], p: dict[str, Any]) -> list[Check]:
        return [check("exists", False, contact_by_id(state, p["contact"]) is not None)]

    def oracle(self, p: dict[str, Any], lang: str) -> Plan:
        return [
            *open_contact(p["name"]),
            TapStep(on=Selector(resource_id="menu_delete")),
            TapStep(on=Selector(resource_id="button1")),
            FinishStep(),
        ]


class EditContactPhone(TaskTemplate):
    """Replace a contact's only (mobile) number with a new one."""

    id = "contacts/EditContactPhone-v1"
    apps = ("contacts",)
    level = "L3"
    kind = "operate"
    instructions = {
        "en": "Change {name}'s mobile number to {phone}.",
        "zh": "把“{name}”的手机号码改成 {phone}。",
    }
    params = {
        "contact": WorldChoice(
            lambda w: [c["id"] for c in single_phone(w) if c["phones"][0]["type"] == "mobile"]
        ),
        **_PHONE_PARAMS,
    }
    expected_changes = ("apps.contacts.contacts.{contact}.phones",)

    def derive(self, p: dict[str, Any], world: World) -> dict[str, Any]:
        return {"name": _world_contact(world, p["contact"])["name"], "phone": _phone(p)}

    def checks(self, state: Mapping[str, Any], p: dict[str, Any]) -> list[Check]:
        numbers = _numbers(contact_by_id(state, p["contact"]))
        return [check("phone count", 1, len(numbers)), number_check("phone", p["phone"], numbers)]

    def oracle(self, p: dict[str, Any], lang: str) -> Plan:
        return [
            *open_contact(p["name"]),
            TapStep(on=Selector(resource_id="menu_edit")),
            *editor_plan(("phone_edit", p["phone"])),
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
