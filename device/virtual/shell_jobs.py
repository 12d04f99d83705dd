"""Job control and nested shells of the virtual phone's mksh: ``cmd &``, ``$!``, ``wait``,
``kill``, ``jobs``, ``read``, and ``sh`` itself.

As in mksh (``jobs.c``, ``funcs.c``):

* ``cmd &`` runs the and-or list in a subshell in the background (an asyncio task); its
  stdin is ``/dev/null``; ``$!`` is its pid, which its first command keeps (fork + exec).
* ``wait`` waits for every job (status 0); ``wait PID`` gives the job's status, 128 + the
  signal when a signal stopped it, and 127 silently for a pid that is not a job.
* ``kill [-s SIG | -SIG | -N] PID…`` signals a job or any process the shell user owns
  (``Operation not permitted`` for others, ``No such process`` for unknown pids); default
  ``TERM``. ``STOP``/``CONT`` are accepted but do not pause anything (deviation).
* ``jobs [-l|-p]`` prints ``[N] + Running              COMMAND``.
* ``read [-r] [NAME…]`` reads one line of stdin into NAMEs (``REPLY`` by default); status 1
  at end of input.
* ``sh [-c SCRIPT [NAME [ARG…]] | FILE [ARG…]]`` is ``/system/bin/sh``: a nested session
  whose ``$0`` is the name it was run by (``sh``, ``/system/bin/sh``) or NAME; with no
  operand it reads its script from stdin.

The shell (:mod:`device.virtual.shell`) sits above this module: what jobs and builtins need
of it is :class:`JobShell`, which :class:`~device.virtual.shell.Shell` implements.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Protocol

from device.virtual import processes, vfs
from device.virtual.phone import ServiceStream, VirtualPhone
from device.virtual.shell_context import ROOT_UID, CommandContext, CommandFn, Sink, StdinReader
from device.virtual.shell_syntax import AndOr, Word

__all__ = ["BUILTINS", "PROGRAMS", "SIGNALS", "Job", "JobShell", "Jobs"]

SIGNALS = {
    "HUP": 1,
    "INT": 2,
    "QUIT": 3,
    "KILL": 9,
    "USR1": 10,
    "USR2": 12,
    "PIPE": 13,
    "ALRM": 14,
    "TERM": 15,
    "CONT": 18,
    "STOP": 19,
}
"""Signal numbers of Linux on arm64/x86 (``kill -l``)."""
_NOT_STOPPING = {0, SIGNALS["CONT"], SIGNALS["STOP"]}
_KILL_USAGE = "kill: usage: kill [-s signame | -signum | -signame] { job | pid | pgrp } ..."


class JobShell(Protocol):
    """What job control needs of a shell session (:class:`device.virtual.shell.Shell`)."""

    phone: VirtualPhone
    name: str
    status: int
    variables: dict[str, str]
    process: processes.Process
    processes: processes.ProcessTable
    jobs: Jobs

    def expand(self, word: Word) -> str:
        """A word's text with parameters substituted."""
        ...

    def subshell(self) -> JobShell:
        """A copy of the session for a background job."""
        ...

    async def run_job(self, node: AndOr, out: Sink, err: Sink, stream: ServiceStream | None) -> int:
        """Run a job's and-or list; its status."""
        ...

    def close(self) -> None:
        """The session ended."""
        ...


@dataclass
class Job:
    """One background job: its process (``$!``), task and command text."""

    number: int
    process: processes.Process
    command: str
    task: asyncio.Task[int] | None = None
    signal: int | None = None
    status: int | None = field(default=None)


def _command_text(node: AndOr, shell: JobShell) -> str:
    words = [shell.expand(word) for word in node.first[0].words]
    return " ".join(words)


