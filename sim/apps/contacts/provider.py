"""ContactsContract over the simulated contacts: the ``com.android.contacts`` provider.

The Contacts app keeps contacts as documents (:mod:`sim.apps.contacts.model`: world data
plus the instance overlay); Android exposes them as three tables. This module declares that
view (:mod:`sim.providers.table`), read and written through the model's own functions so the
app and ``content`` always agree:

* ``content://com.android.contacts/contacts`` — ``_id, display_name, starred,
  has_phone_number`` (one aggregate contact per simulated contact);
* ``…/raw_contacts`` — ``_id, contact_id, display_name, starred, deleted, account_type,
  account_name`` (one raw contact per contact, same ``_id``; local account: NULL type/name);
* ``…/data`` (also ``…/data/phones``, ``…/data/emails``) — ``_id, raw_contact_id,
  contact_id, mimetype, data1, data2, data3, data4, display_name, starred`` with mimetypes
  ``vnd.android.cursor.item/name`` (data1 display name, data2 given, data3 family),
  ``phone_v2`` (data1 number, data2 type: 1 home, 2 mobile, 3 work, 7 other),
  ``email_v2`` (data1 address, data2 type: 1 home, 2 work, 3 other), ``organization``
  (data1 company, data4 title) and ``note`` (data1).

Column types are those of Android's ``contacts2.db``: ids and flags ``INTEGER``, names,
mimetypes and ``data1``–``data4`` ``TEXT`` (a number such as ``13912345678`` stays text;
``data2`` prints ``2`` either way).

Numeric ids are stable and derived from contact ids: world contact ``c001`` → ``_id`` 1,
``c078`` → 78; instance-created ``n001`` → 1001; any other id → 100000 + a CRC. A data row's
``_id`` is ``contact _id * 100 + slot`` (name 0, phones 10+i, emails 40+i, organization 80,
note 90).

Writes: insert a raw contact (``--bind account_type:s:`` … optional ``display_name``,
``starred``) to create an empty contact, then data rows with ``raw_contact_id`` to give it a
name, phones, emails, an organization. Star with ``content update --uri …/contacts --bind
starred:i:1 --where "_id=N"``. Deleting contacts or raw contacts deletes the contact;
deleting data rows removes those details. Inserting into ``contacts`` is refused, as on
Android (aggregates are created automatically).
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from bridge.android_contract import CONTACTS_AUTHORITY, ITEM_MIME, split_display_name
from sim.apps.contacts.model import delete_contact, effective_contacts, put_contact
from sim.providers.errors import ProviderError
from sim.providers.table import Column, Provider, ProviderContext, ProviderTable, Values

__all__ = ["EMAIL_TYPES", "PHONE_TYPES", "contact_number", "contacts_provider"]

_APP = "contacts"

PHONE_TYPES = {"home": 1, "mobile": 2, "work": 3, "other": 7}
"""``Phone.TYPE_*`` codes (``data2`` of a ``phone_v2`` row) by the app's labels."""
EMAIL_TYPES = {"home": 1, "work": 2, "other": 3}
"""``Email.TYPE_*`` codes (``data2`` of an ``email_v2`` row) by the app's labels."""
_SLOTS = {"name": 0, "phone": 10, "email": 40, "organization": 80, "note": 90}
_RAW_INSERT = {
    "account_type",
    "account_name",
    "starred",
    "display_name",
    "aggregation_mode",
    "account_type_and_data_set",
}
_DATA_INSERT = {
    "raw_contact_id",
    "mimetype",
    "data1",
    "data2",
    "data3",
    "data4",
    "is_primary",
    "is_super_primary",
}
Contact = dict[str, Any]
Row = Mapping[str, Any]


@lru_cache(maxsize=4096)
def contact_number(contact_id: str) -> int:
    """The stable numeric ``_id`` of a contact id (see the module docstring)."""
    match = re.fullmatch(r"([cn])(\d+)", contact_id)
    if match is None:
        return 100_000 + zlib.crc32(contact_id.encode()) % 900_000
    return int(match.group(2)) + (1000 if match.group(1) == "n" else 0)


# ---- reading


def _contacts(ctx: ProviderContext) -> list[Contact]:
    return effective_contacts(ctx.world(_APP), ctx.overlay(_APP))


def _by_number(ctx: ProviderContext) -> dict[int, Contact]:
    return {contact_number(c["id"]): c for c in _contacts(ctx)}


def _contact_rows(ctx: ProviderContext) -> list[dict[str, Any]]:
    return [
        {
            "_id": contact_number(c["id"]),
            "display_name": c["name"],
            "starred": int(c["starred"]),
            "has_phone_number": int(bool(c["phones"])),
        }
        for c in _contacts(ctx)
    ]


