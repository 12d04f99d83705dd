"""Contacts: a contact a task needs, inserted through the contacts provider's rows when the
phone has none of that name (a phone's own contact is kept as it is)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from bridge.android_contract import (
    CONTACTS,
    DATA,
    NAME,
    ORGANIZATION,
    PHONE,
    PHONE_TYPE_MOBILE,
    RAW_CONTACTS,
    sql_text,
)
from bridge.android_state import AndroidState, BindValue
from bridge.errors import TaskNotPosed
from bridge.spec.base import EnsureNode

__all__ = ["EnsureContact"]


class EnsureContact(EnsureNode):
    """A contact named ``name`` exists: when the phone has none, one is inserted with these
    details (a phone's own contact of that name is kept as it is); ``starred`` is then set on
    every contact of that name when given."""

    op: Literal["ensure_contact"] = "ensure_contact"
    name: str = Field(min_length=1)
    phones: list[str] = Field(default_factory=list)
    company: str | None = None
    title: str | None = None
    starred: bool | None = None

    async def pose(self, state: AndroidState) -> None:
        """Insert the contact when missing; star or unstar it."""
        await _ensure_contact(state, self)


async def _ensure_contact(state: AndroidState, op: EnsureContact) -> None:
    where = f"display_name={sql_text(op.name)}"
    if not await state.query(CONTACTS, ["_id"], where):
        await state.insert(RAW_CONTACTS, {"account_type": None, "account_name": None})
        raws = await state.query(RAW_CONTACTS, ["_id"])
        raw_id = max(int(str(row["_id"])) for row in raws)
        details: list[dict[str, BindValue]] = [{"mimetype": NAME, "data1": op.name}]
        details += [
            {"mimetype": PHONE, "data1": number, "data2": PHONE_TYPE_MOBILE} for number in op.phones
        ]
        if op.company is not None or op.title is not None:
            details.append({"mimetype": ORGANIZATION, "data1": op.company, "data4": op.title})
        for detail in details:
            await state.insert(DATA, {"raw_contact_id": raw_id, **detail})
        if not await state.query(CONTACTS, ["_id"], where):
            raise TaskNotPosed(
                f"the phone did not keep the contact {op.name!r} inserted for the task"
            )
    if op.starred is not None:
        await state.update(CONTACTS, {"starred": int(op.starred)}, where)
