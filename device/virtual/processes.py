"""The virtual phone's processes: the one source of pids for ``ps``, ``pidof``, ``$$``,
``$!`` and ``dumpsys activity top``.

Three kinds of process are listed, as a phone's ``/proc`` would:

* the system's own (``init``, ``system_server``, the System UI, the input method), with
  fixed pids;
* one per app package with a task (and the launcher, always): pid :func:`pid_of`
  (stable across runs, so ``ps`` and ``dumpsys`` agree without sharing state);
* what the shell runs now: each shell session (``sh``), each command while it runs
  (``app_process`` of uiautomator2's server for as long as it serves) and each background
  job. These live in the phone's :class:`ProcessTable` (:func:`table`), allocated
  increasing pids as the kernel would, and leave it when they end.
"""

from __future__ import annotations

import asyncio
import itertools
import weakref
import zlib
from dataclasses import dataclass, field

from device.virtual.phone import VirtualPhone

__all__ = [
    "Process",
    "ProcessTable",
    "all_processes",
    "pid_of",
    "table",
    "user_name",
]

_INPUT_METHOD = "com.android.inputmethod.latin"
_FIRST_SHELL_PID = 12000
_USERS = {0: "root", 1000: "system", 2000: "shell"}


@dataclass
class Process:
    """One row of ``ps``: who runs what."""

    pid: int
    ppid: int
    uid: int
    name: str
    """``argv[0]``'s base name (toybox's ``NAME``)."""
    args: list[str] = field(default_factory=list)
    """The command line (toybox's ``ARGS``/``CMDLINE``); empty: ``[name]``."""
    state: str = "S"
    """``R`` running, ``S`` sleeping."""
    session: int = 0
    """The pid of the shell session it belongs to (0: none)."""
    vsz_kb: int = 14_000_000
    rss_kb: int = 120_000
    task: asyncio.Future[int] | None = field(default=None, repr=False)
    """What runs it (a command's asyncio task); None for processes the shell cannot signal."""
    signal: int | None = None
    """The signal that stopped it (``kill``), if one did."""

    @property
    def user(self) -> str:
        """The user name (``u0_aNNN`` for app uids)."""
        return user_name(self.uid)

    @property
    def command_line(self) -> str:
        """``ARGS``: the arguments joined by spaces (the name alone if there are none)."""
        return " ".join(self.args) if self.args else self.name


def user_name(uid: int) -> str:
    """Android's name of ``uid``: ``root``, ``system``, ``shell`` or ``u0_aNNN``."""
    if uid in _USERS:
        return _USERS[uid]
    return f"u0_a{uid - 10000}" if uid >= 10000 else str(uid)


def pid_of(package: str) -> int:
    """A stable process id for an app package (the same every run)."""
    return 3000 + zlib.crc32(package.encode()) % 9000


def _app_uid(package: str) -> int:
    return 10100 + zlib.crc32(package.encode()) % 200


class ProcessTable:
    """The processes the shell runs on one phone (sessions, commands, background jobs)."""

    def __init__(self) -> None:
        self._next_pid = itertools.count(_FIRST_SHELL_PID)
        self.running: dict[int, Process] = {}

    def start(self, name: str, args: list[str], uid: int, ppid: int, session: int = 0) -> Process:
        """Register a new process (a fresh pid) and return it."""
        pid = next(self._next_pid)
        process = Process(pid, ppid, uid, name, list(args), "S", session or pid)
        self.running[pid] = process
        return process

    def end(self, process: Process) -> None:
        """The process exited."""
        self.running.pop(process.pid, None)


_TABLES: dict[int, ProcessTable] = {}


def table(phone: VirtualPhone) -> ProcessTable:
    """The phone's process table (made on first use, dropped with the phone)."""
    key = id(phone)
    found = _TABLES.get(key)
    if found is None:
        found = _TABLES[key] = ProcessTable()
        weakref.finalize(phone, _TABLES.pop, key, None)
    return found


def _system(phone: VirtualPhone) -> list[Process]:
    return [
        Process(1, 0, 0, "init", ["/system/bin/init", "second_stage"]),
        Process(2, 0, 0, "[kthreadd]"),
        Process(1151, 1, 1000, "system_server"),
        Process(1502, 1, _app_uid(phone.system_ui), phone.system_ui),
        Process(2315, 1, _app_uid(_INPUT_METHOD), _INPUT_METHOD),
    ]


def _apps(phone: VirtualPhone) -> list[Process]:
    packages = {phone.home.package}  # the home app always runs
    for task in phone.instance.state.os.tasks:
        app = phone.sim.phone.apps.get(task.app)
        if app is not None:
            packages.add(app.package_on(phone.skin))
    return [Process(pid_of(p), 1, _app_uid(p), p) for p in sorted(packages)]


def all_processes(phone: VirtualPhone) -> list[Process]:
    """Every process of the phone now, by pid (what ``ps -A`` lists)."""
    rows = [*_system(phone), *_apps(phone), *table(phone).running.values()]
    return sorted(rows, key=lambda process: process.pid)
