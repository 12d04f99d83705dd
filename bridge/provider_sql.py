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
from collections.abc import Iterable, Iterator, Sequence
from contextlib import closing, contextmanager
from typing import Any

__all__ = ["COLLATIONS", "android_table", "quote"]

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
    with closing(sqlite3.connect(":memory:")) as db:
        for collation in COLLATIONS:
            db.create_collation(collation, _collate)
        declared = ", ".join(f"{quote(column)} {affinity}" for column, affinity in columns)
        db.execute(f"CREATE TABLE {quote(name)} ({declared})")
        marks = ", ".join("?" for _ in columns)
        db.executemany(f"INSERT INTO {quote(name)} VALUES ({marks})", rows)
        yield db
