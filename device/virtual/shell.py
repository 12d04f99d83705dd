"""The virtual phone's ``/system/bin/sh``: runs command lines against a VirtualPhone.

:class:`Shell` parses a line (:mod:`device.virtual.shell_syntax`), expands parameters,
applies ``VAR=value`` prefixes and redirections, runs pipelines (the left side's stdout is
the right side's stdin: ``dumpsys window | grep mCurrentFocus``), and keeps ``$?`` up to
date. Commands live in the ``commands_*`` modules and print exactly what Android prints
(see ``/work/shared/reference/protocols.md`` §1.7, §2.6, §4). A command the phone does not
have prints ``/system/bin/sh: NAME: inaccessible or not found`` and exits 127, as mksh does.

Every command runs as a process of the phone (:mod:`device.virtual.processes`): ``ps``
lists it while it runs, ``kill`` can stop it (its status is then 128 + the signal, as in
mksh). ``cmd &`` runs in the background as an asyncio task (``$!`` is its pid, ``wait``
and ``kill`` take it; its stdin is ``/dev/null``); job control builtins and ``sh`` live in
:mod:`device.virtual.shell_jobs`. Standard input reaches the first command of a pipeline
from the adb stream, read only when a command asks (:class:`StdinReader`).

Deviations from mksh: no globbing, no word splitting of expanded parameters, no command
substitution or control flow (a syntax error says so).
"""

from __future__ import annotations

import asyncio
import logging
import posixpath
from collections.abc import Awaitable, Callable, Mapping
from typing import Protocol

from device.virtual import (
    commands_am,
    commands_clock,
    commands_dumpsys,
    commands_files,
    commands_input,
    commands_log,
    commands_media,
    commands_net,
    commands_pm,
    commands_proc,
    commands_props,
    commands_rows,
    commands_settings,
    commands_su,
    commands_system,
    commands_ui,
    processes,
    shell_jobs,
    system_bin,
    vfs,
)
from device.virtual.errors import ShellExit, ShellSyntaxError
from device.virtual.phone import ServiceStream, VirtualPhone
from device.virtual.shell_context import (
    EXIT_NOT_FOUND,
    SHELL_UID,
    BufferSink,
    CommandContext,
    CommandFn,
    NullSink,
    Sink,
    SinkIO,
    StdinReader,
)
from device.virtual.shell_syntax import AndOr, Command, Param, Word, parse

__all__ = ["SH", "Shell", "ShellIO", "command_table"]

log = logging.getLogger(__name__)

SH = "/system/bin/sh"
"""The shell's name in its error messages."""
_BIN_DIRS = ("/system/bin/", "/system/xbin/", "/vendor/bin/", "/bin/", "/product/bin/")
_MULTICALL = ("toybox", "busybox", "toolbox")
_DEFAULT_ENV = {
    "PATH": "/product/bin:/apex/com.android.runtime/bin:/system/bin:/system/xbin:/vendor/bin",
    "HOME": "/",
    "USER": "shell",
    "SHELL": SH,
    "TMPDIR": "/data/local/tmp",
    "EXTERNAL_STORAGE": "/sdcard",
    "ANDROID_DATA": "/data",
    "ANDROID_ROOT": "/system",
}


class ShellIO(Protocol):
    """Where the shell's stdout and stderr go (the adb stream, framed per protocol)."""

    async def stdout(self, data: bytes) -> None:
        """Write to stdout."""
        ...

    async def stderr(self, data: bytes) -> None:
        """Write to stderr."""
        ...


class _IOSink:
    def __init__(self, io: ShellIO, err: bool) -> None:
        self._write = io.stderr if err else io.stdout

    async def write(self, data: bytes) -> None:
        await self._write(data)


def command_table() -> dict[str, CommandFn]:
    """Every command the virtual phone has, by name (built on demand, never at import)."""
    table: dict[str, CommandFn] = {}
    for module in (
        commands_system,
        commands_settings,
        commands_props,
        commands_clock,
        commands_proc,
        commands_dumpsys,
        commands_input,
        commands_am,
        commands_pm,
        commands_files,
        commands_ui,
        commands_rows,
        commands_log,
        commands_net,
        commands_media,
    ):
        table.update(module.COMMANDS)
    return table


def system_bin_entries(commands: Mapping[str, CommandFn]) -> dict[str, str]:
    """``/system/bin`` of a phone whose shell has ``commands``: what the phone's files list
    there (:attr:`device.virtual.vfs.PhoneFiles.system_bin`), so listing and running agree."""
    return system_bin.entries([*commands, *shell_jobs.PROGRAMS])


