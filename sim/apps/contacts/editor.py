"""The contact editor's drafts: field keys and the mapping between drafts and contacts.

Drafts live in the instance's UI state (``ui.fields``, strings only), one key per text box:
``contacts.edit.name``, ``contacts.edit.phone.<i>`` with its label in
``contacts.edit.phone_type.<i>``, likewise ``email``/``email_type``, and ``company``,
``title``, ``note``. Pure functions, so the editor's behaviour is testable without a page.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from sim.apps.contacts.model import EMAIL_TYPES, PHONE_TYPES

__all__ = [
    "EDIT_PREFIX",
    "ROW_KINDS",
    "SCALAR_FIELDS",
    "contact_from_fields",
    "fields_for_contact",
    "key",
    "row_count",
    "type_key",
]

EDIT_PREFIX = "contacts.edit."
"""Prefix of every editor draft (cleared on save and on cancel)."""
SCALAR_FIELDS = ("name", "company", "title", "note")
"""Single-line fields of the editor, in screen order (name first, phones and emails after)."""
ROW_KINDS: dict[str, tuple[str, tuple[str, ...]]] = {
    "phone": ("number", PHONE_TYPES),
    "email": ("address", EMAIL_TYPES),
}
"""Repeatable rows: kind → (value key in the contact, labels offered, default first)."""


def key(name: str, index: int | None = None) -> str:
    """Draft key of a field: ``key("name")``, ``key("phone", 0)``."""
    return f"{EDIT_PREFIX}{name}" if index is None else f"{EDIT_PREFIX}{name}.{index}"


def type_key(kind: str, index: int) -> str:
    """Draft key holding the label (``mobile``, ``work``…) of row ``index`` of ``kind``."""
    return f"{EDIT_PREFIX}{kind}_type.{index}"


def row_count(fields: Mapping[str, str], kind: str) -> int:
    """How many ``kind`` rows the editor shows (at least one)."""
    pattern = re.compile(re.escape(f"{EDIT_PREFIX}{kind}.") + r"(\d+)")
    indices = [int(m.group(1)) for k in fields if (m := pattern.fullmatch(k))]
    return max(indices, default=0) + 1


def fields_for_contact(contact: Mapping[str, Any] | None) -> dict[str, str]:
    """The drafts that prefill the editor for ``contact`` (None: a new, empty contact)."""
    contact = contact or {}
    fields = {key(name): str(contact.get(name, "")) for name in SCALAR_FIELDS}
    for kind, (value_key, labels) in ROW_KINDS.items():
        rows = list(contact.get(f"{kind}s") or []) or [{"type": labels[0], value_key: ""}]
        for index, row in enumerate(rows):
            fields[key(kind, index)] = str(row.get(value_key, ""))
            fields[type_key(kind, index)] = str(row.get("type") or labels[0])
    return fields


def contact_from_fields(fields: Mapping[str, str]) -> dict[str, Any]:
    """A contact-shaped draft from the editor's fields, keeping empty rows (for validation).

    Row positions are kept so that an error ``phone.1`` points at the second phone box.
    """
    draft: dict[str, Any] = {name: fields.get(key(name), "") for name in SCALAR_FIELDS}
    for kind, (value_key, labels) in ROW_KINDS.items():
        draft[f"{kind}s"] = [
            {
                "type": fields.get(type_key(kind, index)) or labels[0],
                value_key: fields.get(key(kind, index), ""),
            }
            for index in range(row_count(fields, kind))
        ]
    return draft
