"""``ContactsContract`` over MobileGym's contacts provider (``os.providers.contacts.contacts``).

MobileGym keeps a contact as one document ``{id, displayName, phones[{id, label, number,
isPrimary}], emails[{id, label, email, isPrimary}], company, title, notes, starred, …}``;
Android shows it as three tables, synthesized here:

* ``content://com.android.contacts/contacts``: ``_id, display_name, starred,
  has_phone_number`` (one aggregate per contact);
* ``…/raw_contacts``: ``_id, contact_id, display_name, starred, deleted, account_type,
  account_name`` (one raw contact per contact, same ``_id``; no account: NULL, NULL);
* ``…/data`` (also ``…/data/phones``, ``…/data/emails``): ``_id, raw_contact_id,
  contact_id, mimetype, data1, data2, data3, data4, is_primary, display_name, starred``,
  one row per detail: ``name`` (data1 display name, data2 given, data3 family),
  ``phone_v2`` (data1 number, data2 type, data3 label), ``email_v2`` (data1 address, data2
  type, data3 label), ``organization`` (data1 company, data2 1 = work, data4 title),
  ``note`` (data1). A data row's ``_id`` is ``contact _id * 100 + slot`` (name 0, phones
  10 + i, emails 40 + i, organization 80, note 90; 30 phones and 30 emails at most).

MobileGym labels phones and emails in words (``手机``, ``工作``, ``Work``): a label Android has
a type for becomes that type (phone 1 home, 2 mobile, 3 work, 7 other; email 1 home, 2 work, 3
other), any other is Android's custom type 0 with the label in ``data3``, as a phone stores a
custom label.

Writes go through MobileGym's own contacts provider (``content://contacts/contacts``), as its
Contacts app's do: inserting a raw contact creates a contact (MobileGym names one without a
name ``未命名`` until its name row arrives), data rows give it a name, phones, emails, a company
and title, notes; ``starred`` is updated on contacts or raw contacts; deleting a contact or a
raw contact deletes the contact, deleting data rows removes those details. Inserting into
``contacts`` is refused, as on Android.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bridge.android_contract import ITEM_MIME, split_display_name
from bridge.android_state import BindValue
from mobilegym.android_state.base import unavailable
from mobilegym.android_state.rows_table import (
    Seen,
    Table,
    Values,
    content_call,
    flag,
    next_id,
    numbered,
    own_id,
    whole,
)
from mobilegym.android_state.sql_rows import SqlTable, SqlValue, SynthRow, columns
from mobilegym.page import MobileGymPage

__all__ = ["CONTACTS_PATH", "contacts_tables", "label_type"]

CONTACTS_PATH = ("os", "providers", "contacts", "contacts")
"""Where MobileGym keeps its contacts in ``__SIM__.getState()``."""
_PROVIDER = "content://contacts/contacts"
_WORDS = {
    "home": ("住宅", "家", "home"),
    "mobile": ("手机", "mobile"),
    "work": ("工作", "公司", "work", "company"),
    "other": ("其他", "other"),
}
"""MobileGym's label words for each of Android's types; the first is the one written."""
_CODES = {"phone_v2": {"home": 1, "mobile": 2, "work": 3, "other": 7},
          "email_v2": {"home": 1, "work": 2, "other": 3}}  # fmt: skip
"""Android's ``Phone.TYPE_*`` and ``Email.TYPE_*`` codes (``data2``)."""
_DEFAULT = {"phone_v2": "手机", "email_v2": "邮箱"}
"""The label MobileGym's provider gives a phone, an email without one."""
_SLOTS = {"name": 0, "phone_v2": 10, "email_v2": 40, "organization": 80, "note": 90}
_RAW_INSERT = {"account_type", "account_name", "display_name", "starred", "aggregation_mode"}
_DATA_COLUMNS = {"data1", "data2", "data3", "data4"}
_KINDS = "a name, phones, emails, a company and title, and notes"
_VIEWS = {"phones": "phone_v2", "emails": "email_v2"}
_AGGREGATES = "aggregate contacts are made by the provider: insert a raw contact"
Contact = Mapping[str, Any]


