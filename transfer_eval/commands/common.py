"""What every command line shares: the console it prints on and the progress it shows
(:mod:`transfer_eval.progress`), the one error boundary, the one-line error it exits with,
and the line for an option its config model refused (the option as the user typed it,
the value, what it takes — never pydantic's multi-line report). A run a person plays
(``--policy human``) goes one episode at a time and draws no bar over their prompt.

Every error is one ``error:`` line on stderr, before anything is started or drawn when it
can be known then. A command line Typer refuses (an unknown option or command, a missing
argument, a value not of the option's type or range) exits 2 and says where the help is,
as does a value a command refuses with ``typer.BadParameter`` (an unknown task, a policy
that cannot play); a value refused through :func:`fail` (a config model's check,
``--level L9``) and a known failure of the work (every :class:`~bridge.errors.BridgeError`
but the bugs) exit 1.

Light to import, as every command module is: what the commands need from the run machinery
is imported when they run, so ``--help`` answers at once.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any, NoReturn

import typer
from rich.markup import escape
from typer.core import TyperCommand, TyperGroup

from transfer_eval.commands.options import optional_value
from transfer_eval.progress import (
    ProgressLog,
    console,
    episode_progress,
    error_console,
    finished_before,
)

try:  # Typer 0.2x carries its own copy of Click, whose exceptions it raises
    from typer._click import exceptions as cli_errors
except ImportError:  # an older Typer is built on Click itself
    from click import exceptions as cli_errors  # type: ignore[no-redef]

if TYPE_CHECKING:
    from pydantic import ValidationError
    from typer._click.core import Context as ClickContext  # the type Typer's methods take

    from bridge.errors import BridgeError
    from bridge.records import EpisodeRecord

__all__ = [
    "GuardedCommand",
    "GuardedGroup",
    "ProgressLog",
    "check_policy",
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
    """Print ``error: message`` on stderr as one logical line (never wrapped into a box)
    and return the exit to raise: ``raise fail("...")``."""
    error_console.print(f"[red]error:[/] {escape(message)}")
    return typer.Exit(code=code)


def usage(message: str) -> typer.Exit:
    """:func:`fail` for a command line that is wrong in itself (a value an option does not
    take, options that exclude each other, a name with a typo): exit 2, as Click's own
    usage errors, before any work."""
    return fail(message, 2)


def fail_with(exc: BridgeError) -> typer.Exit:
    """:func:`fail` with a known error's message: exit 2 when another process writes the
    run (the command itself is right; the moment is not), else 1."""
    from bridge.errors import RunLocked

    return fail(str(exc), 2 if isinstance(exc, RunLocked) else 1)


def refuse_a_locked_run(out: Path) -> None:
    """One line and exit 2, before anything starts or is drawn, when another process
    writes the run directory ``out``."""
    from bridge.errors import RunLocked
    from bridge.run_lock import check_unlocked

    try:
        check_unlocked(out)
    except RunLocked as exc:
        raise fail_with(exc) from None


def check_policy(policy: str) -> None:
    """One line and exit 2, before anything is drawn, for a ``--policy`` that cannot play:
    a typo, a checkpoint or endpoint that is not there, a person with no terminal
    (:func:`policies.registry.preflight`, which the run repeats)."""
    import asyncio

    from policies.errors import PolicySpecError
    from policies.registry import preflight

    try:
        asyncio.run(preflight(policy))
    except PolicySpecError as exc:
        raise typer.BadParameter(str(exc), param_hint="--policy") from exc


def one_at_a_time(policy: str, concurrency: int) -> int:
    """``concurrency``, or 1 for a person's policy (saying so once when more was asked)."""
    from transfer_eval.jobs import attended

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
    from transfer_eval.jobs import attended

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


def _usage_line(exc: cli_errors.UsageError) -> str:
    """Click's complaint about a command line as one line: a refused value as Click words
    it (the option, the value, what it takes); anything else with where the help is."""
    refused = isinstance(exc, cli_errors.BadParameter)
    if refused and not isinstance(exc, cli_errors.MissingParameter):
        exc.message = exc.message.removeprefix("Value error, ")  # pydantic's, via Typer
        return " ".join(exc.format_message().split())
    message = " ".join(exc.format_message().split())
    if exc.ctx is None:
        return message
    stop = "" if message.endswith((".", "?", "!")) else "."
    return f"{message}{stop} Try '{exc.ctx.command_path} --help'."


_NO_ARGS_HELP: Any = getattr(cli_errors, "NoArgsIsHelpError", ())
"""What Click 8.2+ raises to show the help page of a group given no arguments (a usage
error only in name); older Clicks print the page and exit."""


def _guarded(invoke: Callable[[Any], Any], ctx: Any) -> Any:
    """Run ``invoke(ctx)`` (parsing a command line, or invoking a command): Click's
    complaint about the command line becomes one line and exit 2; a known error (every
    :class:`BridgeError` but the bugs) one line and exit 1; an unknown exception keeps its
    traceback (it is a bug)."""
    try:
        return invoke(ctx)
    except _NO_ARGS_HELP:
        raise  # no arguments: the help page, as `no_args_is_help` asks
    except cli_errors.ClickException as exc:
        line = _usage_line(exc) if isinstance(exc, cli_errors.UsageError) else exc.format_message()
        raise fail(line, exc.exit_code) from None
    except (typer.Exit, typer.Abort):
        raise  # --help, an exit a command chose, Ctrl-C at a prompt
    except Exception as exc:
        # Imported only now: loading the run machinery would slow every --help, and an
        # error of ours can only come from a command that has loaded it already.
        from bridge.errors import BridgeError, EnvCheckError, EnvUsageError

        if isinstance(exc, BridgeError) and not isinstance(exc, EnvUsageError | EnvCheckError):
            raise fail_with(exc) from exc
        raise


class GuardedGroup(TyperGroup):
    """A command group behind the one error boundary (``typer.Typer(cls=GuardedGroup)``):
    every subcommand, at any depth, fails the same way."""

    def parse_args(self, ctx: ClickContext, args: list[str]) -> list[str]:
        """Parse, with the implied values of options given alone (``--ray``)."""
        parse = super().parse_args
        return _guarded(lambda c: parse(c, optional_value(args)), ctx)

    def invoke(self, ctx: ClickContext) -> Any:
        """Invoke the chosen subcommand behind the boundary."""
        return _guarded(super().invoke, ctx)


class GuardedCommand(TyperCommand):
    """A single command behind the one error boundary."""

    def parse_args(self, ctx: ClickContext, args: list[str]) -> list[str]:
        """Parse, with the implied values of options given alone (``--ray``)."""
        parse = super().parse_args
        return _guarded(lambda c: parse(c, optional_value(args)), ctx)

    def invoke(self, ctx: ClickContext) -> Any:
        """Invoke the command behind the boundary."""
        return _guarded(super().invoke, ctx)
