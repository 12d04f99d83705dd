"""What a shell command of the virtual phone receives: arguments, I/O, the phone.

Every command is an ``async def command(ctx: CommandContext) -> int`` returning its exit
status; the command groups (``commands_*.py``) export them in a ``COMMANDS`` table that
:mod:`device.virtual.shell` merges. A command that runs other commands (``su CMD``,
``sh -c SCRIPT``, ``cmd package``) asks the shell running it through :attr:`CommandContext.
shell` (an :class:`Interpreter`), so no command module imports the shell: the shell sits
above its commands.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Protocol

from device.virtual.phone import ServiceStream, VirtualPhone

__all__ = [
    "EXIT_NOT_FOUND",
    "EXIT_USAGE",
    "ROOT_UID",
    "SHELL_UID",
    "BufferSink",
    "CommandContext",
    "CommandFn",
    "Interpreter",
    "NullSink",
    "Sink",
    "StdinReader",
]

EXIT_USAGE = 1
"""Exit status of a usage error (bad or missing arguments)."""
EXIT_NOT_FOUND = 127
"""Exit status of a command the shell cannot find."""
SHELL_UID = 2000
"""``AID_SHELL``: who ``adb shell`` runs commands as."""
ROOT_UID = 0
"""``AID_ROOT``: who ``su 0 CMD`` runs ``CMD`` as."""


class Sink(Protocol):
    """Where a command's stdout or stderr goes."""

    async def write(self, data: bytes) -> None:
        """Take ``data``."""
        ...


class SinkIO:
    """A nested shell's output into the calling command's sinks (``sh -c``, ``su 0 sh -c``)."""

    def __init__(self, out: Sink, err: Sink) -> None:
        self._out, self._err = out, err

    async def stdout(self, data: bytes) -> None:
        """Write to the caller's stdout."""
        await self._out.write(data)

    async def stderr(self, data: bytes) -> None:
        """Write to the caller's stderr."""
        await self._err.write(data)


class BufferSink:
    """Collects output in memory (pipes, redirections to files)."""

    def __init__(self) -> None:
        self.data = bytearray()

    async def write(self, data: bytes) -> None:
        """Append ``data``."""
        self.data += data


class NullSink:
    """``/dev/null``."""

    async def write(self, data: bytes) -> None:
        """Drop ``data``."""


class StdinReader:
    """A command's standard input, read on demand (never before a command asks for it).

    Over an adb stream it is what the host sends (shell v2 stdin packets, a v1 stream's
    data); in a pipeline, the left side's output. Reading ends at the host's close-stdin
    or when it closes the stream.
    """

    def __init__(self, source: Callable[[], Awaitable[bytes]] | bytes) -> None:
        if isinstance(source, bytes):
            self._buffer, self._source, self._eof = bytearray(source), None, True
        else:
            self._buffer, self._source, self._eof = bytearray(), source, False

    async def _fill(self) -> bool:
        """Read one more chunk; False at end of input."""
        if self._eof or self._source is None:
            return False
        chunk = await self._source()
        if not chunk:
            self._eof = True
            return False
        self._buffer += chunk
        return True

    async def read_all(self) -> bytes:
        """Everything up to end of input."""
        while await self._fill():
            pass
        data = bytes(self._buffer)
        self._buffer.clear()
        return data

    async def read_line(self) -> bytes | None:
        """The next line with its ``\\n`` (the rest at end of input); None when none is left."""
        while b"\n" not in self._buffer and await self._fill():
            pass
        if not self._buffer:
            return None
        end = self._buffer.find(b"\n")
        end = len(self._buffer) if end < 0 else end + 1
        line = bytes(self._buffer[:end])
        del self._buffer[:end]
        return line


class Interpreter(Protocol):
    """The shell running a command, as far as the command may use it (the shell implements
    it: :class:`device.virtual.shell.Shell`)."""

    @property
    def commands(self) -> Mapping[str, CommandFn]:
        """The shell's command table, by name."""
        ...

    async def execute(self, args: list[str], ctx: CommandContext) -> int:
        """Run ``args`` as one command with ``ctx``'s I/O, environment and user."""
        ...

    async def run_script(
        self, script: str, ctx: CommandContext, name: str, positional: list[str]
    ) -> int:
        """Run ``script`` in a nested session (``$0`` is ``name``) with ``ctx``'s I/O."""
        ...


@dataclass
class CommandContext:
    """One command being run: its name and arguments, I/O, environment and the phone."""

    phone: VirtualPhone
    name: str
    args: list[str]
    stdout: Sink
    stderr: Sink
    shell: Interpreter
    """The shell running the command (nested commands and scripts)."""
    env: dict[str, str] = field(default_factory=dict)
    stdin: bytes | None = None
    stream: ServiceStream | None = None
    """The adb stream the shell runs on (long-running commands such as ``app_process``)."""
    uid: int = SHELL_UID
    """Who runs the command: :data:`SHELL_UID`, or :data:`ROOT_UID` under ``su``."""
    input: StdinReader | None = None
    """Standard input read on demand (the adb stream's stdin); :attr:`stdin`, when set,
    takes precedence (a pipe or ``<`` redirection)."""
    pid: int = 0
    """The command's process id (:mod:`device.virtual.processes`)."""

    async def read_stdin(self) -> bytes:
        """All of standard input (empty when there is none)."""
        if self.stdin is not None:
            return self.stdin
        if self.input is not None:
            return await self.input.read_all()
        return b""

    async def out(self, data: str | bytes) -> None:
        """Write text (UTF-8) or bytes to stdout."""
        await self.stdout.write(data.encode("utf-8") if isinstance(data, str) else data)

    async def err(self, data: str | bytes) -> None:
        """Write text (UTF-8) or bytes to stderr."""
        await self.stderr.write(data.encode("utf-8") if isinstance(data, str) else data)

    async def println(self, *lines: str) -> None:
        """Write each line plus ``\\n`` to stdout."""
        if lines:
            await self.out("".join(f"{line}\n" for line in lines))

    async def eprintln(self, *lines: str) -> None:
        """Write each line plus ``\\n`` to stderr."""
        if lines:
            await self.err("".join(f"{line}\n" for line in lines))

    async def usage(self, message: str) -> int:
        """Report a usage error on stderr; returns :data:`EXIT_USAGE`."""
        await self.eprintln(message)
        return EXIT_USAGE

    async def execute(
        self, args: list[str], uid: int | None = None, env: dict[str, str] | None = None
    ) -> int:
        """Run ``args`` as a command of its own with this one's I/O, as ``uid`` and with
        ``env`` when given (``su CMD``, ``exec CMD``); returns its status."""
        who = self.uid if uid is None else uid
        return await self.shell.execute(
            args, replace(self, uid=who, env=self.env if env is None else env)
        )

    async def run_script(self, script: str, name: str, positional: list[str]) -> int:
        """Run ``script`` in a nested shell with this command's I/O, user and environment
        (``sh -c SCRIPT NAME ARG…``: ``$0`` is ``name``, ``$1``… ``positional``)."""
        return await self.shell.run_script(script, self, name, positional)

    def changed(self) -> None:
        """Tell the simulator instance its state changed (pages re-render)."""
        self.phone.instance.changed()


CommandFn = Callable[[CommandContext], Awaitable[int]]
"""A shell command: runs with a context, returns its exit status."""
