"""The provider engine on a toy declaration: SQLite semantics, affinities, printing."""

from __future__ import annotations

from collections.abc import Mapping
from types import SimpleNamespace
from typing import Any

import pytest

from sim.app import App, AppContext
from sim.errors import SimError
from sim.phone import Phone
from sim.providers import (
    Column,
    ContentResolver,
    Provider,
    ProviderContext,
    ProviderError,
    ProviderTable,
    UnknownAuthority,
    format_value,
    split_uri,
    uri_parameters,
)
from sim.state import InstanceState

URI = "content://com.example.notes/notes"


def _rows(ctx: ProviderContext) -> list[Mapping[str, Any]]:
    return ctx.state.apps.get("notes", {}).get("rows", [])


def _insert(ctx: ProviderContext, values: dict[str, Any]) -> int:
    rows = ctx.state.apps.setdefault("notes", {}).setdefault("rows", [])
    rows.append({"_id": len(rows) + 1, **values})
    return len(rows)


def _update(ctx: ProviderContext, rows: list[Mapping[str, Any]], values: dict[str, Any]) -> None:
    for row in rows:
        dict.update(row, values)  # type: ignore[arg-type]  # the toy's rows are its state


class NotesApp(App):
    id = "notes"
    package = "com.example.notes"

    def render(self, ctx: AppContext) -> str:
        return ""

    def providers(self) -> tuple[Provider, ...]:
        table = ProviderTable(
            name="notes",
            columns=(
                Column("_id", "INTEGER"),
                Column("title"),
                Column("score", "REAL"),
                Column("raw", "BLOB"),
                Column("pinned", "INTEGER"),
            ),
            rows=_rows,
            insert=_insert,
            update=_update,
            views={"pinned": ("pinned", "1")},
        )
        return (Provider("com.example.notes", (table,)),)


def _phone(*apps: App) -> Phone:
    """A stand-in Phone holding only the apps (the engine reads nothing else; a real one
    would need the toy app to ship templates)."""
    return SimpleNamespace(apps={app.id: app for app in apps})  # type: ignore[return-value]


@pytest.fixture
def world() -> tuple[ContentResolver, InstanceState]:
    resolver, state = ContentResolver(_phone(NotesApp())), InstanceState()
    for title, score, raw, pinned in (
        ("beta", 0.85, "0086", "1"),
        ("Alpha", 1e7, 13912345678, 0),
        ("gamma, delta", None, b"\x00", True),
    ):
        resolver.insert(state, URI, {"title": title, "score": score, "raw": raw, "pinned": pinned})
    return resolver, state


def test_affinities_store_values_as_a_phone_does(world: tuple[ContentResolver, Any]) -> None:
    resolver, state = world
    cursor = resolver.query(state, URI, ["title", "score", "raw", "pinned"], sort="_id")
    assert cursor.columns == ("title", "score", "raw", "pinned")
    assert cursor.rows == [
        ("beta", 0.85, "0086", 1),  # INTEGER turned '1' into 1; BLOB kept '0086' text
        ("Alpha", 1e7, 13912345678, 0),
        ("gamma, delta", None, b"\x00", 1),
    ]
    printed = [[format_value(value) for value in row] for row in cursor.rows]
    assert printed == [
        ["beta", "0.85", "0086", "1"],
        ["Alpha", "1.0E7", "13912345678", "0"],
        ["gamma, delta", "NULL", "BLOB", "1"],
    ]


def test_sqlite_decides_where_and_order(world: tuple[ContentResolver, Any]) -> None:
    resolver, state = world
    ids = lambda **kw: [row[0] for row in resolver.query(state, URI, ["_id"], **kw).rows]  # noqa: E731
    assert ids(where="title LIKE 'A%'") == [2]  # ASCII LIKE ignores case
    assert ids(where="NOT (score IS NULL OR score > 1)") == [1]
    assert ids(where="title IN ('beta', 'gamma, delta')", sort="_id DESC") == [3, 1]
    assert ids(sort="title COLLATE LOCALIZED") == [2, 1, 3]
    assert ids(sort="title") == [2, 1, 3]
    assert [row[0] for row in resolver.query(state, f"{URI}/pinned", ["_id"]).rows] == [1, 3]
    assert resolver.query(state, f"{URI}/2", ["count(*)"]).rows == [(1,)]


def test_update_hands_the_matching_rows_to_the_handler(world: tuple[ContentResolver, Any]) -> None:
    resolver, state = world
    assert resolver.update(state, URI, {"pinned": "0"}, "title LIKE 'a%' OR _id = 1") == 2
    assert [row["pinned"] for row in state.apps["notes"]["rows"]] == [0, 0, 1]
    with pytest.raises(ProviderError, match="read-only") as caught:
        resolver.delete(state, URI, None)
    assert caught.value.java_class == "java.lang.UnsupportedOperationException"


def test_uri_errors(world: tuple[ContentResolver, Any]) -> None:
    resolver, state = world
    for uri in (f"{URI}/x", f"{URI}/1/2", "content://com.example.notes/other"):
        with pytest.raises(ProviderError, match="Unknown URI"):
            resolver.query(state, uri)
    with pytest.raises(UnknownAuthority):
        resolver.query(state, "content://nope/notes")
    with pytest.raises(ProviderError, match="Invalid URI"):
        resolver.query(state, "notes")
    with pytest.raises(ProviderError, match="Cannot insert"):
        resolver.insert(state, f"{URI}/1", {"title": "x"})


def test_declarations_are_checked() -> None:
    with pytest.raises(SimError, match="_id"):
        ProviderTable(name="t", columns=(Column("name"),), rows=_rows)
    with pytest.raises(SimError, match="no column"):
        ProviderTable(name="t", columns=(Column("_id"),), rows=_rows, views={"v": ("x", "1")})
    with pytest.raises(SimError, match="authority"):
        ContentResolver(_phone(NotesApp(), type("Notes2", (NotesApp,), {"id": "notes2"})()))


def test_uri_query_parameters_reach_the_handlers_and_select_nothing(
    world: tuple[ContentResolver, Any],
) -> None:
    resolver, state = world
    assert split_uri(f"{URI}/2?a=1&b=x%20y#top") == ("com.example.notes", ["notes", "2"])
    assert uri_parameters(f"{URI}?a=1&b=x%20y&a=2&flag=") == {"a": "1", "b": "x y", "flag": ""}
    assert uri_parameters(URI) == {}
    seen: list[dict[str, str]] = []

    def insert(ctx: ProviderContext, values: dict[str, Any]) -> int:
        seen.append(dict(ctx.params))
        return 1

    def rows(ctx: ProviderContext) -> list[Mapping[str, Any]]:
        return [{"_id": 1, "caller": ctx.params.get("caller", "")}]

    table = ProviderTable(name="t", columns=(Column("_id", "INTEGER"), Column("caller")),
                          rows=rows, insert=insert)  # fmt: skip
    resolver.providers["p"] = Provider("p", (table,))
    resolver.insert(state, "content://p/t?caller_is_syncadapter=true&account_name=A", {"x": 1})
    assert seen == [{"caller_is_syncadapter": "true", "account_name": "A"}]
    assert resolver.query(state, "content://p/t/1?caller=me", ["caller"]).rows == [("me",)]
    ids = [row[0] for row in resolver.query(state, f"{URI}?limit=1", ["_id"], sort="_id").rows]
    assert ids == [1, 2, 3]  # parameters never filter rows by themselves
