"""Provider rows: ``content update``/``delete``/``insert``, one column of the rows a fact
means, and conditions on them. Which rows: a ``where`` with the truths it names filled in,
narrowed by a :class:`RowsIn` join, and epoch-ms values said as people say them — one
reader for facts and checks, so both read rows alike."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import Field, JsonValue

from bridge.android_contract import sql_text
from bridge.android_state import AndroidState, BindValue
from bridge.errors import EnvError
from bridge.phone_time import say_time
from bridge.schema import CheckResult
from bridge.spec.answers import answer_matches
from bridge.spec.base import (
    TRUTH_REF,
    CheckNode,
    EnsureNode,
    FactNode,
    Scalar,
    Seen,
    SpecNode,
    TruthRef,
    Truths,
    equal,
    number,
    resolve,
)
from bridge.spec.clock import TimeAs

__all__ = [
    "DeleteRows",
    "InsertRow",
    "RowsCheck",
    "RowsFact",
    "RowsIn",
    "RowsSelector",
    "UpdateRows",
    "WatchedRows",
    "bind_truths",
    "check_rows",
    "read_rows",
    "said",
    "where_truths",
]


class UpdateRows(EnsureNode):
    """``content update`` of the rows of ``uri`` matching ``where``."""

    op: Literal["update_rows"] = "update_rows"
    uri: str
    where: str
    values: dict[str, BindValue]

    async def pose(self, state: AndroidState) -> None:
        """Update the rows."""
        await state.update(self.uri, self.values, self.where)


class DeleteRows(EnsureNode):
    """``content delete`` of the rows of ``uri`` matching ``where``."""

    op: Literal["delete_rows"] = "delete_rows"
    uri: str
    where: str

    async def pose(self, state: AndroidState) -> None:
        """Delete the rows."""
        await state.delete(self.uri, self.where)


class InsertRow(EnsureNode):
    """``content insert`` of one row into ``uri`` (a task's own alarm: pair it with a
    :class:`DeleteRows` of the same time first, so posing twice leaves one)."""

    op: Literal["insert_row"] = "insert_row"
    uri: str
    values: dict[str, BindValue]

    async def pose(self, state: AndroidState) -> None:
        """Insert the row."""
        await state.insert(self.uri, self.values)


class RowsIn(SpecNode):
    """Only the rows whose ``column`` is one of the ``of`` values of the rows of ``uri``
    matching ``where``: a join done by the judge with two queries, as a phone's provider
    has no joins across its tables (the reminders of the events titled X)."""

    column: str = Field(min_length=1)
    uri: str
    where: str | None = None
    of: str = "_id"


class RowsFact(FactNode):
    """One column of the provider rows matching ``where`` (optionally only the rows whose
    ``number_column`` is the phone number ``number``, as Android compares numbers).

    ``where`` may name truths read before this one: ``{truth.NAME}`` is that truth's main
    value as an SQL literal (the bounds of a day on this phone). ``within`` keeps only rows
    related to another table's rows. ``as_time`` reads an epoch-ms column as people say it
    (:data:`TimeAs`)."""

    source: Literal["rows"] = "rows"
    uri: str
    where: str | None = None
    column: str
    sort: str | None = None
    number_column: str | None = None
    number: str | None = None
    within: RowsIn | None = None
    as_time: TimeAs | None = None
    extract: str | None = None
    """A regular expression: each value becomes its first match (its first group when it
    has one), a value without a match is dropped (the code in an SMS body)."""

    async def read(self, state: AndroidState, truths: Truths) -> list[JsonValue]:
        """The column of each row, in ``sort`` order."""
        columns = [self.column] + ([self.number_column] if self.number_column else [])
        rows = await read_rows(state, self.uri, columns, self.where, self.within, truths, self.sort)
        if self.number_column is not None:
            rows = [r for r in rows if answer_matches("phone", r[self.number_column], self.number)]
        values = await said(state, [row[self.column] for row in rows], self.as_time)
        found = [value for value in values if value is not None]
        return list[JsonValue](found) if self.extract is None else _extracted(found, self.extract)

    def truth_names(self) -> list[str]:
        """The truths its ``where`` and ``within.where`` name."""
        return where_truths(self.where, self.within)


class RowsCheck(CheckNode):
    """A condition on the provider rows matching ``where`` (``column`` of each):

    * ``count``: exactly ``value`` rows;
    * ``any``: some row's column is ``value``;
    * ``all``: at least one row, and every row's column is ``value``;
    * ``only``: exactly one row, and its column is ``value``.

    ``match`` says how a column is compared: ``exact`` text, ``casefold`` text, ``number``
    (phone numbers as Android compares them). A ``guard`` is what the task must not break:
    needed for success, no step of progress. ``where`` may name truths (``{truth.NAME}``),
    ``within`` relates the rows to another table's, ``as_time`` compares an epoch-ms column
    as people say it — as in :class:`RowsFact`.
    """

    check: Literal["rows"] = "rows"
    name: str = Field(min_length=1)
    uri: str
    where: str | None = None
    column: str = "_id"
    expect: Literal["count", "any", "all", "only"]
    value: Scalar | TruthRef = None
    match: Literal["exact", "casefold", "number"] = "exact"
    guard: bool = False
    within: RowsIn | None = None
    as_time: TimeAs | None = None

    async def evaluate(self, state: AndroidState, seen: Seen) -> list[CheckResult]:
        """The condition on the rows now."""
        return [await check_rows(state, self, seen.truths)]

    def truth_names(self) -> list[str]:
        """The truths its ``where``, ``within.where`` and value name."""
        named = [self.value.truth] if isinstance(self.value, TruthRef) else []
        return where_truths(self.where, self.within) + named


class RowsSelector(SpecNode):
    """Rows of ``uri`` matching ``where`` (all rows when None), related to another table's
    rows by ``within`` (the reminders of the event titled X); names no truths."""

    uri: str
    where: str | None = None
    within: RowsIn | None = None

    def truth_names(self) -> list[str]:
        """The truths it names (a selector is read before and after: it may name none)."""
        return where_truths(self.where, self.within)


class WatchedRows(SpecNode):
    """Provider rows snapshotted before and after, keyed by ``_id``."""

    uri: str
    projection: list[str] = Field(min_length=1)


def where_truths(where: str | None, within: RowsIn | None) -> list[str]:
    """The truths a ``where`` and its join's ``where`` name (``{truth.NAME}``)."""
    wheres = [where] + ([within.where] if within is not None else [])
    return [name for text in wheres if text for name in TRUTH_REF.findall(text)]