def label_type(kind: str, label: str) -> tuple[int, str | None]:
    """A MobileGym label of a ``phone_v2`` or ``email_v2`` detail as ``(data2, data3)``:
    Android's type for it, or the custom type ``(0, label)``."""
    word = label.strip().casefold()
    for name, code in _CODES[kind].items():
        if word in _WORDS[name]:
            return code, None
    return 0, label


def _label(kind: str, data2: BindValue, data3: BindValue) -> str:
    """The MobileGym label of an Android type (``data2``) or custom label (``data3``)."""
    if data2 is None or str(data2) == "":
        return str(data3) if data3 else _DEFAULT[kind]
    code = whole(data2, f"the {kind} type")
    if code == 0 and data3:
        return str(data3)
    words = {number: _WORDS[name][0] for name, number in _CODES[kind].items()}
    if code not in words:
        unavailable(
            f"a {kind} of type {code}",
            f"MobileGym labels them {', '.join(words.values())} or with a custom label "
            "(type 0 and data3)",
        )
    return words[code]


# ---- reading


def _name(contact: Contact) -> str | None:
    return str(contact.get("displayName") or "") or None


def _person(contact: Contact) -> dict[str, SqlValue]:
    """The columns every table repeats of a contact."""
    return {"display_name": _name(contact), "starred": int(bool(contact.get("starred")))}


def _contact_rows(seen: Seen) -> list[SynthRow]:
    return [
        SynthRow({"_id": n, **_person(c), "has_phone_number": int(bool(c.get("phones")))},
                 (c["id"],))
        for n, c in numbered(seen)
    ]  # fmt: skip


def _raw_rows(seen: Seen) -> list[SynthRow]:
    return [
        SynthRow({"_id": n, "contact_id": n, **_person(c), "deleted": 0}, (c["id"],))
        for n, c in numbered(seen)
    ]


def _details(number: int, contact: Contact) -> list[SynthRow]:
    base = {"raw_contact_id": number, "contact_id": number, **_person(contact)}

    def row(kind: str, index: int, data: Sequence[SqlValue], primary: object = False) -> SynthRow:
        cells = dict(zip(("data1", "data2", "data3", "data4"), data, strict=False))
        values = {
            **base,
            **cells,
            "_id": number * 100 + _SLOTS[kind] + index,
            "mimetype": ITEM_MIME + kind,
            "is_primary": int(bool(primary)),
        }
        return SynthRow(values, (contact["id"], kind, str(index)))

    rows = []
    name = _name(contact)
    if name:
        rows.append(row("name", 0, (name, *split_display_name(name))))
    for i, phone in enumerate((contact.get("phones") or [])[:30]):
        code, label = label_type("phone_v2", str(phone.get("label") or ""))
        rows.append(row("phone_v2", i, (phone.get("number"), code, label), phone.get("isPrimary")))
    for i, email in enumerate((contact.get("emails") or [])[:30]):
        code, label = label_type("email_v2", str(email.get("label") or ""))
        rows.append(row("email_v2", i, (email.get("email"), code, label), email.get("isPrimary")))
    if contact.get("company") or contact.get("title"):
        rows.append(
            row(
                "organization",
                0,
                (contact.get("company") or None, 1, None, contact.get("title") or None),
            )
        )
    if contact.get("notes"):
        rows.append(row("note", 0, (contact["notes"],)))
    return rows


def _data_rows(seen: Seen) -> list[SynthRow]:
    return [row for number, contact in numbered(seen) for row in _details(number, contact)]


# ---- writing


