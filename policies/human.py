"""A person as a policy: each step they read the screen at the terminal and type an action.

:class:`HumanPolicy` is a bridge policy like any other, so a person's episodes are recorded,
judged and reported exactly as a model's (``mgb sim run --policy human``, ``mgb device run
--policy human``): a human baseline on the same tasks in both worlds. Like every policy it
sees only the :class:`~bridge.schema.Observation`, never simulator state.

Each step shows, compactly: the instruction, the step number, the app in front, the screen's
actionable elements numbered by their UI-tree id (text, content description or class; the
centre of their bounds in screen pixels; flags), and the path of the screenshot it wrote so
the person can open it. Then it reads one line (:data:`HELP`). A line that cannot be used (a
typo, an element not on screen, a point off it) is asked again with one line saying why: the
person is there, so this policy never returns an invalid step.

Ending an episode:
    * ``finish``, ``infeasible``, ``abort`` and ``answer`` are the person's decisions and are
      judged like a model's (``abort`` is giving up: a failure).
    * End of input (Ctrl-D, a closed stream) says nothing about the task, so it is not
      turned into an ``abort`` that would count as a failed attempt: it raises
      :class:`~bridge.errors.PolicyError`, which the runner records as ``infra_error``
      (``error_source`` ``policy``), kept out of success rates and played again when the run
      is resumed.
    * Ctrl-C is not caught: it stops the whole command as everywhere in the CLI (the episode
      is left without a result; running the same command again resumes it).

Input never blocks the event loop: a terminal or a pipe is read through the loop's reader
(``add_reader`` + ``os.read``: no thread stays blocked on the terminal after Ctrl-C, which
would hold up the exit); streams without a file descriptor (in-memory ones in tests) through
``asyncio.to_thread``. Both streams are constructor
arguments; by default stdin and stdout, and then stdin must be a terminal.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import weakref
from pathlib import Path
from typing import ClassVar, TextIO

from rich.console import Console
from rich.text import Text

from bridge.errors import PolicyError
from bridge.schema import (
    Observation,
    PolicyContext,
    PolicyOutput,
    UIStatus,
)
from bridge.uitree_text import render_text
from policies.errors import NoLineReader, UnusableLine
from policies.human_lines import HELP, actionable_lines, parse_line, where

__all__ = ["HELP", "INTERFACE_VERSION", "HumanPolicy", "LineReader", "UnusableLine",
           "actionable_lines", "parse_line"]  # fmt: skip
# (the screen lines and the line parser live in policies.human_lines; re-exported here)

INTERFACE_VERSION = "1"
"""What the person is shown and may type; bumped when either changes (it moves a human
score as a prompt moves a model's, so the harness fingerprint records it)."""

_NOT_A_TTY = (
    "a person must be at this terminal, but stdin is not a terminal (nohup, a pipe, CI); "
    "run the command in an interactive shell"
)


class LineReader:
    """Lines of a text stream, read without blocking the event loop (see the module doc).
    One per stream (:meth:`of`): what it has buffered beyond a line belongs to the next
    policy that reads the stream (the next episode's)."""

    _shared: ClassVar[weakref.WeakKeyDictionary[TextIO, LineReader]] = weakref.WeakKeyDictionary()

    def __init__(self, stream: TextIO) -> None:
        """Read ``stream``: by its file descriptor when it has one, else in a thread."""
        self.stream = stream
        self.at_eof = False
        self._buffer = b""
        self._encoding = getattr(stream, "encoding", None) or "utf-8"
        try:
            self._fd: int | None = stream.fileno()
        except (AttributeError, OSError, ValueError):  # io.UnsupportedOperation is both
            self._fd = None

    @classmethod
    def of(cls, stream: TextIO) -> LineReader:
        """The reader of ``stream``, shared by every policy that reads it."""
        if stream not in cls._shared:
            cls._shared[stream] = cls(stream)
        return cls._shared[stream]

    async def readline(self) -> str | None:
        """The next line without its line end; None at the end of input."""
        if self.at_eof and not self._buffer:
            return None
        if self._fd is not None:
            try:
                return await self._fd_line(self._fd)
            except NoLineReader:
                self._fd = None
        return await self._thread_line()

    async def _fd_line(self, fd: int) -> str | None:
        while b"\n" not in self._buffer and not self.at_eof:
            chunk = await self._chunk(fd)
            self.at_eof = not chunk
            self._buffer += chunk
        line, newline, self._buffer = self._buffer.partition(b"\n")
        if not line and not newline:
            return None
        return line.decode(self._encoding, errors="replace").rstrip("\r")

    async def _chunk(self, fd: int) -> bytes:
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[bytes] = loop.create_future()

        def readable() -> None:
            if not ready.done():
                try:
                    ready.set_result(os.read(fd, 65536))
                except BlockingIOError:
                    return
                except OSError as exc:
                    ready.set_exception(exc)

        try:
            loop.add_reader(fd, readable)
        except (NotImplementedError, OSError, ValueError) as exc:
            raise NoLineReader from exc
        try:
            return await ready
        finally:
            loop.remove_reader(fd)

    async def _thread_line(self) -> str | None:
        text = await asyncio.to_thread(self.stream.readline)  # in-memory streams: at once
        self.at_eof = not text
        return text.rstrip("\r\n") if text else None


# --------------------------------------------------------------------------- the policy


class HumanPolicy:
    """A person at a terminal decides every step (see the module docstring)."""

    def __init__(
        self,
        input: TextIO | None = None,
        output: TextIO | None = None,
        *,
        frames_dir: Path | None = None,
        name: str = "human",
    ) -> None:
        """``input``/``output``: the person's streams (default stdin/stdout, and stdin must
        then be a terminal); ``frames_dir``: where screenshots go (default a new temporary
        folder per episode's policy)."""
        self._input, self._output = input, output
        self._frames_dir = frames_dir
        self._name = name
        self._instruction = ""
        self._context = PolicyContext()
        self._console: Console | None = None

    @property
    def name(self) -> str:
        """``human``."""
        return self._name

    async def preflight(self) -> None:
        """Refuse before a run when nobody can answer: stdin is not a terminal."""
        if self._input is None and not _stdin_is_a_tty():
            raise PolicyError(_NOT_A_TTY)

    async def reset(self, instruction: str, context: PolicyContext) -> None:
        """Start on a new task: say so at the terminal."""
        self._instruction, self._context = instruction, context
        task = context.task_id or "a task"
        self._show(
            Text(
                f"\nnew episode: {task} ({context.lang}), at most "
                f"{context.max_steps} steps; `help` lists the commands",
                style="bold",
            )
        )

    async def act(self, observation: Observation) -> PolicyOutput:
        """Show the screen, then read lines until one names an action this screen takes.

        Raises:
            PolicyError: the input ended (EOF) or cannot be read, or nobody is at the
                terminal; the episode is then an ``infra_error`` and is not scored.
        """
        await self.preflight()
        reader = LineReader.of(self._input or sys.stdin)
        if reader.at_eof:
            raise PolicyError(
                f"the person's input had ended before step {observation.step + 1}: the "
                "episode is not scored; run the same command again to play it"
            )
        self._render(observation, await self._save(observation))
        while True:
            self._show(Text(f"step {observation.step + 1} › ", style="bold cyan"), end="")
            try:
                line = await reader.readline()
            except OSError as exc:
                raise PolicyError(f"cannot read the person's input: {exc}") from exc
            if line is None:
                self._show(Text("\ninput ended: this episode is not scored", style="yellow"))
                raise PolicyError(
                    f"the person's input ended (EOF) at step {observation.step + 1}: the "
                    "episode is not scored; run the same command again to play it"
                )
            try:
                decided = parse_line(line, observation, self._context)
            except UnusableLine as exc:
                self._show(Text(f"can't do that: {exc}", style="red"))
                continue
            if decided == "help":
                self._show(Text(HELP))
            elif decided == "tree":
                self._show(Text(render_text(observation.ui) or "(no UI tree)"))
            elif decided is not None:
                return PolicyOutput(action=decided, raw_text=line.strip())

    # ---- the terminal
    def _show(self, text: Text, end: str = "\n") -> None:
        if self._console is None:
            self._console = Console(file=self._output or sys.stdout, highlight=False,
                                    markup=False, emoji=False, soft_wrap=True)  # fmt: skip
        self._console.print(text, end=end)

    def _render(self, obs: Observation, shot: Path | None) -> None:
        total = self._context.max_steps
        self._show(Text(f"── step {obs.step + 1} of at most {total} " + "─" * 24, style="dim"))
        self._show(Text(self._instruction, style="bold"))
        self._show(Text(where(obs), style="dim"))
        self._show(Text(f"screenshot: {shot}" if shot else "screenshot: none in this world"))
        if obs.last_action_error:
            self._show(Text(f"last action: {obs.last_action_error}", style="red"))
        if obs.ui_status is not UIStatus.OK:
            self._show(Text(f"no UI tree ({obs.ui_status.value}): tap X Y on the screenshot",
                            style="yellow"))  # fmt: skip
        for line in actionable_lines(obs):
            self._show(Text(line))
        for field in self._context.answer_fields:
            choices = f" one of {', '.join(field.choices)}" if field.choices else ""
            label = f" ({field.label})" if field.label else ""
            self._show(Text(f"answer field {field.name}: {field.kind}{choices}{label}",
                            style="cyan"))  # fmt: skip

    async def _save(self, obs: Observation) -> Path | None:
        """Write the screenshot where the person can open it."""
        shot = obs.screenshot
        if shot is None:
            return None
        if self._frames_dir is None:
            self._frames_dir = Path(tempfile.mkdtemp(prefix="mgb-human-"))
        suffix = "jpg" if shot.format == "jpeg" else shot.format
        path = self._frames_dir / f"step-{obs.step + 1:03d}.{suffix}"
        await asyncio.to_thread(_write, path, shot.data)
        return path


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def _stdin_is_a_tty() -> bool:
    stdin = sys.stdin
    try:
        return stdin is not None and stdin.isatty()
    except (AttributeError, ValueError):  # replaced by something without isatty, or closed
        return False
