"""Leave the phone as the episode found it: remember what a spec may change, put it back.

A phone is not reset between episodes, so whatever one episode did (its posing included:
the contacts, events and messages a spec inserts) would be the next one's start. Before a
spec is posed, :func:`remember` reads what the episode may change — every settings
namespace, the full rows of every provider table the spec touches or watches (by
authority: a task on events may leave reminders too; the table of an app's own provider by
the columns the spec watches), and whether each task folder it
uses was there; after the verdict, :func:`put_back` writes it back through the same
:class:`~bridge.android_state.AndroidState` protocol that posed it, reads again, and says
what it restored and what it could not (a write the phone refused, an SMS a retail phone
without ``su`` cannot take back), so nothing left over goes unnoticed.

Rows are matched by ``_id``: an inserted row is deleted, an updated one gets its columns
back, a deleted one is inserted again (a new ``_id``; rows that hang under it are inserted
under the new one). Whether the phone holds what it held is checked on content, ``_id`` and
the columns naming other rows aside.
"""

from __future__ import annotations

import fnmatch
from collections import Counter
from collections.abc import Awaitable, Iterable, Sequence
from dataclasses import dataclass, field

from pydantic import BaseModel, ConfigDict, Field

from bridge.android_contract import (
    ALARMS,
    CALENDARS,
    CONTACTS,
    DATA,
    EVENTS,
    RAW_CONTACTS,
    REMINDERS,
    SMS,
    SMS_TYPE_INBOX,
    as_sync_adapter,
)
from bridge.android_state import (
    NAMESPACES,
    TASK_FILES_ROOT,
    AndroidState,
    BindValue,
    Namespace,
    Row,
)
from bridge.errors import EnvError, StateUnavailable
from bridge.observed import volatile_settings
from bridge.schema import Restoration
from bridge.spec.alarms import NextAlarmCheck, NextAlarmFact
from bridge.spec.calendar import EnsureCalendar, EnsureEvent
from bridge.spec.contacts import EnsureContact
from bridge.spec.files import EnsureFolder, folder_tree
from bridge.spec.rows import DeleteRows, InsertRow, RowsCheck, RowsFact, UpdateRows
from bridge.spec.sms import DeliverSms
from bridge.taskspec import TaskSpec

__all__ = [
    "TABLES",
    "Found",
    "Table",
    "put_back",
    "read",
    "remember",
    "touched_tables",
    "watched_table",
]


@dataclass(frozen=True)
class Table:
    """A provider table as restoring sees it: what is read and written back, and how."""

    uri: str
    columns: tuple[str, ...]
    """Read before and after (``_id`` first); inserted back when a row was deleted."""
    updatable: tuple[str, ...] = ()
    """The columns an update may write back (a changed row's others cannot be)."""
    parent: tuple[str, str] | None = None
    """``(column, table uri)``: the row hangs under a row of that table (re-inserted rows
    get the parent's new ``_id``)."""
    where: str | None = None
    """Rows that exist (Android keeps deleted raw contacts with ``deleted=1``)."""
    insertable: bool = True
    deletable: bool = True
    key: str | None = None
    """Rows of a view the provider makes itself (contacts aggregate raw contacts) are
    matched by this column, not by ``_id``: their ids follow the rows they are made of."""

    @property
    def authority(self) -> str:
        """The provider's authority (``com.android.calendar``)."""
        return _authority(self.uri)

    @property
    def compared(self) -> tuple[str, ...]:
        """The columns whose values say whether a row is back (ids of rows aside)."""
        skip = {"_id", self.parent[0] if self.parent else ""}
        return tuple(column for column in self.columns if column not in skip)


_EVENT_COLUMNS = (
    "title",
    "dtstart",
    "dtend",
    "allDay",
    "eventTimezone",
    "eventLocation",
    "description",
)
_ALARM_COLUMNS = (
    "hour",
    "minutes",
    "daysofweek",
    "enabled",
    "vibrate",
    "label",
    "delete_after_use",
)
TABLES: tuple[Table, ...] = (
    Table(
        CALENDARS,
        (
            "_id",
            "account_name",
            "account_type",
            "name",
            "calendar_displayName",
            "calendar_access_level",
            "ownerAccount",
            "visible",
            "sync_events",
            "calendar_color",
            "calendar_timezone",
        ),
    ),
    Table(
        EVENTS,
        ("_id", "calendar_id", *_EVENT_COLUMNS),
        updatable=_EVENT_COLUMNS,
        parent=("calendar_id", CALENDARS),
    ),
    Table(
        REMINDERS,
        ("_id", "event_id", "minutes", "method"),
        updatable=("minutes", "method"),
        parent=("event_id", EVENTS),
    ),
    Table(ALARMS, ("_id", *_ALARM_COLUMNS), updatable=_ALARM_COLUMNS),
    Table(RAW_CONTACTS, ("_id", "account_type", "account_name"), where="deleted=0"),
    Table(
        DATA,
        ("_id", "raw_contact_id", "mimetype", "data1", "data2", "data3", "data4"),
        updatable=("data1", "data2", "data3", "data4"),
        parent=("raw_contact_id", RAW_CONTACTS),
    ),
    Table(
        CONTACTS,
        ("_id", "display_name", "starred"),
        updatable=("starred",),
        insertable=False,
        deletable=False,
        key="display_name",
    ),
    Table(SMS, ("_id", "address", "type", "read", "body", "date")),
)
"""Every table a spec may change, parents before the rows that hang under them."""

