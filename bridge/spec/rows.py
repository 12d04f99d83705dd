"""Which provider rows a spec's fact or check reads: its ``where`` with the truths it names
filled in, narrowed by a :class:`~bridge.taskspec.RowsIn` join, and its epoch-ms values said
as people say them. One function for facts and checks, so both read rows alike.
"""

from __future__ import annotations

import re

from bridge.android_contract import sql_text
from bridge.android_state import AndroidState
from bridge.errors import EnvError
from bridge.phone_time import say_time
from bridge.taskspec import RowsIn, TimeAs, Truths

__all__ = ["bind_truths", "read_rows", "said"]

_TRUTH = re.compile(r"\{truth\.([A-Za-z_]\w*)\}")


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

    return _TRUTH.sub(literal, where)


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
