"""Progress of long work that a person can follow on a terminal and off one: the console
every command prints on, a timestamped log file, and the bar of a batch of episodes that
starts where a resumed run stopped."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from bridge.errors import BridgeError
from bridge.schema import EpisodeRecord
from bridge.trajectory import RunStore

__all__ = ["ProgressLog", "console", "episode_progress", "finished_before"]

console = Console()
"""The console every command prints on."""


class ProgressLog:
    """Progress of long work that a person can follow anywhere: every update is a plain
    timestamped line appended to ``path`` (``RUN/progress.log``), and printed to stderr too
    when stdout is not a terminal (nohup, slurm, CI), where Rich draws no bar."""

    def __init__(self, path: Path | None, what: str) -> None:
        """``path``: the log file (its folder is made); ``what``: the line's first word."""
        self.path = path
        self.what = what
        self.on_terminal = console.is_terminal

    def line(self, text: str) -> None:
        """Log ``text`` with the time (and print it off a terminal)."""
        stamped = f"{datetime.now().isoformat(timespec='seconds')} {self.what} {text}"
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as log:
                log.write(stamped + "\n")
        if not self.on_terminal:
            print(stamped, file=sys.stderr, flush=True)


def finished_before(out: Path) -> list[EpisodeRecord]:
    """The episodes a run in ``out`` already finished (not the infra errors it will retry,
    nor the damaged ones it will run again), so a resumed run's progress starts where it
    stopped; none for a new or unreadable run (the run itself will say what is wrong)."""
    if not (out / "manifest.json").exists():
        return []
    try:
        store = RunStore.open(out)
        records, damaged = store.completed().values(), store.damaged()
    except BridgeError:
        return []
    return [r for r in records if r.outcome != "infra_error" and r.episode_id not in damaged]


@contextmanager
def episode_progress(
    out: Path, episode_ids: Sequence[str]
) -> Iterator[Callable[[EpisodeRecord], None]]:
    """The progress of a batch of episodes into the run ``out``: a Rich bar on a terminal and
    a line per finished episode in ``out/progress.log``; yields the ``on_done`` callback. A
    resumed run starts at what ``out`` already holds of ``episode_ids``."""
    wanted = set(episode_ids)
    before = [r for r in finished_before(out) if r.episode_id in wanted]
    total = len(wanted)
    wins = sum(record.outcome == "success" for record in before)
    finished = len(before)
    columns = (
        TextColumn("episodes"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.fields[wins]} succeeded"),
    )
    log = ProgressLog(out / "progress.log", "episodes")
    with Progress(*columns, console=console) as progress:
        bar = progress.add_task("run", total=total, completed=finished, wins=wins)

        def done(record: EpisodeRecord) -> None:
            nonlocal wins, finished
            wins += record.outcome == "success"
            finished += 1
            progress.update(bar, advance=1, wins=wins)
            log.line(f"{finished}/{total} · {wins} succeeded · {record.episode_id} "
                     f"{record.outcome}")  # fmt: skip

        yield done
