"""The Contacts data model: pure functions over plain dicts (no UI, no clock, no I/O).

World data is ``{"contacts": [contact, ...]}``; the runtime overlay of an instance is
``{"contacts": {"<id>": contact | None}, "next_id": int}`` where ``None`` is a tombstone (a
world contact that was deleted). A contact is::

    {"id": "c001", "name": "张伟", "phones": [{"type": "mobile", "number": "+86 138 ..."}],
     "emails": [{"type": "work", "address": "a@b.cn"}], "company": "", "title": "",
     "starred": False, "note": ""}

World contacts have ids ``c001``…; contacts created in an instance get ``n001``, ``n002``…
from ``next_id``, so an id alone says whether deleting it needs a tombstone.

Sorting, grouping and search follow Android's Contacts in a Chinese locale: Chinese names
sort by pinyin among the Latin ones, the index letters run A–Z and then ``#``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any, TypeVar

from sim.app import derived_from_world
from sim.collation import fold, is_han, letter_order, pinyin_matches, syllables
from sim.errors import SimError

__all__ = [
    "EMAIL_TYPES",
    "NEW_ID_PREFIX",
    "PHONE_TYPES",
    "delete_contact",
    "effective_contacts",
    "find_by_name",
    "get_contact",
    "group_by_letter",
    "index_letter",
    "matches",
    "new_id",
    "normalize_contact",
    "normalize_phone",
    "put_contact",
    "same_number",
    "search",
    "set_starred",
    "sort_contacts",
    "sort_key",
    "transliterate",
    "validate",
]

PHONE_TYPES = ("mobile", "work", "home", "other")
"""Phone labels offered by the editor (Android's Phone.TYPE_* subset), default first."""
EMAIL_TYPES = ("home", "work", "other")
"""Email labels offered by the editor (Android's Email.TYPE_* subset), default first."""
NEW_ID_PREFIX = "n"
"""Prefix of ids minted by an instance (world ids start with ``c``)."""

_Contact = TypeVar("_Contact", bound=Mapping[str, Any])

# Surnames whose most common reading is not pypinyin's default one (曾 is "ceng" otherwise).
_SURNAME_READINGS = {
    "曾": "zeng",
    "单": "shan",
    "解": "xie",
    "仇": "qiu",
    "区": "ou",
    "朴": "piao",
    "查": "zha",
    "盖": "ge",
    "覃": "qin",
    "缪": "miao",
    "褚": "chu",
    "乐": "yue",
}
_PHONE_RE = re.compile(r"\+?[0-9 ()\-]*[0-9][0-9 ()\-]*")
_EMAIL_RE = re.compile(r"[^@\s]+@[^@\s]+")
_NUMBER_QUERY_RE = re.compile(r"[0-9+()\- ]*[0-9][0-9+()\- ]*")


# ---- contacts and the overlay


def normalize_contact(contact: Mapping[str, Any]) -> dict[str, Any]:
    """A contact with every field present, strings stripped and empty entries dropped."""
    phones = [
        {"type": str(p.get("type") or PHONE_TYPES[0]), "number": str(p.get("number", "")).strip()}
        for p in contact.get("phones") or []
    ]
    emails = [
        {"type": str(e.get("type") or EMAIL_TYPES[0]), "address": str(e.get("address", "")).strip()}
        for e in contact.get("emails") or []
    ]
    return {
        "id": str(contact.get("id", "")),
        "name": str(contact.get("name", "")).strip(),
        "phones": [p for p in phones if p["number"]],
        "emails": [e for e in emails if e["address"]],
        "company": str(contact.get("company") or "").strip(),
        "title": str(contact.get("title") or "").strip(),
        "starred": bool(contact.get("starred", False)),
        "note": str(contact.get("note") or "").strip(),
    }


def _copied(contact: Mapping[str, Any]) -> dict[str, Any]:
    """A normalized contact that its caller may change without changing the original."""
    phones = [dict(phone) for phone in contact["phones"]]
    return {**contact, "phones": phones, "emails": [dict(email) for email in contact["emails"]]}


@derived_from_world
def _world_contacts(world: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The world's contacts, normalized, by id (shared: copy before changing one)."""
    return {str(c["id"]): normalize_contact(c) for c in world.get("contacts", [])}


@lru_cache(maxsize=4096)
def _id_key(contact_id: str) -> tuple[str, int, str]:
    """Order ids as prefix then number, so ``n1000`` comes after ``n999``."""
    match = re.fullmatch(r"([^\d]*)(\d+)", contact_id)
    if match is None:
        return (contact_id, -1, contact_id)
    return (match.group(1), int(match.group(2)), contact_id)


def effective_contacts(
    world: Mapping[str, Any], overlay: Mapping[str, Any]
) -> list[dict[str, Any]]:
    """World contacts with the overlay applied (replacements, tombstones, new ones), by id."""
    by_id = dict(_world_contacts(world))
    for contact_id, contact in (overlay.get("contacts") or {}).items():
        if contact is None:
            by_id.pop(contact_id, None)
        else:
            by_id[contact_id] = normalize_contact({**contact, "id": contact_id})
    return [_copied(by_id[i]) for i in sorted(by_id, key=_id_key)]


def get_contact(
    world: Mapping[str, Any], overlay: Mapping[str, Any], contact_id: str
) -> dict[str, Any] | None:
    """The effective contact ``contact_id``, or None if it does not exist (or was deleted)."""
    contacts = overlay.get("contacts") or {}
    if contact_id in contacts:
        found = contacts[contact_id]
        return None if found is None else normalize_contact({**found, "id": contact_id})
    found = _world_contacts(world).get(contact_id)
    return None if found is None else _copied(found)


def new_id(overlay: dict[str, Any]) -> str:
    """Mint the next instance-local id (``n001``, ``n002``…) and advance ``next_id``."""
    number = int(overlay.get("next_id", 1))
    overlay["next_id"] = number + 1
    return f"{NEW_ID_PREFIX}{number:03d}"


def put_contact(overlay: dict[str, Any], contact: Mapping[str, Any]) -> str:
    """Create or replace a contact in the overlay; a contact without an id gets a new one.

    Returns:
        The contact's id.
    """
    contact_id = str(contact.get("id") or "") or new_id(overlay)
    overlay.setdefault("contacts", {})[contact_id] = normalize_contact(
        {**contact, "id": contact_id}
    )
    prefix, number, _ = _id_key(contact_id)
    if prefix == NEW_ID_PREFIX and number >= int(overlay.get("next_id", 1)):
        overlay["next_id"] = number + 1  # a set-up that picked its own id never collides
    return contact_id


def delete_contact(overlay: dict[str, Any], contact_id: str) -> None:
    """Delete a contact: forget one this instance created, tombstone one from world data."""
    contacts = overlay.setdefault("contacts", {})
    if contact_id.startswith(NEW_ID_PREFIX):
        contacts.pop(contact_id, None)
    else:
        contacts[contact_id] = None


def set_starred(
    overlay: dict[str, Any], contact_id: str, starred: bool, world: Mapping[str, Any]
) -> None:
    """Add the contact to favourites or remove it (no overlay change if already so)."""
    contact = get_contact(world, overlay, contact_id)
    if contact is None:
        raise SimError(f"no contact {contact_id!r} to star: it does not exist or was deleted")
    if contact["starred"] != starred:
        put_contact(overlay, {**contact, "starred": starred})


def find_by_name(contacts: Iterable[Mapping[str, Any]], name: str) -> Mapping[str, Any] | None:
    """The first contact named exactly ``name`` (else ignoring case), or None."""
    wanted = name.strip()
    candidates = list(contacts)
    for contact in candidates:
        if contact["name"] == wanted:
            return contact
    folded = fold(wanted)
    return next((c for c in candidates if fold(c["name"]) == folded), None)


# ---- names: transliteration, sorting, grouping


@lru_cache(maxsize=8192)
def _syllables(name: str) -> tuple[str, ...]:
    """The name's pinyin (:func:`sim.collation.syllables`), its surname read as in names."""
    parts = list(syllables(name))
    if parts and name[:1] in _SURNAME_READINGS:
        parts[0] = _SURNAME_READINGS[name[0]]
    return tuple(parts)


def transliterate(name: str) -> str:
    """The Latin form a name sorts by: ``张伟`` → ``zhang wei``, ``García`` → ``garcia``."""
    return " ".join(_syllables(name.strip()))


def index_letter(name: str) -> str:
    """The fast-scroll letter of a name: ``A``–``Z`` by its Latin form, else ``#``."""
    latin = transliterate(name)
    first = latin[:1].upper()
    return first if "A" <= first <= "Z" else "#"


def sort_key(name: str) -> tuple[int, str, str]:
    """Android's order: letters A–Z (Chinese by pinyin among Latin), then ``#``."""
    return letter_order(transliterate(name), name)


def sort_contacts(contacts: Iterable[_Contact]) -> list[_Contact]:
    """Contacts in list order (by :func:`sort_key` of the name, then id)."""
    return sorted(contacts, key=lambda c: (sort_key(c["name"]), _id_key(c["id"])))


def group_by_letter(
    contacts: Iterable[Mapping[str, Any]],
) -> list[tuple[str, list[Mapping[str, Any]]]]:
    """Sorted contacts under their index letters, as the list shows them."""
    groups: list[tuple[str, list[Mapping[str, Any]]]] = []
    for contact in sort_contacts(contacts):
        letter = index_letter(contact["name"])
        if not groups or groups[-1][0] != letter:
            groups.append((letter, []))
        groups[-1][1].append(contact)
    return groups


# ---- search


def _digits(text: str) -> str:
    return re.sub(r"\D", "", text)


def _name_match(name: str, query: str) -> bool:
    """Chinese: any substring (``移动``); otherwise a word prefix (``smi`` in ``Bob Smith``)."""
    if any(map(is_han, query)):
        return query in name
    starts = (i for i in range(len(name)) if i == 0 or not name[i - 1].isalnum())
    return any(name.startswith(query, i) for i in starts)


def matches(contact: Mapping[str, Any], query: str) -> bool:
    """Whether a contact matches a search, as Android's contact search does.

    Name word prefixes ignoring case and accents (``gar`` → ``Carlos García``), Chinese
    substrings, pinyin (``zhangwei``, ``wei``, initials ``zw`` → ``张伟``), the company the
    same way (``acme``), or a run of a phone number's digits (``138 0013`` → ``+86 138 0013
    8000``).
    """
    folded = fold(query.strip())
    if not folded:
        return True
    if _name_match(fold(contact["name"]), folded):
        return True
    if contact.get("company") and _name_match(fold(contact["company"]), folded):
        return True
    if pinyin_matches(contact["name"], folded.replace(" ", ""), _syllables(contact["name"])):
        return True
    digits = _digits(folded)
    if digits and _NUMBER_QUERY_RE.fullmatch(folded):
        return any(digits in _digits(p["number"]) for p in contact.get("phones", []))
    return False


def search(contacts: Iterable[Mapping[str, Any]], query: str) -> list[Mapping[str, Any]]:
    """The contacts matching ``query``, in list order."""
    return [c for c in sort_contacts(contacts) if matches(c, query)]


# ---- phones and validation


def normalize_phone(number: str) -> str:
    """Digits only, keeping a leading ``+``: ``+86 138-0013-8000`` → ``+8613800138000``."""
    stripped = number.strip()
    return ("+" if stripped.startswith("+") else "") + _digits(stripped)


def same_number(a: str, b: str) -> bool:
    """Android's loose phone comparison: equal digits, or one ends with the other's last 7+.

    ``13800138000`` matches ``+86 138 0013 8000``; ``10086`` matches only ``10086``.
    """
    digits_a, digits_b = _digits(a), _digits(b)
    if not digits_a or not digits_b:
        return False
    shorter, longer = sorted((digits_a, digits_b), key=len)
    return shorter == longer or (len(shorter) >= 7 and longer.endswith(shorter))


def validate(draft: Mapping[str, Any]) -> dict[str, str]:
    """Editor errors by field (``name``, ``phone.0``, ``email.1``…) as string keys.

    Args:
        draft: A contact-shaped dict (``name``, ``phones``, ``emails``; empty entries allowed).

    Returns:
        ``{}`` when the draft can be saved, else e.g. ``{"name": "err_name_required"}``.
    """
    errors: dict[str, str] = {}
    if not str(draft.get("name", "")).strip():
        errors["name"] = "err_name_required"
    for index, phone in enumerate(draft.get("phones") or []):
        number = str(phone.get("number", "")).strip()
        if number and not _PHONE_RE.fullmatch(number):
            errors[f"phone.{index}"] = "err_phone_invalid"
    for index, email in enumerate(draft.get("emails") or []):
        address = str(email.get("address", "")).strip()
        if address and not _EMAIL_RE.fullmatch(address):
            errors[f"email.{index}"] = "err_email_invalid"
    return errors
