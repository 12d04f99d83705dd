"""Telephony's SMS state over the simulated Messages app: the ``sms`` and ``mms-sms``
providers.

The model (:mod:`sim.apps.messages.model`) keeps Android's rows; this module declares them:

* ``content://sms`` — every message, columns :data:`~sim.apps.messages.model.COLUMNS`;
  ``content://sms/inbox`` and ``content://sms/sent`` select ``type`` 1 and 2;
  ``content://sms/ID`` one message;
* ``content://mms-sms/conversations`` — one row per thread as AOSP's threads table has it
  (what ``…/conversations?simple=true`` returns on a phone): ``_id`` (the thread id),
  ``date`` (its latest message), ``message_count``, ``recipient_ids`` (NULL here: no
  canonical-address table), ``snippet``, ``snippet_cs`` 0, ``read`` (0 while a received
  message is unread), ``archived`` 0, ``type`` 0, ``error`` 0, ``has_attachment`` 0.
  Read-only.

Writes (as ``SmsProvider`` takes them from a caller allowed to write): insert into
``content://sms`` (``address`` required; ``type`` 1 by default, ``date`` the phone's clock by
default; ``thread_id`` is always the address's own thread, as ``getOrCreateThreadId``
assigns it); update of ``read``, ``seen``, ``status``, ``locked``, ``body``, ``error_code``;
delete (a thread left empty is gone). The engine refuses an insert through a view
(``content://sms/inbox``): insert into ``content://sms`` with ``type``.

**Who may write.** The shell (uid 2000) may read SMS (``READ_SMS``) but holds no
``WRITE_SMS``: ``SmsProvider`` guards writes with the ``OP_WRITE_SMS`` app-op, whose default
mode is ``MODE_IGNORED``, and ``ContentProvider.Transport`` then *soft-rejects* the call
without an exception: ``insert`` returns ``content://sms/0`` (``rejectInsert``), ``update``
and ``delete`` return 0. So on a phone, ``adb shell content insert --uri content://sms …``
prints nothing, exits 0 and writes nothing — what these providers' ``shell_writes=False``
makes the virtual phone's ``content`` and :class:`sim.android_state.SimAndroidState` do. Root
(``su 0 content …`` on the virtual phone) and the Messages app itself (the default SMS app)
write.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bridge.android_contract import SMS_AUTHORITY, THREADS_AUTHORITY
from sim.apps.messages import model
from sim.providers.errors import ProviderError
from sim.providers.table import Column, Provider, ProviderContext, ProviderTable, Values

__all__ = ["messages_providers"]

_APP = "messages"
_UPDATABLE = {"read", "seen", "status", "locked", "body", "error_code"}
_INSERTABLE = set(model.COLUMNS) - {"_id"}
Row = Mapping[str, Any]
_THREAD_COLUMNS = ("date", "message_count", "recipient_ids", "snippet", "snippet_cs", "read",
                   "archived", "type", "error", "has_attachment")  # fmt: skip


def _integers(values: Row) -> None:
    for column in sorted(model.INTEGER_COLUMNS & set(values)):
        if values[column] is not None and not isinstance(values[column], int):
            raise ProviderError(f"{column} must be an integer, got {values[column]!r}")


def _insert(ctx: ProviderContext, values: Values) -> int:
    unknown = sorted(set(values) - _INSERTABLE)
    if unknown:
        raise ProviderError(f"table sms has no column named {unknown[0]}")
    _integers(values)
    if not values.get("address"):
        raise ProviderError("address is required to insert an SMS")
    row = {"date": ctx.state.os.clock_ms, "type": model.TYPE_INBOX, **values}
    if row["type"] not in (model.TYPE_INBOX, model.TYPE_SENT):
        raise ProviderError(f"type {row['type']}: the simulated phone keeps inbox (1) and sent (2)")
    return model.add_message(ctx.world(_APP), ctx.writable_overlay(_APP), row)


def _update(ctx: ProviderContext, rows: list[Row], values: Values) -> None:
    unknown = sorted(set(values) - _UPDATABLE)
    if unknown:
        raise ProviderError(
            f"column '{unknown[0]}' cannot be updated on the simulated phone "
            f"(updatable: {', '.join(sorted(_UPDATABLE))})"
        )
    _integers(values)
    ids = [row["_id"] for row in rows]
    model.update_messages(ctx.world(_APP), ctx.writable_overlay(_APP), ids, values)


def _delete(ctx: ProviderContext, rows: list[Row]) -> None:
    model.delete_messages(ctx.world(_APP), ctx.writable_overlay(_APP), [row["_id"] for row in rows])


def _conversation_rows(ctx: ProviderContext) -> list[dict[str, Any]]:
    return [
        {"_id": c["thread_id"], "date": c["date"], "message_count": c["message_count"],
         "recipient_ids": None, "snippet": c["snippet"], "snippet_cs": 0, "read": c["read"],
         "archived": 0, "type": 0, "error": 0, "has_attachment": 0}
        for c in model.conversations(ctx.world(_APP), ctx.overlay(_APP))
    ]  # fmt: skip


def messages_providers() -> tuple[Provider, ...]:
    """The ``sms`` and ``mms-sms`` providers (see the module docstring)."""
    sms = ProviderTable(
        name="sms",
        columns=tuple(
            Column(name, "INTEGER" if name in model.INTEGER_COLUMNS else "TEXT")
            for name in model.COLUMNS
        ),
        rows=lambda ctx: model.messages(ctx.world(_APP), ctx.overlay(_APP)),
        insert=_insert,
        update=_update,
        delete=_delete,
        views={"inbox": ("type", str(model.TYPE_INBOX)), "sent": ("type", str(model.TYPE_SENT))},
    )
    integers = ("date", "message_count", "snippet_cs", "read", "archived", "type", "error",
                "has_attachment")  # fmt: skip
    threads = ProviderTable(
        name="conversations",
        columns=(
            Column("_id", "INTEGER"),
            *(Column(name, "INTEGER" if name in integers else "TEXT") for name in _THREAD_COLUMNS),
        ),
        rows=_conversation_rows,
        read_only_reason="content://mms-sms/conversations is read-only here: write content://sms",
    )
    return (
        Provider(
            SMS_AUTHORITY, (sms,), root=SMS_AUTHORITY, invalid_uri="Unknown URL", shell_writes=False
        ),
        Provider(
            THREADS_AUTHORITY, (threads,), invalid_uri="Unrecognized URI:", shell_writes=False
        ),
    )
