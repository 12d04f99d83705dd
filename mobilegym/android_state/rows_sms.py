"""``Telephony.Sms`` and its threads over MobileGym's SMS provider (``os.providers.sms``).

MobileGym keeps ``conversations[{id, sender, phoneNumber, timestamp, isUnread, …}]`` and
``messagesByConversationId{<id>: [{id, content, timestamp, isOutgoing, status}]}``: times are
display strings (``"15:17"``, ``"昨天 7:34"``) and read state is per conversation. Android's
rows, synthesized:

* ``content://sms`` (views ``/inbox`` type 1, ``/sent`` 2, ``/outbox`` 4, ``/failed`` 5; an item
  ``/<_id>``): ``_id, thread_id, address, date, read, seen, type, body``. ``address`` is the
  conversation's ``phoneNumber`` (its ``sender`` when it has none); ``type`` 1 for a received
  message, 2 for a sent one (4 while MobileGym still says ``sending``, 5 ``failed``).
* ``content://mms-sms/conversations`` (``?simple=true`` alike): ``_id`` (the thread id),
  ``date`` (its latest message's), ``message_count, snippet`` (its latest message),
  ``read`` (0 while MobileGym marks the conversation unread), ``archived`` 0 and
  ``has_attachment`` 0 (MobileGym neither archives nor sends MMS).

**``date`` is synthesized**, deterministically: a message this world delivered carries its exact
epoch ms in its id (``msg_mgb<_id>_<date ms>``, :func:`message_id`); any other message's date is
read from its display string on the page's clock and zone (:func:`shown_ms`: a bare time is
today's, or yesterday's when later than the clock, as a phone shows only today's messages
with a bare time; the last instant of the minute or day it names, never after the clock, so a
message sent during an episode, shown as the clock's minute, is dated no earlier than the
moment the task was posed), then kept in conversation order (a message is dated before the
next). A display string of another
shape is a cell MobileGym cannot give, refused when read. Those dates are read against the
clock, so they hold still while it does (MobileGym's clock stands still within an episode).

**``read`` per message** follows the conversation's one flag: a read conversation's messages
are all read; an unread one's received messages after the last sent one are unread (its latest
received one when there is none after it: what "mark as unread" marks). ``seen`` is ``read``.

Writes through ``content`` are dropped, as the shell's writes of SMS are on a phone (its
``WRITE_SMS`` app-op is ignored); SMS arrive and go through :mod:`mobilegym.android_state.sms`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from bridge.android_contract import SMS_TYPE_INBOX, SMS_TYPE_SENT
from mobilegym.android_state.rows_table import Seen, Table, own_id, stable_ids
from mobilegym.android_state.sql_rows import SqlTable, SqlValue, SynthRow, columns

__all__ = [
    "SMS_PATH",
    "Conversation",
    "Message",
    "conversations",
    "message_id",
    "said_at",
    "shown_ms",
    "sms_table",
    "threads_table",
]

SMS_PATH = ("os", "providers", "sms")
"""Where MobileGym keeps its SMS in ``__SIM__.getState()``."""
_OUTBOX, _FAILED = 4, 5
_STATUS_TYPES = {"sending": _OUTBOX, "failed": _FAILED}
_VIEWS = {"inbox": SMS_TYPE_INBOX, "sent": SMS_TYPE_SENT, "outbox": _OUTBOX, "failed": _FAILED}
_EXACT = re.compile(r"^msg_mgb\d+_(\d+)$")
_CLOCK = r"(\d{1,2}):(\d{2})"
_BARE = re.compile(rf"^(?:(昨天|前天|yesterday)\s*)?{_CLOCK}$", re.IGNORECASE)
_CHINESE_DAY = re.compile(rf"^(?:(\d{{4}})年)?(\d{{1,2}})月(\d{{1,2}})日(?:\s*{_CLOCK})?$")
_ISO_DAY = re.compile(rf"^(\d{{4}})[-/](\d{{1,2}})[-/](\d{{1,2}})(?:\s+{_CLOCK})?$")
_DAYS_BACK = {None: 0, "昨天": 1, "yesterday": 1, "前天": 2}
_MINUTE, _DAY = 60_000, 86_400_000
_NOT_SHOWN = "MobileGym's message shows its time as {!r}, which says no date"
_NOT_HELD = "MobileGym's messages do not hold it"


@dataclass(frozen=True)
class Message:
    """One message as Android's ``sms`` row sees it (:func:`conversations`)."""

    id: str
    number: int
    body: str
    type: int
    date: int | None
    read: bool
    shown: str


