"""``AdbSms``: SMS written and deleted as root (``su 0 content …``), since the shell's own
writes are dropped; each is read back through the rows surface to be sure."""

from __future__ import annotations

import shlex

from bridge.android_contract import SMS, SMS_INBOX, SMS_TYPE_INBOX, sql_text
from bridge.android_state import BindValue
from bridge.errors import StateUnavailable
from device.android_state.base import bind_argument
from device.android_state.rows import AdbRows

__all__ = ["AdbSms"]


class AdbSms(AdbRows):
    """:class:`bridge.android_state.SmsState` over ``su 0 content``; builds on
    :class:`~device.android_state.rows.AdbRows` to read the rows back."""

    async def deliver_sms(self, address: str, body: str, date_ms: int, read: bool) -> None:
        """An inbound SMS, written as root (``su 0 content insert --uri content://sms``): the
        shell's own write would be dropped without a word (its ``WRITE_SMS`` app-op is
        ``MODE_IGNORED``), so the row is read back to be sure it is there.

        Raises:
            StateUnavailable: the phone has no ``su`` (a retail phone), or kept no row.
        """
        values: dict[str, BindValue] = {
            "address": address, "body": body, "date": date_ms, "date_sent": date_ms,
            "type": SMS_TYPE_INBOX, "read": int(read), "seen": int(read),
        }  # fmt: skip
        binds = [bind_argument(column, value) for column, value in values.items()]
        await self._content("insert", SMS, binds, as_root=True)
        where = f"address={sql_text(address)} AND date={date_ms} AND body={sql_text(body)}"
        if not await self.query(SMS_INBOX, ["_id"], where):
            raise StateUnavailable(
                f"the phone kept no SMS from {address} after `su 0 content insert`: its "
                "SMS provider ignored the write, so the task's messages cannot be delivered"
            )

    async def delete_sms(self, where: str) -> None:
        """Delete SMS rows as root (``su 0 content delete``), then check none is left.

        Raises:
            StateUnavailable: the phone has no ``su``, or kept the rows.
        """
        await self._content("delete", SMS, ["--where", shlex.quote(where)], as_root=True)
        if await self.query(SMS, ["_id"], where):
            raise StateUnavailable(f"the phone kept the SMS rows matching {where!r} after su")