def bind_truths(where: str | None, truths: Truths) -> str | None:
    """``where`` with every ``{truth.NAME}`` replaced by that truth's main value as an SQL
    literal (numbers bare, text quoted). A spec names only truths read before (its validator
    says so); a world that read no value for one raises :class:`EnvError`."""
    if where is None:
        return None

    def literal(match: re.Match[str]) -> str:
        name = match.group(1)
        if not truths.get(name):
            raise EnvError(f"the spec's where names truth {name!r}, which was not read before")
        value = truths[name][0]
        if isinstance(value, bool) or not isinstance(value, int | float):
            return sql_text(str(value))
        return str(value)

    return TRUTH_REF.sub(literal, where)


async def read_rows(
    state: AndroidState,
    uri: str,
    columns: list[str],
    where: str | None,
    within: RowsIn | None,
    truths: Truths,
    sort: str | None = None,
) -> list[dict[str, str | None]]:
    """The rows of ``uri`` a fact or check means (see :func:`bind_truths`, ``within``)."""
    bound = bind_truths(where, truths)
    if within is not None:
        related = await state.query(
            within.uri, [within.of], bind_truths(within.where, truths), None
        )
        values = sorted({str(row[within.of]) for row in related if row[within.of] is not None})
        members = ",".join(v if v.lstrip("-").isdigit() else sql_text(v) for v in values)
        narrowed = f"{within.column} IN ({members})" if members else "0"
        bound = narrowed if bound is None else f"({bound}) AND {narrowed}"
    return await state.query(uri, columns, bound, sort)


async def said(
    state: AndroidState, values: list[str | None], as_time: TimeAs | None
) -> list[str | None]:
    """``values`` as they are compared: unchanged, or epoch ms said as a date or a time in
    the phone's zone (a value that is not a number becomes None)."""
    if as_time is None:
        return values
    _, zone_name = await state.now()
    return [None if v is None else say_time(v, zone_name, as_time) for v in values]


def _extracted(values: list[str], pattern: str) -> list[JsonValue]:
    """Each value's first match of ``pattern`` (its first group when it has one)."""
    found: list[JsonValue] = []
    for value in values:
        match = re.search(pattern, value)
        if match is not None:
            found.append(match.group(1) if match.groups() else match.group(0))
    return found


def _matches(how: str, actual: str | None, expected: list[JsonValue]) -> bool:
    if actual is None:
        return False
    if how == "number":
        return any(answer_matches("phone", actual, e) for e in expected)
    if how == "casefold":
        return any(actual.casefold() == str(e).casefold() for e in expected)
    return any(equal(actual, e, 0.0) for e in expected)


async def check_rows(state: AndroidState, rule: RowsCheck, truths: Truths) -> CheckResult:
    """A condition on provider rows (see :class:`~bridge.spec.rows.RowsCheck`)."""
    rows = await read_rows(state, rule.uri, [rule.column], rule.where, rule.within, truths)
    values = await said(state, [row[rule.column] for row in rows], rule.as_time)
    expected = resolve(rule.value, truths)
    if rule.expect == "count":
        passed = number(expected[0]) == len(values)
        actual: JsonValue = len(values)
    else:
        hits = [_matches(rule.match, value, expected) for value in values]
        passed = {
            "any": any(hits),
            "all": bool(hits) and all(hits),
            "only": hits == [True],
        }[rule.expect]
        actual = list(values)
    where = f" --where {bind_truths(rule.where, truths)!r}" if rule.where else ""
    if rule.within is not None:
        where += f" (and {rule.within.column} in the {rule.within.of} of {rule.within.uri}"
        where += (
            f" --where {bind_truths(rule.within.where, truths)!r})" if rule.within.where else ")"
        )
    return CheckResult(
        name=rule.name,
        expected=f"{rule.expect} {expected[0] if len(expected) == 1 else expected}",
        actual=actual,
        passed=passed,
        evidence=f"content query --uri {rule.uri} --projection {rule.column}{where}",
        guard=rule.guard,
    )
