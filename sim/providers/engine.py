"""The content-provider engine: URIs to declared tables, reads and writes through SQLite.

:class:`ContentResolver` routes ``content://AUTHORITY/…`` to a :class:`Provider`: the
settings provider (always there) and those the installed apps declare
(:meth:`sim.app.App.providers`). Every call builds the table it needs in an in-memory
stdlib ``sqlite3`` database from the rows the table computes, so a ``where``, a ``sort``
and a projection behave exactly as SQLite behaves on a phone (``NOT``, ``LIKE``
case-insensitive for ASCII, ``IN``, ``IS NULL``, parentheses, column affinities); the
provider's filter (an item id, a view) is ANDed before the caller's ``where``, as
``SQLiteQueryBuilder`` does. Updates and deletes select the matching ``_id`` values with
SQLite and hand those rows to the table's handler; written values are first stored with the
columns' affinities (``starred:s:1`` arrives as 1, ``data2:i:2`` as ``'2'``).

Errors: an SQL error is a :class:`~sim.providers.errors.SqlError` (``SQLiteException``;
an unbound ``?`` is ``SQLiteBindOrColumnIndexOutOfRangeException``, as ``content`` has no
selection arguments); a URI without a table is an ``IllegalArgumentException``; an unknown
authority is :class:`~sim.providers.errors.UnknownAuthority`.

A URI's query (``?caller_is_syncadapter=true&account_name=A``) never selects rows: it is
split off (:func:`split_uri`, :func:`uri_parameters`) and handed to the table's functions
as :attr:`~sim.providers.table.ProviderContext.params`.
"""

from __future__ import annotations

import re
import sqlite3
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

from bridge.provider_sql import loaded_table, quote
from sim.errors import SimError
from sim.phone import Phone
from sim.providers.errors import (
    UNSUPPORTED_OPERATION,
    ProviderError,
    SqlError,
    UnknownAuthority,
)
from sim.providers.settings import settings_provider
from sim.providers.table import Provider, ProviderContext, ProviderTable
from sim.state import InstanceState

__all__ = ["ContentResolver", "Cursor", "split_uri", "uri_parameters"]

