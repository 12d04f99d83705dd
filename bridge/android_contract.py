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
    "CALENDAR_OWNER_ACCESS",
    "CONTACTS",
    "DATA",
    "EMAIL",
    "EMAIL_TYPE_WORK",
    "EVENTS",
    "NAME",
    "ORGANIZATION",
    "PHONE",
    "PHONE_TYPE_MOBILE",
    "RAW_CONTACTS",
    "REMINDERS",
    "REMINDER_METHOD_ALERT",
    "SMS",
    "SMS_AUTHORITIES",
    "SMS_CONVERSATIONS",
    "SMS_INBOX",
    "SMS_SENT",
    "SMS_TYPE_INBOX",
    "SMS_TYPE_SENT",
    "alarm_days",
    "as_sync_adapter",
    "sql_text",
]

CONTACTS = "content://com.android.contacts/contacts"
RAW_CONTACTS = "content://com.android.contacts/raw_contacts"
DATA = "content://com.android.contacts/data"
NAME = "vnd.android.cursor.item/name"
PHONE = "vnd.android.cursor.item/phone_v2"
EMAIL = "vnd.android.cursor.item/email_v2"
ORGANIZATION = "vnd.android.cursor.item/organization"
PHONE_TYPE_MOBILE = 2
"""``ContactsContract.CommonDataKinds.Phone.TYPE_MOBILE``."""
EMAIL_TYPE_WORK = 2
"""``ContactsContract.CommonDataKinds.Email.TYPE_WORK``."""

ALARMS = "content://com.android.deskclock/alarms"
"""DeskClock's alarms (``ClockContract.AlarmsColumns``); not exported on a phone."""

CALENDARS = "content://com.android.calendar/calendars"
EVENTS = "content://com.android.calendar/events"
REMINDERS = "content://com.android.calendar/reminders"
CALENDAR_OWNER_ACCESS = 700
"""``Calendars.CAL_ACCESS_OWNER``."""
REMINDER_METHOD_ALERT = 1
"""``Reminders.METHOD_ALERT``."""

SMS = "content://sms"
SMS_INBOX = "content://sms/inbox"
SMS_SENT = "content://sms/sent"
SMS_CONVERSATIONS = "content://mms-sms/conversations"
SMS_TYPE_INBOX = 1
"""``Telephony.TextBasedSmsColumns.MESSAGE_TYPE_INBOX``."""
SMS_TYPE_SENT = 2
"""``Telephony.TextBasedSmsColumns.MESSAGE_TYPE_SENT``."""
SMS_AUTHORITIES = ("sms", "mms-sms")
"""Authorities whose writes the shell's ignored ``WRITE_SMS`` app-op drops."""


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
