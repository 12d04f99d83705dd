"""``MobileGymSms``: SMS delivered and deleted as the carrier and the system would, in
MobileGym's SMS provider (``os.providers.sms``), so that the rows
:mod:`~mobilegym.android_state.rows_sms` synthesizes read them back exactly.

**Delivering** an SMS from ``address`` appends a received message to that address's
conversation through MobileGym's own provider (``content://sms/messages``), which moves the
conversation to the top, shows the message's time and marks the conversation unread, as its
own incoming SMS do; a ``read`` delivery then marks the conversation read (read state is
per conversation). The conversation is the one whose ``phoneNumber`` is the address (digits
compared) or whose ``sender`` is the name MobileGym would give it; a new one is opened
otherwise, named as MobileGym's own receiver names it: after the contact whose number it is
(MobileGym's contacts provider looks it up), else the address. Each delivered message carries
its exact date in its id (``msg_mgb<_id>_<date ms>``), so its synthesized ``date`` is exactly
``date_ms``; MobileGym shows it as a display time (``09:05``, ``昨天 09:05``). MobileGym trims a
message's text, as its own sending does. No notification is posted (a task's messages arrive
before the episode).

**Deleting** the SMS rows a ``where`` selects removes those messages; a conversation left empty
is deleted through MobileGym's provider, as a thread without messages is gone on Android.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote

from bridge.android_contract import SMS
from mobilegym.android_state.base import MobileGymStateBase
from mobilegym.android_state.rows_sms import (
    SMS_PATH,
    Conversation,
    conversations,
    message_id,
    said_at,
    sms_table,
)
from mobilegym.android_state.rows_table import Seen, content_call, next_id, own_id, read_seen
from mobilegym.android_state.sql_rows import matching

__all__ = ["MobileGymSms"]

_AVATAR = "#808080"
"""The avatar colour of MobileGym's seeded conversations from unknown senders."""


def _digits(text: str) -> str:
    return re.sub(r"\D+", "", text)


def _same_address(a: str | None, b: str) -> bool:
    if a is None:
        return False
    return a == b or (bool(_digits(b)) and _digits(a) == _digits(b))


def _found(threads: list[Conversation], seen: Seen, address: str, name: str) -> str | None:
    """The id of the conversation an SMS from ``address`` joins (module docstring)."""
    listed = {str(c.get("id")): c for c in (seen.data or {}).get("conversations") or []}
    for thread in threads:
        if listed.get(thread.id, {}).get("sender") == name:
            return thread.id
    return next((t.id for t in threads if _same_address(t.address, address)), None)


class MobileGymSms(MobileGymStateBase):
    """:class:`bridge.android_state.SmsState` over MobileGym's SMS provider (module docstring)."""

    async def deliver_sms(self, address: str, body: str, date_ms: int, read: bool) -> None:
        """A received SMS from ``address`` at ``date_ms``, in that address's conversation."""
        seen = await read_seen(self.page, SMS_PATH, self.timezone)
        threads = conversations(seen)
        name = await self._sender_name(address)
        thread = _found(threads, seen, address, name) or await self._open(
            seen, threads, address, name
        )
        number = next_id(m.number for t in threads for m in t.messages)
        message = {
            "id": message_id(number, date_ms),
            "content": body,
            "timestamp": said_at(date_ms, seen.now_ms, seen.zone),
            "isOutgoing": False,
        }
        await content_call(
            self.page, "insert", f"content://sms/messages?conversationId={quote(thread)}", message
        )
        if read:
            await content_call(
                self.page, "update", f"content://sms/conversations/{thread}", {"isUnread": False}
            )

    async def delete_sms(self, where: str) -> None:
        """Delete the SMS rows matching ``where``; a conversation left empty goes too."""
        seen = await read_seen(self.page, SMS_PATH, self.timezone)
        table = sms_table()
        doomed: dict[str, set[str]] = {}
        for row in matching(table.sql, table.rows(seen), where, uri=SMS):
            doomed.setdefault(row.ref[0], set()).add(row.ref[1])
        stored = (seen.data or {}).get("messagesByConversationId") or {}
        for thread, ids in doomed.items():
            left = [m for m in stored.get(thread) or [] if str(m.get("id")) not in ids]
            await self._keep(thread, left)

    async def _keep(self, thread: str, left: list[dict[str, Any]]) -> None:
        """Leave only the messages ``left`` in the conversation ``thread`` (none: delete it)."""
        if not left:
            await content_call(self.page, "delete", f"content://sms/conversations/{thread}", None)
            return
        await self._patch(
            {"os": {"providers": {"sms": {"messagesByConversationId": {thread: left}}}}}
        )
        summary: dict[str, Any] = {
            "timestamp": left[-1].get("timestamp"),
            "messageCount": len(left),
        }
        if all(m.get("isOutgoing") for m in left):
            summary["isUnread"] = False
        await content_call(self.page, "update", f"content://sms/conversations/{thread}", summary)

    async def _sender_name(self, address: str) -> str:
        """The name MobileGym's own SMS receiver gives a sender: the contact whose number it
        is (its contacts provider's ``?phone=`` lookup), else the address itself."""
        if not _digits(address):  # an alphanumeric sender names itself
            return address
        found = await content_call(
            self.page, "query", f"content://contacts/contacts?phone={quote(address)}"
        )
        items = found.get("items") if isinstance(found, dict) else None
        name = str((items[0] or {}).get("displayName") or "").strip() if items else ""
        return name or address

    async def _open(self, seen: Seen, threads: list[Conversation], address: str, name: str) -> str:
        """A new conversation with ``address`` (the whole list is written: MobileGym's
        provider arrays are replaced whole); its id."""
        thread = own_id("conv", next_id(t.number for t in threads))
        opened = {
            "id": thread,
            "sender": name,
            "phoneNumber": address,
            "timestamp": "",
            "avatarColor": _AVATAR,
            "avatarText": (name.replace(" ", "")[:1] or "?"),
            "isUnread": False,
            "simSlot": 1,
            "messageCount": 0,
        }
        listed = list((seen.data or {}).get("conversations") or [])
        sms = {"conversations": [opened, *listed], "messagesByConversationId": {thread: []}}
        await self._patch({"os": {"providers": {"sms": sms}}})
        return thread
