"""``content://settings/system|secure|global[/NAME]``: the settings provider.

Columns ``_id, name, value`` (``value`` is the text ``settings get`` prints, NULL for a null
setting); ``_id`` numbers the names in sorted order. Writes are ``settings put`` writes
(:func:`sim.settings_store.put_setting`: stored typed, no service reacts): insert with
``--bind name:s:KEY --bind value:s:VALUE``, update sets ``value`` of the matching names,
delete removes them.

Android's SettingsProvider only accepts a where of the form ``name=?`` or ``name='KEY'``;
this one runs any SQLite where.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any

from sim.providers.errors import ProviderError
from sim.providers.table import Column, Provider, ProviderContext, ProviderTable, Values
from sim.settings_store import delete_setting, put_setting, setting_text

__all__ = ["NAMESPACES", "settings_provider"]

NAMESPACES = ("system", "secure", "global")
"""The settings tables, as URI paths."""


def _rows(namespace: str, ctx: ProviderContext) -> list[dict[str, Any]]:
    store = ctx.state.os.settings.get(namespace, {})
    return [
        {"_id": index + 1, "name": key, "value": setting_text(store[key])}
        for index, key in enumerate(sorted(store))
    ]


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def _insert(namespace: str, ctx: ProviderContext, values: Values) -> int:
    if not values.get("name"):
        raise ProviderError("name is required")
    name = str(values["name"])
    put_setting(ctx.state, namespace, name, _text(values.get("value")))
    return sorted(ctx.state.os.settings[namespace]).index(name) + 1


def _update(
    namespace: str, ctx: ProviderContext, rows: list[Mapping[str, Any]], values: Values
) -> None:
    if "value" not in values:
        raise ProviderError("only value can be updated: --bind value:s:VALUE")
    for row in rows:
        put_setting(ctx.state, namespace, str(row["name"]), _text(values["value"]))


def _delete(namespace: str, ctx: ProviderContext, rows: list[Mapping[str, Any]]) -> None:
    for row in rows:
        delete_setting(ctx.state, namespace, str(row["name"]))


def _table(namespace: str) -> ProviderTable:
    return ProviderTable(
        name=namespace,
        columns=(Column("_id", "INTEGER"), Column("name"), Column("value")),
        rows=partial(_rows, namespace),
        insert=partial(_insert, namespace),
        update=partial(_update, namespace),
        delete=partial(_delete, namespace),
        item_column="name",
    )


def settings_provider() -> Provider:
    """The ``settings`` provider (every simulated phone has it)."""
    return Provider("settings", tuple(_table(ns) for ns in NAMESPACES), invalid_uri="Invalid URI")