def _raw_rows(ctx: ProviderContext) -> list[dict[str, Any]]:
    return [
        {
            "_id": contact_number(c["id"]),
            "contact_id": contact_number(c["id"]),
            "display_name": c["name"],
            "starred": int(c["starred"]),
            "deleted": 0,
            "account_type": None,
            "account_name": None,
        }
        for c in _contacts(ctx)
    ]


def _details(contact: Mapping[str, Any]) -> list[dict[str, Any]]:
    number = contact_number(contact["id"])
    base = {
        "raw_contact_id": number,
        "contact_id": number,
        "display_name": contact["name"],
        "starred": int(contact["starred"]),
    }

    def row(slot: int, kind: str, *data: Any) -> dict[str, Any]:
        padded = (*data, None, None, None, None)[:4]
        columns = dict(zip(("data1", "data2", "data3", "data4"), padded, strict=True))
        return {**base, "_id": number * 100 + slot, "mimetype": ITEM_MIME + kind, **columns}

    rows = [row(0, "name", contact["name"], *split_display_name(contact["name"]))]
    rows += [
        row(10 + i, "phone_v2", p["number"], PHONE_TYPES.get(p["type"], 7))
        for i, p in enumerate(contact["phones"][:30])
    ]
    rows += [
        row(40 + i, "email_v2", e["address"], EMAIL_TYPES.get(e["type"], 3))
        for i, e in enumerate(contact["emails"][:30])
    ]
    if contact["company"] or contact["title"]:
        rows.append(
            row(80, "organization", contact["company"] or None, 1, None, contact["title"] or None)
        )
    if contact["note"]:
        rows.append(row(90, "note", contact["note"]))
    return rows


def _data_rows(ctx: ProviderContext) -> list[dict[str, Any]]:
    return [row for contact in _contacts(ctx) for row in _details(contact)]


# ---- writing


def _check_columns(values: Mapping[str, Any], allowed: set[str]) -> None:
    unknown = sorted(set(values) - allowed)
    if unknown:
        raise ProviderError(
            f"column '{unknown[0]}' is not supported here by the simulated "
            f"phone (supported: {', '.join(sorted(allowed))})"
        )


def _code(value: Any) -> int | None:
    """A type code bound as int or text (``data2`` is a TEXT column: ``'2'``)."""
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _flag(value: Any) -> bool:
    code = _code(value)
    return bool(value) if code is None else code != 0


def _type_name(table: dict[str, int], value: Any, default: str) -> str:
    names = {code: name for name, code in table.items()}
    code = _code(value)
    return names.get(code, default) if code is not None else default


def _slot_kind(kind: str) -> str:
    return {"phone_v2": "phone", "email_v2": "email"}.get(kind, kind)


def _with_detail(contact: Contact, kind: str, values: Mapping[str, Any]) -> Contact:
    """The contact with one more detail from a data row insert."""
    data1 = "" if values.get("data1") is None else str(values["data1"])
    if kind == "name":
        given, family = values.get("data2"), values.get("data3")
        name = data1 or " ".join(str(p) for p in (given, family) if p)
        return {**contact, "name": name}
    if kind == "phone_v2":
        phone = {"type": _type_name(PHONE_TYPES, values.get("data2"), "mobile"), "number": data1}
        return {**contact, "phones": [*contact["phones"], phone]}
    if kind == "email_v2":
        email = {"type": _type_name(EMAIL_TYPES, values.get("data2"), "home"), "address": data1}
        return {**contact, "emails": [*contact["emails"], email]}
    if kind == "organization":
        return {**contact, "company": data1, "title": str(values.get("data4") or "")}
    if kind == "note":
        return {**contact, "note": data1}
    raise ProviderError(
        f"mimetype {ITEM_MIME + kind!r} is not supported by the simulated phone "
        "(name, phone_v2, email_v2, organization, note)"
    )


def _edit_detail(contact: Contact, row: Row, values: Mapping[str, Any] | None) -> Contact:
    """The contact with the detail behind a data ``row`` changed (or removed: None)."""
    kind = str(row["mimetype"]).removeprefix(ITEM_MIME)
    merged = {**row, **(values or {})}
    slot = row["_id"] % 100
    if kind in ("phone_v2", "email_v2"):
        key, index = ("phones", slot - 10) if kind == "phone_v2" else ("emails", slot - 40)
        items = list(contact[key])
        if values is None:
            del items[index]
        else:
            items[index] = _with_detail({**contact, key: []}, kind, merged)[key][0]
        return {**contact, key: items}
    if values is None:
        cleared = {
            "name": {"name": ""},
            "organization": {"company": "", "title": ""},
            "note": {"note": ""},
        }
        return {**contact, **cleared.get(kind, {})}
    return _with_detail(contact, kind, merged)