def _check_columns(values: Values, allowed: set[str], where: str) -> None:
    unknown = sorted(set(values) - allowed)
    if unknown:
        unavailable(
            f"column {unknown[0]} written into {where}",
            f"MobileGym's contacts take {', '.join(sorted(allowed))} there",
        )


async def _update(page: MobileGymPage, contact_id: str, patch: Mapping[str, Any]) -> None:
    if not patch:
        return
    await content_call(page, "update", f"{_PROVIDER}/{contact_id}", dict(patch), None)


async def _insert_raw(page: MobileGymPage, seen: Seen, values: Values) -> None:
    _check_columns(values, _RAW_INSERT, "raw_contacts")
    for column in ("account_type", "account_name"):
        if values.get(column) is not None:
            unavailable(
                f"a contact of the account {values[column]!r}",
                "MobileGym's contacts belong to no account",
            )
    number = next_id(number for number, _ in numbered(seen))
    contact = {
        "id": own_id("c", number),
        "displayName": str(values.get("display_name") or ""),
        "starred": flag(values.get("starred")),
        "phones": [],
        "emails": [],
    }
    await content_call(page, "insert", _PROVIDER, contact)


def _free_id(items: Sequence[Mapping[str, Any]], prefix: str) -> str:
    """``p1``, ``p2``…: the first id of that shape no item of the contact uses (as MobileGym's
    own seed and editor name them; its provider would draw a random one)."""
    used = {str(item.get("id")) for item in items}
    return next(f"{prefix}{n}" for n in range(1, len(used) + 2) if f"{prefix}{n}" not in used)


def _with_detail(contact: dict[str, Any], kind: str, values: Mapping[str, BindValue]) -> None:
    """``contact`` (its changed fields) with one more detail, from a data row's values."""
    data1 = "" if values.get("data1") is None else str(values["data1"])
    if kind == "name":
        given, family = values.get("data2"), values.get("data3")
        contact["displayName"] = data1 or " ".join(str(p) for p in (given, family) if p)
    elif kind in ("phone_v2", "email_v2"):
        key, field, prefix = (
            ("phones", "number", "p") if kind == "phone_v2" else ("emails", "email", "e")
        )
        items = list(contact.get(key) or [])
        label = _label(kind, values.get("data2"), values.get("data3"))
        items.append(
            {"id": _free_id(items, prefix), "label": label, field: data1, "isPrimary": not items}
        )
        contact[key] = items
    elif kind == "organization":
        contact["company"], contact["title"] = data1 or None, values.get("data4") or None
    elif kind == "note":
        contact["notes"] = data1 or None
    else:
        unavailable(
            f"a contact detail of mimetype {ITEM_MIME + kind}",
            f"MobileGym's contacts hold {_KINDS}",
        )


async def _insert_data(page: MobileGymPage, seen: Seen, values: Values) -> None:
    _check_columns(values, {"raw_contact_id", "mimetype", "is_primary", *_DATA_COLUMNS}, "data")
    found = {str(number): c for number, c in numbered(seen)}
    contact = found.get(str(values.get("raw_contact_id")))
    if contact is None:
        unavailable(
            f"a detail of raw contact {values.get('raw_contact_id')}",
            "MobileGym has no such contact (insert the raw contact first)",
        )
    changed = dict(contact)
    _with_detail(changed, str(values.get("mimetype") or "").removeprefix(ITEM_MIME), values)
    await _update(page, contact["id"], {k: v for k, v in changed.items() if contact.get(k) != v})