class Jobs:
    """A shell's background jobs."""

    def __init__(self, shell: JobShell) -> None:
        self.shell = shell
        self.jobs: dict[int, Job] = {}
        self.last_pid = ""
        """``$!``: the pid of the last job started (empty before the first)."""

    def start(self, node: AndOr, out: Sink, err: Sink, stream: ServiceStream | None) -> Job:
        """Run ``node`` in a background subshell; returns the job."""
        child = self.shell.subshell()
        number = max((job.number for job in self.jobs.values()), default=0) + 1
        job = Job(number, child.process, _command_text(node, self.shell))
        job.task = asyncio.ensure_future(self._body(job, child, node, out, err, stream))
        job.task.add_done_callback(lambda _: self._ended(job, child))
        self.jobs[job.process.pid] = job
        self.last_pid = str(job.process.pid)
        return job

    async def _body(
        self,
        job: Job,
        child: JobShell,
        node: AndOr,
        out: Sink,
        err: Sink,
        stream: ServiceStream | None,
    ) -> int:
        try:
            status = await child.run_job(node, out, err, stream)
        except asyncio.CancelledError:
            if job.signal is None:
                raise
            status = 128 + job.signal
        except ConnectionError:  # the host went away under the job's output
            status = 128 + SIGNALS["PIPE"]
        finally:
            await child.jobs.finish(cancel=job.signal is not None)
        return status

    def _ended(self, job: Job, child: JobShell) -> None:
        """The job's task is done (also when a signal came before it ever ran)."""
        task = job.task
        if task is not None and task.cancelled():
            job.status = 128 + (job.signal or SIGNALS["TERM"])
        elif task is not None and task.exception() is None:
            job.status = task.result()
        child.close()
        self.shell.processes.end(job.process)

    def signal(self, pid: int, signal: int) -> bool:
        """Send ``signal`` to job ``pid``; False when it is not a running job."""
        job = self.jobs.get(pid)
        if job is None or job.task is None or job.task.done():
            return False
        if signal not in _NOT_STOPPING:
            job.signal = signal
            job.task.cancel()
        return True

    async def wait(self, pid: int) -> int | None:
        """Job ``pid``'s status once it ended (it is then forgotten); None if no such job."""
        job = self.jobs.pop(pid, None)
        if job is None or job.task is None:
            return None
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.shield(job.task)
        if not job.task.done():  # it is this wait that was cancelled
            raise asyncio.CancelledError
        return job.status if job.status is not None else 1

    async def finish(self, cancel: bool = False) -> None:
        """End of the session: wait for the jobs (they hold its output), or cancel them."""
        for job in list(self.jobs.values()):
            if job.task is None:
                continue
            if cancel:
                job.task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await job.task


# ---- builtins


def _signal_number(text: str) -> int | None:
    name = text.upper().removeprefix("SIG")
    if name.isdigit():
        return int(name) if int(name) < 65 else None
    return SIGNALS.get(name)


def _kill_args(args: list[str]) -> tuple[int, list[str]] | str:
    """(signal, pids), or the error text."""
    signal = SIGNALS["TERM"]
    if args[:1] == ["-s"] and len(args) > 1:
        found, args = _signal_number(args[1]), args[2:]
    elif args[:1] and args[0].startswith("-") and len(args[0]) > 1:
        found, args = _signal_number(args[0][1:]), args[1:]
    else:
        found = signal
    if found is None:
        return "kill: bad signal"
    return (found, args) if args else _KILL_USAGE


def job_pid(shell: JobShell, text: str) -> int | None:
    """The pid ``text`` names: a pid, or a job (``%N``, ``%%``, ``%+``, ``%-``)."""
    if text.isdigit():
        return int(text)
    if not text.startswith("%"):
        return None
    listed = sorted(shell.jobs.jobs.values(), key=lambda job: job.number)
    spec = text[1:]
    if spec in ("", "%", "+") and listed:
        return listed[-1].process.pid
    if spec == "-" and len(listed) > 1:
        return listed[-2].process.pid
    found = next((job for job in listed if spec.isdigit() and job.number == int(spec)), None)
    return found.process.pid if found is not None else -1


def _signal_process(shell: JobShell, ctx: CommandContext, pid: int, signal: int) -> str | None:
    """Signal one pid; the error text, if any."""
    if shell.jobs.signal(pid, signal):
        return None
    target = next((p for p in processes.all_processes(shell.phone) if p.pid == pid), None)
    if target is None:
        return "No such process"
    if ctx.uid != ROOT_UID and target.uid != ctx.uid:
        return "Operation not permitted"
    if target.task is not None and signal not in _NOT_STOPPING:
        target.signal = signal
        target.task.cancel()
    return None


