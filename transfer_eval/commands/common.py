"""What every command line shares: the console it prints on and the progress it shows
(:mod:`transfer_eval.progress`), the one error boundary, the one-line error it exits with,
and the line for an option its config model refused (the option as the user typed it,
the value, what it takes — never pydantic's multi-line report). A run a person plays
(``--policy human``) goes one episode at a time and draws no bar over their prompt."""

from __future__ import annotations

import logging
import os
import signal
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from types import FrameType
from typing import Any, NoReturn

import typer
from pydantic import ValidationError
from typer.core import TyperCommand, TyperGroup

from bridge.env_checker import EnvCheckError
from bridge.errors import BridgeError, EnvUsageError, RunLocked
from bridge.run_lock import check_unlocked
from bridge.schema import EpisodeRecord
from transfer_eval.commands.options import optional_value
from transfer_eval.jobs import attended
from transfer_eval.progress import ProgressLog, console, episode_progress, finished_before

__all__ = [
    "GuardedCommand",
    "GuardedGroup",
    "ProgressLog",
    "console",
    "episode_progress",
    "exit_after_interrupt",
    "fail",
    "fail_with",
    "finished_before",
    "interrupted",
    "one_at_a_time",
    "option_error",
    "refuse_a_locked_run",
    "run_progress",
    "stop_on_signals",
]


def stop_on_signals() -> None:
    """Make SIGINT and SIGTERM (``kill -INT``, ``kill``, a job scheduler's stop) end the
    command as a terminal's Ctrl-C does, so the same cleanup runs and the same short line
    is printed: the episode's record, the private adb server, the browser.

    A shell without job control starts ``cmd &`` with SIGINT ignored: ``kill -INT`` then
    reached only the simulator's web server (uvicorn took SIGINT over while it served),
    which stopped under the running episodes, and the run died of the broken pages with a
    long traceback. Python's own handler is put back here, and the simulator's server no
    longer takes signals over (:class:`sim.simulator.Simulator`)."""

    def interrupt(signum: int, frame: FrameType | None) -> None:
        # What Ctrl-C does now: inside asyncio.run, its runner's handler cancels the main
        # task, which unwinds (the phone put back, the adb server stopped) before the
        # KeyboardInterrupt; raised here instead, it would land in whatever task runs, and
        # asyncio's clean-up would re-raise it from that task and stop half-way.
        handler = signal.getsignal(signal.SIGINT)
        if callable(handler):
            handler(signal.SIGINT, frame)
        else:
            raise KeyboardInterrupt

    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, interrupt)


def exit_after_interrupt(code: int = 130) -> NoReturn:
    """End the process once an interrupted command has cleaned up (files closed, children
    stopped): without waiting for library threads tied to an event loop that the interrupt
    closed (anyio's workers wait for a loop callback that never runs, so a normal exit
    would hang at interpreter shutdown)."""
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def interrupted(how_to_resume: str) -> typer.Exit:
    """Say that Ctrl-C (or SIGTERM) stopped the work and how to go on; the exit (130)."""
    console.print(f"stopped by Ctrl-C; {how_to_resume}", highlight=False, soft_wrap=True)
    return typer.Exit(code=130)


def fail(message: str, code: int = 1) -> typer.Exit:
    """Print ``error: message`` as one logical line (never wrapped into a box) and return
    the exit to raise: ``raise fail("...")``."""
    console.print(f"[red]error:[/] {message}", highlight=False, soft_wrap=True)
    return typer.Exit(code=code)


def fail_with(exc: BridgeError) -> typer.Exit:
    """:func:`fail` with a known error's message: exit 2 when another process writes the
    run (the command itself is right; the moment is not), else 1."""
    return fail(str(exc), 2 if isinstance(exc, RunLocked) else 1)


def refuse_a_locked_run(out: Path) -> None:
    """One line and exit 2, before anything starts or is drawn, when another process
    writes the run directory ``out``."""
    try:
        check_unlocked(out)
    except RunLocked as exc:
        raise fail_with(exc) from None


