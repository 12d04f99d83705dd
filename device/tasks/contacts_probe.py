"""Reading and seeding a phone's contacts through ``adb shell content`` (no root needed).

The shell user holds READ/WRITE_CONTACTS on stock Android, so ``content query`` and
``content insert`` on ``com.android.contacts`` are enough to pose a contacts task (make sure
the people it names exist, starred or not) and to judge it afterwards.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence

from device.tasks.base import Shell

__all__ = [
    "CONTACTS",
    "DATA",
    "RAW_CONTACTS",
    "contacts_named",
    "data_rows",
    "delete_named",
    "digits",
    "ensure_contact",
    "parse_rows",
    "query",
    "set_starred",
]

CONTACTS = "content://com.android.contacts/contacts"
RAW_CONTACTS = "content://com.android.contacts/raw_contacts"
DATA = "content://com.android.contacts/data"
PHONE = "vnd.android.cursor.item/phone_v2"
EMAIL = "vnd.android.cursor.item/email_v2"
NAME = "vnd.android.cursor.item/name"
ORGANIZATION = "vnd.android.cursor.item/organization"

_ROW = re.compile(r"^Row: \d+ (.*)$")


def parse_rows(output: str, columns: Sequence[str]) -> list[dict[str, str]]:
    """Rows of ``content query`` output (``Row: 0 a=1, b=x, y``) for known ``columns``.

    Values may contain ``, ``; splitting only at ``, <next column>=`` keeps them whole.
    """
    rows = []
    for line in output.splitlines():
        found = _ROW.match(line.rstrip("\r"))
        if not found:
            continue
        rest, row = found.group(1), {}
        for index, column in enumerate(columns):
            if not rest.startswith(f"{column}="):
                break
            rest = rest[len(column) + 1 :]
            following = f", {columns[index + 1]}=" if index + 1 < len(columns) else None
            cut = rest.find(following) if following else -1
            row[column], rest = (rest, "") if cut < 0 else (rest[:cut], rest[cut + 2 :])
        rows.append(row)
    return rows


def _quote_sql(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


async def query(
    shell: Shell, uri: str, columns: Sequence[str], where: str | None = None
) -> list[dict[str, str]]:
    """``content query`` as a list of rows."""
    command = f"content query --uri {uri} --projection {':'.join(columns)}"
    if where:
        command += f" --where {shlex.quote(where)}"
    return parse_rows(await shell(command), columns)


async def contacts_named(shell: Shell, name: str) -> list[dict[str, str]]:
    """Aggregate contacts whose display name is ``name`` (``_id``, ``starred``)."""
    return await query(
        shell, CONTACTS, ["_id", "display_name", "starred"], f"display_name={_quote_sql(name)}"
    )


async def data_rows(shell: Shell, name: str, mimetype: str) -> list[dict[str, str]]:
    """Data rows of one kind (phones, emails, organisations) of the contacts named ``name``."""
    where = f"display_name={_quote_sql(name)} AND mimetype={_quote_sql(mimetype)}"
    return await query(shell, DATA, ["contact_id", "mimetype", "data1", "data2", "data4"], where)


async def delete_named(shell: Shell, name: str) -> None:
    """Delete every contact named ``name``."""
    where = shlex.quote(f"display_name={_quote_sql(name)}")
    await shell(f"content delete --uri {RAW_CONTACTS} --where {where}")


async def set_starred(shell: Shell, name: str, starred: bool) -> None:
    """Star or unstar every contact named ``name``."""
    where = shlex.quote(f"display_name={_quote_sql(name)}")
    await shell(f"content update --uri {CONTACTS} --bind starred:i:{int(starred)} --where {where}")


async def _insert_data(shell: Shell, raw_id: str, mimetype: str, **columns: str) -> None:
    binds = " ".join(f"--bind {shlex.quote(f'{key}:s:{value}')}" for key, value in columns.items())
    await shell(
        f"content insert --uri {DATA} --bind raw_contact_id:i:{raw_id} "
        f"--bind mimetype:s:{mimetype} {binds}"
    )


async def ensure_contact(
    shell: Shell,
    name: str,
    phone: str | None = None,
    company: str | None = None,
) -> str:
    """The id of a contact named ``name``, created (with phone/company) if there is none."""
    found = await contacts_named(shell, name)
    if found:
        return found[0]["_id"]
    await shell(
        f"content insert --uri {RAW_CONTACTS} --bind account_type:n: --bind account_name:n:"
    )
    raws = await query(shell, RAW_CONTACTS, ["_id"])
    raw_id = max((row["_id"] for row in raws), key=int)
    await _insert_data(shell, raw_id, NAME, data1=name)
    if phone:
        await _insert_data(shell, raw_id, PHONE, data1=phone, data2="2")
    if company:
        await _insert_data(shell, raw_id, ORGANIZATION, data1=company)
    created = await contacts_named(shell, name)
    if not created:
        raise RuntimeError(f"the phone did not keep the contact {name!r} we inserted")
    return created[0]["_id"]


def digits(number: str) -> str:
    """A phone number's digits, without a leading China country code (86)."""
    only = re.sub(r"\D", "", number)
    return only[2:] if only.startswith("86") and len(only) > 11 else only