class Shell:
    """One shell session on a phone: variables, ``$?`` and the command table."""

    def __init__(
        self,
        phone: VirtualPhone,
        commands: Mapping[str, CommandFn] | None = None,
        uid: int = SHELL_UID,
        name: str = SH,
        ppid: int = 1,
    ):
        self.phone = phone
        self.commands = dict(commands) if commands is not None else command_table()
        self.variables: dict[str, str] = dict(_DEFAULT_ENV)
        self.status = 0
        self.uid = uid
        """Who this session runs commands as (the shell; root in ``su 0 sh -c``)."""
        self.name = name
        """``$0``: ``/system/bin/sh`` for adb's shell, ``sh`` for a nested ``sh -c``."""
        self.positional: list[str] = []
        """``$1`` … (``sh -c SCRIPT NAME ARG…``)."""
        self.input: StdinReader | None = None
        """The session's standard input (the adb stream's), read on demand."""
        self.processes = processes.table(phone)
        self.process = self.processes.start("sh", [name], uid, ppid)
        """This shell's own process (``$$``)."""
        self.jobs = shell_jobs.Jobs(self)
        """Background jobs (``$!``, ``wait``, ``kill``)."""
        self.reserved: processes.Process | None = None
        """A background job's process, taken by the job's first command (same pid)."""
        phone.files.system_bin = system_bin_entries(self.commands)

    def subshell(self) -> Shell:
        """A copy of this session for a background job (``cmd &``): same variables and
        parameters, stdin ``/dev/null``; its process is the job's first command's."""
        child = Shell(self.phone, self.commands, self.uid, self.name, self.process.pid)
        child.variables = dict(self.variables)
        child.positional = list(self.positional)
        child.input = StdinReader(b"")  # a non-interactive shell's job reads /dev/null
        child.process.session = self.process.session
        child.reserved = child.process
        return child

    async def run_script(
        self, script: str, ctx: CommandContext, name: str, positional: list[str]
    ) -> int:
        """Run ``script`` in a nested session with ``ctx``'s I/O, user and environment
        (``sh -c``); it ends when its background jobs have."""
        nested = Shell(self.phone, self.commands, ctx.uid, name, self.process.pid)
        nested.variables.update(ctx.env)
        nested.positional = positional
        nested.process.args = [ctx.name, *ctx.args]
        nested.process.session = self.process.session
        nested.input = StdinReader(ctx.stdin) if ctx.stdin is not None else ctx.input
        try:
            status = await nested.run(script, SinkIO(ctx.stdout, ctx.stderr), ctx.stream)
            await nested.jobs.finish()
        finally:
            nested.close()
        return status

    def close(self) -> None:
        """The session ended: its process leaves the table."""
        self.processes.end(self.process)

    async def run(self, line: str, io: ShellIO, stream: ServiceStream | None = None) -> int:
        """Run a command line; returns the last status (also kept in :attr:`status`)."""
        try:
            lists = parse(line)
        except ShellSyntaxError as exc:
            await io.stderr(f"{SH}: {exc}\n".encode())
            self.status = 1
            return self.status
        out, err = _IOSink(io, False), _IOSink(io, True)
        try:
            for node in lists:
                if node.background:
                    self.jobs.start(node, out, err, stream)
                    self.status = 0
                else:
                    await self.and_or(node, out, err, stream)
        except ShellExit as exc:
            self.status = exc.status
        return self.status

    async def and_or(self, node: AndOr, out: Sink, err: Sink, stream: ServiceStream | None) -> None:
        """Run one and-or list (``a && b || c``); ``exit`` raises :class:`ShellExit`."""
        self.status = await self._pipeline(node.first, out, err, stream)
        for op, pipeline in node.rest:
            if (op == "&&") == (self.status == 0):
                self.status = await self._pipeline(pipeline, out, err, stream)

    async def run_job(self, node: AndOr, out: Sink, err: Sink, stream: ServiceStream | None) -> int:
        """Run a background job's and-or list; its status (``exit N`` ends it with N)."""
        try:
            await self.and_or(node, out, err, stream)
        except ShellExit as exc:
            self.status = exc.status
        return self.status

    async def _pipeline(
        self, commands: list[Command], out: Sink, err: Sink, stream: ServiceStream | None
    ) -> int:
        stdin: bytes | None = None
        status = 0
        for index, command in enumerate(commands):
            last = index == len(commands) - 1
            sink: Sink = out if last else BufferSink()
            status = await self._simple(command, sink, err, stdin, stream, first=index == 0)
            if isinstance(sink, BufferSink):
                stdin = bytes(sink.data)
        return status

    def expand(self, word: Word) -> str:
        """A word's text with parameters substituted."""
        parts = []
        for part in word.parts:
            if isinstance(part, Param):
                parts.append(self._param(part.name))
            else:
                parts.append(part)
        return "".join(parts)

    def _param(self, name: str) -> str:
        if name == "?":
            return str(self.status)
        if name == "$":
            return str(self.process.pid)
        if name == "!":
            return self.jobs.last_pid
        if name == "0":
            return self.name
        if name == "#":
            return str(len(self.positional))
        if name in ("@", "*"):
            return " ".join(self.positional)
        if name.isdigit():
            index = int(name) - 1
            return self.positional[index] if index < len(self.positional) else ""
        return self.variables.get(name, "")

    def _words(self, words: list[Word]) -> list[str]:
        expanded = []
        for word in words:
            text = self.expand(word)
            if text or word.quoted:
                expanded.append(text)
        return expanded

    async def _simple(
        self,
        command: Command,
        out: Sink,
        err: Sink,
        stdin: bytes | None,
        stream: ServiceStream | None,
        first: bool = False,
    ) -> int:
        assignments = {name: self.expand(value) for name, value in command.assignments}
        args = self._words(command.words)
        io = await self._redirect(command, out, err, stdin)
        if io is None:
            return 1
        out, err, stdin, files = io
        if not args:
            self.variables.update(assignments)
            return await self._flush(files, err)
        env = {**self.variables, **assignments}
        reader = self.input if first and stdin is None else None
        status = await self._execute(args, env, out, err, stdin, stream, self.uid, reader)
        flushed = await self._flush(files, err)
        return status if flushed == 0 else flushed

    async def execute(self, args: list[str], ctx: CommandContext) -> int:
        """Run ``args`` as one command with ``ctx``'s I/O, environment and user (``exec``,
        ``su``)."""
        return await self._execute(
            args, ctx.env, ctx.stdout, ctx.stderr, ctx.stdin, ctx.stream, ctx.uid, ctx.input
        )

    async def _execute(
        self,
        args: list[str],
        env: dict[str, str],
        out: Sink,
        err: Sink,
        stdin: bytes | None,
        stream: ServiceStream | None,
        uid: int = SHELL_UID,
        reader: StdinReader | None = None,
    ) -> int:
        name, *rest = args
        builtin = _BUILTINS.get(name)
        if builtin is not None:
            ctx = CommandContext(
                self.phone, name, rest, out, err, self, env, stdin, stream, uid, reader
            )
            return await builtin(self, ctx)
        resolved, rest = _resolve(name, rest)
        function = self.commands.get(resolved)
        if function is None and resolved in shell_jobs.PROGRAMS:
            ctx = CommandContext(
                self.phone, name, rest, out, err, self, env, stdin, stream, uid, reader
            )
            return await shell_jobs.PROGRAMS[resolved](ctx)
        if function is None:
            await err.write(f"{SH}: {name}: inaccessible or not found\n".encode())
            return EXIT_NOT_FOUND
        ctx = CommandContext(
            self.phone, resolved, rest, out, err, self, env, stdin, stream, uid, reader
        )
        return await self._run_process(function, ctx, [name, *rest])

    async def _run_process(self, function: CommandFn, ctx: CommandContext, argv: list[str]) -> int:
        """Run a command as a process of the phone: listed while it runs, killable."""
        process, self.reserved = self.reserved, None
        if process is None:
            process = self.processes.start(
                ctx.name, argv, ctx.uid, self.process.pid, self.process.session
            )
        else:
            process.name, process.args, process.uid = ctx.name, argv, ctx.uid
        ctx.pid = process.pid
        task = asyncio.ensure_future(self._guarded(function, ctx))
        process.task = task
        try:
            return await task
        except asyncio.CancelledError:
            if process.signal is None:
                raise
            return 128 + process.signal
        finally:
            process.task = None
            self.processes.end(process)

    async def _guarded(self, function: CommandFn, ctx: CommandContext) -> int:
        try:
            return await function(ctx)
        except (ShellExit, ConnectionError, asyncio.CancelledError):
            raise
        except Exception as exc:  # a bug in a command must not kill the adb stream
            log.exception("virtual shell: %s failed", ctx.name)
            await ctx.err(f"{ctx.name}: internal error of the virtual phone: {exc}\n")
            return 1

    async def _redirect(
        self, command: Command, out: Sink, err: Sink, stdin: bytes | None
    ) -> tuple[Sink, Sink, bytes | None, list[tuple[str, BufferSink, bool]]] | None:
        """Apply redirections; None (after printing why) when one cannot be opened."""
        files: list[tuple[str, BufferSink, bool]] = []
        for redirect in command.redirects:
            target = self.expand(redirect.target)
            if redirect.op == ">&":
                chosen = {"1": out, "2": err}.get(target)
                if chosen is None:
                    await err.write(f"{SH}: {target}: bad file descriptor\n".encode())
                    return None
                out, err = (chosen, err) if redirect.fd == 1 else (out, chosen)
                continue
            path = vfs.normalize(target)
            if redirect.op == "<":
                try:
                    stdin = vfs.read_file(self.phone.files, path)
                except vfs.FsError as exc:
                    await err.write(f"{SH}: can't open {target}: {exc}\n".encode())
                    return None
                continue
            sink: Sink = NullSink()
            if path not in ("/dev/null", "/dev/zero"):
                buffer = BufferSink()
                files.append((path, buffer, redirect.op == ">>"))
                sink = buffer
            if redirect.fd in (1, -1):
                out = sink
            if redirect.fd in (2, -1):
                err = sink
        return out, err, stdin, files

    async def _flush(self, files: list[tuple[str, BufferSink, bool]], err: Sink) -> int:
        """Write redirected output into the phone's files."""
        for path, buffer, append in files:
            try:
                vfs.write_file(self.phone.files, path, bytes(buffer.data), append)
            except vfs.FsError as exc:
                await err.write(f"{SH}: can't create {path}: {exc}\n".encode())
                return 1
        return 0


