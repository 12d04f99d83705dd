"""ContactsContract over the simulator's contacts, for ``content query|insert|update|delete``.

The simulated Contacts app keeps contacts as documents (``sim/apps/contacts/model.py``:
world data plus the instance overlay); Android exposes them as three tables. This module is
that view, read and written through the model's own functions so the app and ``content``
always agree:

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
from typing import Any

from device.virtual.phone import VirtualPhone
from device.virtual.provider_query import QueryError, parse_sort, parse_where, project
from sim.apps.contacts.model import delete_contact, effective_contacts, put_contact

__all__ = ["AUTHORITY", "COLUMNS", "ContactsProvider", "ProviderError", "contact_number"]

AUTHORITY = "com.android.contacts"
MIME = "vnd.android.cursor.item/"
COLUMNS: dict[str, tuple[str, ...]] = {
    "contacts": ("_id", "display_name", "starred", "has_phone_number"),
    "raw_contacts": (
        "_id",
        "contact_id",
        "display_name",
        "starred",
        "deleted",
        "account_type",
        "account_name",
    ),
    "data": (
        "_id",
        "raw_contact_id",
        "contact_id",
        "mimetype",
        "data1",
        "data2",
        "data3",
        "data4",
        "display_name",
        "starred",
    ),
}
"""Columns of each table, in the order ``content query`` prints them."""
PHONE_TYPES = {"home": 1, "mobile": 2, "work": 3, "other": 7}
EMAIL_TYPES = {"home": 1, "work": 2, "other": 3}
_FILTERS = {"phones": MIME + "phone_v2", "emails": MIME + "email_v2"}
_SLOTS = {"name": 0, "phone": 10, "email": 40, "organization": 80, "note": 90}


class ProviderError(Exception):
    """A provider call failed; ``java_class`` is what Android would have thrown."""

    def __init__(self, message: str, java_class: str = "java.lang.IllegalArgumentException"):
        super().__init__(message)
        self.java_class = java_class


def contact_number(contact_id: str) -> int:
    """The stable numeric ``_id`` of a contact id (see the module docstring)."""
    match = re.fullmatch(r"([cn])(\d+)", contact_id)
    if match is None:
        return 100_000 + zlib.crc32(contact_id.encode()) % 900_000
    return int(match.group(2)) + (1000 if match.group(1) == "n" else 0)


def _split_name(name: str) -> tuple[str | None, str | None]:
    """(given, family): ``Alice Chen`` → (Alice, Chen); ``张三`` → (三, 张)."""
    if not name:
        return None, None
    if " " in name:
        given, _, family = name.rpartition(" ")
        return given, family
    if "\u3400" <= name[0] <= "\u9fff" and len(name) > 1:
        return name[1:], name[0]
    return name, None


def _data_rows(contact: Mapping[str, Any]) -> list[dict[str, Any]]:
    number = contact_number(contact["id"])
    base = {
        "raw_contact_id": number,
        "contact_id": number,
        "display_name": contact["name"],
        "starred": int(contact["starred"]),
    }

    def row(
        slot: int, kind: str, data1: Any, data2: Any = None, data3: Any = None, data4: Any = None
    ) -> dict[str, Any]:
        return {
            **base,
            "_id": number * 100 + slot,
            "mimetype": MIME + kind,
            "data1": data1,
            "data2": data2,
            "data3": data3,
            "data4": data4,
        }

    rows = [row(0, "name", contact["name"], *_split_name(contact["name"]))]
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


def _contact_row(contact: Mapping[str, Any], table: str) -> dict[str, Any]:
    number = contact_number(contact["id"])
    row = {"_id": number, "display_name": contact["name"], "starred": int(contact["starred"])}
    if table == "contacts":
        row["has_phone_number"] = int(bool(contact["phones"]))
    else:
        row.update(contact_id=number, deleted=0, account_type=None, account_name=None)
    return row


class ContactsProvider:
    """The ``com.android.contacts`` provider of one virtual phone."""

    def __init__(self, phone: VirtualPhone) -> None:
        self.phone = phone
        self.app = phone.sim.phone.app("contacts")

    # ---- reading
    def _overlay(self, write: bool) -> dict[str, Any]:
        apps = self.phone.instance.state.apps
        if write:
            return apps.setdefault("contacts", self.app.initial_overlay())
        return apps.get("contacts", {})

    def contacts(self) -> list[dict[str, Any]]:
        """Effective contacts (world data with this phone's overlay)."""
        return effective_contacts(self.app.world, self._overlay(write=False))

    def _table(self, path: list[str]) -> tuple[str, int | None, str | None]:
        """(table, row id, mimetype filter) for a URI path."""
        if not path or path[0] not in COLUMNS:
            raise ProviderError(f"Unknown URI content://{AUTHORITY}/{'/'.join(path)}")
        table, rest = path[0], path[1:]
        if table == "data" and rest and rest[0] in _FILTERS:
            return (
                table,
                (int(rest[1]) if rest[1:2] and rest[1].isdigit() else None),
                _FILTERS[rest[0]],
            )
        if len(rest) == 1 and rest[0].isdigit():
            return table, int(rest[0]), None
        if rest:
            raise ProviderError(f"Unknown URI content://{AUTHORITY}/{'/'.join(path)}")
        return table, None, None

    def rows(self, path: list[str]) -> tuple[str, list[dict[str, Any]]]:
        """The table name and all its rows (after the URI's id or mimetype filter)."""
        table, row_id, mimetype = self._table(path)
        contacts = self.contacts()
        if table == "data":
            rows = [row for c in contacts for row in _data_rows(c)]
        else:
            rows = [_contact_row(c, table) for c in contacts]
        if row_id is not None:
            rows = [row for row in rows if row["_id"] == row_id]
        if mimetype is not None:
            rows = [row for row in rows if row["mimetype"] == mimetype]
        return table, rows

    def query(
        self, path: list[str], projection: list[str] | None, where: str | None, sort: str | None
    ) -> list[list[tuple[str, Any]]]:
        """Rows as (column, value) pairs, filtered, sorted and projected."""
        table, rows = self.rows(path)
        columns = COLUMNS[table]
        try:
            predicate = parse_where(where, columns)
            order = parse_sort(sort, columns)
            return project([r for r in rows if predicate(r)], columns, projection, order)
        except QueryError as exc:
            raise ProviderError(str(exc), "android.database.sqlite.SQLiteException") from exc

    def _matching(self, path: list[str], where: str | None) -> tuple[str, list[dict[str, Any]]]:
        table, rows = self.rows(path)
        try:
            predicate = parse_where(where, COLUMNS[table])
        except QueryError as exc:
            raise ProviderError(str(exc), "android.database.sqlite.SQLiteException") from exc
        return table, [row for row in rows if predicate(row)]

    def _by_number(self) -> dict[int, dict[str, Any]]:
        return {contact_number(c["id"]): c for c in self.contacts()}

    # ---- writing
    def insert(self, path: list[str], values: dict[str, Any]) -> int:
        """Insert a raw contact or a data row; returns the new row's ``_id``."""
        table, row_id, _ = self._table(path)
        if table == "contacts" or row_id is not None:
            raise ProviderError(
                "Aggregate contacts are created automatically"
                if table == "contacts"
                else "Cannot insert into an item URI",
                "java.lang.UnsupportedOperationException",
            )
        if table == "raw_contacts":
            return self._insert_raw(values)
        return self._insert_data(values)

    def _insert_raw(self, values: dict[str, Any]) -> int:
        _check_columns(
            values,
            {
                "account_type",
                "account_name",
                "starred",
                "display_name",
                "aggregation_mode",
                "account_type_and_data_set",
            },
        )
        contact = {
            "name": str(values.get("display_name") or ""),
            "starred": bool(values.get("starred", False)),
        }
        contact_id = put_contact(self._overlay(write=True), contact)
        self.phone.instance.changed()
        return contact_number(contact_id)

    def _insert_data(self, values: dict[str, Any]) -> int:
        _check_columns(
            values,
            {
                "raw_contact_id",
                "mimetype",
                "data1",
                "data2",
                "data3",
                "data4",
                "is_primary",
                "is_super_primary",
            },
        )
        raw_id = values.get("raw_contact_id")
        contact = self._by_number().get(int(raw_id)) if isinstance(raw_id, int) else None
        if contact is None:
            raise ProviderError(f"raw_contact_id is required and must exist (got {raw_id})")
        kind = str(values.get("mimetype", "")).removeprefix(MIME)
        updated = _with_detail(contact, kind, values)
        put_contact(self._overlay(write=True), updated)
        self.phone.instance.changed()
        count = (
            len(updated["phones"]) - 1
            if kind == "phone_v2"
            else (len(updated["emails"]) - 1 if kind == "email_v2" else 0)
        )
        return contact_number(contact["id"]) * 100 + _SLOTS[_slot_kind(kind)] + count

    def update(self, path: list[str], values: dict[str, Any], where: str | None) -> int:
        """Update matching rows; returns how many."""
        table, rows = self._matching(path, where)
        allowed = {"starred"} if table != "data" else {"data1", "data2", "data3", "data4"}
        _check_columns(values, allowed)
        contacts = self._by_number()
        overlay = self._overlay(write=True)
        for row in rows:
            contact = contacts[row["contact_id"] if table == "data" else row["_id"]]
            if table == "data":
                contact = _edit_detail(contact, row, values)
            else:
                contact = {**contact, "starred": bool(values["starred"])}
            contacts[contact_number(contact["id"])] = contact
            put_contact(overlay, contact)
        self.phone.instance.changed()
        return len(rows)

    def delete(self, path: list[str], where: str | None) -> int:
        """Delete matching rows (whole contacts, or details for data rows)."""
        table, rows = self._matching(path, where)
        contacts = self._by_number()
        overlay = self._overlay(write=True)
        for row in sorted(rows, key=lambda r: -r["_id"]):  # later details first: no shifts
            if table != "data":
                delete_contact(overlay, contacts[row["_id"]]["id"])
                continue
            contact = _edit_detail(contacts[row["contact_id"]], row, None)
            contacts[row["contact_id"]] = contact
            put_contact(overlay, contact)
        self.phone.instance.changed()
        return len(rows)


def _check_columns(values: Mapping[str, Any], allowed: set[str]) -> None:
    unknown = sorted(set(values) - allowed)
    if unknown:
        raise ProviderError(
            f"column '{unknown[0]}' is not supported here by the virtual "
            f"phone (supported: {', '.join(sorted(allowed))})"
        )


def _slot_kind(kind: str) -> str:
    return {"phone_v2": "phone", "email_v2": "email"}.get(kind, kind)


def _type_name(table: dict[str, int], value: Any, default: str) -> str:
    names = {code: name for name, code in table.items()}
    return names.get(int(value), default) if isinstance(value, int | float) else default


def _with_detail(contact: dict[str, Any], kind: str, values: Mapping[str, Any]) -> dict[str, Any]:
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
        f"mimetype {MIME + kind!r} is not supported by the virtual phone "
        "(name, phone_v2, email_v2, organization, note)"
    )


def _edit_detail(
    contact: dict[str, Any], row: Mapping[str, Any], values: Mapping[str, Any] | None
) -> dict[str, Any]:
    """The contact with the detail behind a data ``row`` changed (or removed: None)."""
    kind = str(row["mimetype"]).removeprefix(MIME)
    merged = {**row, **(values or {})}
    slot = row["_id"] % 100
    if kind in ("phone_v2", "email_v2"):
        key, index = ("phones", slot - 10) if kind == "phone_v2" else ("emails", slot - 40)
        items = list(contact[key])
        if values is None:
            del items[index]
        else:
            single = _with_detail({**contact, key: []}, kind, merged)[key][0]
            items[index] = single
        return {**contact, key: items}
    if values is None:
        cleared = {
            "name": {"name": ""},
            "organization": {"company": "", "title": ""},
            "note": {"note": ""},
        }
        return {**contact, **cleared.get(kind, {})}
    return _with_detail(contact, kind, merged)
