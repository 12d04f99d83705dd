"""Names Android gives to the state tasks use: provider URIs, mimetypes, SQL literals.

``ContactsContract`` (AOSP ``android.provider.ContactsContract``): an aggregate contact per
person (``contacts``), the raw contacts behind it (``raw_contacts``) and one ``data`` row
per detail, told apart by ``mimetype``.
"""

from __future__ import annotations

__all__ = [
    "CONTACTS",
    "DATA",
    "EMAIL",
    "EMAIL_TYPE_WORK",
    "NAME",
    "ORGANIZATION",
    "PHONE",
    "PHONE_TYPE_MOBILE",
    "RAW_CONTACTS",
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


def sql_text(value: str) -> str:
    """``value`` as an SQL string literal (``O'Brien`` -> ``'O''Brien'``)."""
    return "'" + value.replace("'", "''") + "'"