def _resolve(name: str, rest: list[str]) -> tuple[str, list[str]]:
    """``/system/bin/ls`` → ``ls``; ``toybox md5sum f`` → ``md5sum``, ``[f]``."""
    for prefix in _BIN_DIRS:
        if name.startswith(prefix) and "/" not in name[len(prefix) :]:
            name = name[len(prefix) :]
            break
    if name in _MULTICALL and rest:
        return _resolve(rest[0], rest[1:])
    return name, rest


# ---- builtins (they see the shell itself)


async def _echo(shell: Shell, ctx: CommandContext) -> int:
    args = list(ctx.args)
    newline = True
    while args and args[0] in ("-n", "-e", "-E", "-ne", "-en"):
        newline = newline and "n" not in args.pop(0)
    await ctx.out(" ".join(args) + ("\n" if newline else ""))
    return 0


async def _true(shell: Shell, ctx: CommandContext) -> int:
    return 0


async def _false(shell: Shell, ctx: CommandContext) -> int:
    return 1


async def _exit(shell: Shell, ctx: CommandContext) -> int:
    code = int(ctx.args[0]) if ctx.args and ctx.args[0].lstrip("-").isdigit() else shell.status
    raise ShellExit(code & 0xFF)


async def _export(shell: Shell, ctx: CommandContext) -> int:
    for arg in ctx.args:
        name, sep, value = arg.partition("=")
        if sep:
            shell.variables[name] = value
    return 0


