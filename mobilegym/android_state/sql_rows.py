"""Rows in, SQLite out: a provider's ``where``, ``sort`` and projection evaluated exactly as
SQLite evaluates them on a phone, over rows this world synthesized.

MobileGym keeps no Android tables: :mod:`mobilegym.android_state.rows` computes the rows a
table would hold from MobileGym's JSON and hands them here. Each call loads them into a fresh
in-memory stdlib ``sqlite3`` table declared with the column types Android's own schema gives
(``INTEGER`` ids and flags, ``TEXT`` names and data columns), so ``NOT``, ``LIKE``
(case-insensitive for ASCII), ``IN``, ``IS NULL``, ``replace()``, parentheses and column
affinities behave as they do on a phone.

A table names the Android columns MobileGym does not hold (:attr:`SqlTable.missing`), and a row
the cells whose value MobileGym cannot give (:attr:`SynthRow.unknown`, NULL in SQL): a query
that names either is refused with the reason (:func:`~mobilegym.android_state.base.unavailable`),
never answered with a guess. A ``where`` SQLite rejects is refused too, as a phone's ``content
query`` prints an error instead of rows.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from bridge.android_state import Row, printed
from bridge.provider_sql import loaded_table, quote
from mobilegym.android_state.base import unavailable

__all__ = [
    "Affinity",
    "Column",
    "SqlTable",
    "SqlValue",
    "SynthRow",
    "columns",
    "matching",
    "select",
]

Affinity = Literal["INTEGER", "TEXT"]
"""A column's declared SQLite type: ``TEXT`` keeps ``13912345678`` text and turns a bound int
into its digits, ``INTEGER`` keeps ints and turns a bound ``'1'`` into 1, as on a phone."""
SqlValue = int | str | None
"""A synthesized cell."""

_LITERAL = re.compile(r"'(?:[^']|'')*'")
_NO_COLUMN = re.compile(r"no such column: (?:\w+\.)?(\w+)")


@dataclass(frozen=True)
class Column:
    """One column of a table: its name and SQLite type."""

    name: str
    affinity: Affinity = "TEXT"


def columns(*names: str, integers: Iterable[str] = ()) -> tuple[Column, ...]:
    """Columns by name, in order: those named in ``integers`` ``INTEGER``, the others
    ``TEXT`` (``_id`` is always ``INTEGER``)."""
    whole = {"_id", *integers}
    return tuple(Column(name, "INTEGER" if name in whole else "TEXT") for name in names)


@dataclass(frozen=True)
class SqlTable:
    """An Android table as this world synthesizes it.

    Attributes:
        name: The table's name (``contacts``, ``events``).
        columns: Its columns, in the order ``content query`` prints them.
        missing: Android columns of this table MobileGym does not hold, each with why.
    """

    name: str
    columns: tuple[Column, ...]
    missing: Mapping[str, str] = field(default_factory=dict)

    @property
    def column_names(self) -> tuple[str, ...]:
        """The columns' names, in print order."""
        return tuple(column.name for column in self.columns)


@dataclass(frozen=True)
class SynthRow:
    """One synthesized row.

    Attributes:
        values: Column -> cell (columns the row leaves out are NULL).
        ref: The MobileGym object the row stands for (a contact's id; a conversation's and a
            message's id), which a write handler changes.
        unknown: Columns whose value MobileGym cannot give for this row (NULL in SQL), each
            with why: a query that reads one is refused.
    """

    values: Mapping[str, SqlValue]
    ref: tuple[str, ...] = ()
    unknown: Mapping[str, str] = field(default_factory=dict)


def _loaded(table: SqlTable, rows: Sequence[SynthRow]) -> sqlite3.Connection:
    """This thread's database whose table holds ``rows`` (rowid ``i + 1`` is ``rows[i]``),
    for a ``SELECT``."""
    declared = [(column.name, column.affinity) for column in table.columns]
    values = [tuple(map(row.values.get, table.column_names)) for row in rows]
    return loaded_table(table.name, declared, values)