def _edited(contact: Contact, rows: list[SynthRow], values: Values | None) -> dict[str, Any]:
    """The fields of ``contact`` that change when its detail ``rows`` are updated with
    ``values`` (None: deleted)."""
    changed: dict[str, Any] = {
        "phones": list(contact.get("phones") or []),
        "emails": list(contact.get("emails") or []),
    }
    doomed: dict[str, set[int]] = {"phones": set(), "emails": set()}
    for row in rows:
        _, kind, index = row.ref
        key = {"phone_v2": "phones", "email_v2": "emails"}.get(kind)
        if key is not None and values is None:
            doomed[key].add(int(index))
        elif key is not None and values is not None:
            merged = {**row.values, **values}
            scratch: dict[str, Any] = {key: []}
            _with_detail(scratch, kind, merged)
            old = changed[key][int(index)]
            changed[key][int(index)] = {
                **scratch[key][0],
                "id": old.get("id"),
                "isPrimary": old.get("isPrimary", False),
            }
        elif values is None:
            cleared: dict[str, dict[str, Any]] = {
                "name": {"displayName": ""},
                "note": {"notes": None},
                "organization": {"company": None, "title": None},
            }
            changed.update(cleared[kind])
        else:
            _with_detail(changed, kind, {**row.values, **values})
    for key, indexes in doomed.items():
        changed[key] = [item for i, item in enumerate(changed[key]) if i not in indexes]
    return {key: value for key, value in changed.items() if contact.get(key) != value}


def _by_contact(seen: Seen, rows: list[SynthRow]) -> list[tuple[Contact, list[SynthRow]]]:
    contacts = {c["id"]: c for _, c in numbered(seen)}
    grouped: dict[str, list[SynthRow]] = {}
    for row in rows:
        grouped.setdefault(row.ref[0], []).append(row)
    return [(contacts[key], found) for key, found in grouped.items()]


async def _update_data(
    page: MobileGymPage, seen: Seen, rows: list[SynthRow], values: Values
) -> None:
    _check_columns(values, _DATA_COLUMNS, "data")
    for contact, found in _by_contact(seen, rows):
        await _update(page, contact["id"], _edited(contact, found, values))


async def _delete_data(page: MobileGymPage, seen: Seen, rows: list[SynthRow]) -> None:
    for contact, found in _by_contact(seen, rows):
        await _update(page, contact["id"], _edited(contact, found, None))


async def _update_contacts(
    page: MobileGymPage, seen: Seen, rows: list[SynthRow], values: Values
) -> None:
    _check_columns(values, {"starred"}, "contacts")
    if "starred" not in values:
        return
    for row in rows:
        await _update(page, row.ref[0], {"starred": flag(values["starred"])})


async def _delete_contacts(page: MobileGymPage, seen: Seen, rows: list[SynthRow]) -> None:
    for row in rows:
        await content_call(page, "delete", f"{_PROVIDER}/{row.ref[0]}", None)


def contacts_tables() -> dict[str, Table]:
    """The ``com.android.contacts`` tables by name (module docstring)."""
    flags = ("contact_id", "raw_contact_id", "starred", "has_phone_number", "deleted", "is_primary")
    contacts = SqlTable(
        "contacts", columns("_id", "display_name", "starred", "has_phone_number", integers=flags)
    )
    raw = SqlTable(
        "raw_contacts",
        columns("_id", "contact_id", "display_name", "starred", "deleted", "account_type",
                "account_name", integers=flags),
    )  # fmt: skip
    data = SqlTable(
        "data",
        columns("_id", "raw_contact_id", "contact_id", "mimetype", "data1", "data2", "data3",
                "data4", "is_primary", "display_name", "starred", integers=flags),
    )  # fmt: skip
    views = {kind: ("mimetype", ITEM_MIME + mime) for kind, mime in _VIEWS.items()}
    return {
        "contacts": Table(contacts, CONTACTS_PATH, _contact_rows, update=_update_contacts,
                          delete=_delete_contacts, refused=_AGGREGATES),
        "raw_contacts": Table(raw, CONTACTS_PATH, _raw_rows, insert=_insert_raw,
                              update=_update_contacts, delete=_delete_contacts),
        "data": Table(data, CONTACTS_PATH, _data_rows, insert=_insert_data,
                      update=_update_data, delete=_delete_data, views=views),
    }  # fmt: skip