def _insert_raw(ctx: ProviderContext, values: Values) -> int:
    _check_columns(values, _RAW_INSERT)
    contact = {
        "name": str(values.get("display_name") or ""),
        "starred": _flag(values.get("starred", 0)),
    }
    return contact_number(put_contact(ctx.writable_overlay(_APP), contact))


def _insert_data(ctx: ProviderContext, values: Values) -> int:
    _check_columns(values, _DATA_INSERT)
    raw_id = values.get("raw_contact_id")
    contact = _by_number(ctx).get(raw_id) if isinstance(raw_id, int) else None
    if contact is None:
        raise ProviderError(f"raw_contact_id is required and must exist (got {raw_id})")
    kind = str(values.get("mimetype", "")).removeprefix(ITEM_MIME)
    updated = _with_detail(contact, kind, values)
    put_contact(ctx.writable_overlay(_APP), updated)
    count = {"phone_v2": len(updated["phones"]), "email_v2": len(updated["emails"])}
    return contact_number(contact["id"]) * 100 + _SLOTS[_slot_kind(kind)] + count.get(kind, 1) - 1


def _update_contacts(ctx: ProviderContext, rows: list[Row], values: Values) -> None:
    _check_columns(values, {"starred"})
    if "starred" not in values:
        return
    contacts, overlay = _by_number(ctx), ctx.writable_overlay(_APP)
    for row in rows:
        put_contact(overlay, {**contacts[row["_id"]], "starred": _flag(values["starred"])})


def _update_data(ctx: ProviderContext, rows: list[Row], values: Values) -> None:
    _check_columns(values, {"data1", "data2", "data3", "data4"})
    contacts, overlay = _by_number(ctx), ctx.writable_overlay(_APP)
    for row in rows:
        contact = _edit_detail(contacts[row["contact_id"]], row, values)
        contacts[row["contact_id"]] = contact
        put_contact(overlay, contact)


def _delete_contacts(ctx: ProviderContext, rows: list[Row]) -> None:
    contacts, overlay = _by_number(ctx), ctx.writable_overlay(_APP)
    for row in rows:
        delete_contact(overlay, contacts[row["_id"]]["id"])


def _delete_data(ctx: ProviderContext, rows: list[Row]) -> None:
    contacts, overlay = _by_number(ctx), ctx.writable_overlay(_APP)
    for row in sorted(rows, key=lambda r: -r["_id"]):  # later details first: no shifts
        contact = _edit_detail(contacts[row["contact_id"]], row, None)
        contacts[row["contact_id"]] = contact
        put_contact(overlay, contact)


# ---- the declaration

_ID, _NUMBER = Column("_id", "INTEGER"), Column("contact_id", "INTEGER")
_NAME, _STARRED = Column("display_name"), Column("starred", "INTEGER")


def contacts_provider() -> Provider:
    """The ``com.android.contacts`` provider (also reached as ``contacts``)."""
    contacts = ProviderTable(
        name="contacts",
        columns=(_ID, _NAME, _STARRED, Column("has_phone_number", "INTEGER")),
        rows=_contact_rows,
        update=_update_contacts,
        delete=_delete_contacts,
        read_only_reason="Aggregate contacts are created automatically",
    )
    raw = ProviderTable(
        name="raw_contacts",
        columns=(
            _ID,
            _NUMBER,
            _NAME,
            _STARRED,
            Column("deleted", "INTEGER"),
            Column("account_type"),
            Column("account_name"),
        ),
        rows=_raw_rows,
        insert=_insert_raw,
        update=_update_contacts,
        delete=_delete_contacts,
    )
    data = ProviderTable(
        name="data",
        columns=(
            _ID,
            Column("raw_contact_id", "INTEGER"),
            _NUMBER,
            Column("mimetype"),
            *(Column(f"data{i}") for i in range(1, 5)),
            _NAME,
            _STARRED,
        ),
        rows=_data_rows,
        insert=_insert_data,
        update=_update_data,
        delete=_delete_data,
        views={
            "phones": ("mimetype", ITEM_MIME + "phone_v2"),
            "emails": ("mimetype", ITEM_MIME + "email_v2"),
        },
    )
    return Provider(CONTACTS_AUTHORITY, (contacts, raw, data), aliases=("contacts",))