async def _unset(shell: Shell, ctx: CommandContext) -> int:
    for name in ctx.args:
        shell.variables.pop(name, None)
    return 0


async def _cd(shell: Shell, ctx: CommandContext) -> int:
    target = vfs.normalize(ctx.args[0] if ctx.args else "/", shell.variables.get("PWD", "/"))
    if not vfs.is_dir(shell.phone.files, target):
        return await ctx.usage(f"{SH}: cd: {posixpath.basename(target)}: No such file or directory")
    shell.variables["PWD"] = target
    return 0


async def _pwd(shell: Shell, ctx: CommandContext) -> int:
    await ctx.println(shell.variables.get("PWD", "/"))
    return 0


async def _exec(shell: Shell, ctx: CommandContext) -> int:
    """``exec CMD…``: run the command, then end the script with its status."""
    if not ctx.args:
        return 0
    status = await ctx.execute(ctx.args)
    raise ShellExit(status)


async def _which(shell: Shell, ctx: CommandContext) -> int:
    """``which NAME…`` / ``command -v NAME``: where a command lives."""
    names = ctx.args[1:] if ctx.name == "command" and ctx.args[:1] == ["-v"] else ctx.args
    status = 0
    for name in names:
        if name in _BUILTINS and ctx.name == "command":
            await ctx.println(name)
        elif (found := _resolve(name, [])[0]) in shell.commands or found in shell_jobs.PROGRAMS:
            await ctx.println(f"/system/bin/{_resolve(name, [])[0]}")
        else:
            status = 1
    return status


async def _su(shell: Shell, ctx: CommandContext) -> int:
    """``su``: a builtin here (no process of its own), a command of :mod:`.commands_su`."""
    return await commands_su.su(ctx)


_BUILTINS: dict[str, Callable[[Shell, CommandContext], Awaitable[int]]] = {
    "echo": _echo,
    "true": _true,
    "false": _false,
    ":": _true,
    "exit": _exit,
    "export": _export,
    "unset": _unset,
    "cd": _cd,
    "pwd": _pwd,
    "exec": _exec,
    "which": _which,
    "command": _which,
    "su": _su,
    **shell_jobs.BUILTINS,
}
