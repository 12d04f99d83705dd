"""``logcat`` and ``log``: the phone's log buffer (:mod:`device.virtual.logbuffer`).

* ``logcat -c`` / ``--clear`` clears the buffers and exits 0 at once.
* ``logcat -d`` dumps and exits; ``-t N`` prints the last N lines (implies ``-d``);
  without either it prints what is there, then streams new lines until the host closes the
  stream, as logcat does.
* ``-v FORMAT`` / ``-vFORMAT`` / ``--format=FORMAT`` (``threadtime`` default, ``time``,
  ``brief``, ``tag``, ``process``, ``raw``; modifiers such as ``color`` are ignored),
  ``-b BUFFER`` (``main``, ``system``, ``crash``, ``all``; default main+system+crash),
  ``-s`` (``*:S``) and filterspecs ``TAG:P`` / ``*:P``.
* Between buffers logcat prints ``--------- beginning of <buffer>`` the first time it shows
  one, ``--------- switch to <buffer>`` when it comes back to it.
* ``log [-p PRI] [-t TAG] [MESSAGE...]`` (toybox): writes MESSAGE (or each stdin line) to
  the main buffer, tag ``log``, priority INFO unless told; ``log: bad -p 'x'`` exits 1.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field

from device.virtual.errors import LogcatUsage
from device.virtual.logbuffer import FORMATS, PRIORITIES, LogEntry, format_entry, log_of
from device.virtual.phone import ServiceStream
from device.virtual.shell_context import CommandContext, CommandFn
from device.virtual.shell_packets import ShellPacketStream

__all__ = ["COMMANDS", "wait_for_hangup"]

_DEFAULT_BUFFERS = {"main", "system", "crash"}
_ALL_BUFFERS = {"main", "system", "crash", "radio", "events", "kernel"}
_SHELL_PID = 12345
"""Who writes ``log`` lines when the shell gave the command no pid."""


@dataclass
class _Options:
    dump: bool = False
    clear: bool = False
    tail: int | None = None
    form: str = "threadtime"
    buffers: set[str] = field(default_factory=set)
    default_level: str = "V"
    levels: dict[str, str] = field(default_factory=dict)

    def shows(self, entry: LogEntry) -> bool:
        """Whether the buffer and filterspecs let ``entry`` through."""
        if entry.buffer not in (self.buffers or _DEFAULT_BUFFERS):
            return False
        level = self.levels.get(entry.tag, self.default_level)
        return level != "S" and PRIORITIES.index(entry.priority) >= PRIORITIES.index(level)


def _value(args: list[str], option: str, attached: str) -> str:
    if attached:
        return attached
    if not args:
        raise LogcatUsage(f"logcat: option requires an argument -- {option.lstrip('-')}")
    return args.pop(0)


def _parse(argv: list[str]) -> _Options:
    options, args = _Options(), list(argv)
    while args:
        arg = args.pop(0)
        if arg in ("-c", "--clear"):
            options.clear = True
        elif arg == "-d":
            options.dump = True
        elif arg == "-s":
            options.default_level = "S"
        elif arg.startswith("--format"):
            _set_format(options, _value(args, "--format", arg.partition("=")[2]))
        elif arg.startswith("-v"):
            _set_format(options, _value(args, "-v", arg[2:]))
        elif arg.startswith("-b"):
            name = _value(args, "-b", arg[2:])
            options.buffers |= _ALL_BUFFERS if name == "all" else set(name.split(","))
        elif arg.startswith(("-t", "-T")):
            count = _value(args, arg[:2], arg[2:])
            if not count.isdigit():
                raise LogcatUsage(f"logcat: -t/-T argument {count!r} is not a count")
            options.tail, options.dump = int(count), True
        elif arg.startswith("-"):
            raise LogcatUsage(f"logcat: invalid option -- '{arg.lstrip('-')[:1]}'")
        else:
            _filterspec(options, arg)
    return options


def _set_format(options: _Options, name: str) -> None:
    if name in FORMATS:
        options.form = name


def _filterspec(options: _Options, spec: str) -> None:
    tag, _, level = spec.rpartition(":") if ":" in spec else (spec, "", "V")
    level = (level or "V").upper()[:1]
    if level not in PRIORITIES + "S":
        raise LogcatUsage(f"Invalid filter expression '{spec}'")
    if tag == "*":
        options.default_level = level
    else:
        options.levels[tag] = level


class _Printer:
    """Writes entries in the chosen format with logcat's buffer dividers."""

    def __init__(self, ctx: CommandContext, options: _Options) -> None:
        self.ctx, self.options = ctx, options
        self.shown: set[str] = set()
        self.last: str | None = None

    async def print(self, entries: list[LogEntry]) -> None:
        os_state = self.ctx.phone.instance.state.os
        text: list[str] = []
        for entry in entries:
            if entry.buffer != self.last:
                verb = "switch to" if entry.buffer in self.shown else "beginning of"
                text.append(f"--------- {verb} {entry.buffer}\n")
                self.shown.add(entry.buffer)
                self.last = entry.buffer
            stamp = os_state.local_time(entry.time_ms).strftime("%m-%d %H:%M:%S")
            text.append(
                format_entry(entry, self.options.form, f"{stamp}.{entry.time_ms % 1000:03d}")
            )
        if text:
            await self.ctx.out("".join(text))


