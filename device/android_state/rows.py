"""``AdbRows``: provider rows over ``content query/insert/update/delete``, each answer parsed
by :func:`device.shell_output.parse_rows`."""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence

from bridge.android_state import BindValue, Row
from bridge.errors import StateUnavailable
from device.android_state.base import AdbStateBase, bind_argument
from device.shell_output import NO_RESULT, parse_rows

__all__ = ["AdbRows"]


class AdbRows(AdbStateBase):
    """:class:`bridge.android_state.RowsState` over ``adb shell content``."""

    async def query(
        self,
        uri: str,
        projection: Sequence[str],
        where: str | None = None,
        sort: str | None = None,
    ) -> list[Row]:
        """``content query``: rows of ``uri`` matching the SQL ``where``, in ``sort`` order."""
        if not projection:
            raise ValueError(f"a query of {uri} needs at least one projected column")
        arguments = ["--projection", shlex.quote(":".join(projection))]
        if where:
            arguments += ["--where", shlex.quote(where)]
        if sort:
            arguments += ["--sort", shlex.quote(sort)]
        output = await self._content("query", uri, arguments)
        rows = parse_rows(output, projection)
        if not rows and NO_RESULT not in output:
            first = next((line for line in output.splitlines() if line.strip()), "nothing")
            raise StateUnavailable(f"content query of {uri} printed no rows but: {first.strip()}")
        for row in rows:
            if len(row) != len(projection):
                raise StateUnavailable(
                    f"content query of {uri} printed a row without the columns "
                    f"{', '.join(c for c in projection if c not in row)} (does this phone's "
                    "provider ignore the projection?)"
                )
        return rows

    async def insert(self, uri: str, values: Mapping[str, BindValue]) -> None:
        """``content insert`` of one row."""
        await self._content("insert", uri, [bind_argument(c, v) for c, v in values.items()])

    async def update(self, uri: str, values: Mapping[str, BindValue], where: str | None) -> None:
        """``content update`` of the rows matching ``where``."""
        arguments = [bind_argument(c, v) for c, v in values.items()]
        if where:
            arguments += ["--where", shlex.quote(where)]
        await self._content("update", uri, arguments)

    async def delete(self, uri: str, where: str | None) -> None:
        """``content delete`` of the rows matching ``where``."""
        await self._content("delete", uri, ["--where", shlex.quote(where)] if where else [])
