"""What a resumed run repairs or runs again, said before it does: one line each on the
console and in the run's ``progress.log`` (a lost last line of ``results.jsonl``, every
episode whose files are damaged and is therefore re-run)."""

from __future__ import annotations

from pathlib import Path

from bridge.errors import BridgeError
from bridge.trajectory import RunStore
from transfer_eval.progress import ProgressLog, console

__all__ = ["announce_resume"]


def announce_resume(out: Path) -> None:
    """Announce what resuming the run in ``out`` repairs and re-runs. Nothing for a new run,
    or one that cannot be read (opening it for the run itself then says what is wrong)."""
    if not (out / "manifest.json").is_file():
        return
    try:
        notices = RunStore.open(out).resume_notices()
    except BridgeError:
        return
    log = ProgressLog(out / "progress.log", "resume")
    for notice in notices:
        if log.on_terminal:  # off a terminal the log line goes to stderr already
            console.print(f"[yellow]resume:[/] {notice}", highlight=False, soft_wrap=True)
        log.line(notice)
