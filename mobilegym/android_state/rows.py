"""``MobileGymRows``: Android's provider rows (``content query/insert/update/delete``) over a
MobileGym phone, which keeps no Android tables.

Each URI reaches a table synthesized from MobileGym's JSON (one module per provider):

* ``content://com.android.contacts/{contacts,raw_contacts,data}``
  (:mod:`~mobilegym.android_state.rows_contacts`), written through MobileGym's own contacts
  provider;
* ``content://com.android.calendar/{calendars,events,reminders}``
  (:mod:`~mobilegym.android_state.rows_calendar`): one calendar, one reminder per event;
* ``content://com.android.deskclock/alarms`` (:mod:`~mobilegym.android_state.rows_clock`);
* ``content://sms[/inbox|/sent|…]`` and ``content://mms-sms/conversations``
  (:mod:`~mobilegym.android_state.rows_sms`): read only, as the shell reads SMS; their
  ``date`` is synthesized.

A call reads the table's part of ``__SIM__.getState()`` and the clock, synthesizes the rows
and lets SQLite evaluate the ``where``, ``sort`` and projection
(:mod:`~mobilegym.android_state.sql_rows`); updates and deletes change the rows SQLite selects.
``_id`` values are stable across reads (:func:`~mobilegym.android_state.rows_table.stable_ids`).
A URI, column or write MobileGym cannot represent raises
:class:`~bridge.errors.StateUnavailable` saying why; :func:`rows_refusal` says it of a URI
before anything runs (:mod:`mobilegym.poseable` asks it).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from urllib.parse import parse_qsl

from bridge.android_contract import (
    CALENDAR_AUTHORITY,
    CONTACTS_AUTHORITY,
    DESKCLOCK_AUTHORITY,
    SMS_AUTHORITY,
    THREADS_AUTHORITY,
)
from bridge.android_state import BindValue, Row
from mobilegym.android_state.base import MobileGymStateBase, unavailable
from mobilegym.android_state.rows_calendar import CALENDAR_ACCOUNT, calendar_tables
from mobilegym.android_state.rows_clock import alarms_table
from mobilegym.android_state.rows_contacts import contacts_tables
from mobilegym.android_state.rows_sms import sms_table, threads_table
from mobilegym.android_state.rows_table import Seen, Table, read_seen
from mobilegym.android_state.sql_rows import SynthRow, matching, select

__all__ = ["MobileGymRows", "rows_refusal", "rows_value_refusal"]

_PROVIDERS: Mapping[str, Callable[[], dict[str, Table]]] = {
    CONTACTS_AUTHORITY: contacts_tables,
    CALENDAR_AUTHORITY: calendar_tables,
    DESKCLOCK_AUTHORITY: lambda: {"alarms": alarms_table()},
    SMS_AUTHORITY: lambda: {"sms": sms_table()},
    THREADS_AUTHORITY: lambda: {"conversations": threads_table()},
}
_ROOTS = {SMS_AUTHORITY: "sms"}
"""Providers whose URI reaches a table without naming it (``content://sms/inbox``)."""
_HOLDS = "contacts, calendar events, alarms and SMS"


@dataclass(frozen=True)
class _Target:
    """A URI resolved: its table and the provider's own filter as SQL."""

    table: Table
    filters: tuple[str, ...]


def _split(uri: str) -> tuple[str, list[str], dict[str, str]]:
    """``content://AUTHORITY/a/b?q=1`` -> (AUTHORITY, [a, b], {q: 1})."""
    rest, _, query = uri.partition("#")[0].partition("?")
    authority, _, path = rest.removeprefix("content://").partition("/")
    return authority, [part for part in path.split("/") if part], dict(parse_qsl(query))


def _literal(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def _resolve(uri: str) -> _Target | str:
    """The table ``uri`` reaches, or why MobileGym cannot serve it."""
    if not uri.startswith("content://"):
        return f"{uri!r} is not a content URI"
    authority, path, params = _split(uri)
    if authority not in _PROVIDERS:
        return f"MobileGym has no provider {authority!r} (it holds {_HOLDS})"
    tables = _PROVIDERS[authority]()
    if authority in _ROOTS and (not path or path[0] not in tables):
        path = [_ROOTS[authority], *path]
    if not path or path[0] not in tables:
        return f"MobileGym's {authority} has no table at {uri} (it has {', '.join(tables)})"
    table, filters, rest = tables[path[0]], [], path[1:]
    if rest and rest[0] in table.views:
        column, value = table.views[rest[0]]
        filters.append(f'"{column}" = {_literal(value)}')
        rest = rest[1:]
    if len(rest) > 1 or (rest and not rest[0].isdigit()):
        return f"MobileGym's {authority} has no rows at {uri}"
    if rest:
        filters.append(f'"_id" = {rest[0]}')
    if authority == CALENDAR_AUTHORITY and params.get("caller_is_syncadapter") == "true":
        account = params.get("account_name")
        if path[0] == "calendars" and account != CALENDAR_ACCOUNT:
            return f"a calendar of account {account!r}: {table.refused}"
    return _Target(table, tuple(filters))


def rows_refusal(uri: str) -> str | None:
    """Why MobileGym cannot serve provider rows at ``uri``, or None when it can.

    It can read every table it synthesizes (the module docstring lists them) and write those
    a task writes; a sync adapter's calendar URI is served only for the account of its one
    calendar (:data:`~mobilegym.android_state.rows_calendar.CALENDAR_ACCOUNT`), which exists,
    so a spec ensuring that calendar never inserts one. Columns a table does not hold are
    refused when a query names them (:class:`~bridge.errors.StateUnavailable`).
    """
    found = _resolve(uri)
    return found if isinstance(found, str) else None


def rows_value_refusal(uri: str, column: str, value: BindValue) -> str | None:
    """Why MobileGym cannot hold ``value`` in ``column`` of the rows at ``uri`` (None when it
    can, or when ``uri`` is refused as a whole: :func:`rows_refusal` says that): a goal such as
    an alarm repeating on Tuesdays and Thursdays, which no MobileGym alarm can."""
    found = _resolve(uri)
    if isinstance(found, str) or column not in found.table.holds:
        return None
    return found.table.holds[column](value)


def _target(uri: str) -> _Target:
    found = _resolve(uri)
    if isinstance(found, str):
        unavailable(f"the rows of {uri}", found)
    return found


class MobileGymRows(MobileGymStateBase):
    """:class:`bridge.android_state.RowsState` over a MobileGym phone (module docstring)."""

    async def query(
        self,
        uri: str,
        projection: Sequence[str],
        where: str | None = None,
        sort: str | None = None,
    ) -> list[Row]:
        """``content query``: the synthesized rows of ``uri`` matching ``where``, in ``sort``
        order, each projected column as ``content query`` prints it (None for NULL)."""
        target = _target(uri)
        seen = await read_seen(self.page, target.table.path, self.timezone)
        rows = target.table.rows(seen)
        sql = target.table.sql
        return select(sql, rows, projection, where, sort, uri=uri, filters=target.filters)

    async def _matching(
        self, uri: str, target: _Target, where: str | None
    ) -> tuple[Seen, list[SynthRow]]:
        """What the table's part of the state holds now, and its rows that ``where``
        selects (what an update or a delete changes)."""
        seen = await read_seen(self.page, target.table.path, self.timezone)
        rows = matching(
            target.table.sql, target.table.rows(seen), where, uri=uri, filters=target.filters
        )
        return seen, rows

    async def insert(self, uri: str, values: Mapping[str, BindValue]) -> None:
        """``content insert`` of one row, made in MobileGym's own shape (an SMS one does
        nothing, as the shell's does)."""
        target = _target(uri)
        if target.table.shell_drops_writes:
            return
        if target.filters:
            unavailable(f"an insert into {uri}", "insert into the table's own URI")
        if target.table.insert is None:
            unavailable(f"an insert into {uri}", target.table.refused)
        seen = await read_seen(self.page, target.table.path, self.timezone)
        await target.table.insert(self.page, seen, values)

    async def update(self, uri: str, values: Mapping[str, BindValue], where: str | None) -> None:
        """``content update`` of the rows matching ``where`` (not SMS rows: see insert)."""
        target = _target(uri)
        if target.table.shell_drops_writes:
            return
        if target.table.update is None:
            unavailable(f"an update of {uri}", target.table.refused)
        seen, rows = await self._matching(uri, target, where)
        if rows:
            await target.table.update(self.page, seen, rows, values)

    async def delete(self, uri: str, where: str | None) -> None:
        """``content delete`` of the rows matching ``where`` (not SMS rows: see insert)."""
        target = _target(uri)
        if target.table.shell_drops_writes:
            return
        if target.table.delete is None:
            unavailable(f"a delete of {uri}", target.table.refused)
        seen, rows = await self._matching(uri, target, where)
        if rows:
            await target.table.delete(self.page, seen, rows)