_BY_URI = {table.uri: table for table in TABLES}
_SETTINGS_FIRST = ("global.airplane_mode_on",)
"""Put back before the others: turning airplane mode off turns radios on again."""


def _authority(uri: str) -> str:
    rest = uri.split("://", 1)[-1]
    return "sms" if rest.split("/", 1)[0] in ("sms", "mms-sms") else rest.split("/", 1)[0]


def _spec_uris(spec: TaskSpec) -> Iterable[str]:
    yield from (watched.uri for watched in spec.watch)
    yield from (selector.uri for selector in spec.expected.rows)
    for check in spec.checks:
        if isinstance(check, RowsCheck):
            yield check.uri
        elif isinstance(check, NextAlarmCheck):
            yield ALARMS  # the alarm an agent sets is a row of the Clock app's
    for truth in spec.truths:
        for fact in (truth.fact, *truth.also):
            if isinstance(fact, RowsFact):
                yield fact.uri
            elif isinstance(fact, NextAlarmFact):
                yield ALARMS
    for op in spec.ensure:
        if isinstance(op, (InsertRow, UpdateRows, DeleteRows)):
            yield op.uri
        elif isinstance(op, EnsureContact):
            yield RAW_CONTACTS
        elif isinstance(op, (EnsureCalendar, EnsureEvent)):
            yield EVENTS
        elif isinstance(op, DeliverSms):
            yield SMS


def watched_table(uri: str, columns: Sequence[str]) -> Table:
    """A table of an app restoring knows nothing else of (one added as a folder, with its
    own provider): its rows matched by ``_id``, every other column read and written back."""
    rest = tuple(column for column in columns if column != "_id")
    return Table(uri, ("_id", *rest), updatable=rest)


def touched_tables(spec: TaskSpec) -> list[Table]:
    """The tables of every provider ``spec`` touches or watches, in :data:`TABLES` order;
    then each table it watches of a provider :data:`TABLES` does not know, with the
    columns it watches (:func:`watched_table`)."""
    authorities = {_authority(uri) for uri in _spec_uris(spec)}
    known = {table.authority for table in TABLES}
    tables = [table for table in TABLES if table.authority in authorities]
    for watched in spec.watch:
        if _authority(watched.uri) not in known:
            tables.append(watched_table(watched.uri, watched.projection))
    return tables


def _task_folders(spec: TaskSpec) -> list[str]:
    names = [folder.folder for folder in spec.watch_folders]
    names += [op.folder for op in spec.ensure if isinstance(op, EnsureFolder)]
    return [f"{TASK_FILES_ROOT}/{name}" for name in dict.fromkeys(names)]


class Found(BaseModel):
    """What the phone held before the spec was posed (:func:`remember`)."""

    model_config = ConfigDict(extra="forbid")

    settings: dict[str, dict[str, str]] = Field(default_factory=dict)
    rows: dict[str, list[Row]] = Field(default_factory=dict)
    unreadable: dict[str, str] = Field(default_factory=dict)
    """Tables this phone would not let us read (uri -> why): nothing to put back there."""
    folders: dict[str, dict[str, str] | None] = Field(default_factory=dict)
    """Each task folder's entries (None: it was not there)."""
    watched: dict[str, list[str]] = Field(default_factory=dict)
    """Tables read that :data:`TABLES` does not know (uri -> the columns read, ``_id``
    first): an app's own provider, put back as :func:`watched_table` says."""

    def tables(self) -> list[Table]:
        """The tables whose rows were read, parents before the rows under them."""
        known = [table for table in TABLES if table.uri in self.rows]
        return known + [
            watched_table(uri, columns) for uri, columns in self.watched.items() if uri in self.rows
        ]


async def _read_table(state: AndroidState, table: Table) -> list[Row]:
    return await state.query(table.uri, list(table.columns), table.where, "_id")


async def remember(spec: TaskSpec, state: AndroidState) -> Found:
    """Read what an episode of ``spec`` may change, before it is posed."""
    return await read(state, touched_tables(spec), _task_folders(spec))


