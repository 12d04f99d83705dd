"""The Messages overlay, typed: what :mod:`sim.apps.messages.model` (through the app's
handlers and the provider, :mod:`sim.apps.messages.provider`) writes into
``InstanceState.apps["messages"]``: changed ``sms`` rows by ``_id`` and the thread of each
recipient key (None a tombstone of a world row or thread), and the next ids."""

from __future__ import annotations

from pydantic import Field

from sim.state import OverlayModel

__all__ = ["MessagesState", "SmsRow"]


class SmsRow(OverlayModel):
    """An ``sms`` row with every column of :data:`sim.apps.messages.model.COLUMNS`
    (INTEGER columns int or NULL, TEXT columns text or NULL, as the provider stores them)."""

    id: int = Field(alias="_id")
    thread_id: int
    address: str | None
    person: int | None
    date: int
    date_sent: int | None
    protocol: int | None
    read: int | None
    status: int | None
    type: int
    reply_path_present: int | None
    subject: str | None
    body: str | None
    service_center: str | None
    locked: int | None
    sub_id: int | None
    error_code: int | None
    creator: str | None
    seen: int | None


class MessagesState(OverlayModel):
    """``{"sms": {"<_id>": row | None}, "threads": {"<key>": thread_id | None}, "next_id": n,
    "next_thread": n}``."""

    sms: dict[str, SmsRow | None] = Field(default_factory=dict)
    threads: dict[str, int | None] = Field(default_factory=dict)
    """Thread ids by recipient key (:func:`sim.apps.messages.model.recipient_key`)."""
    next_id: int | None = None
    next_thread: int | None = None
