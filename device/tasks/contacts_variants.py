"""Device variants of the Contacts tasks: the people a task names are seeded with
``content insert`` when the phone lacks them, and outcomes are read back with
``content query``. Query tasks are judged on the agent's answer against the truth the phone
holds at the start (read during setup), never against the simulator's data.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from bridge.schema import Check, TaskInstance
from device.tasks.answer_checks import AnswerKind, answer_check
from device.tasks.base import DeviceVariant, Judging, Shell, VariantContext
from device.tasks.contacts_probe import (
    CONTACTS,
    EMAIL,
    ORGANIZATION,
    PHONE,
    contacts_named,
    data_rows,
    delete_named,
    digits,
    ensure_contact,
    query,
    set_starred,
)

__all__ = ["CONTACTS_VARIANTS", "has_surname"]

_PACKAGES = ("com.android.contacts", "com.google.android.contacts")


def has_surname(name: str, surname: str) -> bool:
    """Chinese names start with the surname; Latin ones end with it (as the simulator's)."""
    if surname.isascii():
        return name.split()[-1:] == [surname]
    return name.startswith(surname)


class _ContactsVariant(DeviceVariant):
    judged_by: ClassVar[Judging] = "probe"
    packages = _PACKAGES


class StarVariant(_ContactsVariant):
    """Star (or unstar) the contact a task names."""

    task_id = "contacts/StarContact-v1"
    starred: ClassVar[bool] = True

    async def pose(self, shell: Shell, task: TaskInstance) -> Mapping[str, Any] | None:
        await ensure_contact(shell, task.params["name"])
        await set_starred(shell, task.params["name"], not self.starred)
        return None

    async def judge(self, ctx: VariantContext) -> list[Check]:
        rows = await contacts_named(ctx.shell, ctx.params["name"])
        actual = [row["starred"] for row in rows]
        expected = "1" if self.starred else "0"
        return [
            Check(
                name="starred",
                expected=[expected],
                actual=actual,
                passed=bool(rows) and all(a == expected for a in actual),
                evidence="content query contacts starred",
            )
        ]


class UnstarVariant(StarVariant):
    """Remove the contact from favourites."""

    task_id = "contacts/UnstarContact-v1"
    starred = False


class DeleteVariant(_ContactsVariant):
    """Delete the named contact."""

    task_id = "contacts/DeleteContact-v1"

    async def pose(self, shell: Shell, task: TaskInstance) -> Mapping[str, Any] | None:
        await ensure_contact(shell, task.params["name"])
        return None

    async def judge(self, ctx: VariantContext) -> list[Check]:
        rows = await contacts_named(ctx.shell, ctx.params["name"])
        return [
            Check(
                name="deleted",
                expected=0,
                actual=len(rows),
                passed=not rows,
                evidence="content query contacts by display_name",
            )
        ]


class CreateVariant(_ContactsVariant):
    """Create a contact with a name and a phone number (and company, title, email)."""

    task_id = "contacts/CreateContact-v1"

    async def pose(self, shell: Shell, task: TaskInstance) -> Mapping[str, Any] | None:
        await delete_named(shell, task.params["name"])
        return None

    async def judge(self, ctx: VariantContext) -> list[Check]:
        name = ctx.params["name"]
        people = await contacts_named(ctx.shell, name)
        checks = [
            Check(name="new contacts", expected=1, actual=len(people), passed=len(people) == 1)
        ]
        return checks + await self.details(ctx)

    async def details(self, ctx: VariantContext) -> list[Check]:
        """Checks of the created contact's data rows."""
        phones = [
            digits(row["data1"]) for row in await data_rows(ctx.shell, ctx.params["name"], PHONE)
        ]
        wanted = digits(ctx.params["phone"])
        return [Check(name="phone", expected=wanted, actual=phones, passed=wanted in phones)]


class CreateWithCompanyVariant(CreateVariant):
    """Name, phone, company and job title."""

    task_id = "contacts/CreateContactWithCompany-v1"

    async def details(self, ctx: VariantContext) -> list[Check]:
        rows = await data_rows(ctx.shell, ctx.params["name"], ORGANIZATION)
        orgs = [[row.get("data1"), row.get("data4")] for row in rows]
        wanted = [ctx.params["company"], ctx.params["title"]]
        return [
            *await super().details(ctx),
            Check(name="organization", expected=wanted, actual=orgs, passed=wanted in orgs),
        ]


class CreateWorkEmailVariant(CreateVariant):
    """Name and a work email (Email.TYPE_WORK = 2)."""

    task_id = "contacts/CreateContactWorkEmail-v1"

    async def details(self, ctx: VariantContext) -> list[Check]:
        rows = await data_rows(ctx.shell, ctx.params["name"], EMAIL)
        emails = [[row.get("data1"), row.get("data2")] for row in rows]
        wanted = [ctx.params["email"], "2"]
        return [Check(name="work email", expected=wanted, actual=emails, passed=wanted in emails)]


class EditPhoneVariant(_ContactsVariant):
    """Replace the contact's number with a new one."""

    task_id = "contacts/EditContactPhone-v1"

    async def pose(self, shell: Shell, task: TaskInstance) -> Mapping[str, Any] | None:
        await ensure_contact(shell, task.params["name"], phone="+86 139 0000 0000")
        return None

    async def judge(self, ctx: VariantContext) -> list[Check]:
        rows = await data_rows(ctx.shell, ctx.params["name"], PHONE)
        phones = [digits(row["data1"]) for row in rows]
        wanted = digits(ctx.params["phone"])
        return [Check(name="phones", expected=[wanted], actual=phones, passed=phones == [wanted])]


class _QueryVariant(_ContactsVariant):
    judged_by: ClassVar[Judging] = "answer"
    field: ClassVar[str]
    kind: ClassVar[AnswerKind] = "text"

    async def judge(self, ctx: VariantContext) -> list[Check]:
        return [answer_check(ctx, self.field, ctx.baseline["truth"], self.kind)]


class QueryPhoneVariant(_QueryVariant):
    """Read a contact's number; the truth is the number the phone stores."""

    task_id = "contacts/QueryPhoneNumber-v1"
    field = "number"
    kind = "phone"

    async def pose(self, shell: Shell, task: TaskInstance) -> Mapping[str, Any] | None:
        await ensure_contact(shell, task.params["name"], phone=task.params["number"])
        rows = await data_rows(shell, task.params["name"], PHONE)
        return {"truth": rows[0]["data1"] if rows else task.params["number"]}


class QueryCompanyVariant(_QueryVariant):
    """Read a contact's company."""

    task_id = "contacts/QueryCompany-v1"
    field = "company"

    async def pose(self, shell: Shell, task: TaskInstance) -> Mapping[str, Any] | None:
        await ensure_contact(shell, task.params["name"], company=task.params["company"])
        rows = await data_rows(shell, task.params["name"], ORGANIZATION)
        return {"truth": rows[0]["data1"] if rows else task.params["company"]}


class WhoseNumberVariant(_QueryVariant):
    """Name the contact a number belongs to."""

    task_id = "contacts/WhoseNumber-v1"
    field = "name"

    async def pose(self, shell: Shell, task: TaskInstance) -> Mapping[str, Any] | None:
        await ensure_contact(shell, task.params["name"], phone=task.params["number"])
        return {"truth": task.params["name"]}


class CountFavoritesVariant(_QueryVariant):
    """How many favourites the phone has at the start."""

    task_id = "contacts/CountFavorites-v1"
    field = "count"
    kind = "number"

    async def pose(self, shell: Shell, task: TaskInstance) -> Mapping[str, Any] | None:
        rows = await query(shell, CONTACTS, ["_id"], "starred=1")
        return {"truth": len(rows)}


class CountSurnameVariant(_ContactsVariant):
    """How many contacts have a surname, and how many of those are favourites."""

    task_id = "contacts/CountSurname-v1"
    judged_by: ClassVar[Judging] = "answer"

    async def pose(self, shell: Shell, task: TaskInstance) -> Mapping[str, Any] | None:
        rows = await query(shell, CONTACTS, ["_id", "display_name", "starred"])
        people = [r for r in rows if has_surname(r.get("display_name", ""), task.params["surname"])]
        return {"count": len(people), "favorites": sum(r.get("starred") == "1" for r in people)}

    async def judge(self, ctx: VariantContext) -> list[Check]:
        return [
            answer_check(ctx, "count", ctx.baseline["count"], "number"),
            answer_check(ctx, "favorites", ctx.baseline["favorites"], "number"),
        ]


CONTACTS_VARIANTS: tuple[DeviceVariant, ...] = (
    StarVariant(),
    UnstarVariant(),
    DeleteVariant(),
    CreateVariant(),
    CreateWithCompanyVariant(),
    CreateWorkEmailVariant(),
    EditPhoneVariant(),
    QueryPhoneVariant(),
    QueryCompanyVariant(),
    WhoseNumberVariant(),
    CountFavoritesVariant(),
    CountSurnameVariant(),
)
"""Contacts tasks a phone can pose and judge without root."""
