"""``mobilegym.android_state.sql_rows`` without a browser: synthesized rows evaluated by SQLite
as a phone's provider evaluates ``where``, ``sort`` and projection; columns and cells MobileGym
does not hold refused with their reason."""

from __future__ import annotations

import pytest

from bridge.errors import StateUnavailable
from mobilegym.android_state.sql_rows import (
    Column,
    SqlTable,
    SynthRow,
    columns,
    matching,
    select,
)

URI = "content://example/people"
TABLE = SqlTable(
    "people",
    columns("_id", "name", "phone", "starred", "note", integers=["starred"]),
    missing={"photo_uri": "the example holds no photos"},
)
ROWS = [
    SynthRow({"_id": 3, "name": "Ada Lovelace", "phone": "13912345678", "starred": 1}, ("ada",)),
    SynthRow({"_id": 1, "name": "alan turing", "phone": "0086 139", "starred": 0}, ("alan",)),
    SynthRow({"_id": 2, "name": "Grace Hopper", "phone": None, "starred": 1}, ("grace",)),
]


def test_where_sort_and_projection_behave_as_sqlite() -> None:
    rows = select(TABLE, ROWS, ["_id", "name"], "starred=1", "name DESC", uri=URI)
    assert rows == [{"_id": "2", "name": "Grace Hopper"}, {"_id": "3", "name": "Ada Lovelace"}]
    assert select(TABLE, ROWS, ["name"], "name LIKE 'ALAN%'", uri=URI) == [{"name": "alan turing"}]
    assert select(TABLE, ROWS, ["_id"], "phone IS NULL", uri=URI) == [{"_id": "2"}]
    found = select(TABLE, ROWS, ["_id"], "_id IN (1, 3) AND NOT starred", "_id", uri=URI)
    assert found == [{"_id": "1"}]
    spaced = "replace(phone, ' ', '') LIKE '0086%'"
    assert select(TABLE, ROWS, ["name"], spaced, uri=URI) == [{"name": "alan turing"}]


def test_cells_print_as_content_query_prints_them() -> None:
    rows = select(TABLE, ROWS, [], "_id=2", uri=URI)
    assert rows == [
        {"_id": "2", "name": "Grace Hopper", "phone": None, "starred": "1", "note": None}
    ]


def test_column_affinities_are_androids() -> None:
    """A TEXT column keeps a number text, an INTEGER one turns bound text into a number."""
    table = SqlTable("t", (Column("_id", "INTEGER"), Column("code"), Column("flag", "INTEGER")))
    rows = [SynthRow({"_id": 1, "code": 2, "flag": "1"})]
    assert select(table, rows, ["_id"], "code='2' AND flag=1", uri=URI) == [{"_id": "1"}]
    assert select(table, rows, ["_id"], "code=2", uri=URI) == [{"_id": "1"}]  # TEXT vs int


def test_localized_collation_sorts_case_folded() -> None:
    found = select(TABLE, ROWS, ["name"], None, "name COLLATE LOCALIZED", uri=URI)
    assert [row["name"] for row in found] == ["Ada Lovelace", "alan turing", "Grace Hopper"]


def test_filters_are_anded_before_the_where() -> None:
    """A URI's own filter (a view, an item) cannot be escaped by an ``OR`` in the where."""
    rows = select(TABLE, ROWS, ["_id"], "1 OR 1", uri=URI, filters=['"starred" = 1'])
    assert sorted(str(row["_id"]) for row in rows) == ["2", "3"]


def test_matching_gives_the_selected_rows_in_order() -> None:
    found = matching(TABLE, ROWS, "starred=1", uri=URI)
    assert [row.ref for row in found] == [("ada",), ("grace",)]
    assert matching(TABLE, ROWS, None, uri=URI) == ROWS
    assert matching(TABLE, ROWS, "name='nobody'", uri=URI) == []


def test_a_missing_column_is_refused_with_its_reason() -> None:
    with pytest.raises(StateUnavailable, match=r"photo_uri.*holds no photos"):
        select(TABLE, ROWS, ["_id", "photo_uri"], uri=URI)
    with pytest.raises(StateUnavailable, match=r"photo_uri.*holds no photos"):
        select(TABLE, ROWS, ["_id"], "photo_uri IS NULL", uri=URI)
    with pytest.raises(StateUnavailable, match=r"photo_uri.*holds no photos"):
        matching(TABLE, ROWS, "photo_uri IS NULL", uri=URI)


def test_sql_sqlite_refuses_is_unavailable_naming_sqlite() -> None:
    with pytest.raises(StateUnavailable, match=r"SQLite refused it .*no such column: nickname"):
        select(TABLE, ROWS, ["_id"], "nickname='x'", uri=URI)
    with pytest.raises(StateUnavailable, match=r"SQLite refused it"):
        select(TABLE, ROWS, ["_id"], "name = 'unclosed", uri=URI)


UNKNOWN = [
    SynthRow({"_id": 1, "name": "a", "note": "kept"}),
    SynthRow({"_id": 2, "name": "b", "note": None}, unknown={"note": "its note is unreadable"}),
]


def test_an_unknown_cell_is_refused_only_when_read() -> None:
    assert select(TABLE, UNKNOWN, ["note"], "_id=1", uri=URI) == [{"note": "kept"}]
    assert select(TABLE, UNKNOWN, ["name"], None, uri=URI) == [{"name": "a"}, {"name": "b"}]
    assert select(TABLE, UNKNOWN, ["_id"], "name='note'", uri=URI) == []  # a literal, no column
    with pytest.raises(StateUnavailable, match=r"note of a row.*unreadable"):
        select(TABLE, UNKNOWN, ["_id", "note"], uri=URI)
    with pytest.raises(StateUnavailable, match=r"note of every row.*unreadable"):
        select(TABLE, UNKNOWN, ["_id"], "note IS NULL", uri=URI)
    with pytest.raises(StateUnavailable, match=r"note of every row.*unreadable"):
        select(TABLE, UNKNOWN, ["_id"], None, "note", uri=URI)
    with pytest.raises(StateUnavailable, match=r"note of every row.*unreadable"):
        matching(TABLE, UNKNOWN, "note='kept'", uri=URI)
