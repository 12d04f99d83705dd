"""SMS: a task's inbound messages, delivered as a carrier delivers them (the shell cannot
write SMS: only a world that lets the judge, or ``su``, write them takes these)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from bridge.android_contract import sql_text
from bridge.android_state import AndroidState
from bridge.spec.base import EnsureNode, SpecNode

__all__ = ["DeliverSms", "InboundSms"]


class InboundSms(SpecNode):
    """An SMS a task has delivered: from ``address``, ``minutes_ago`` minutes before the
    phone's clock when posed, already ``read`` or not."""

    address: str = Field(min_length=1)
    body: str = Field(min_length=1)
    minutes_ago: int = Field(default=1, ge=0)
    read: bool = False


class DeliverSms(EnsureNode):
    """The task's inbound SMS, delivered as a carrier delivers them
    (``AndroidState.deliver_sms``), oldest first; when ``clear``, every earlier SMS from or
    to their addresses is deleted first (``AndroidState.delete_sms``), so the task's
    conversations hold its own messages only. Only a phone that lets the judge write SMS
    (the simulator; the virtual phone through ``su``) takes it: a template with this op
    declares a :class:`Requirement`."""

    op: Literal["deliver_sms"] = "deliver_sms"
    messages: list[InboundSms] = Field(min_length=1)
    clear: bool = True

    async def pose(self, state: AndroidState) -> None:
        """Deliver the messages, oldest first (after clearing their conversations)."""
        await _deliver_sms(state, self)


async def _deliver_sms(state: AndroidState, op: DeliverSms) -> None:
    now_ms, _ = await state.now()
    if op.clear:
        addresses = ",".join(sql_text(a) for a in sorted({m.address for m in op.messages}))
        await state.delete_sms(f"address IN ({addresses})")
    for message in sorted(op.messages, key=lambda m: -m.minutes_ago):  # oldest first
        date_ms = now_ms - message.minutes_ago * 60_000
        await state.deliver_sms(message.address, message.body, date_ms, message.read)
