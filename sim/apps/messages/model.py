"""The Messages data model: Telephony's ``sms`` rows over world data and an overlay.

State is shaped as ``TelephonyProvider`` keeps it: one row per SMS with Android's column
names (:data:`COLUMNS`, in the order ``content query --uri content://sms`` prints them), so
the app and the provider (:mod:`sim.apps.messages.provider`) read the very same rows.
``type`` is 1 for a received message, 2 for a sent one; ``read`` 0 for unread; ``date`` epoch
ms. Messages are grouped in one thread per recipient, as ``Threads.getOrCreateThreadId``
groups them: numbers are compared by their national digits (``+86 138 0013 8000`` and
``13800138000`` are one recipient, :func:`recipient_key`), alphanumeric senders by their
case-folded text. A thread id is never reused: a thread whose last message is deleted is
gone, and a later message from that address opens a new one.

World data (``world.json``) writes messages readably: ``{"address", "body", "at"`` (a local
ISO date-time of the phone's zone), ``"sent"`` (default false), ``"read"`` (default true
for sent, false otherwise)``}``; ids follow file order, thread ids the order in which
addresses first appear. The overlay of an instance is ``{"sms": {"<_id>": row | None},
"threads": {"<key>": thread_id | None}, "next_id": n, "next_thread": n}``, None being a
tombstone of a world row or thread. Pure functions over plain dicts: no UI, no clock, no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from sim.app import derived_from_world
from sim.state import SIM_UTC_OFFSET_HOURS

__all__ = [
    "COLUMNS",
    "INTEGER_COLUMNS",
    "TYPE_INBOX",
    "TYPE_SENT",
    "add_message",
    "conversations",
    "delete_messages",
    "delete_threads",
    "get_message",
    "messages",
    "recipient_key",
    "set_read",
    "thread_messages",
    "update_messages",
    "world_messages",
]

TYPE_INBOX = 1
TYPE_SENT = 2
COLUMNS = (
    "_id", "thread_id", "address", "person", "date", "date_sent", "protocol", "read",
    "status", "type", "reply_path_present", "subject", "body", "service_center", "locked",
    "sub_id", "error_code", "creator", "seen",
)  # fmt: skip
"""The ``sms`` table's columns, as AOSP's ``MmsSmsDatabaseHelper`` creates them."""
INTEGER_COLUMNS = frozenset(
    {"_id", "thread_id", "person", "date", "date_sent", "protocol", "read", "status", "type",
     "reply_path_present", "locked", "sub_id", "error_code", "seen"}
)  # fmt: skip
_SERVICE_CENTER = "+8613800100500"
"""The SMS centre a received message names (China Mobile's, Beijing)."""
CREATOR = "com.android.messaging"
"""The package recorded as the creator of the messages the app sends."""
Row = dict[str, Any]


def recipient_key(address: str) -> str:
    """One thread per recipient: national digits for a number (``+86``/``0086`` dropped),
    the case-folded text for an alphanumeric sender."""
    digits = re.sub(r"\D", "", address)
    if not digits or re.search(r"[A-Za-z\u4e00-\u9fff]", address):
        return address.strip().casefold()
    for prefix in ("0086", "86"):
        if digits.startswith(prefix) and len(digits) - len(prefix) == 11:
            return digits[len(prefix) :]
    return digits


def _local_ms(text: str) -> int:
    """Epoch ms of a local ISO date-time of the phone's zone."""
    since = datetime.fromisoformat(text) - datetime(1970, 1, 1)
    return int(since.total_seconds() * 1000) - SIM_UTC_OFFSET_HOURS * 3_600_000


def _row(row_id: int, thread_id: int, values: Mapping[str, Any]) -> Row:
    """A full row with Android's defaults (``status`` -1, ``sub_id`` 1 …)."""
    sent = int(values.get("type", TYPE_INBOX)) == TYPE_SENT
    date = int(values.get("date") or 0)
    read = int(bool(values.get("read", sent)))
    defaults: Row = {
        "person": None, "date_sent": 0 if sent else date, "protocol": None if sent else 0,
        "status": -1, "reply_path_present": None if sent else 0, "subject": None,
        "service_center": None if sent else _SERVICE_CENTER, "locked": 0, "sub_id": 1,
        "error_code": 0, "creator": CREATOR if sent else None, "seen": read,
    }  # fmt: skip
    row = {**defaults, **{k: v for k, v in values.items() if k in COLUMNS}}
    row.update(_id=row_id, thread_id=thread_id, date=date, read=read)
    row["type"] = TYPE_SENT if sent else int(row.get("type") or TYPE_INBOX)
    return {column: row.get(column) for column in COLUMNS}


# ---- world data and the overlay


def world_messages(world: Mapping[str, Any]) -> tuple[list[Row], dict[str, int]]:
    """World data as rows, and the thread id of each recipient key (copies: callers may
    change them)."""
    rows, threads = _world_messages(world)
    return [dict(row) for row in rows], dict(threads)


@derived_from_world
def _world_messages(world: Mapping[str, Any]) -> tuple[list[Row], dict[str, int]]:
    threads: dict[str, int] = {}
    rows = []
    for index, item in enumerate(world.get("messages", []), start=1):
        key = recipient_key(str(item["address"]))
        thread = threads.setdefault(key, len(threads) + 1)
        sent = bool(item.get("sent", False))
        values = {
            "address": item["address"], "body": item["body"], "date": _local_ms(item["at"]),
            "type": TYPE_SENT if sent else TYPE_INBOX, "read": item.get("read", sent),
        }  # fmt: skip
        rows.append(_row(index, thread, values))
    return rows, threads


def _threads(world: Mapping[str, Any], overlay: Mapping[str, Any]) -> dict[str, int]:
    known = dict(world_messages(world)[1])
    for key, thread in (overlay.get("threads") or {}).items():
        if thread is None:
            known.pop(key, None)
        else:
            known[key] = int(thread)
    return known


def messages(world: Mapping[str, Any], overlay: Mapping[str, Any]) -> list[Row]:
    """Every effective message, by ``_id``."""
    by_id = {row["_id"]: row for row in world_messages(world)[0]}
    for key, row in (overlay.get("sms") or {}).items():
        if row is None:
            by_id.pop(int(key), None)
        else:
            by_id[int(key)] = dict(row)
    return [by_id[i] for i in sorted(by_id)]


def get_message(world: Mapping[str, Any], overlay: Mapping[str, Any], row_id: int) -> Row | None:
    """The message ``row_id``, None when there is none."""
    return next((row for row in messages(world, overlay) if row["_id"] == row_id), None)


def thread_messages(
    world: Mapping[str, Any], overlay: Mapping[str, Any], thread_id: int
) -> list[Row]:
    """The messages of a thread, oldest first."""
    rows = [row for row in messages(world, overlay) if row["thread_id"] == thread_id]
    return sorted(rows, key=lambda row: (row["date"], row["_id"]))


def _thread_for(world: Mapping[str, Any], overlay: dict[str, Any], address: str) -> int:
    key = recipient_key(address)
    known = _threads(world, overlay)
    if key in known:
        return known[key]
    used = set(world_messages(world)[1].values()) | {
        int(t) for t in (overlay.get("threads") or {}).values() if t is not None
    }
    thread = max(int(overlay.get("next_thread", 1)), max(used, default=0) + 1)
    overlay["next_thread"] = thread + 1
    overlay.setdefault("threads", {})[key] = thread
    return thread


def add_message(
    world: Mapping[str, Any], overlay: dict[str, Any], values: Mapping[str, Any]
) -> int:
    """A new message (``address`` required) in its recipient's thread; returns its ``_id``."""
    known = [row["_id"] for row in world_messages(world)[0]]
    known += [int(k) for k in overlay.get("sms") or {}]
    row_id = max(int(overlay.get("next_id", 1)), max(known, default=0) + 1)
    overlay["next_id"] = row_id + 1
    thread = _thread_for(world, overlay, str(values["address"]))
    overlay.setdefault("sms", {})[str(row_id)] = _row(row_id, thread, values)
    return row_id


def update_messages(
    world: Mapping[str, Any], overlay: dict[str, Any], ids: Iterable[int], values: Mapping[str, Any]
) -> None:
    """Change columns of the messages ``ids`` (their ids and threads stay)."""
    current = {row["_id"]: row for row in messages(world, overlay)}
    for row_id in ids:
        if row_id in current:
            row = {**current[row_id], **values, "_id": row_id}
            row["thread_id"] = current[row_id]["thread_id"]
            overlay.setdefault("sms", {})[str(row_id)] = row


def set_read(
    world: Mapping[str, Any], overlay: dict[str, Any], thread_ids: Iterable[int], read: bool
) -> None:
    """Mark every message of the threads read (``read`` and ``seen`` 1) or their latest
    received one unread (what "mark as unread" does)."""
    for thread in thread_ids:
        rows = thread_messages(world, overlay, thread)
        if read:
            ids = [row["_id"] for row in rows if not row["read"] or not row["seen"]]
            update_messages(world, overlay, ids, {"read": 1, "seen": 1})
            continue
        received = [row for row in rows if row["type"] == TYPE_INBOX]
        if received:
            update_messages(world, overlay, [received[-1]["_id"]], {"read": 0})


def delete_messages(world: Mapping[str, Any], overlay: dict[str, Any], ids: Iterable[int]) -> None:
    """Delete messages; a thread left empty is gone (its id is never reused)."""
    world_ids = {row["_id"] for row in world_messages(world)[0]}
    doomed = set(ids)
    threads = {row["thread_id"] for row in messages(world, overlay) if row["_id"] in doomed}
    changed = overlay.setdefault("sms", {})
    for row_id in doomed:
        if row_id in world_ids:
            changed[str(row_id)] = None
        else:
            changed.pop(str(row_id), None)
    left = {row["thread_id"] for row in messages(world, overlay)}
    for key, thread in _threads(world, overlay).items():
        if thread in threads and thread not in left:
            overlay.setdefault("threads", {})[key] = None


def delete_threads(
    world: Mapping[str, Any], overlay: dict[str, Any], thread_ids: Iterable[int]
) -> None:
    """Delete whole conversations."""
    doomed = set(thread_ids)
    ids = [row["_id"] for row in messages(world, overlay) if row["thread_id"] in doomed]
    delete_messages(world, overlay, ids)


def conversations(world: Mapping[str, Any], overlay: Mapping[str, Any]) -> list[Row]:
    """One summary per thread, newest first: ``thread_id, address, date, snippet,
    message_count, unread`` (received messages not read), ``read`` (1 when none is)."""
    by_thread: dict[int, list[Row]] = {}
    for row in messages(world, overlay):
        by_thread.setdefault(row["thread_id"], []).append(row)
    found = []
    for thread, rows in by_thread.items():
        rows.sort(key=lambda row: (row["date"], row["_id"]))
        latest = rows[-1]
        unread = sum(1 for row in rows if row["type"] == TYPE_INBOX and not row["read"])
        found.append(
            {"thread_id": thread, "address": latest["address"], "date": latest["date"],
             "snippet": latest["body"], "message_count": len(rows), "unread": unread,
             "read": int(unread == 0)}
        )  # fmt: skip
    return sorted(found, key=lambda c: (-c["date"], -c["thread_id"]))
