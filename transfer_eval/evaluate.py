"""``transfer-eval`` end to end: run the paired grid with a progress display, then report."""

from __future__ import annotations

import asyncio

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from bridge.errors import BridgeError
from bridge.schema import EpisodeRecord
from transfer_eval.episode_table import nothing_measured
from transfer_eval.finalize import write_reports
from transfer_eval.paired import PairedConfig, run_paired
from transfer_eval.progress import ProgressLog, finished_before
from transfer_eval.report import Report
from transfer_eval.report_md import headline
from transfer_eval.resume_notes import announce_resume
from transfer_eval.suites import load_suite

__all__ = ["NothingMeasured", "evaluate"]


class NothingMeasured(BridgeError, RuntimeError):
    """Every cell of the run was an infra error: there is nothing to report."""


def evaluate(config: PairedConfig, console: Console) -> Report:
    """Run (or resume) the evaluation and write report.json/.md/.html and the replays.

    Raises:
        NothingMeasured: every cell ended as an infra error (no report is written).
    """
    suite = load_suite(config.suite)
    total = len(suite.entries) * config.repeats * 4
    columns = (
        TextColumn("cells"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.fields[wins]} succeeded · {task.fields[infra]} infra errors"),
    )
    announce_resume(config.out)  # damaged cells are run again: say so first
    before = finished_before(config.out)
    with Progress(*columns, console=console) as progress:
        wins = sum(record.outcome == "success" for record in before)
        bar = progress.add_task("cells", total=total, completed=len(before), wins=wins, infra=0)
        counts = {"wins": wins, "infra": 0}

        log = ProgressLog(config.out / "progress.log", "cells")
        finished = len(before)

        def done(record: EpisodeRecord) -> None:
            nonlocal finished
            counts["wins"] += record.outcome == "success"
            counts["infra"] += record.outcome == "infra_error"
            finished += record.outcome != "infra_error"
            progress.update(bar, advance=record.outcome != "infra_error", **counts)
            log.line(
                f"{finished}/{total} · {counts['wins']} succeeded · "
                f"{counts['infra']} infra errors · {record.episode_id} {record.outcome}"
            )

        store, cells, backend = asyncio.run(run_paired(config, on_done=done))
        progress.update(bar, completed=total)
    failed = nothing_measured(list(store.completed().values()))
    if failed is not None:
        raise NothingMeasured(failed)
    models = [
        r.backend.model
        for r in store.completed().values()
        if "__real__" in r.episode_id and r.backend is not None and r.backend.model
    ]
    if backend == "device":
        langs = ", ".join(sorted({cell.task.lang for cell in cells}))
        console.print(f"tasks were posed in {langs}, the phone's UI language, in both worlds")
    report = write_reports(store, cells, config, backend, models[0] if models else None)
    console.print(headline(report))
    console.print(
        f"report: [bold]{(store.root / 'report.html').resolve()}[/] "
        f"(and report.md, report.json, replays/)"
    )
    return report
