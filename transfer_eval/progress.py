"""Progress of long work that a person can follow on a terminal and off one: the consoles
every command prints on, a timestamped log file, and the bar of a batch of episodes that
starts where a resumed run stopped.

Off a terminal (``| cat``, ``> file``, nohup, CI) the consoles are :data:`OFF_TERMINAL_WIDTH`
wide, so a table keeps every column and no cell wraps; ``COLUMNS`` still decides when set.
Light to import: the command lines' help is drawn without loading the run machinery.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console, ConsoleDimensions

if TYPE_CHECKING:
    from bridge.records import EpisodeRecord

__all__ = [
    "OFF_TERMINAL_WIDTH",
    "ProgressLog",
    "console",
    "episode_progress",
    "error_console",
    "finished_before",
]

OFF_TERMINAL_WIDTH = 1000
"""Columns of a console whose output is not a terminal: wider than any row we print."""


class _Console(Console):
    """A Rich console that is :data:`OFF_TERMINAL_WIDTH` wide off a terminal (Rich would
    take the width of whatever terminal stdin has, or 80 columns, and wrap cells)."""

    @property
    def size(self) -> ConsoleDimensions:
        """``COLUMNS`` when it is set now, else a wide console when the output is not a
        terminal, else the terminal's size (read when asked, not when the console was made:
        the consoles are module globals, made once however the process is run)."""
        size = super().size
        columns = self._environ.get("COLUMNS", "")
        if columns.isdigit() and int(columns) > 0:
            return ConsoleDimensions(int(columns), size.height)
        if not self.is_terminal:
            return ConsoleDimensions(OFF_TERMINAL_WIDTH, size.height)
        return size

    @size.setter
    def size(self, new_size: tuple[int, int]) -> None:
        self._width, self._height = new_size


console: Console = _Console()
"""The console every command prints on (stdout)."""

error_console: Console = _Console(stderr=True, highlight=False, soft_wrap=True)
"""The console errors are printed on (stderr): one logical line each, never wrapped."""


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
    from bridge.errors import BridgeError
    from bridge.trajectory import RunStore

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
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

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
