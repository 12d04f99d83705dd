"""The table ``mgb sim run`` and ``mgb device run`` print when their episodes are done."""

from __future__ import annotations

from collections.abc import Sequence

from rich.table import Table

from bridge.schema import EpisodeRecord

__all__ = ["episodes_table"]


def episodes_table(records: Sequence[EpisodeRecord]) -> Table:
    """One row per episode: outcome, steps, progress, clean, and why it failed when it
    ended on an error (an endpoint down, a phone gone) — the reason a person needs first."""
    table = Table(title="episodes")
    for column in ("episode", "outcome", "steps", "progress", "clean", "error"):
        table.add_column(column, overflow="fold")
    for record in records:
        verdict = record.verdict
        table.add_row(
            record.episode_id,
            record.outcome,
            str(record.steps),
            "" if verdict is None else f"{verdict.progress:.2f}",
            "" if verdict is None else str(verdict.clean),
            record.error or "",
        )
    return table