@dataclass(frozen=True)
class Conversation:
    """One MobileGym conversation as a thread: its id, ``_id``, address and messages."""

    id: str
    number: int
    address: str | None
    unread: bool
    timestamp: str
    messages: tuple[Message, ...]


def message_id(number: int, date_ms: int) -> str:
    """The MobileGym id of a message this world delivers: its ``_id`` and exact date."""
    return own_id("msg", number, str(date_ms))


def said_at(date_ms: int, now_ms: int, tz: ZoneInfo) -> str:
    """``date_ms`` as MobileGym's SMS provider shows a time: ``09:05`` today, ``昨天 09:05``
    yesterday, ``5月3日 09:05`` this year, ``2025年5月3日 09:05`` before."""
    moment, today = datetime.fromtimestamp(date_ms / 1000, tz), _day(now_ms, tz)
    clock = f"{moment.hour:02d}:{moment.minute:02d}"
    if moment.date() == today:
        return clock
    if moment.date() == today - timedelta(days=1):
        return f"昨天 {clock}"
    day = f"{moment.month}月{moment.day}日 {clock}"
    return day if moment.year == today.year else f"{moment.year}年{day}"


def _day(ms: int, tz: ZoneInfo) -> date:
    return datetime.fromtimestamp(ms / 1000, tz).date()


def _ms(day: date, hour: int, minute: int, tz: ZoneInfo) -> int:
    return int(datetime.combine(day, time(hour, minute), tz).timestamp() * 1000)


def _bare(found: re.Match[str], now_ms: int, tz: ZoneInfo) -> int:
    back = _DAYS_BACK[found.group(1) and found.group(1).casefold()]
    day = _day(now_ms, tz) - timedelta(days=back)
    start = _ms(day, int(found.group(2)), int(found.group(3)), tz)
    if back == 0 and start > now_ms:  # a bare time later than the clock: yesterday's
        start = _ms(day - timedelta(days=1), int(found.group(2)), int(found.group(3)), tz)
    return start + _MINUTE - 1


def _dated(found: re.Match[str], now_ms: int, tz: ZoneInfo) -> int:
    year, month, day = found.group(1), int(found.group(2)), int(found.group(3))
    hour, minute = found.group(4), found.group(5)
    clock = (int(hour), int(minute)) if hour else (0, 0)
    start = _ms(date(int(year or _day(now_ms, tz).year), month, day), *clock, tz)
    if not year and start > now_ms:  # no year and later than the clock: last year's
        start = _ms(date(_day(now_ms, tz).year - 1, month, day), *clock, tz)
    return start + (_MINUTE if hour else _DAY) - 1


def shown_ms(text: str, now_ms: int, tz: ZoneInfo) -> int | None:
    """The epoch ms a MobileGym display time stands for (module docstring); None when it
    names no date."""
    text = text.strip()
    try:
        if found := _BARE.match(text):
            return min(_bare(found, now_ms, tz), now_ms)
        for pattern in (_CHINESE_DAY, _ISO_DAY):
            if found := pattern.match(text):
                return min(_dated(found, now_ms, tz), now_ms)
    except ValueError:  # a day that is not in the calendar (2月30日)
        return None
    return None


def _dates(items: Sequence[Mapping[str, Any]], now_ms: int, tz: ZoneInfo) -> list[int | None]:
    """Each message's date: exact for ours, read from the display otherwise and kept before
    the next message's."""
    exact = [_EXACT.match(str(item.get("id"))) for item in items]
    dates = [
        int(hit.group(1)) if hit else shown_ms(str(item.get("timestamp") or ""), now_ms, tz)
        for hit, item in zip(exact, items, strict=True)
    ]
    later: int | None = None
    for index in reversed(range(len(items))):
        value = dates[index]
        if value is not None and not exact[index] and later is not None:
            dates[index] = value = min(value, later - 1)
        later = value if value is not None else later
    return dates


def _reads(items: Sequence[Mapping[str, Any]], unread: bool) -> list[bool]:
    """Whether each message is read, from the conversation's one flag (module docstring)."""
    reads = [True] * len(items)
    if not unread:
        return reads
    received = [i for i, item in enumerate(items) if not item.get("isOutgoing")]
    last_sent = max((i for i, item in enumerate(items) if item.get("isOutgoing")), default=-1)
    for index in [i for i in received if i > last_sent] or received[-1:]:
        reads[index] = False
    return reads