_BIND_EXCEPTION = "android.database.sqlite.SQLiteBindOrColumnIndexOutOfRangeException"
_PARAMETER = re.compile(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|(\?\d*|[:@$][A-Za-z_]\w*)")


@dataclass(frozen=True)
class Cursor:
    """What a query returns: column names (as SQLite names them) and rows of raw values."""

    columns: tuple[str, ...]
    rows: list[tuple[Any, ...]]


@dataclass(frozen=True)
class _Target:
    """A URI resolved: the table, and the provider's own filter as SQL."""

    table: ProviderTable
    filters: tuple[str, ...]
    params: Mapping[str, str]


def _without_query(uri: str) -> tuple[str, str]:
    """``(uri before '?', the query)``, a ``#fragment`` dropped."""
    rest, _, query = uri.partition("#")[0].partition("?")
    return rest, query


def split_uri(uri: str) -> tuple[str, list[str]]:
    """``content://AUTHORITY/a/b?q=1`` → (AUTHORITY, [a, b]) (no check that it is a content
    URI; the query is :func:`uri_parameters`)."""
    authority, _, path = _without_query(uri)[0].removeprefix("content://").partition("/")
    return authority, [part for part in path.split("/") if part]


def uri_parameters(uri: str) -> dict[str, str]:
    """The query parameters of ``uri``, decoded: ``…?a=1&b=x%20y`` → ``{a: 1, b: x y}``
    (a repeated name keeps its first value, as ``Uri.getQueryParameter`` does)."""
    found: dict[str, str] = {}
    for name, value in parse_qsl(_without_query(uri)[1], keep_blank_values=True):
        found.setdefault(name, value)
    return found


_RESOLVERS: weakref.WeakKeyDictionary[Phone, ContentResolver] = weakref.WeakKeyDictionary()


def _literal(value: str, numeric: bool) -> str:
    return value if numeric else "'" + value.replace("'", "''") + "'"


class ContentResolver:
    """Android's ``ContentResolver`` over one simulated phone's apps (stateless: every call
    takes the instance state it reads or changes)."""

    def __init__(self, phone: Phone) -> None:
        self.phone = phone
        self.providers: dict[str, Provider] = {}
        declared = [settings_provider()]
        declared += [provider for app in phone.apps.values() for provider in app.providers()]
        for provider in declared:
            for authority in (provider.authority, *provider.aliases):
                if authority in self.providers:
                    raise SimError(f"two providers claim the authority {authority!r}")
                self.providers[authority] = provider

    @classmethod
    def of(cls, phone: Phone) -> ContentResolver:
        """The resolver of ``phone``, made once (it holds no state, and declaring the
        providers builds every app's tables: a shell's ``content`` command asks for it each
        time)."""
        found = _RESOLVERS.get(phone)
        if found is None:
            found = _RESOLVERS[phone] = cls(phone)
        return found

    def shell_may_write(self, uri: str) -> bool:
        """Whether the shell's write of ``uri`` reaches its provider (:attr:`Provider.
        shell_writes`); an unknown authority raises :class:`UnknownAuthority`."""
        return self.provider(split_uri(uri)[0]).shell_writes

    def provider(self, authority: str) -> Provider:
        """The provider of ``authority``; :class:`UnknownAuthority` if none."""
        if authority not in self.providers:
            raise UnknownAuthority(authority)
        return self.providers[authority]

    # ---- reading
    def query(
        self,
        state: InstanceState,
        uri: str,
        projection: Sequence[str] | None = None,
        where: str | None = None,
        sort: str | None = None,
    ) -> Cursor:
        """``content query``: the rows of ``uri`` matching ``where`` in ``sort`` order, with
        the ``projection`` columns (all of them, in print order, when None or empty)."""
        target = self._target(uri)
        columns = ", ".join(projection) if projection else "*"
        sql = f"SELECT {columns} FROM {quote(target.table.name)}"
        sql += self._where(target, where) + (f" ORDER BY {sort}" if sort else "")
        db, _ = self._database(state, target)
        cursor = self._run(db, sql, where)
        names = tuple(item[0] for item in cursor.description)
        return Cursor(names, [tuple(row) for row in cursor.fetchall()])

    # ---- writing
    def insert(self, state: InstanceState, uri: str, values: Mapping[str, Any]) -> int:
        """``content insert`` of one row; returns the new row's ``_id``."""
        target = self._target(uri)
        table = target.table
        if target.filters:
            authority, path = split_uri(uri)
            rooted = self.provider(authority).root == table.name
            whole = f"content://{authority}" + ("" if rooted else f"/{path[0]}")
            raise ProviderError(f"Cannot insert into {uri}: use {whole}", UNSUPPORTED_OPERATION)
        if table.insert is None:
            raise ProviderError(table.read_only_reason, UNSUPPORTED_OPERATION)
        return table.insert(self._context(state, target), _stored(table, values))

    def update(
        self, state: InstanceState, uri: str, values: Mapping[str, Any], where: str | None = None
    ) -> int:
        """``content update`` of the rows matching ``where``; returns how many."""
        target = self._target(uri)
        if target.table.update is None:
            raise ProviderError(target.table.read_only_reason, UNSUPPORTED_OPERATION)
        rows = self._matching(state, target, where)
        if rows:
            target.table.update(self._context(state, target), rows, _stored(target.table, values))
        return len(rows)

    def delete(self, state: InstanceState, uri: str, where: str | None = None) -> int:
        """``content delete`` of the rows matching ``where``; returns how many."""
        target = self._target(uri)
        if target.table.delete is None:
            raise ProviderError(target.table.read_only_reason, UNSUPPORTED_OPERATION)
        rows = self._matching(state, target, where)
        if rows:
            target.table.delete(self._context(state, target), rows)
        return len(rows)

    # ---- the machinery
    def _context(self, state: InstanceState, target: _Target) -> ProviderContext:
        return ProviderContext(self.phone, state, target.params)

    def _target(self, uri: str) -> _Target:
        if not uri.startswith("content://"):
            raise ProviderError(f"Invalid URI: {uri}")
        authority, path = split_uri(uri)
        provider = self.provider(authority)
        path = provider.rooted(path)
        table = provider.table(path[0]) if path else None
        invalid = ProviderError(f"{provider.invalid_uri} {uri}")
        if table is None:
            raise invalid
        filters, rest = [], path[1:]
        if rest and rest[0] in table.views:
            column, value = table.views[rest[0]]
            filters.append(f"{quote(column)} = {_literal(value, numeric=False)}")
            rest = rest[1:]
        if len(rest) > 1:
            raise invalid
        if rest:
            item = table.column(table.item_column)
            numeric = item is not None and item.affinity == "INTEGER"
            if numeric and not rest[0].isdigit():
                raise invalid
            filters.append(f"{quote(table.item_column)} = {_literal(rest[0], numeric)}")
        return _Target(table, tuple(filters), uri_parameters(uri))

    @staticmethod
    def _where(target: _Target, where: str | None) -> str:
        parts = [f"({part})" for part in target.filters]
        if where and where.strip():
            parts.append(f"({where})")
        return " WHERE " + " AND ".join(parts) if parts else ""

    def _database(
        self, state: InstanceState, target: _Target
    ) -> tuple[sqlite3.Connection, list[Mapping[str, Any]]]:
        """This thread's database holding the target table's rows (and those rows, in
        order), for a ``SELECT``."""
        table = target.table
        rows = list(table.rows(self._context(state, target)))
        names = table.column_names
        declared = [(column.name, column.affinity) for column in table.columns]
        values = [tuple(map(row.get, names)) for row in rows]
        return loaded_table(table.name, declared, values), rows

    def _matching(
        self, state: InstanceState, target: _Target, where: str | None
    ) -> list[Mapping[str, Any]]:
        """The table's rows (as its rows function gave them) that SQLite selects."""
        sql = f"SELECT rowid FROM {quote(target.table.name)}" + self._where(target, where)
        db, rows = self._database(state, target)
        return [rows[rowid - 1] for (rowid,) in self._run(db, sql, where).fetchall()]

    @staticmethod
    def _run(db: sqlite3.Connection, sql: str, where: str | None) -> sqlite3.Cursor:
        try:
            return db.execute(sql)
        except sqlite3.ProgrammingError as exc:
            wanted = len([m for m in _PARAMETER.finditer(where or "") if m.group(1)])
            if wanted:
                message = f"Expected {wanted} bind arguments but 0 were provided."
                raise SqlError(message, _BIND_EXCEPTION) from exc
            raise SqlError(str(exc)) from exc
        except sqlite3.Error as exc:
            raise SqlError(_sqlite_message(exc)) from exc


def _sqlite_message(exc: sqlite3.Error) -> str:
    """SQLite's message as Android words it: ``no such column: x (code 1 SQLITE_ERROR)``."""
    code, name = getattr(exc, "sqlite_errorcode", None), getattr(exc, "sqlite_errorname", None)
    return f"{exc} (code {code} {name})" if code is not None and name else str(exc)


def _stored(table: ProviderTable, values: Mapping[str, Any]) -> dict[str, Any]:
    """``values`` as the table's columns store them (SQLite's affinities); columns the
    table does not declare pass through for the handler to accept or refuse."""
    declared = [table.column(name) for name in values]
    columns = [column for column in declared if column is not None]
    if not columns:
        return dict(values)
    declared_columns = [(column.name, column.affinity) for column in columns]
    db = loaded_table("v", declared_columns, [tuple(values[c.name] for c in columns)])
    stored = db.execute("SELECT * FROM v").fetchone()
    return {**values, **{column.name: value for column, value in zip(columns, stored, strict=True)}}
