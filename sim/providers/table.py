"""How a provider is declared: its authority, its tables, their columns and write handlers.

A :class:`ProviderTable` is Android's view of some app state: columns in the order
``content query`` prints them, each with the SQLite type Android's own schema gives it
(``INTEGER`` ids and flags, ``TEXT`` names, numbers and data columns), a function that
computes the rows from the instance state, and handlers that turn an insert, an update or a
delete into changes of that state (through the app's own model functions, so the app and
the provider always agree). The engine (:mod:`sim.providers.engine`) does the rest in
SQLite.

URIs: ``content://AUTHORITY/TABLE`` is every row; ``…/TABLE/ITEM`` the row whose
``item_column`` is ITEM (``_id`` by default, digits only for an ``INTEGER`` column);
``…/TABLE/VIEW[/ITEM]`` the rows whose column has the view's value (``data/phones``). A
URI's query parameters (``…/calendars?caller_is_syncadapter=true&account_name=A``) select
nothing: they reach the handlers as :attr:`ProviderContext.params`, for the table to honour
(Android's providers read such flags the same way).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from sim.errors import SimError

if TYPE_CHECKING:
    from sim.phone import Phone
    from sim.state import InstanceState

__all__ = [
    "Affinity",
    "Column",
    "DeleteHandler",
    "InsertHandler",
    "Provider",
    "ProviderContext",
    "ProviderTable",
    "RowsFn",
    "UpdateHandler",
    "Values",
]

Affinity = Literal["INTEGER", "TEXT", "REAL", "NUMERIC", "BLOB"]
"""A column's declared SQLite type. ``TEXT`` keeps ``0086 139…`` and ``13912345678`` text
(and turns a bound int into its digits, as a phone's ``TEXT`` column does); ``INTEGER``
keeps ints (and turns a bound ``'1'`` into 1); ``BLOB`` keeps values exactly as given."""


@dataclass(frozen=True)
class Column:
    """One column of a table: its name and SQLite type."""

    name: str
    affinity: Affinity = "TEXT"


@dataclass(frozen=True)
class ProviderContext:
    """What a rows function or a write handler works on: the apps, one instance and the
    query parameters of the URI it was called with."""

    phone: Phone
    state: InstanceState
    params: Mapping[str, str] = field(default_factory=dict)
    """The URI's query parameters (``?a=1&b=x`` → ``{"a": "1", "b": "x"}``), decoded."""

    def world(self, app: str) -> Mapping[str, Any]:
        """The read-only world data of ``app``."""
        return self.phone.app(app).world

    def overlay(self, app: str) -> Mapping[str, Any]:
        """The instance's changes to ``app`` for reading (empty when it has none yet)."""
        return self.state.apps.get(app) or {}

    def writable_overlay(self, app: str) -> dict[str, Any]:
        """The instance's changes to ``app`` for writing (created when it has none yet)."""
        return self.state.apps.setdefault(app, self.phone.app(app).initial_overlay())


Values = dict[str, Any]
"""Column -> value of a write, as the table's columns store it."""
RowsFn = Callable[[ProviderContext], Iterable[Mapping[str, Any]]]
"""Computes a table's rows (column -> int, float, str, bytes or None) from the state."""
InsertHandler = Callable[[ProviderContext, Values], int]
"""Inserts one row (values already stored with the columns' affinities); returns its _id."""
UpdateHandler = Callable[[ProviderContext, list[Mapping[str, Any]], Values], None]
"""Applies ``values`` to the matching rows (as the rows function gave them)."""
DeleteHandler = Callable[[ProviderContext, list[Mapping[str, Any]]], None]
"""Deletes the matching rows (as the rows function gave them)."""


@dataclass(frozen=True)
class ProviderTable:
    """A table of a provider (see the module docstring). A handler left None makes that
    operation fail as Android's provider does (``UnsupportedOperationException``)."""

    name: str
    columns: tuple[Column, ...]
    rows: RowsFn
    insert: InsertHandler | None = None
    update: UpdateHandler | None = None
    delete: DeleteHandler | None = None
    item_column: str = "_id"
    """The column the URI's item segment selects (``settings/global/NAME``: ``name``)."""
    views: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    """URI sub-paths that filter a column: ``{"phones": ("mimetype", "…/phone_v2")}``."""
    read_only_reason: str = "this table is read-only"
    """The message of the UnsupportedOperationException a missing handler raises."""

    def __post_init__(self) -> None:
        names = self.column_names
        if len(set(names)) != len(names) or "_id" not in names:
            raise SimError(f"table {self.name!r}: columns must be unique and include _id")
        wanted = {self.item_column, *(column for column, _ in self.views.values())}
        if not wanted <= set(names):
            raise SimError(f"table {self.name!r}: no column {sorted(wanted - set(names))}")

    @property
    def column_names(self) -> tuple[str, ...]:
        """The columns' names, in print order."""
        return tuple(column.name for column in self.columns)

    def column(self, name: str) -> Column | None:
        """The column called ``name``, if the table has it."""
        return next((column for column in self.columns if column.name == name), None)


@dataclass(frozen=True)
class Provider:
    """A content provider: the authority of its URIs and its tables."""

    authority: str
    tables: tuple[ProviderTable, ...]
    aliases: tuple[str, ...] = ()
    """Other authorities that reach it (``contacts`` for ``com.android.contacts``)."""
    invalid_uri: str = "Unknown URI"
    """How this provider's IllegalArgumentException starts for a URI it has no table for."""
    root: str | None = None
    """The table a URI reaches when its path names no table: ``content://sms`` and
    ``content://sms/inbox`` are the ``sms`` table (and its ``inbox`` view) of ``sms``."""
    shell_writes: bool = True
    """Whether the shell's (uid 2000) writes reach it. Android's SMS providers drop them
    silently (the shell's ``WRITE_SMS`` app-op is ``MODE_IGNORED``: no row, no output,
    exit 0); root's are made."""

    def rooted(self, path: list[str]) -> list[str]:
        """``path`` with the :attr:`root` table put first when it names no table."""
        if self.root is not None and (not path or self.table(path[0]) is None):
            return [self.root, *path]
        return path

    def table(self, name: str) -> ProviderTable | None:
        """The table ``name``, None if the provider has none."""
        return next((table for table in self.tables if table.name == name), None)
