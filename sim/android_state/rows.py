"""``SimRows``: provider rows through :class:`sim.providers.ContentResolver` over the apps'
declared tables, each value printed by :func:`sim.providers.format_value` (None for NULL).
SMS rows are written as the shell writes them: never (their providers say so,
:attr:`sim.providers.table.Provider.shell_writes`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from bridge.android_state import BindValue, Row
from sim.android_state.base import SimStateBase
from sim.providers import cell_text

__all__ = ["SimRows"]


class SimRows(SimStateBase):
    """:class:`bridge.android_state.RowsState` over the instance's providers."""

    def _shell_may_write(self, uri: str) -> bool:
        """Whether a shell's ``content`` write of ``uri`` reaches its provider."""
        return self._provider_call(lambda: self.resolver.shell_may_write(uri))

    async def query(
        self,
        uri: str,
        projection: Sequence[str],
        where: str | None = None,
        sort: str | None = None,
    ) -> list[Row]:
        """``content query``: every projected column as ``content query`` prints it."""
        cursor = self._provider_call(
            lambda: self.resolver.query(self.state, uri, list(projection), where, sort)
        )
        return [dict(zip(cursor.columns, map(cell_text, row), strict=True)) for row in cursor.rows]

    async def insert(self, uri: str, values: Mapping[str, BindValue]) -> None:
        """``content insert`` of one row (an SMS one does nothing, as the shell's does)."""
        if self._shell_may_write(uri):
            self._provider_call(lambda: self.resolver.insert(self.state, uri, values))
            self._changed()

    async def update(self, uri: str, values: Mapping[str, BindValue], where: str | None) -> None:
        """``content update`` of the rows matching ``where`` (not SMS rows: see insert)."""
        if self._shell_may_write(uri):
            self._provider_call(lambda: self.resolver.update(self.state, uri, values, where))
            self._changed()

    async def delete(self, uri: str, where: str | None) -> None:
        """``content delete`` of the rows matching ``where`` (not SMS rows: see insert)."""
        if self._shell_may_write(uri):
            self._provider_call(lambda: self.resolver.delete(self.state, uri, where))
            self._changed()
