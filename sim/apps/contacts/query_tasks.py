"""Questions over Contacts (C7, C8 and more), and hybrids that act and then answer.

Answers are judged against what the phone holds right after posing, read through the
contacts provider (the number stored for the person asked about, how many favourites
there are), so a phone with other people is judged on its own data; :meth:`derive` computes
the simulator's prediction from world data for the oracle only. Phone numbers are matched
as Android compares them (``+86 138 0013 8000`` = ``0086 138-0013-8000`` = ``13800138000``),
counts as numbers, names and companies as text.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from bridge.android_contract import CONTACTS, DATA, ORGANIZATION, PHONE, RAW_CONTACTS, sql_text
from bridge.plans import (
    AnswerStep,
    EachStep,
    KeyStep,
    OpenAppStep,
    Plan,
    Recall,
    Selector,
    TapStep,
    TypeStep,
)
from bridge.spec.base import TruthRef
from bridge.spec.contacts import EnsureContact
from bridge.spec.rows import DeleteRows, RowsCheck, RowsFact, RowsSelector, UpdateRows
from bridge.taskspec import CheckRule, EnsureOp, Truth
from sim.apps.contacts.model import normalize_phone, sort_contacts
from sim.apps.contacts.tasks import (
    NEW_NAMES,
    ContactsTask,
    Person,
    PersonParams,
    contacts_text,
    created_checks,
    editor_plan,
    ensure_person,
    named,
    named_rows,
    note_section,
    open_contact,
    other_name,
    person_rows,
    phone_check,
    single_phone,
    world_contact,
    world_contacts,
)
from sim.tasks.base import AnswerSpec, TaskTemplate, WrongPlan
from sim.tasks.params import Choice, Integer, TaskParams, WorldChoice

__all__ = [
    "TEMPLATES",
    "CopyNumberToNewContact",
    "CountFavorites",
    "CountSurname",
    "QueryCompany",
    "QueryPhoneNumber",
    "StarSurname",
    "WhoseNumber",
    "has_surname",
    "surname_rows",
]

World = Mapping[str, Mapping[str, Any]]
_NUMBER = {"en": "Phone number", "zh": "电话号码"}
_NAME = {"en": "Name", "zh": "姓名"}


def has_surname(name: str, surname: str) -> bool:
    """Chinese names start with the surname; Latin ones end with it (``Bob Smith``)."""
    if surname.isascii():
        return name.split()[-1:] == [surname]
    return name.startswith(surname)


def surname_rows(surname: str) -> str:
    """The ``--where`` of the contacts with ``surname``, as :func:`has_surname` reads names
    (SQLite's LIKE, case-insensitive for ASCII, as on a phone)."""
    pattern = f"% {surname}" if surname.isascii() else f"{surname}%"
    return f"display_name LIKE {sql_text(pattern)}"


def _phones_of(name: str) -> RowsFact:
    return RowsFact(uri=DATA, where=named_rows(name, PHONE), column="data1", sort="_id")


class NumberOf(PersonParams):
    """A uniquely named world contact with one number, and that number (prediction)."""

    contact: Annotated[str, WorldChoice(lambda w: [c["id"] for c in single_phone(w)])]
    number: str


class FavoritesCount(TaskParams):
    """How many more contacts the task stars, from where, and the count (prediction)."""

    extra: Annotated[int, Integer(0, 3)]
    offset: Annotated[int, Integer(0, 69)]
    count: int
    people: list[Person]


class CompanyOf(PersonParams):
    """A world contact whose company is not their own name, and the company (prediction)."""

    contact: Annotated[
        str,
        WorldChoice(
            lambda w: [c["id"] for c in named(w) if c["company"] and c["company"] != c["name"]]
        ),
    ]
    company: str


class QueryPhoneNumber(ContactsTask[NumberOf]):
    """C7: a contact's phone number (contacts with one number, so the answer is unique)."""

    id = "contacts/QueryPhoneNumber-v1"
    apps = ("contacts",)
    level = "L1"
    kind = "query"
    instructions = {
        "en": "What is {name}'s phone number? Give it as Contacts shows it.",
        "zh": "“{name}”的电话号码是多少？请按通讯录中显示的号码回答。",
    }
    Params = NumberOf
    answer_fields = (AnswerSpec("number", "text", _NUMBER, match="phone"),)

    def derive(self, sampled: Mapping[str, Any], world: World) -> dict[str, Any]:
        contact = world_contact(world, sampled["contact"])
        return {"name": contact["name"], "number": contact["phones"][0]["number"],
                "person": dict(contact)}  # fmt: skip

    def ensure(self, p: NumberOf) -> list[EnsureOp]:
        return [ensure_person(p.person)]

    def truths(self, p: NumberOf) -> list[Truth]:
        return [Truth(name="number", fact=_phones_of(p.name), reduce="all")]

    def oracle(self, p: NumberOf, lang: str) -> Plan:
        return [
            *open_contact(p.name),
            note_section("phones", contacts_text("section_phone", lang)),
            AnswerStep(
                fields={"number": p.number}, read={"number": Recall(key="phones", op="text")}
            ),
        ]


def _to_star(sampled: Mapping[str, Any], world: World) -> list[Mapping[str, Any]]:
    """Whom CountFavorites stars: ``extra`` uniquely named, unstarred contacts from
    ``offset`` on."""
    candidates = [c for c in named(world) if not c["starred"]]
    offset, extra = sampled["offset"], sampled["extra"]
    return [candidates[(offset + i) % len(candidates)] for i in range(extra)]


class CountFavorites(ContactsTask[FavoritesCount]):
    """C8: how many favourites there are (the seeded four plus 0–3 the setup stars)."""

    id = "contacts/CountFavorites-v1"
    apps = ("contacts",)
    level = "L2"
    kind = "query"
    instructions = {
        "en": "How many contacts are in your favorites?",
        "zh": "通讯录的收藏里有几个联系人？",
    }
    Params = FavoritesCount
    answer_fields = (AnswerSpec("count", "number", {"en": "Favorites", "zh": "收藏人数"}),)

    def derive(self, sampled: Mapping[str, Any], world: World) -> dict[str, Any]:
        seeded = sum(bool(c["starred"]) for c in world_contacts(world))
        people = [dict(c) for c in _to_star(sampled, world)]
        return {"count": seeded + len(people), "people": people}

    def ensure(self, p: FavoritesCount) -> list[EnsureOp]:
        return [ensure_person(person, starred=True) for person in p.people]

    def truths(self, p: FavoritesCount) -> list[Truth]:
        starred = RowsFact(uri=CONTACTS, where="starred=1", column="_id")
        return [Truth(name="count", fact=starred, reduce="count")]

    def oracle(self, p: FavoritesCount, lang: str) -> Plan:
        return [
            OpenAppStep(app="contacts"),
            note_section("favorites", contacts_text("favorites", lang)),
            AnswerStep(fields={"count": p.count}, read={"count": Recall(key="favorites")}),
        ]


class QueryCompany(ContactsTask[CompanyOf]):
    """Where a contact works (contacts whose company is not their own name)."""

    id = "contacts/QueryCompany-v1"
    apps = ("contacts",)
    level = "L2"
    kind = "query"
    instructions = {"en": "Which company does {name} work for?", "zh": "“{name}”在哪家公司工作？"}
    Params = CompanyOf
    answer_fields = (AnswerSpec("company", "text", {"en": "Company", "zh": "公司"}),)

    def derive(self, sampled: Mapping[str, Any], world: World) -> dict[str, Any]:
        contact = world_contact(world, sampled["contact"])
        return {"name": contact["name"], "company": contact["company"], "person": dict(contact)}

    def ensure(self, p: CompanyOf) -> list[EnsureOp]:
        return [ensure_person(p.person)]

    def truths(self, p: CompanyOf) -> list[Truth]:
        where = named_rows(p.name, ORGANIZATION)
        company = RowsFact(uri=DATA, where=where, column="data1", sort="_id")
        return [Truth(name="company", fact=company, reduce="all")]

    def oracle(self, p: CompanyOf, lang: str) -> Plan:
        return [
            *open_contact(p.name),
            note_section("company", contacts_text("section_organization", lang)),
            AnswerStep(
                fields={"company": p.company}, read={"company": Recall(key="company", op="text")}
            ),
        ]


def _dialled(number: str) -> str:
    """A number as someone would say it: Chinese ones without +86 and spaces."""
    compact = normalize_phone(number)
    return compact[3:] if compact.startswith("+86") else compact


def _findable_by_number(world: World) -> list[str]:
    """Single-number contacts no other contact's number contains (search finds one)."""
    contacts = world_contacts(world)
    digits = {
        c["id"]: [normalize_phone(ph["number"]).lstrip("+") for ph in c["phones"]] for c in contacts
    }
    found = []
    for contact in single_phone(world):
        mine = _dialled(contact["phones"][0]["number"]).lstrip("+")
        others = (d for cid, ds in digits.items() if cid != contact["id"] for d in ds)
        if not any(mine in other for other in others):
            found.append(contact["id"])
    return found


class NumberOwner(PersonParams):
    """A contact search finds by number alone, and the number as dialled."""

    contact: Annotated[str, WorldChoice(_findable_by_number)]
    number: str


class WhoseNumber(ContactsTask[NumberOwner]):
    """Reverse lookup: given a number (written as dialled), name the contact."""

    id = "contacts/WhoseNumber-v1"
    apps = ("contacts",)
    level = "L3"
    kind = "query"
    instructions = {
        "en": "Whose phone number is {number}? Answer with the contact's name.",
        "zh": "{number} 是谁的电话号码？请回答联系人的姓名。",
    }
    Params = NumberOwner
    answer_fields = (AnswerSpec("name", "text", _NAME),)

    def derive(self, sampled: Mapping[str, Any], world: World) -> dict[str, Any]:
        contact = world_contact(world, sampled["contact"])
        number = _dialled(contact["phones"][0]["number"])
        return {"name": contact["name"], "number": number, "person": dict(contact)}

    def ensure(self, p: NumberOwner) -> list[EnsureOp]:
        return [ensure_person(p.person)]

    def truths(self, p: NumberOwner) -> list[Truth]:
        owners = RowsFact(uri=DATA, where=f"mimetype={sql_text(PHONE)}", column="display_name",
                          sort="_id", number_column="data1", number=p.number)  # fmt: skip
        return [Truth(name="name", fact=owners, reduce="all")]

    def oracle(self, p: NumberOwner, lang: str) -> Plan:
        return [
            OpenAppStep(app="contacts"),
            TypeStep(text=p.number, into=Selector(resource_id="search_src_text"), submit=True),
            TapStep(on=Selector(resource_id="title", text=p.name)),
            AnswerStep(fields={"name": p.name}),
        ]


_SURNAMES = ("王", "李", "张", "刘", "Smith")
_MORE_PEOPLE = {
    "王": ("王建国", "王诗雨"),
    "李": ("李明轩", "李雪"),
    "张": ("张浩然", "张小雨"),
    "刘": ("刘德明", "刘思琪"),
    "Smith": ("Anna Smith", "Jack Smith"),
}
"""People CountSurname's setup adds, so the count is not a fact of world data alone."""


def _surname_people(sampled: Mapping[str, Any], world: World) -> list[dict[str, Any]]:
    """Everyone with the surname after CountSurname's setup, starred flags included.

    The task adds ``extra`` people (ids ``s01``…) and stars the first ``favorites`` of them
    all in list order (those already starred stay so).
    """
    surname = sampled["surname"]
    people = [dict(c) for c in world_contacts(world) if has_surname(c["name"], surname)]
    for index, name in enumerate(_MORE_PEOPLE[surname][: sampled["extra"]], start=1):
        number = f"+86 135 0000 {1000 + index * 11}"
        phones = [{"type": "mobile", "number": number}]
        people.append({"id": f"s{index:02d}", "name": name, "phones": phones, "starred": False,
                       "company": "", "title": ""})  # fmt: skip
    for person in sort_contacts(people)[: sampled["favorites"]]:
        person["starred"] = True  # sort_contacts returns the same dicts
    return people


class SurnameCount(TaskParams):
    """A surname, how many people the task adds and stars, and the counts (prediction)."""

    surname: Annotated[str, Choice(_SURNAMES)]
    extra: Annotated[int, Integer(1, 2)]
    favorites: Annotated[int, Integer(0, 2)]
    count: int
    starred: int
    added: list[Person]
    to_star: list[str]


class CountSurname(ContactsTask[SurnameCount]):
    """How many contacts have a surname, and how many of them are favourites (search, count,
    then compare with the Favorites list); the setup adds people and stars some."""

    id = "contacts/CountSurname-v1"
    apps = ("contacts",)
    level = "L4"
    kind = "query"
    instructions = {
        "en": "How many of your contacts have the surname {surname}, and how many of them are "
        "in your favorites?",
        "zh": "通讯录里有几个姓“{surname}”的联系人？其中有几个在收藏里？",
    }
    Params = SurnameCount
    answer_fields = (
        AnswerSpec("count", "number", {"en": "Contacts with that surname", "zh": "该姓氏联系人数"}),
        AnswerSpec("favorites", "number", {"en": "Of them in favorites", "zh": "其中收藏的人数"}),
    )

    def derive(self, sampled: Mapping[str, Any], world: World) -> dict[str, Any]:
        people = _surname_people(sampled, world)
        added = [c for c in people if c["id"].startswith("s")]
        starred = [c["name"] for c in people if c["starred"] and not c["id"].startswith("s")]
        return {"count": len(people), "starred": sum(bool(c["starred"]) for c in people),
                "added": added, "to_star": starred}  # fmt: skip

    def ensure(self, p: SurnameCount) -> list[EnsureOp]:
        ops: list[EnsureOp] = [ensure_person(c, starred=c.starred) for c in p.added]
        return ops + [EnsureContact(name=name, starred=True) for name in p.to_star]

    def truths(self, p: SurnameCount) -> list[Truth]:
        where = surname_rows(p.surname)
        everyone = RowsFact(uri=CONTACTS, where=where, column="_id")
        starred = RowsFact(uri=CONTACTS, where=f"{where} AND starred=1", column="_id")
        return [
            Truth(name="count", fact=everyone, reduce="count"),
            Truth(name="favorites", fact=starred, reduce="count"),
        ]

    def oracle(self, p: SurnameCount, lang: str) -> Plan:
        search = Selector(resource_id="search_src_text")
        return [
            OpenAppStep(app="contacts"),
            note_section("favorites", contacts_text("favorites", lang)),
            TypeStep(text=p.surname, into=search, submit=True),
            note_section("found"),
            AnswerStep(
                fields={"count": p.count, "favorites": p.starred},
                read={
                    "count": Recall(key="found"),
                    "favorites": Recall(key="found", among="favorites"),
                },
            ),
        ]


# ---------------------------------------------------------------- hybrids


class CopyNumber(PersonParams):
    """A world contact with one number, the new contact's name, and the number."""

    contact: Annotated[str, WorldChoice(lambda w: [c["id"] for c in single_phone(w)])]
    new: Annotated[str, Choice(NEW_NAMES)]
    number: str


class CopyNumberToNewContact(ContactsTask[CopyNumber]):
    """Hybrid: read a contact's number, save it under a new contact, and report it."""

    id = "contacts/CopyNumberToNewContact-v1"
    apps = ("contacts",)
    level = "L3"
    kind = "hybrid"
    instructions = {
        "en": 'Create a new contact "{new}" with the same phone number as {name}, and tell me '
        "that number.",
        "zh": "新建联系人“{new}”，电话号码和“{name}”的一样，并告诉我这个号码。",
    }
    Params = CopyNumber
    answer_fields = (AnswerSpec("number", "text", _NUMBER, match="phone"),)

    def derive(self, sampled: Mapping[str, Any], world: World) -> dict[str, Any]:
        contact = world_contact(world, sampled["contact"])
        return {"name": contact["name"], "number": contact["phones"][0]["number"],
                "person": dict(contact)}  # fmt: skip

    def ensure(self, p: CopyNumber) -> list[EnsureOp]:
        return [
            ensure_person(p.person),
            DeleteRows(uri=RAW_CONTACTS, where=named_rows(p.new)),
        ]

    def truths(self, p: CopyNumber) -> list[Truth]:
        source = RowsFact(uri=CONTACTS, where=named_rows(p.name), column="_id")
        return [
            Truth(name="number", fact=_phones_of(p.name), reduce="all"),
            Truth(name="source", fact=source, reduce="count"),
        ]

    def goal(self, p: CopyNumber) -> list[CheckRule]:
        kept = RowsCheck(name=f"{p.name} kept", uri=CONTACTS, where=named_rows(p.name),
                         expect="count", value=TruthRef(truth="source"), guard=True)  # fmt: skip
        copied = phone_check(p.new, TruthRef(truth="number"))
        return [*created_checks(p.new), copied, kept]

    def expected_rows(self, p: CopyNumber) -> list[RowsSelector]:
        return person_rows(p.new)

    def oracle(self, p: CopyNumber, lang: str) -> Plan:
        return [
            *open_contact(p.name),
            KeyStep(key="back"),
            TapStep(on=Selector(resource_id="floating_action_button")),
            *editor_plan(("name_edit", p.new), ("phone_edit", p.number)),
            TapStep(on=Selector(resource_id="editor_menu_save_button")),
            AnswerStep(fields={"number": p.number}),
        ]


class SurnameStar(TaskParams):
    """A surname, and the world's people with it in list order."""

    surname: Annotated[str, Choice(("王", "李", "张", "刘"))]
    ids: list[str]
    names: list[str]


class StarSurname(ContactsTask[SurnameStar]):
    """Hybrid: star everyone with a surname (none starred at the start) and say how many."""

    id = "contacts/StarSurname-v1"
    apps = ("contacts",)
    level = "L4"
    kind = "hybrid"
    instructions = {
        "en": "Add every contact with the surname {surname} to favorites, then tell me how many "
        "contacts that was.",
        "zh": "把所有姓“{surname}”的联系人都加入收藏，然后告诉我一共有几个。",
    }
    Params = SurnameStar
    answer_fields = (AnswerSpec("count", "number", {"en": "Contacts starred", "zh": "收藏的人数"}),)

    def derive(self, sampled: Mapping[str, Any], world: World) -> dict[str, Any]:
        people = [c for c in world_contacts(world) if has_surname(c["name"], sampled["surname"])]
        ordered = sort_contacts(people)
        return {"ids": [c["id"] for c in ordered], "names": [c["name"] for c in ordered]}

    def ensure(self, p: SurnameStar) -> list[EnsureOp]:
        where = surname_rows(p.surname)
        ops: list[EnsureOp] = [EnsureContact(name=name) for name in p.names]
        return [*ops, UpdateRows(uri=CONTACTS, where=where, values={"starred": 0})]

    def truths(self, p: SurnameStar) -> list[Truth]:
        everyone = RowsFact(uri=CONTACTS, where=surname_rows(p.surname), column="_id")
        return [Truth(name="count", fact=everyone, reduce="count")]

    def goal(self, p: SurnameStar) -> list[CheckRule]:
        where = surname_rows(p.surname)
        return [
            RowsCheck(name="not starred yet", uri=CONTACTS, where=f"{where} AND NOT starred",
                      expect="count", value=0),
            RowsCheck(name="everyone with the surname kept", uri=CONTACTS, where=where,
                      expect="count", value=TruthRef(truth="count"), guard=True),
        ]  # fmt: skip

    def expected_rows(self, p: SurnameStar) -> list[RowsSelector]:
        return [RowsSelector(uri=CONTACTS, where=surname_rows(p.surname))]

    def oracle(self, p: SurnameStar, lang: str) -> Plan:
        # Star whoever the search shows with the surname (the phone's people, not the world's).
        star_each = EachStep(
            key="found",
            prefix=p.surname,
            steps=[
                TapStep(on=Selector(resource_id="title", text="{item}")),
                TapStep(on=Selector(resource_id="menu_star")),
                KeyStep(key="back"),
            ],
        )
        return [
            OpenAppStep(app="contacts"),
            TypeStep(text=p.surname, into=Selector(resource_id="search_src_text"), submit=True),
            note_section("found"),
            star_each,
            AnswerStep(fields={"count": len(p.ids)}, read={"count": Recall(key="found")}),
        ]


TEMPLATES: tuple[TaskTemplate, ...] = (
    QueryPhoneNumber(),
    CountFavorites(),
    QueryCompany(),
    WhoseNumber(),
    CountSurname(),
    CopyNumberToNewContact(),
    StarSurname(),
)


# ---- wrong plans, which must not pass (tests/sim/test_tasks_e2e.py runs them):
# Another contact's number or name, an answer off.


def _other_number(p: dict[str, Any], world: World) -> str:
    return next(c for c in single_phone(world) if c["name"] != p["name"])["phones"][0]["number"]


WRONG: dict[str, WrongPlan] = {
    "contacts/QueryPhoneNumber-v1": lambda p, lang, w: [
        *open_contact(p["name"]),
        AnswerStep(fields={"number": _other_number(p, w)}),
    ],
    "contacts/CountFavorites-v1": lambda p, lang, w: [
        OpenAppStep(app="contacts"),
        AnswerStep(fields={"count": p["count"] + 1}),
    ],
    "contacts/QueryCompany-v1": lambda p, lang, w: [
        *open_contact(p["name"]),
        AnswerStep(fields={"company": "Globex" if p["company"] != "Globex" else "Acme Corp"}),
    ],
    "contacts/WhoseNumber-v1": lambda p, lang, w: [
        OpenAppStep(app="contacts"),
        AnswerStep(fields={"name": other_name(p, w)}),
    ],
    "contacts/CountSurname-v1": lambda p, lang, w: [
        OpenAppStep(app="contacts"),
        AnswerStep(fields={"count": p["count"] - p["extra"], "favorites": p["starred"]}),
    ],
    "contacts/CopyNumberToNewContact-v1": lambda p, lang, w: [
        *open_contact(p["name"]),  # renames the contact instead of creating one
        TapStep(on=Selector(resource_id="menu_edit")),
        *editor_plan(("name_edit", p["new"])),
        TapStep(on=Selector(resource_id="editor_menu_save_button")),
        AnswerStep(fields={"number": p["number"]}),
    ],
    "contacts/StarSurname-v1": lambda p, lang, w: [
        *open_contact(p["names"][0]),
        TapStep(on=Selector(resource_id="menu_star")),
        AnswerStep(fields={"count": len(p["ids"])}),
    ],
}
