"""Names Android gives to the state tasks use: provider URIs, mimetypes, SQL literals.

``ContactsContract`` (AOSP ``android.provider.ContactsContract``): an aggregate contact per
person (``contacts``), the raw contacts behind it (``raw_contacts``) and one ``data`` row
per detail, told apart by ``mimetype``.

``CalendarContract`` (``android.provider.CalendarContract``): ``calendars`` (one per account
calendar; only a sync adapter may insert one), ``events`` (``dtstart``/``dtend`` in epoch
ms, ``allDay`` events at UTC midnight) and their ``reminders`` (``minutes`` before, ``method``).

``Telephony.Sms`` (``TelephonyProvider``'s ``SmsProvider``): one row per SMS in ``sms``
(``content://sms``; the views ``/inbox`` and ``/sent`` select ``type`` 1 and 2), grouped in
one thread per recipient (``thread_id``); ``date`` in epoch ms, ``read`` 0 for unread. The
shell may read them (``READ_SMS``) but never write them: its ``WRITE_SMS`` app-op is
ignored, so a ``content insert|update|delete`` of an SMS URI does nothing and says nothing.
"""

from __future__ import annotations

__all__ = [
    "ALARMS",
    "CALENDARS",
    "CALENDAR_AUTHORITY",
    "CALENDAR_OWNER_ACCESS",
    "CONTACTS",
    "CONTACTS_AUTHORITY",
    "DATA",
    "DESKCLOCK_AUTHORITY",
    "EMAIL",
    "EMAIL_TYPE_WORK",
    "EVENTS",
    "EVENT_WRITABLE",
    "ITEM_MIME",
    "NAME",
    "ORGANIZATION",
    "PHONE",
    "PHONE_TYPE_MOBILE",
    "RAW_CONTACTS",
    "REMINDERS",
    "REMINDER_METHOD_ALERT",
    "SMS",
    "SMS_AUTHORITIES",
    "SMS_AUTHORITY",
    "SMS_CONVERSATIONS",
    "SMS_INBOX",
    "SMS_SENT",
    "SMS_TYPE_INBOX",
    "SMS_TYPE_SENT",
    "THREADS_AUTHORITY",
    "alarm_days",
    "as_sync_adapter",
    "split_display_name",
    "sql_text",
]

CONTACTS_AUTHORITY = "com.android.contacts"
"""``ContactsContract.AUTHORITY``."""
CONTACTS = f"content://{CONTACTS_AUTHORITY}/contacts"
RAW_CONTACTS = f"content://{CONTACTS_AUTHORITY}/raw_contacts"
DATA = f"content://{CONTACTS_AUTHORITY}/data"
ITEM_MIME = "vnd.android.cursor.item/"
"""``ContentResolver.CURSOR_ITEM_BASE_TYPE`` and its slash: every ``data`` row's mimetype
starts with it."""
NAME = f"{ITEM_MIME}name"
PHONE = f"{ITEM_MIME}phone_v2"
EMAIL = f"{ITEM_MIME}email_v2"
ORGANIZATION = f"{ITEM_MIME}organization"
PHONE_TYPE_MOBILE = 2
"""``ContactsContract.CommonDataKinds.Phone.TYPE_MOBILE``."""
EMAIL_TYPE_WORK = 2
"""``ContactsContract.CommonDataKinds.Email.TYPE_WORK``."""

DESKCLOCK_AUTHORITY = "com.android.deskclock"
"""DeskClock's ``ClockContract.AUTHORITY``."""
ALARMS = f"content://{DESKCLOCK_AUTHORITY}/alarms"
"""DeskClock's alarms (``ClockContract.AlarmsColumns``); not exported on a phone."""

CALENDAR_AUTHORITY = "com.android.calendar"
"""``CalendarContract.AUTHORITY``."""
CALENDARS = f"content://{CALENDAR_AUTHORITY}/calendars"
EVENTS = f"content://{CALENDAR_AUTHORITY}/events"
REMINDERS = f"content://{CALENDAR_AUTHORITY}/reminders"
CALENDAR_OWNER_ACCESS = 700
"""``Calendars.CAL_ACCESS_OWNER``."""
REMINDER_METHOD_ALERT = 1
"""``Reminders.METHOD_ALERT``."""
EVENT_WRITABLE = frozenset(
    {"calendar_id", "title", "description", "eventLocation", "dtstart", "dtend", "duration",
     "allDay", "eventTimezone", "hasAlarm", "rrule"}
)  # fmt: skip
"""The ``Events`` columns an app writes (of those our tasks use); the provider computes the
rest (``lastDate``, ``deleted``, ...)."""

SMS_AUTHORITY = "sms"
"""``Telephony.Sms.CONTENT_URI``'s authority."""
THREADS_AUTHORITY = "mms-sms"
"""``Telephony.MmsSms``' authority: conversations across SMS and MMS."""
SMS = f"content://{SMS_AUTHORITY}"
SMS_INBOX = f"{SMS}/inbox"
SMS_SENT = f"{SMS}/sent"
SMS_CONVERSATIONS = f"content://{THREADS_AUTHORITY}/conversations"
SMS_TYPE_INBOX = 1
"""``Telephony.TextBasedSmsColumns.MESSAGE_TYPE_INBOX``."""
SMS_TYPE_SENT = 2
"""``Telephony.TextBasedSmsColumns.MESSAGE_TYPE_SENT``."""
SMS_AUTHORITIES = (SMS_AUTHORITY, THREADS_AUTHORITY)
"""Authorities whose writes the shell's ignored ``WRITE_SMS`` app-op drops."""


def split_display_name(name: str) -> tuple[str | None, str | None]:
    """(given, family) of a display name, as a ``StructuredName`` row splits it: ``Alice
    Chen`` -> (Alice, Chen); ``张三`` -> (三, 张), a Chinese family name being its first
    character."""
    if not name:
        return None, None
    if " " in name:
        given, _, family = name.rpartition(" ")
        return given, family
    if "\u3400" <= name[0] <= "\u9fff" and len(name) > 1:
        return name[1:], name[0]
    return name, None


def alarm_days(days: list[int] | tuple[int, ...]) -> int:
    """Weekdays (0 Monday … 6 Sunday) as DeskClock's ``daysofweek`` bits (Monday ``0x01`` …
    Sunday ``0x40``; 0: rings once)."""
    return sum(1 << day for day in set(days))


def as_sync_adapter(uri: str, account: str, account_type: str = "LOCAL") -> str:
    """``uri`` called as the sync adapter of ``account`` (what inserting a calendar needs)."""
    return f"{uri}?caller_is_syncadapter=true&account_name={account}&account_type={account_type}"


def sql_text(value: str) -> str:
    """``value`` as an SQL string literal (``O'Brien`` -> ``'O''Brien'``)."""
    return "'" + value.replace("'", "''") + "'"
