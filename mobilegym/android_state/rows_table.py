"""How a synthesized Android table is declared: where in MobileGym's state its rows come from,
how they are computed, how writes go back, and the stable ``_id`` every row carries.

A :class:`Table` is to this world what a ``ProviderTable`` is to our simulator: a
:class:`~mobilegym.android_state.sql_rows.SqlTable` (columns and types), a pure function from
the JSON at :attr:`Table.path` of ``__SIM__.getState()`` to rows, and write handlers that turn
an Android insert, update or delete into MobileGym's own shapes, written through its content
resolver (``__OS__.content``) where it has one and ``__SIM__.setState`` where not.

**Stable ids.** MobileGym's ids are strings (``c_zhangsan``, ``evt_k3j…``); Android's are
numbers, and an update by ``_id`` must hit the row the judge read. :func:`stable_ids` derives
them deterministically: a row this world created carries its number in its MobileGym id
(``c_mgb1000001``: :func:`own_id`), chosen larger than every ``_id`` the table holds (so "the
newest row has the largest ``_id``" holds, as on a phone); any other id is hashed into
``[10**6, 2**31)``, a collision resolved by the next free number in the order of the ids.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any
from zoneinfo import ZoneInfo

from bridge.android_state import BindValue
from mobilegym.android_state.base import read_json, unavailable
from mobilegym.android_state.sql_rows import SqlTable, SynthRow
from mobilegym.page import MobileGymPage

__all__ = [
    "Seen",
    "Table",
    "Values",
    "content_call",
    "flag",
    "next_id",
    "numbered",
    "own_id",
    "own_number",
    "read_seen",
    "stable_ids",
    "whole",
]

Values = Mapping[str, BindValue]
"""The column values of a write, as the judge binds them."""

_OWN = re.compile(r"^[a-z]+_mgb(\d+)(?:_\d+)?$")
_HASHED_FROM = 1_000_000
_HASHED_SPAN = 2**31 - _HASHED_FROM


@dataclass(frozen=True)
class Seen:
    """What a table's rows are computed from: the JSON at its path and the page's clock.

    Attributes:
        data: The value at :attr:`Table.path` of ``__SIM__.getState()`` (None when absent).
        now_ms: MobileGym's clock (epoch ms).
        zone_name: The zone the page runs in (MobileGym has none of its own).
    """

    data: Any
    now_ms: int
    zone_name: str

    @property
    def zone(self) -> ZoneInfo:
        """The page's zone."""
        return ZoneInfo(self.zone_name)


RowsFn = Callable[[Seen], list[SynthRow]]
InsertFn = Callable[[MobileGymPage, Seen, Values], Awaitable[None]]
UpdateFn = Callable[[MobileGymPage, Seen, list[SynthRow], Values], Awaitable[None]]
DeleteFn = Callable[[MobileGymPage, Seen, list[SynthRow]], Awaitable[None]]


@dataclass(frozen=True)
class Table:
    """One synthesized Android table (module docstring).

    Attributes:
        sql: Its columns and the Android columns MobileGym does not hold.
        path: Where its rows come from in ``__SIM__.getState()``.
        rows: Computes the rows from what is at ``path``.
        insert, update, delete: The write handlers; None refuses that write with
            ``refused`` as the reason.
        refused: Why a write without a handler cannot be made.
        views: URI sub-paths that filter a column (``data/phones``, ``sms/inbox``).
        shell_drops_writes: Writes do nothing and say nothing, as the shell's writes of
            SMS on a phone (its ``WRITE_SMS`` app-op is ignored).
        holds: Per column, why MobileGym cannot hold a value there (None when it can): a
            goal such as an alarm repeating on Tuesdays and Thursdays is out of its reach.
    """

    sql: SqlTable
    path: tuple[str, ...]
    rows: RowsFn
    insert: InsertFn | None = None
    update: UpdateFn | None = None
    delete: DeleteFn | None = None
    refused: str = "this table is read-only"
    views: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    shell_drops_writes: bool = False
    holds: Mapping[str, Callable[[BindValue], str | None]] = field(default_factory=dict)


async def read_seen(page: MobileGymPage, path: tuple[str, ...], zone_name: str) -> Seen:
    """The JSON at ``path`` of ``__SIM__.getState()`` and the clock, in one call."""
    found = await read_json(
        page,
        """(path) => ({
          data: path.reduce((o, k) => (o == null ? null : o[k]), window.__SIM__.getState()),
          now: window.__SIM_TIME__.now(),
        })""",
        list(path),
    )
    return Seen(data=found["data"], now_ms=int(found["now"]), zone_name=zone_name)


async def content_call(page: MobileGymPage, op: str, uri: str, *args: Any) -> Any:
    """``__OS__.content.<op>(uri, *args)``: MobileGym's own content resolver, which keeps its
    stores' bookkeeping and tells the apps' observers."""
    return await page.call(
        "([op, uri, args]) => window.__OS__.content[op](uri, ...args)", [op, uri, list(args)]
    )


def own_number(key: str) -> int | None:
    """The ``_id`` a MobileGym id made by this world carries (``c_mgb7`` -> 7), else None."""
    found = _OWN.match(key)
    return int(found.group(1)) if found else None


def own_id(prefix: str, number: int, suffix: str = "") -> str:
    """A MobileGym id for a row this world creates, carrying its ``_id``: ``c_mgb7``."""
    return f"{prefix}_mgb{number}" + (f"_{suffix}" if suffix else "")


def _hashed(key: str) -> int:
    digest = hashlib.blake2b(key.encode("utf-8"), digest_size=8).digest()
    return _HASHED_FROM + int.from_bytes(digest, "big") % _HASHED_SPAN


def stable_ids(keys: Iterable[str]) -> dict[str, int]:
    """MobileGym id -> ``_id`` for every id of a table (module docstring)."""
    unique = sorted(set(keys))
    taken: dict[int, str] = {}
    for key in sorted(unique, key=lambda k: own_number(k) is None):  # own ids first
        number = own_number(key)
        number = _hashed(key) if number is None else number
        while number in taken:
            number += 1
        taken[number] = key
    return {key: number for number, key in taken.items()}


def numbered(seen: Seen) -> list[tuple[int, dict[str, Any]]]:
    """The objects of the list at a table's path (those with a string ``id``), each with its
    stable ``_id``, in MobileGym's order."""
    items = [i for i in seen.data or [] if isinstance(i, dict) and isinstance(i.get("id"), str)]
    ids = stable_ids(item["id"] for item in items)
    return [(ids[item["id"]], item) for item in items]


def next_id(ids: Iterable[int]) -> int:
    """The ``_id`` of a new row: one more than the largest the table holds (1 when empty)."""
    return max(ids, default=0) + 1


def flag(value: BindValue) -> bool:
    """A bound flag: ``1``, ``'1'``, True are set; ``0``, ``'0'``, ``''``, None are not."""
    if isinstance(value, str):
        return value.strip() not in ("", "0")
    return bool(value)


def whole(value: BindValue, what: str) -> int:
    """A bound whole number (``5``, ``'5'``); anything else is refused naming ``what``."""
    text = str(value).strip() if value is not None and not isinstance(value, bool) else ""
    if not text.lstrip("-").isdigit():
        unavailable(f"{what} {value!r}", "it must be a whole number")
    return int(text)
