"""A content provider's table as SQLite holds it on a phone, for worlds that synthesize rows
(our simulator, a MobileGym build): an in-memory database with Android's collations, the
table declared with its columns' affinities, the rows inserted in order.

Loading rows into SQLite, rather than filtering them in Python, makes a ``where``, a sort and
a projection behave exactly as SQLite behaves on a phone (``NOT``, ``LIKE``, ``IN``, ``IS
NULL``, column affinities). Android's ``LOCALIZED`` and ``UNICODE`` collations are ICU's; here
they are approximated (case-folded, then exact).
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import closing, contextmanager
from itertools import chain
from typing import Any

__all__ = ["COLLATIONS", "android_table", "loaded_table", "quote"]

COLLATIONS = ("LOCALIZED", "UNICODE")
"""The collations Android registers on its databases (``COLLATE LOCALIZED`` in a sort)."""


def quote(name: str) -> str:
    """An SQL identifier, double-quoted (a column named ``group`` or ``data1``)."""
    return '"' + name.replace('"', '""') + '"'


def _collate(a: str, b: str) -> int:
    left, right = (a.casefold(), a), (b.casefold(), b)
    return (left > right) - (left < right)


@contextmanager
def android_table(
    name: str, columns: Sequence[tuple[str, str]], rows: Iterable[Sequence[Any]]
) -> Iterator[sqlite3.Connection]:
    """An in-memory database whose table ``name`` has ``columns`` (name, affinity) and holds
    ``rows`` in order (rowid ``i + 1`` is the ``i``-th row), closed after the block."""
    with closing(_declared(name, columns)) as db:
        _fill(db, name, len(columns), rows)
        yield db


def _declared(name: str, columns: Sequence[tuple[str, str]]) -> sqlite3.Connection:
    db = sqlite3.connect(":memory:", check_same_thread=True)
    for collation in COLLATIONS:
        db.create_collation(collation, _collate)
    declared = ", ".join(f"{quote(column)} {affinity}" for column, affinity in columns)
    db.execute(f"CREATE TABLE {quote(name)} ({declared})")
    return db


def _fill(db: sqlite3.Connection, name: str, width: int, rows: Iterable[Sequence[Any]]) -> None:
    marks = ", ".join("?" for _ in range(width))
    db.executemany(f"INSERT INTO {quote(name)} VALUES ({marks})", rows)


class _Loaded:
    """One thread's database for one table declaration and the rows it holds now."""

    def __init__(self, name: str, columns: tuple[tuple[str, str], ...]) -> None:
        self.name, self.width = name, len(columns)
        self.db = _declared(name, columns)
        self.rows: list[tuple[Any, ...]] | None = None
        self.types: list[type] = []

    def holding(self, rows: list[tuple[Any, ...]]) -> sqlite3.Connection:
        """The database with exactly ``rows`` in its table (reloaded only if they differ).

        ``DELETE`` without a ``WHERE`` empties the table and SQLite then numbers new rows
        from 1 again (a table without ``AUTOINCREMENT`` takes the largest rowid plus one)."""
        if rows != self.rows or _types(rows) != self.types:
            self.rows = None  # a failed load leaves nothing to be reused
            self.db.execute(f"DELETE FROM {quote(self.name)}")
            _fill(self.db, self.name, self.width, rows)
            self.rows, self.types = rows, _types(rows)
        return self.db

    def __del__(self) -> None:
        self.db.close()  # closed, not collected open (3.13 warns about that)


def _types(rows: list[tuple[Any, ...]]) -> list[type]:
    """The type of every value, row after row: ``1``, ``1.0`` and ``True`` are equal in
    Python but a TEXT column prints them differently, so equal rows must match in types too."""
    return list(map(type, chain.from_iterable(rows)))


class _ThreadTables(threading.local):
    def __init__(self) -> None:
        self.tables: dict[tuple[str, tuple[tuple[str, str], ...]], _Loaded] = {}


_THREAD_TABLES = _ThreadTables()


def loaded_table(
    name: str, columns: Sequence[tuple[str, str]], rows: list[tuple[Any, ...]]
) -> sqlite3.Connection:
    """Like :func:`android_table`, for read-only queries asked again and again (a judge reads
    the same tables before and after every step): this thread's database for the declaration,
    kept between calls and reloaded only when ``rows`` differ from what it holds. Only
    ``SELECT`` may run on it (it is shared by the thread's later calls)."""
    key = (name, tuple(columns))
    loaded = _THREAD_TABLES.tables.get(key)
    if loaded is None:
        loaded = _THREAD_TABLES.tables[key] = _Loaded(name, key[1])
    return loaded.holding(rows)