def _mentioned(column: str, *texts: str | None) -> bool:
    """Whether ``column`` is named in any of the SQL ``texts`` (outside string literals)."""
    pattern = re.compile(rf"(?<![\w.]){re.escape(column)}(?!\w)", re.IGNORECASE)
    return any(text and pattern.search(_LITERAL.sub("''", text)) for text in texts)


def _refuse_unknown(
    uri: str,
    rows: Sequence[SynthRow],
    hit: Sequence[int],
    projection: Sequence[str],
    where: str | None,
    sort: str | None,
) -> None:
    """Refuse a query that reads a cell MobileGym cannot give: named in ``where``/``sort``
    (any row's, since the selection depends on it) or projected from a selected row."""
    for row in rows:
        for column, reason in row.unknown.items():
            if _mentioned(column, where, sort):
                unavailable(f"the {column} of every row of {uri}", reason)
    for index in hit:
        for column, reason in rows[index].unknown.items():
            if any(_mentioned(column, item) for item in projection):
                unavailable(f"the {column} of a row of {uri}", reason)


def _run(db: sqlite3.Connection, sql: str, table: SqlTable, uri: str) -> sqlite3.Cursor:
    """Execute ``sql``; SQLite's refusal becomes :class:`~bridge.errors.StateUnavailable`."""
    try:
        return db.execute(sql)
    except sqlite3.Error as exc:
        found = _NO_COLUMN.search(str(exc))
        if found and found.group(1) in table.missing:
            unavailable(f"column {found.group(1)} of {uri}", table.missing[found.group(1)])
        unavailable(f"what this content query of {uri} asks", f"SQLite refused it ({exc})")


def _where(filters: Sequence[str], where: str | None) -> str:
    parts = [f"({part})" for part in filters]
    if where and where.strip():
        parts.append(f"({where})")
    return " WHERE " + " AND ".join(parts) if parts else ""


def select(
    table: SqlTable,
    rows: Sequence[SynthRow],
    projection: Sequence[str],
    where: str | None = None,
    sort: str | None = None,
    *,
    uri: str,
    filters: Sequence[str] = (),
) -> list[Row]:
    """``content query``: the ``projection`` of the ``rows`` matching ``filters`` (the URI's
    own, ANDed first, as ``SQLiteQueryBuilder`` does) and ``where``, in ``sort`` order, each
    cell as ``content query`` prints it (None for NULL). An empty projection is every column.

    Raises:
        StateUnavailable: the query names a column or a cell MobileGym does not hold, or
            SQLite refuses it (the message says which and why).
    """
    wanted = list(projection) or list(table.column_names)
    for name in wanted:
        if name in table.missing:
            unavailable(f"column {name} of {uri}", table.missing[name])
    columns = ", ".join(["rowid", *wanted])
    sql = f"SELECT {columns} FROM {quote(table.name)}" + _where(filters, where)
    sql += f" ORDER BY {sort}" if sort else ""
    found = _run(_loaded(table, rows), sql, table, uri).fetchall()
    _refuse_unknown(uri, rows, [line[0] - 1 for line in found], wanted, where, sort)
    return [dict(zip(wanted, map(printed, line[1:]), strict=True)) for line in found]


def matching(
    table: SqlTable,
    rows: Sequence[SynthRow],
    where: str | None,
    *,
    uri: str,
    filters: Sequence[str] = (),
) -> list[SynthRow]:
    """The ``rows`` that ``filters`` and ``where`` select (what an update or a delete
    changes), in their order.

    Raises:
        StateUnavailable: as :func:`select`.
    """
    sql = f"SELECT rowid FROM {quote(table.name)}" + _where(filters, where)
    hit = [rowid - 1 for (rowid,) in _run(_loaded(table, rows), sql, table, uri).fetchall()]
    _refuse_unknown(uri, rows, [], [], where, None)
    return [rows[index] for index in sorted(hit)]
