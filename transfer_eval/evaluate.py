"""``transfer-eval`` end to end: run the paired grid with a progress display, then report."""

from __future__ import annotations

import asyncio

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from bridge.records import EpisodeRecord
from bridge.run_lock import check_unlocked
from transfer_eval.episode_table import closing_line, nothing_measured
from transfer_eval.errors import NothingMeasured
from transfer_eval.finalize import write_reports
from transfer_eval.paired import PairedConfig, PairedRun, left_out, run_paired
from transfer_eval.progress import ProgressLog, finished_before
from transfer_eval.report import Report
from transfer_eval.report_md import terminal_headline
from transfer_eval.resume_notes import announce_resume
from transfer_eval.suites import load_suite

__all__ = ["evaluate"]


def evaluate(config: PairedConfig, console: Console) -> Report:
    """Run (or resume) the evaluation and write report.json/.md/.html and the replays.

    Raises:
        NothingMeasured: every cell ended as an infra error (no report is written).
        RunLocked: another process writes ``config.out`` (refused before anything starts).
    """
    check_unlocked(config.out)  # before the bar: a second run gets one line
    suite = load_suite(config.suite)
    posed = len(suite.entries) - len(left_out(suite, config))  # in both worlds
    total = posed * config.repeats * 4
    columns = (
        TextColumn("cells"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.fields[wins]} succeeded · {task.fields[infra]} infra errors"),
    )
    announce_resume(config.out)  # damaged cells are run again: say so first
    before = finished_before(config.out)
    progress = Progress(*columns, console=console)  # shown once every check has passed
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
        progress.update(
            bar,
            advance=record.outcome != "infra_error",
            wins=counts["wins"],
            infra=counts["infra"],
        )
        log.line(
            f"{finished}/{total} · {counts['wins']} succeeded · "
            f"{counts['infra']} infra errors · {record.episode_id} {record.outcome}"
        )

    try:
        run = run_paired(config, on_done=done, on_start=progress.start, suite=suite)
        done_run = asyncio.run(run)
        progress.update(bar, completed=total)
    finally:
        if progress.live.is_started:  # stopping a bar never shown still prints a line
            progress.stop()
    with done_run.store:  # the run stays locked until its reports are written
        return _finish(done_run, config, console)


def _finish(run: PairedRun, config: PairedConfig, console: Console) -> Report:
    """Write the reports of a run whose grid is done; print the headline and the line
    that counts the cells."""
    store, cells, backend = run.store, run.cells, run.backend
    records = store.completed()
    grid = [records[cell.episode_id] for cell in cells if cell.episode_id in records]
    failed = nothing_measured(list(records.values()))
    if failed is not None:
        raise NothingMeasured(failed)
    models = [
        r.backend.model
        for r in records.values()
        if "__real__" in r.episode_id and r.backend is not None and r.backend.model
    ]
    if backend == "device":
        langs = ", ".join(sorted({cell.task.lang for cell in cells}))
        console.print(f"tasks were posed in {langs}, the phone's UI language, in both worlds")
    if run.not_posed:
        console.print(
            f"{len(run.not_posed)} suite entries were left out of both worlds, which one of "
            "them cannot pose (report.md lists them with why)",
            highlight=False,
        )
    device_model = models[0] if models else None
    report = write_reports(store, cells, config, backend, device_model, run.not_posed)
    console.print(terminal_headline(report), markup=False, highlight=False, soft_wrap=True)
    console.print(
        f"report: [bold]{(store.root / 'report.html').resolve()}[/] "
        f"(and report.md, report.json, replays/)"
    )
    console.print(closing_line(grid, "cells"), highlight=False)
    return report
