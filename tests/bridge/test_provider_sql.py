"""The table databases worlds that synthesize rows query (``bridge.provider_sql``)."""

from __future__ import annotations

import threading

from bridge.provider_sql import android_table, loaded_table

COLUMNS = [("_id", "INTEGER"), ("name", "TEXT")]


def _select(rows: list[tuple[object, ...]], sql: str = "SELECT rowid, * FROM t") -> list[tuple]:
    return loaded_table("t", COLUMNS, rows).execute(sql).fetchall()


def test_a_loaded_table_holds_exactly_the_rows_it_was_last_given() -> None:
    assert _select([(1, "Ann"), (2, "Bob")]) == [(1, 1, "Ann"), (2, 2, "Bob")]
    # fewer rows: the old ones are gone and rowids count from 1 again
    assert _select([(7, "Cy")]) == [(1, 7, "Cy")]
    assert _select([]) == []
    assert _select([(3, "Di"), (4, "Ed")]) == [(1, 3, "Di"), (2, 4, "Ed")]


def test_the_same_rows_reuse_the_database_and_other_rows_reload_it() -> None:
    first = loaded_table("t", COLUMNS, [(1, "Ann")])
    assert loaded_table("t", COLUMNS, [(1, "Ann")]) is first
    assert _select([(1, "Ann")], "SELECT count(*) FROM t") == [(1,)]
    assert _select([(1, "Ann"), (2, "Bob")], "SELECT count(*) FROM t") == [(2,)]


def test_values_equal_in_python_but_stored_differently_reload() -> None:
    # 1 == 1.0 == True in Python, but a TEXT column prints them as '1', '1.0' and '1'
    assert _select([(1, 1)], "SELECT name FROM t") == [("1",)]
    assert _select([(1, 1.0)], "SELECT name FROM t") == [("1.0",)]
    assert _select([(1, True)], "SELECT name FROM t") == [("1",)]


def test_a_declaration_or_a_thread_gets_its_own_database() -> None:
    mine = loaded_table("t", COLUMNS, [(1, "Ann")])
    assert loaded_table("t", [("_id", "INTEGER")], [(1,)]) is not mine
    theirs: list[object] = []
    thread = threading.Thread(target=lambda: theirs.append(loaded_table("t", COLUMNS, [])))
    thread.start()
    thread.join()
    assert theirs[0] is not mine
    assert _select([(1, "Ann")], "SELECT count(*) FROM t") == [(1,)]  # untouched by theirs


def test_android_table_matches_a_loaded_table() -> None:
    rows = [(2, "bob"), (1, "Ann"), (3, None)]
    sql = "SELECT _id FROM t WHERE name IS NOT NULL ORDER BY name COLLATE LOCALIZED"
    with android_table("t", COLUMNS, rows) as db:
        assert db.execute(sql).fetchall() == _select(rows, sql) == [(1,), (2,)]
