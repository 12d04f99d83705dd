"""The tables of episodes the CLIs print: ``mgb sim run`` and ``mgb device run`` when their
episodes are done, ``mgb replay`` for a run directory."""

from __future__ import annotations

from collections.abc import Sequence

from rich.table import Table

from bridge.records import EpisodeRecord
from transfer_eval.episode_view import EpisodeSummary

__all__ = ["closing_line", "episodes_table", "nothing_measured", "run_table"]


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


def run_table(summaries: Sequence[EpisodeSummary], title: str) -> Table:
    """One row per episode of a run: task, outcome, steps, how it ended and, when its steps
    say who decided them (a console run), how many a person overrode or approved."""
    decided = any(summary.decided for summary in summaries)
    table = Table(title=title)
    table.add_column("episode", no_wrap=True)  # whole, to copy into --episode
    table.add_column("task", no_wrap=True)
    who = ("overridden / approved",) if decided else ()
    for column in ("outcome", "steps", *who, "termination"):
        table.add_column(column, overflow="fold")
    for summary in summaries:
        record = summary.record
        counts = (f"{summary.overridden} / {summary.approved}",) if decided else ()
        table.add_row(
            record.episode_id,
            record.task.task_id,
            record.outcome,
            str(record.steps),
            *counts,
            record.termination,
        )
    return table


def nothing_measured(records: Sequence[EpisodeRecord]) -> str | None:
    """Why a run measured nothing — every episode an infra error — naming the first error
    and how to go on; None when at least one episode was judged. Such a run exits non-zero."""
    if not records or any(record.outcome != "infra_error" for record in records):
        return None
    first = records[0]
    return (
        f"every one of the {len(records)} episodes was an infra error, so nothing was measured "
        f"(first: {first.error}); fix that and run the same command again: the run resumes"
    )


def closing_line(records: Sequence[EpisodeRecord], what: str = "episodes") -> str:
    """The line every run ends with: how many ``what`` it holds, how many were judged and
    how many ended in an infra error (which the next run of the same command retries), e.g.
    ``12 episodes: 10 judged, 2 infra errors (retried on the next run of this command)``."""
    infra = sum(record.outcome == "infra_error" for record in records)
    line = (
        f"{_count(len(records), what)}: {len(records) - infra} judged, "
        f"{_count(infra, 'infra errors')}"
    )
    return f"{line} (retried on the next run of this command)" if infra else line


def _count(n: int, plural: str) -> str:
    """``1 episode``, ``2 episodes``: ``plural`` ends in ``s``."""
    return f"{n} {plural if n != 1 else plural.removesuffix('s')}"
