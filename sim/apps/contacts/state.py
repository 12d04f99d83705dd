"""The Contacts overlay, typed: what :mod:`sim.apps.contacts.model` (through the app's
handlers and the provider, :mod:`sim.apps.contacts.provider`) writes into
``InstanceState.apps["contacts"]``. Contacts are stored as
:func:`sim.apps.contacts.model.normalize_contact` makes them: every field, stripped."""

from __future__ import annotations

from pydantic import Field

from sim.state import OverlayModel

__all__ = ["ContactEmail", "ContactPhone", "ContactRow", "ContactsState"]


class ContactPhone(OverlayModel):
    """A phone number and its label (``mobile``, ``work``, ``home``, ``other``)."""

    type: str
    number: str


class ContactEmail(OverlayModel):
    """An email address and its label (``home``, ``work``, ``other``)."""

    type: str
    address: str


class ContactRow(OverlayModel):
    """A contact, every field present."""

    id: str
    name: str
    phones: list[ContactPhone]
    emails: list[ContactEmail]
    company: str
    title: str
    starred: bool
    note: str


class ContactsState(OverlayModel):
    """``{"contacts": {"<id>": contact | None}, "next_id": n}``."""

    contacts: dict[str, ContactRow | None] = Field(default_factory=dict)
    """Changed and new contacts by id; None is a tombstone of a world contact."""
    next_id: int = 1
    """The number of the next instance-created id (``n001``…)."""