async def read(
    state: AndroidState, tables: Sequence[Table] = TABLES, folders: Sequence[str] = ()
) -> Found:
    """Read every settings namespace, the rows of ``tables`` (a table this phone will not
    let us read is noted, not raised) and whether each task folder is there: what
    :func:`put_back` can make a phone hold again — or make another world hold (the
    simulator twin of a real phone starts from what the phone holds)."""
    found = Found(settings={ns: await state.list_settings(ns) for ns in NAMESPACES})
    for table in tables:
        if table.uri not in _BY_URI:
            found.watched[table.uri] = list(table.columns)
        try:
            found.rows[table.uri] = await _read_table(state, table)
        except StateUnavailable as exc:
            found.unreadable[table.uri] = str(exc)
    for path in folders:
        there = await state.stat_path(path) is not None
        found.folders[path] = await folder_tree(state, path.rsplit("/", 1)[1]) if there else None
    return found


@dataclass
class _Restoring:
    """One put-back: the phone, what it held, and the running account of it."""

    state: AndroidState
    found: Found
    volatile: tuple[str, ...]
    restored: list[str] = field(default_factory=list)
    refused: dict[str, str] = field(default_factory=dict)
    new_ids: dict[tuple[str, str], str] = field(default_factory=dict)
    """(table uri, old ``_id``) -> the ``_id`` its re-inserted row got."""

    async def attempt(self, what: str, write: Awaitable[object]) -> bool:
        """Carry out one write back; a refusal is noted under ``what``, never raised."""
        try:
            await write
        except (StateUnavailable, EnvError) as exc:
            self.refused[what] = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            return False
        self.restored.append(what)
        return True

    # ---- settings
    def _volatile(self, name: str) -> bool:
        return any(fnmatch.fnmatchcase(name, glob) for glob in self.volatile)

    async def _setting_changes(self) -> list[tuple[Namespace, str, str | None]]:
        changes = []
        for ns in NAMESPACES:
            old, new = self.found.settings.get(ns, {}), await self.state.list_settings(ns)
            for key in sorted(set(old) | set(new)):
                if old.get(key) != new.get(key) and not self._volatile(f"{ns}.{key}"):
                    changes.append((ns, key, old.get(key)))
        first = {name: rank for rank, name in enumerate(_SETTINGS_FIRST)}
        return sorted(changes, key=lambda c: first.get(f"{c[0]}.{c[1]}", len(first)))

    async def settings(self) -> None:
        for ns, key, value in await self._setting_changes():
            name = f"{ns}.{key}"
            if value is None:
                await self.attempt(name, self.state.delete_setting(ns, key))
            else:
                await self.attempt(name, self.state.put_setting(ns, key, value))

    # ---- rows
    def _values(self, table: Table, row: Row, columns: Sequence[str]) -> dict[str, BindValue]:
        """``row``'s values of ``columns`` to bind (NULL as None), parents' new ids in."""
        values: dict[str, BindValue] = {}
        for column in columns:
            value = row.get(column)
            if table.parent is not None and column == table.parent[0] and value is not None:
                value = self.new_ids.get((table.parent[1], value), value)
            values[column] = int(value) if value is not None and _is_int(value) else value
        return values

    async def _delete(self, table: Table, row: Row) -> None:
        where = f"_id={row['_id']}"
        if table.uri == SMS:
            await self.state.delete_sms(where)
        elif table.uri == CALENDARS:
            account = as_sync_adapter(CALENDARS, str(row["account_name"]), str(row["account_type"]))
            await self.state.delete(account, where)
        else:
            await self.state.delete(table.uri, where)

    async def _insert(self, table: Table, row: Row) -> None:
        if table.uri == SMS:
            if row.get("type") != str(SMS_TYPE_INBOX):
                raise StateUnavailable("only a received SMS can be delivered again")
            date = int(str(row["date"]))
            await self.state.deliver_sms(
                str(row["address"]), str(row["body"]), date, row.get("read") == "1"
            )
            return
        uri = table.uri
        if uri == CALENDARS:
            uri = as_sync_adapter(CALENDARS, str(row["account_name"]), str(row["account_type"]))
        await self.state.insert(uri, self._values(table, row, table.columns[1:]))
        newest = await self.state.query(table.uri, ["_id"], table.where, "_id DESC")
        if newest:
            self.new_ids[(table.uri, str(row["_id"]))] = str(newest[0]["_id"])

    async def rows(self) -> None:
        tables = self.found.tables()
        now = {table.uri: await _read_table(self.state, table) for table in tables}
        for table in reversed(tables):  # rows added by the episode, those hanging under first
            old = {row["_id"] for row in self.found.rows[table.uri]}
            for row in now[table.uri]:
                if row["_id"] not in old and table.deletable:
                    await self.attempt(
                        f"{table.uri}/{row['_id']} deleted", self._delete(table, row)
                    )
        for table in [t for t in tables if t.key is None]:  # rows removed, parents first
            new = {row["_id"]: row for row in now[table.uri]}
            for row in self.found.rows[table.uri]:
                current = new.get(row["_id"])
                if current is None and table.insertable:
                    await self.attempt(
                        f"{table.uri}/{row['_id']} inserted again", self._insert(table, row)
                    )
                elif current is not None and current != row:
                    await self._update(table, row, current)
        for table in [t for t in tables if t.key is not None]:  # views: after their rows
            await self._update_view(table)

    async def _update_view(self, table: Table) -> None:
        """Give a view's rows their updatable columns back, each matched by ``table.key``
        (a key two rows share is left alone: which is which cannot be told)."""
        assert table.key is not None
        key = table.key
        now = await _read_table(self.state, table)
        counts = Counter(row.get(key) for row in now)
        by_key = {row.get(key): row for row in now if counts[row.get(key)] == 1}
        for row in self.found.rows[table.uri]:
            current = by_key.get(row.get(key))
            if current is None:
                continue
            changed = [c for c in table.updatable if row.get(c) != current.get(c)]
            if changed:
                what = f"{table.uri}/{current['_id']} updated back"
                values = self._values(table, row, changed)
                await self.attempt(
                    what, self.state.update(table.uri, values, f"_id={current['_id']}")
                )

    async def _update(self, table: Table, row: Row, current: Row) -> None:
        what = f"{table.uri}/{row['_id']} updated back"
        changed = [c for c in table.columns if row.get(c) != current.get(c)]
        if table.uri == SMS:  # the shell cannot update SMS: take the row back and deliver it
            await self.attempt(what, self._redeliver(table, row))
        elif all(column in table.updatable for column in changed):
            values = self._values(table, row, changed)
            await self.attempt(what, self.state.update(table.uri, values, f"_id={row['_id']}"))
        else:
            fixed = ", ".join(c for c in changed if c not in table.updatable)
            self.refused[what] = f"{fixed} cannot be written back"

    async def _redeliver(self, table: Table, row: Row) -> None:
        await self._delete(table, row)
        await self._insert(table, row)

    # ---- files
    async def folders(self) -> None:
        for path, entries in self.found.folders.items():
            there = await self.state.stat_path(path) is not None
            if entries is None:
                if there:
                    await self.attempt(f"{path} removed", self.state.remove(path))
            elif not there or await folder_tree(self.state, path.rsplit("/", 1)[1]) != entries:
                self.refused[path] = "it was there before and its files are not read back"

    # ---- the check
    async def leftovers(self) -> dict[str, str]:
        """What still differs from what was found (name -> what it is now)."""
        left = {f"{ns}.{key}": f"is {value!r}" for ns, key, value in await self._now_settings()}
        for table in self.found.tables():
            rows = self.found.rows[table.uri]
            now = await _read_table(self.state, table)
            if _contents(table, now) != _contents(table, rows):
                left[table.uri] = f"holds {len(now)} rows, {len(rows)} before"
        return left

    async def _now_settings(self) -> list[tuple[Namespace, str, str | None]]:
        changes = []
        for ns, key, _old in await self._setting_changes():
            changes.append((ns, key, await self.state.get_setting(ns, key)))
        return changes