async def kill(shell: JobShell, ctx: CommandContext) -> int:
    """``kill [-s SIG | -SIG] PID…`` (see the module docstring)."""
    parsed = _kill_args(list(ctx.args))
    if isinstance(parsed, str):
        message = parsed if parsed == _KILL_USAGE else f"{parsed} '{ctx.args[0]}'"
        await ctx.eprintln(f"{shell.name}: {message}")
        return 1
    signal, targets = parsed
    status = 0
    for target in targets:
        pid = job_pid(shell, target)
        if pid is None:
            error: str | None = "arguments must be jobs or process IDs"
        elif pid < 0:
            error = "no such job"
        else:
            error = _signal_process(shell, ctx, pid, signal)
        if error is not None:
            await ctx.eprintln(f"{shell.name}: kill: {target}: {error}")
            status = 1
    return status


async def wait(shell: JobShell, ctx: CommandContext) -> int:
    """``wait [PID…]``: the last PID's status (127 for one that is not a job)."""
    if not ctx.args:
        for pid in list(shell.jobs.jobs):
            await shell.jobs.wait(pid)
        return 0
    status = 0
    for target in ctx.args:
        asked = job_pid(shell, target)
        found = await shell.jobs.wait(asked) if asked is not None and asked > 0 else None
        status = 127 if found is None else found
    return status


async def jobs(shell: JobShell, ctx: CommandContext) -> int:
    """``jobs [-l|-p]``: the running and finished-but-unwaited jobs."""
    listed = sorted(shell.jobs.jobs.values(), key=lambda job: job.number)
    for index, job in enumerate(listed):
        if "-p" in ctx.args:
            await ctx.println(str(job.process.pid))
            continue
        mark = "+" if index == len(listed) - 1 else ("-" if index == len(listed) - 2 else " ")
        done = job.task is not None and job.task.done()
        state = "Running" if not done else ("Done" if not job.status else f"Done ({job.status})")
        pid = f"{job.process.pid:5d} " if "-l" in ctx.args else ""
        await ctx.println(f"[{job.number}] {mark} {pid}{state:<20} {job.command}")
    return 0


async def read(shell: JobShell, ctx: CommandContext) -> int:
    """``read [-r] [NAME…]``: one line of stdin, split on blanks; status 1 at end of input."""
    names = [arg for arg in ctx.args if arg != "-r"] or ["REPLY"]
    source = StdinReader(ctx.stdin) if ctx.stdin is not None else ctx.input
    line = await source.read_line() if source is not None else None
    text = (line or b"").decode("utf-8", "replace").rstrip("\n")
    if "-r" not in ctx.args:
        text = text.replace("\\", "")
    fields = text.split(None, len(names) - 1) if len(names) > 1 else [text.strip()]
    for index, name in enumerate(names):
        shell.variables[name] = fields[index] if index < len(fields) else ""
    return 0 if line is not None and line.endswith(b"\n") else 1


# ---- /system/bin/sh


async def _script(ctx: CommandContext, args: list[str]) -> tuple[str, list[str]] | int:
    """The script to run and its positional parameters, or an exit status."""
    if args[:1] == ["-c"]:
        if len(args) < 2:
            return await ctx.usage(f"{ctx.name}: -c: option requires an argument")
        return args[1], args[2:]
    if not args:
        return (await ctx.read_stdin()).decode("utf-8", "replace"), []
    try:
        text = vfs.read_file(ctx.phone.files, vfs.normalize(args[0], ctx.env.get("PWD", "/")))
    except vfs.FsError as exc:
        await ctx.eprintln(f"{ctx.name}: {args[0]}: {exc}")
        return 127
    return text.decode("utf-8", "replace"), args


async def sh(ctx: CommandContext) -> int:
    """``sh [-c SCRIPT [NAME [ARG…]] | FILE [ARG…]]``: a nested shell session."""
    found = await _script(ctx, list(ctx.args))
    if isinstance(found, int):
        return found
    script, rest = found
    return await ctx.run_script(script, rest[0] if rest else ctx.name, rest[1:])


BUILTINS: dict[str, Callable[[JobShell, CommandContext], Awaitable[int]]] = {
    "kill": kill,
    "wait": wait,
    "jobs": jobs,
    "read": read,
}
"""Job control builtins (they see the shell)."""
PROGRAMS: dict[str, CommandFn] = {"sh": sh}
"""Programs in ``/system/bin`` the shell runs itself (``sh``, ``/system/bin/sh``): not a
process of their own, since the nested session is one."""
