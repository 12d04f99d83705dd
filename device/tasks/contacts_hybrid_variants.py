"""Device variants of the Contacts hybrids (act, then answer), judged by ``content query``.

Setup only adds what a task needs (the people it names, when the phone lacks them), deletes
nothing but contacts under the names a task creates, and reads the truths of the answer from
the phone at the start. The verdict holds the state checks and the answer check together, as
the simulator's hybrids do.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from bridge.schema import Check, TaskInstance
from device.errors import DeviceError
from device.tasks.answer_checks import answer_check
from device.tasks.base import DeviceVariant, Judging, Shell, VariantContext
from device.tasks.contacts_probe import (
    CONTACTS,
    PHONE,
    contacts_named,
    data_rows,
    delete_named,
    digits,
    ensure_contact,
    query,
    set_starred,
)
from device.tasks.contacts_variants import has_surname

__all__ = ["CONTACTS_HYBRID_VARIANTS", "CopyNumberVariant", "StarSurnameVariant"]

_PACKAGES = ("com.android.contacts", "com.google.android.contacts")


class CopyNumberVariant(DeviceVariant):
    """Save a contact's number under a new contact and say the number.

    Setup makes sure the contact to copy exists (with the task's number when it has to be
    created) and that nobody carries the new name yet; the truth is the number(s) the phone
    stores for the contact.
    """

    task_id = "contacts/CopyNumberToNewContact-v1"
    judged_by: ClassVar[Judging] = "probe"
    packages = _PACKAGES

    async def pose(self, shell: Shell, task: TaskInstance) -> Mapping[str, Any] | None:
        name = task.params["name"]
        await ensure_contact(shell, name, phone=task.params["number"])
        await delete_named(shell, task.params["new"])
        numbers = [row["data1"] for row in await data_rows(shell, name, PHONE)]
        if not numbers:
            raise DeviceError(
                f"the phone's contact {name!r} has no phone number to copy; give it one or "
                "remove the contact, then run again"
            )
        return {"numbers": numbers}

    async def judge(self, ctx: VariantContext) -> list[Check]:
        new, numbers = ctx.params["new"], ctx.baseline["numbers"]
        people = await contacts_named(ctx.shell, new)
        copied = [digits(row["data1"]) for row in await data_rows(ctx.shell, new, PHONE)]
        wanted = [digits(number) for number in numbers]
        return [
            Check(name="new contacts", expected=1, actual=len(people), passed=len(people) == 1,
                  evidence=f"content query contacts display_name={new!r}"),
            Check(name="phone", expected=wanted, actual=copied,
                  passed=any(number in copied for number in wanted),
                  evidence="content query data phone_v2 rows of the new contact"),
            answer_check(ctx, "number", numbers[0], "phone", accept=numbers[1:]),
        ]  # fmt: skip


class StarSurnameVariant(DeviceVariant):
    """Star everyone with a surname and say how many they were.

    Setup adds the simulator's people with the surname when the phone lacks them and unstars
    everyone with it; who they are (by contact id) and how many is read back as the truth.
    """

    task_id = "contacts/StarSurname-v1"
    judged_by: ClassVar[Judging] = "probe"
    packages = _PACKAGES

    async def pose(self, shell: Shell, task: TaskInstance) -> Mapping[str, Any] | None:
        surname = task.params["surname"]
        for name in task.params["names"]:
            await ensure_contact(shell, name)
        people = await self._people(shell, surname)
        for name in sorted({row["display_name"] for row in people}):
            await set_starred(shell, name, False)
        return {"people": {row["_id"]: row["display_name"] for row in people}}

    @staticmethod
    async def _people(shell: Shell, surname: str) -> list[dict[str, str]]:
        rows = await query(shell, CONTACTS, ["_id", "display_name", "starred"])
        return [row for row in rows if has_surname(row.get("display_name", ""), surname)]

    async def judge(self, ctx: VariantContext) -> list[Check]:
        people: Mapping[str, str] = ctx.baseline["people"]
        starred = {row["_id"]: row.get("starred") for row in await query(
            ctx.shell, CONTACTS, ["_id", "starred"])}  # fmt: skip
        checks = [
            Check(name=f"{name} starred", expected="1", actual=starred.get(contact_id),
                  passed=starred.get(contact_id) == "1",
                  evidence=f"content query contacts _id={contact_id} starred")
            for contact_id, name in people.items()
        ]  # fmt: skip
        return [*checks, answer_check(ctx, "count", len(people), "number")]


CONTACTS_HYBRID_VARIANTS: tuple[DeviceVariant, ...] = (CopyNumberVariant(), StarSurnameVariant())
"""Contacts hybrids a phone can pose and judge by ``content query`` and the answer."""
