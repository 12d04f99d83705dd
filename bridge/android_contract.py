"""Names Android gives to the state tasks use: provider URIs, mimetypes, SQL literals.

``ContactsContract`` (AOSP ``android.provider.ContactsContract``): an aggregate contact per
person (``contacts``), the raw contacts behind it (``raw_contacts``) and one ``data`` row
per detail, told apart by ``mimetype``.

``CalendarContract`` (``android.provider.CalendarContract``): ``calendars`` (one per account
calendar; only a sync adapter may insert one), ``events`` (``dtstart``/``dtend`` in epoch
ms, ``allDay`` events at UTC midnight) and their ``reminders`` (``minutes`` before, ``method``).
"""

from __future__ import annotations

__all__ = [
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

CALENDARS = "content://com.android.calendar/calendars"
EVENTS = "content://com.android.calendar/events"
REMINDERS = "content://com.android.calendar/reminders"
CALENDAR_OWNER_ACCESS = 700
"""``Calendars.CAL_ACCESS_OWNER``."""
REMINDER_METHOD_ALERT = 1
"""``Reminders.METHOD_ALERT``."""


def as_sync_adapter(uri: str, account: str, account_type: str = "LOCAL") -> str:
    """``uri`` called as the sync adapter of ``account`` (what inserting a calendar needs)."""
    return f"{uri}?caller_is_syncadapter=true&account_name={account}&account_type={account_type}"


def sql_text(value: str) -> str:
    """``value`` as an SQL string literal (``O'Brien`` -> ``'O''Brien'``)."""
    return "'" + value.replace("'", "''") + "'"