def _is_int(value: str) -> bool:
    return value.lstrip("-").isdigit() and (value == "0" or not value.lstrip("-").startswith("0"))


def _contents(table: Table, rows: Iterable[Row]) -> Counter[tuple[str | None, ...]]:
    return Counter(tuple(row.get(c) for c in table.compared) for row in rows)


async def put_back(state: AndroidState, found: Found, volatile: Iterable[str] = ()) -> Restoration:
    """Make ``state`` hold what ``found`` says again (what an episode changed since
    :func:`remember` read it), then read again: what still differs is ``not_restored``,
    with the phone's reason when it refused a write (``volatile``: globs of
    ``namespace.key`` the phone rewrites itself, left alone)."""
    work = _Restoring(state, found, (*volatile_settings(), *volatile))
    await work.settings()
    await work.rows()
    await work.folders()
    left = await work.leftovers()
    not_restored = [f"{name}: {why}" for name, why in work.refused.items()]
    for name, now in left.items():
        if not any(item.startswith(f"{name}: ") for item in not_restored):
            not_restored.append(f"{name}: {now} after putting it back")
    not_restored += [f"{uri}: not read ({why})" for uri, why in found.unreadable.items()]
    restored = [item for item in work.restored if item not in work.refused]
    return Restoration(restored=restored, not_restored=not_restored)