async def logcat(ctx: CommandContext) -> int:
    """``logcat [-c|-d|-t N] [-v FORMAT] [-b BUFFER] [-s] [FILTERSPEC…]``."""
    try:
        options = _parse(ctx.args)
    except LogcatUsage as exc:
        return await ctx.usage(str(exc))
    log = log_of(ctx.phone)
    if options.clear:
        log.clear()
        return 0
    printer = _Printer(ctx, options)
    shown = [entry for entry in log.entries if options.shows(entry)]
    if options.tail is not None:
        shown = shown[-options.tail :] if options.tail else []
    await printer.print(shown)
    if options.dump or ctx.stream is None:
        return 0
    await _follow(ctx, printer, log.written)
    return 0


async def wait_for_hangup(stream: ServiceStream) -> None:
    """Return when the host closes the stream or types Ctrl-C (a pty's SIGINT).

    Closing stdin alone (shell v2's close-stdin, ``adb shell CMD </dev/null``) is no
    hang-up: a long-running command keeps going until the stream itself closes.
    """
    while True:
        chunk = await stream.read()
        if b"\x03" in chunk:
            return
        if not chunk:
            break
    if isinstance(stream, ShellPacketStream):
        await stream.wait_closed()


async def _follow(ctx: CommandContext, printer: _Printer, position: int) -> None:
    """Print new entries as they are written, until the host hangs up."""
    assert ctx.stream is not None
    log = log_of(ctx.phone)
    hangup = asyncio.ensure_future(wait_for_hangup(ctx.stream))
    try:
        while True:
            grown = asyncio.ensure_future(log.wait_for_more(position))
            done, _ = await asyncio.wait({hangup, grown}, return_when=asyncio.FIRST_COMPLETED)
            if grown not in done:
                grown.cancel()
            if hangup in done:
                return
            fresh = log.since(position)
            position = log.written
            await printer.print([entry for entry in fresh if printer.options.shows(entry)])
    finally:
        hangup.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await hangup


async def log_command(ctx: CommandContext) -> int:
    """``log [-p PRI] [-t TAG] [MESSAGE...]`` (toybox): write to the main log buffer."""
    args, tag, priority = list(ctx.args), "log", "I"
    while args and args[0][:2] in ("-p", "-t"):
        option = args.pop(0)
        value = option[2:] or (args.pop(0) if args else "")
        if option.startswith("-t"):
            tag = value
        elif len(value) != 1 or value.lower() not in "defisvw":
            return await ctx.usage(f"log: bad -p '{value}'")
        else:
            priority = value.upper()
    if args[:1] == ["--"]:
        args.pop(0)
    if args:
        messages = [" ".join(args)]
    else:
        messages = (await ctx.read_stdin()).decode("utf-8", "replace").splitlines()
    if priority == "S":
        return 0
    clock_ms, buffer = ctx.phone.instance.state.os.clock_ms, log_of(ctx.phone)
    pid = ctx.pid or _SHELL_PID
    for message in messages:
        buffer.write(LogEntry(clock_ms, pid, pid, priority, tag, message))
    return 0


COMMANDS: dict[str, CommandFn] = {"logcat": logcat, "log": log_command}
"""The log commands."""
