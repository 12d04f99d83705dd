"""``SimSms``: SMS delivered and deleted as the system does (the shell cannot: see
:mod:`sim.android_state.rows`), straight into the ``sms`` provider."""

from __future__ import annotations

from bridge.android_contract import SMS, SMS_TYPE_INBOX
from sim.android_state.base import SimStateBase

__all__ = ["SimSms"]


class SimSms(SimStateBase):
    """:class:`bridge.android_state.SmsState` over the instance's ``sms`` provider."""

    async def deliver_sms(self, address: str, body: str, date_ms: int, read: bool) -> None:
        """An inbound SMS into the ``sms`` provider, as the radio's dispatcher stores it."""
        values = {"address": address, "body": body, "date": date_ms, "date_sent": date_ms,
                  "type": SMS_TYPE_INBOX, "read": int(read), "seen": int(read)}  # fmt: skip
        self._provider_call(lambda: self.resolver.insert(self.state, SMS, values))
        self._changed()

    async def delete_sms(self, where: str) -> None:
        """Delete SMS rows as the system does (the shell cannot)."""
        self._provider_call(lambda: self.resolver.delete(self.state, SMS, where))
        self._changed()
