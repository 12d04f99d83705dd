"""Questions over Contacts (C7, C8 and more), and hybrids that act and then answer.

Answers are judged against the judged state at the start (the setup may have changed the
world: starred a few contacts, added some); :meth:`derive` computes the same values from
the parameters for the oracle only.

Phone numbers are answered as text: the matcher ignores spaces, dashes, brackets and the
``+``, so ``+86 138 0013 8000`` may be written ``86 138-0013-8000``, but dropping the
country code is a different answer (the instruction asks for the number as Contacts shows
it). Counts are numbers, names and companies text.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bridge.plans import (
    AnswerStep,
    KeyStep,
    OpenAppStep,
    Plan,
    Recall,
    Selector,
    TapStep,
    TypeStep,
)
from bridge.schema import Check
from sim.apps.contacts.model import (
    normalize_phone,
    put_contact,
    same_number,
    set_starred,
    sort_contacts,
)
from sim.tasks.base import AnswerSpec, SetupContext, TaskTemplate
from sim.tasks.contacts_tasks import (
    NEW_NAMES,
    contact_by_id,
    contacts_text,
    created_checks,
    editor_plan,
    named,
    note_section,
    number_check,
    open_contact,
    single_phone,
    world_contacts,
)
from sim.tasks.judge import check
from sim.tasks.params import Choice, Integer, WorldChoice

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
]

World = Mapping[str, Mapping[str, Any]]
_NUMBER = {"en": "Phone number", "zh": "电话号码"}
_NAME = {"en": "Name", "zh": "姓名"}


def _contacts(state: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return list(state["apps"]["contacts"]["contacts"])


def _world_contact(world: World, contact_id: str) -> Mapping[str, Any]:
    return next(c for c in world_contacts(world) if c["id"] == contact_id)


def has_surname(name: str, surname: str) -> bool:
    """Chinese names start with the surname; Latin ones end with it (``Bob Smith``)."""
    if surname.isascii():
        return name.split()[-1:] == [surname]
    return name.startswith(surname)


class QueryPhoneNumber(TaskTemplate):
    """C7: a contact's phone number (contacts with one number, so the answer is unique)."""

    id = "contacts/QueryPhoneNumber-v1"
    apps = ("contacts",)
    level = "L1"
    kind = "query"
    instructions = {
        "en": "What is {name}'s phone number? Give it as Contacts shows it.",
        "zh": "“{name}”的电话号码是多少？请按通讯录中显示的号码回答。",
    }
    params = {"contact": WorldChoice(lambda w: [c["id"] for c in single_phone(w)])}
    answer_fields = (AnswerSpec("number", "text", _NUMBER),)

    def derive(self, p: dict[str, Any], world: World) -> dict[str, Any]:
        contact = _world_contact(world, p["contact"])
        return {"name": contact["name"], "number": contact["phones"][0]["number"]}

    def expected_answers(self, initial: Mapping[str, Any], p: dict[str, Any]) -> dict[str, Any]:
        contact = contact_by_id(initial, p["contact"])
        assert contact is not None, "the contact asked about exists at the start"
        return {"number": contact["phones"][0]["number"]}

    def oracle(self, p: dict[str, Any], lang: str) -> Plan:
        return [
            *open_contact(p["name"]),
            note_section("phones", contacts_text("section_phone", lang)),
            AnswerStep(
                fields={"number": p["number"]}, read={"number": Recall(key="phones", op="text")}
            ),
        ]


def _to_star(p: Mapping[str, Any], world: World) -> list[str]:
    """Ids CountFavorites' setup stars: ``extra`` unstarred contacts from ``offset`` on."""
    candidates = [c["id"] for c in world_contacts(world) if not c["starred"]]
    return [candidates[(p["offset"] + i) % len(candidates)] for i in range(p["extra"])]


class CountFavorites(TaskTemplate):
    """C8: how many favourites there are (the seeded four plus 0–3 the setup stars)."""

    id = "contacts/CountFavorites-v1"
    apps = ("contacts",)
    level = "L2"
    kind = "query"
    instructions = {
        "en": "How many contacts are in your favorites?",
        "zh": "通讯录的收藏里有几个联系人？",
    }
    params = {"extra": Integer(0, 3), "offset": Integer(0, 69)}
    answer_fields = (AnswerSpec("count", "number", {"en": "Favorites", "zh": "收藏人数"}),)

    def derive(self, p: dict[str, Any], world: World) -> dict[str, Any]:
        seeded = sum(bool(c["starred"]) for c in world_contacts(world))
        return {"count": seeded + len(_to_star(p, world))}

    def setup(self, s: SetupContext, p: dict[str, Any]) -> None:
        world = {"contacts": s.world("contacts")}
        for contact_id in _to_star(p, world):
            set_starred(s.overlay("contacts"), contact_id, True, world["contacts"])

    def expected_answers(self, initial: Mapping[str, Any], p: dict[str, Any]) -> dict[str, Any]:
        return {"count": sum(bool(c["starred"]) for c in _contacts(initial))}

    def oracle(self, p: dict[str, Any], lang: str) -> Plan:
        return [
            OpenAppStep(app="contacts"),
            note_section("favorites", contacts_text("favorites", lang)),
            AnswerStep(fields={"count": p["count"]}, read={"count": Recall(key="favorites")}),
        ]