def _messages(seen: Seen) -> dict[str, list[Mapping[str, Any]]]:
    found = (seen.data or {}).get("messagesByConversationId") or {}
    return {key: [m for m in items or [] if isinstance(m, dict)] for key, items in found.items()}


def conversations(seen: Seen) -> list[Conversation]:
    """Every MobileGym conversation as a thread with its messages (module docstring)."""
    listed = [c for c in (seen.data or {}).get("conversations") or [] if isinstance(c, dict)]
    by_id = _messages(seen)
    threads = stable_ids(str(c.get("id")) for c in listed)
    numbers = stable_ids(str(m.get("id")) for items in by_id.values() for m in items)
    found = []
    for item in listed:
        items = by_id.get(str(item.get("id")), [])
        unread = bool(item.get("isUnread"))
        dates, reads = _dates(items, seen.now_ms, seen.zone), _reads(items, unread)
        messages = tuple(
            Message(
                id=str(m.get("id")), number=numbers[str(m.get("id"))],
                body=str(m.get("content") or ""), type=_type(m), date=when, read=read,
                shown=str(m.get("timestamp") or ""),
            )
            for m, when, read in zip(items, dates, reads, strict=True)
        )  # fmt: skip
        address = item.get("phoneNumber") or item.get("sender") or None
        found.append(
            Conversation(
                id=str(item.get("id")), number=threads[str(item.get("id"))],
                address=address, unread=unread, timestamp=str(item.get("timestamp") or ""),
                messages=messages,
            )
        )  # fmt: skip
    return found


def _type(message: Mapping[str, Any]) -> int:
    if not message.get("isOutgoing"):
        return SMS_TYPE_INBOX
    return _STATUS_TYPES.get(str(message.get("status")), SMS_TYPE_SENT)


def _sms_row(thread: Conversation, message: Message) -> SynthRow:
    values: dict[str, SqlValue] = {
        "_id": message.number, "thread_id": thread.number, "address": thread.address,
        "date": message.date, "read": int(message.read), "seen": int(message.read),
        "type": message.type, "body": message.body,
    }  # fmt: skip
    unknown = {} if message.date is not None else {"date": _NOT_SHOWN.format(message.shown)}
    return SynthRow(values, (thread.id, message.id), unknown)


def _sms_rows(seen: Seen) -> list[SynthRow]:
    return [_sms_row(thread, m) for thread in conversations(seen) for m in thread.messages]


def _thread_rows(seen: Seen) -> list[SynthRow]:
    rows = []
    for thread in conversations(seen):
        dates = [m.date for m in thread.messages if m.date is not None]
        latest = max(dates) if dates else shown_ms(thread.timestamp, seen.now_ms, seen.zone)
        values: dict[str, SqlValue] = {
            "_id": thread.number, "date": latest, "message_count": len(thread.messages),
            "snippet": thread.messages[-1].body if thread.messages else None,
            "read": int(not thread.unread), "archived": 0, "has_attachment": 0,
        }  # fmt: skip
        unknown = {} if latest is not None else {"date": _NOT_SHOWN.format(thread.timestamp)}
        rows.append(SynthRow(values, (thread.id,), unknown))
    return rows


_DROPPED = "SMS are written by the carrier and the system, never through content"


def sms_table() -> Table:
    """``content://sms`` (module docstring)."""
    names = ("_id", "thread_id", "address", "date", "read", "seen", "type", "body")
    integers = ("thread_id", "date", "read", "seen", "type")
    missing = ("person", "date_sent", "protocol", "status", "reply_path_present", "subject",
               "service_center", "locked", "sub_id", "error_code", "creator")  # fmt: skip
    sql = SqlTable("sms", columns(*names, integers=integers), dict.fromkeys(missing, _NOT_HELD))
    views = {name: ("type", str(code)) for name, code in _VIEWS.items()}
    return Table(sql, SMS_PATH, _sms_rows, refused=_DROPPED, views=views, shell_drops_writes=True)


def threads_table() -> Table:
    """``content://mms-sms/conversations`` (module docstring)."""
    integers = ("date", "message_count", "read", "archived", "has_attachment")
    names = ("_id", "date", "message_count", "snippet", "read", "archived", "has_attachment")
    missing = {"recipient_ids": "MobileGym keeps no canonical addresses"}
    missing |= dict.fromkeys(("snippet_cs", "type", "error"), _NOT_HELD)
    sql = SqlTable("conversations", columns(*names, integers=integers), missing)
    return Table(sql, SMS_PATH, _thread_rows, refused=_DROPPED, shell_drops_writes=True)