def one_at_a_time(policy: str, concurrency: int) -> int:
    """``concurrency``, or 1 for a person's policy (saying so once when more was asked)."""
    if attended(policy) and concurrency > 1:
        console.print(
            f"--policy {policy.strip()}: a person plays one episode at a time, so "
            f"--concurrency is 1 (not {concurrency})",
            highlight=False,
            soft_wrap=True,
        )
        return 1
    return concurrency


def run_progress(
    policy: str, out: Path, episode_ids: Sequence[str]
) -> AbstractContextManager[Callable[[EpisodeRecord], None]]:
    """:func:`episode_progress`, or for a person's policy a line per finished episode
    instead of a bar, which would redraw over the prompt they type at."""
    return (
        _episode_lines(out, episode_ids) if attended(policy) else episode_progress(out, episode_ids)
    )


@contextmanager
def _episode_lines(
    out: Path, episode_ids: Sequence[str]
) -> Iterator[Callable[[EpisodeRecord], None]]:
    wanted = set(episode_ids)
    before = [r for r in finished_before(out) if r.episode_id in wanted]
    finished, wins = len(before), sum(r.outcome == "success" for r in before)
    log = ProgressLog(out / "progress.log", "episodes")

    def done(record: EpisodeRecord) -> None:
        nonlocal finished, wins
        finished, wins = finished + 1, wins + (record.outcome == "success")
        line = f"{finished}/{len(wanted)} · {wins} succeeded · {record.episode_id} {record.outcome}"
        log.line(line)
        if log.on_terminal:
            console.print(f"episode {line}", highlight=False, soft_wrap=True)

    yield done


_OPTIONS = {
    "langs": "--lang",
    "tasks": "--task",
    "seeds": "--seeds",
    "out": "--out",
    "infra_errors_in_a_row": "--infra-streak",
}
"""Config fields whose option is not the field's name with dashes."""


def option_error(exc: ValidationError, options: Mapping[str, str] | None = None) -> str:
    """``--lang 'fr': Input should be 'en' or 'zh'`` for the first error of ``exc``.

    ``options`` maps more config field names to their options (``{"gap": "--popup-rate"}``).
    """
    first = exc.errors()[0]
    location = [part for part in first["loc"] if isinstance(part, str)]
    field = location[0] if location else ""
    names = {**_OPTIONS, **(options or {})}
    message = str(first["msg"]).removeprefix("Value error, ")
    if not field:  # a check across options: its message names them
        return message
    option = names.get(field) or "--" + field.replace("_", "-")
    value = first.get("input")
    shown = f" {value!r}" if isinstance(value, str | int | float) else ""
    return f"{option}{shown}: {message}"


_BUGS = (EnvUsageError, EnvCheckError)
"""Errors of ours that are bugs, not a user's mistake or a world's failure: tracebacks."""


def _guarded(invoke: Any, ctx: typer.Context) -> Any:
    """Run a command; a known error (every :class:`BridgeError` but the bugs) becomes one
    ``error:`` line and exit 1 — an unknown exception keeps its traceback (it is a bug)."""
    try:
        return invoke(ctx)
    except _BUGS:
        raise
    except BridgeError as exc:
        raise fail_with(exc) from exc


class GuardedGroup(TyperGroup):
    """A command group behind the one error boundary (``typer.Typer(cls=GuardedGroup)``):
    every subcommand, at any depth, fails the same way."""

    def parse_args(self, ctx: typer.Context, args: list[str]) -> list[str]:
        """Parse, with the implied values of options given alone (``--ray``)."""
        return super().parse_args(ctx, optional_value(args))

    def invoke(self, ctx: typer.Context) -> Any:
        """Invoke the chosen subcommand behind the boundary."""
        return _guarded(super().invoke, ctx)


class GuardedCommand(TyperCommand):
    """A single command behind the one error boundary."""

    def parse_args(self, ctx: typer.Context, args: list[str]) -> list[str]:
        """Parse, with the implied values of options given alone (``--ray``)."""
        return super().parse_args(ctx, optional_value(args))

    def invoke(self, ctx: typer.Context) -> Any:
        """Invoke the command behind the boundary."""
        return _guarded(super().invoke, ctx)