class QueryCompany(TaskTemplate):
    """Where a contact works (contacts whose company is not their own name)."""

    id = "contacts/QueryCompany-v1"
    apps = ("contacts",)
    level = "L2"
    kind = "query"
    instructions = {"en": "Which company does {name} work for?", "zh": "“{name}”在哪家公司工作？"}
    params = {
        "contact": WorldChoice(
            lambda w: [c["id"] for c in named(w) if c["company"] and c["company"] != c["name"]]
        )
    }
    answer_fields = (AnswerSpec("company", "text", {"en": "Company", "zh": "公司"}),)

    def derive(self, p: dict[str, Any], world: World) -> dict[str, Any]:
        contact = _world_contact(world, p["contact"])
        return {"name": contact["name"], "company": contact["company"]}

    def expected_answers(self, initial: Mapping[str, Any], p: dict[str, Any]) -> dict[str, Any]:
        contact = contact_by_id(initial, p["contact"])
        assert contact is not None, "the contact asked about exists at the start"
        return {"company": contact["company"]}

    def oracle(self, p: dict[str, Any], lang: str) -> Plan:
        return [
            *open_contact(p["name"]),
            note_section("company", contacts_text("section_organization", lang)),
            AnswerStep(
                fields={"company": p["company"]}, read={"company": Recall(key="company", op="text")}
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
        c["id"]: [normalize_phone(p["number"]).lstrip("+") for p in c["phones"]] for c in contacts
    }
    found = []
    for contact in single_phone(world):
        mine = _dialled(contact["phones"][0]["number"]).lstrip("+")
        others = (d for cid, ds in digits.items() if cid != contact["id"] for d in ds)
        if not any(mine in other for other in others):
            found.append(contact["id"])
    return found


class WhoseNumber(TaskTemplate):
    """Reverse lookup: given a number (written as dialled), name the contact."""

    id = "contacts/WhoseNumber-v1"
    apps = ("contacts",)
    level = "L3"
    kind = "query"
    instructions = {
        "en": "Whose phone number is {number}? Answer with the contact's name.",
        "zh": "{number} 是谁的电话号码？请回答联系人的姓名。",
    }
    params = {"contact": WorldChoice(_findable_by_number)}
    answer_fields = (AnswerSpec("name", "text", _NAME),)

    def derive(self, p: dict[str, Any], world: World) -> dict[str, Any]:
        contact = _world_contact(world, p["contact"])
        return {"name": contact["name"], "number": _dialled(contact["phones"][0]["number"])}

    def expected_answers(self, initial: Mapping[str, Any], p: dict[str, Any]) -> dict[str, Any]:
        owners = [
            c["name"]
            for c in _contacts(initial)
            if any(same_number(p["number"], phone["number"]) for phone in c["phones"])
        ]
        assert len(owners) == 1, f"{p['number']} should belong to exactly one contact: {owners}"
        return {"name": owners[0]}

    def oracle(self, p: dict[str, Any], lang: str) -> Plan:
        return [
            OpenAppStep(app="contacts"),
            TypeStep(text=p["number"], into=Selector(resource_id="search_src_text"), submit=True),
            TapStep(on=Selector(resource_id="title", text=p["name"])),
            AnswerStep(fields={"name": p["name"]}),
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


def _surname_people(p: Mapping[str, Any], world: World) -> list[dict[str, Any]]:
    """Everyone with the surname after CountSurname's setup, starred flags included.

    The setup adds ``extra`` people (ids ``s01``…) and stars the first ``favorites`` of them
    all in list order (those already starred stay so).
    """
    people = [dict(c) for c in world_contacts(world) if has_surname(c["name"], p["surname"])]
    for index, name in enumerate(_MORE_PEOPLE[p["surname"]][: p["extra"]], start=1):
        number = f"+86 135 0000 {1000 + index * 11}"
        phones = [{"type": "mobile", "number": number}]
        people.append({"id": f"s{index:02d}", "name": name, "phones": phones, "starred": False})
    for person in sort_contacts(people)[: p["favorites"]]:
        person["starred"] = True  # sort_contacts returns the same dicts
    return people


class CountSurname(TaskTemplate):
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
    params = {
        "surname": Choice(_SURNAMES),
        "extra": Integer(1, 2),
        "favorites": Integer(0, 2),
    }
    answer_fields = (
        AnswerSpec("count", "number", {"en": "Contacts with that surname", "zh": "该姓氏联系人数"}),
        AnswerSpec("favorites", "number", {"en": "Of them in favorites", "zh": "其中收藏的人数"}),
    )

    def derive(self, p: dict[str, Any], world: World) -> dict[str, Any]:
        people = _surname_people(p, world)
        return {"count": len(people), "starred": sum(bool(c["starred"]) for c in people)}

    def setup(self, s: SetupContext, p: dict[str, Any]) -> None:
        overlay, world = s.overlay("contacts"), s.world("contacts")
        for person in _surname_people(p, {"contacts": world}):
            if person["id"].startswith("s"):
                put_contact(overlay, person)
            if person["starred"]:
                set_starred(overlay, person["id"], True, world)

    def expected_answers(self, initial: Mapping[str, Any], p: dict[str, Any]) -> dict[str, Any]:
        people = [c for c in _contacts(initial) if has_surname(c["name"], p["surname"])]
        return {"count": len(people), "favorites": sum(bool(c["starred"]) for c in people)}

    def oracle(self, p: dict[str, Any], lang: str) -> Plan:
        search = Selector(resource_id="search_src_text")
        return [
            OpenAppStep(app="contacts"),
            note_section("favorites", contacts_text("favorites", lang)),
            TypeStep(text=p["surname"], into=search, submit=True),
            note_section("found"),
            AnswerStep(
                fields={"count": p["count"], "favorites": p["starred"]},
                read={
                    "count": Recall(key="found"),
                    "favorites": Recall(key="found", among="favorites"),
                },
            ),
        ]


# ---------------------------------------------------------------- hybrids


class CopyNumberToNewContact(TaskTemplate):
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
    params = {
        "contact": WorldChoice(lambda w: [c["id"] for c in single_phone(w)]),
        "new": Choice(NEW_NAMES),
    }
    expected_changes = ("apps.contacts.contacts.n*",)
    answer_fields = (AnswerSpec("number", "text", _NUMBER),)

    def derive(self, p: dict[str, Any], world: World) -> dict[str, Any]:
        contact = _world_contact(world, p["contact"])
        return {"name": contact["name"], "number": contact["phones"][0]["number"]}

    def checks(self, state: Mapping[str, Any], p: dict[str, Any]) -> list[Check]:
        checks, found = created_checks(state, p["new"])
        numbers = [phone["number"] for phone in found["phones"]] if found else []
        return [*checks, number_check("phone", p["number"], numbers)]

    def expected_answers(self, initial: Mapping[str, Any], p: dict[str, Any]) -> dict[str, Any]:
        contact = contact_by_id(initial, p["contact"])
        assert contact is not None, "the contact to copy exists at the start"
        return {"number": contact["phones"][0]["number"]}

    def oracle(self, p: dict[str, Any], lang: str) -> Plan:
        return [
            *open_contact(p["name"]),
            KeyStep(key="back"),
            TapStep(on=Selector(resource_id="floating_action_button")),
            *editor_plan(("name_edit", p["new"]), ("phone_edit", p["number"])),
            TapStep(on=Selector(resource_id="editor_menu_save_button")),
            AnswerStep(fields={"number": p["number"]}),
        ]


class StarSurname(TaskTemplate):
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
    params = {"surname": Choice(("王", "李", "张", "刘"))}
    answer_fields = (AnswerSpec("count", "number", {"en": "Contacts starred", "zh": "收藏的人数"}),)

    def derive(self, p: dict[str, Any], world: World) -> dict[str, Any]:
        people = [c for c in world_contacts(world) if has_surname(c["name"], p["surname"])]
        ordered = sort_contacts(people)
        return {"ids": [c["id"] for c in ordered], "names": [c["name"] for c in ordered]}

    def allowed_changes(self, p: dict[str, Any]) -> tuple[str, ...]:
        return tuple(f"apps.contacts.contacts.{contact_id}.starred" for contact_id in p["ids"])

    def setup(self, s: SetupContext, p: dict[str, Any]) -> None:
        for contact_id in p["ids"]:
            set_starred(s.overlay("contacts"), contact_id, False, s.world("contacts"))

    def checks(self, state: Mapping[str, Any], p: dict[str, Any]) -> list[Check]:
        checks = []
        for contact_id, name in zip(p["ids"], p["names"], strict=True):
            contact = contact_by_id(state, contact_id)
            checks.append(check(f"{name} starred", True, contact["starred"] if contact else None))
        return checks

    def expected_answers(self, initial: Mapping[str, Any], p: dict[str, Any]) -> dict[str, Any]:
        return {"count": sum(has_surname(c["name"], p["surname"]) for c in _contacts(initial))}

    def oracle(self, p: dict[str, Any], lang: str) -> Plan:
        search = Selector(resource_id="search_src_text")
        plan: Plan = [
            OpenAppStep(app="contacts"),
            TypeStep(text=p["surname"], into=search, submit=True),
        ]
        for name in p["names"]:
            plan += [
                TapStep(on=Selector(resource_id="title", text=name)),
                TapStep(on=Selector(resource_id="menu_star")),
                KeyStep(key="back"),
            ]
        return [*plan, AnswerStep(fields={"count": len(p["ids"])})]


TEMPLATES: tuple[TaskTemplate, ...] = (
    QueryPhoneNumber(),
    CountFavorites(),
    QueryCompany(),
    WhoseNumber(),
    CountSurname(),
    CopyNumberToNewContact(),
    StarSurname(),
)
