"""The virtual phone's log (what ``logcat`` reads): entries, AOSP's line formats, and the
lines the system writes for what our stack does.

An entry has the fields of liblog's ``AndroidLogEntry``: time (the phone's clock, ms since
the epoch), pid, tid, priority letter, tag, message, and the buffer it went to (``main``,
``system``). :func:`format_entry` prints it as liblog's ``logprint.cpp`` does:

* ``threadtime`` (logcat's default): ``"%s.%03ld %5d %5d %c %-8s: %s"`` —
  ``MM-DD HH:MM:SS.mmm  PID  TID P Tag     : message``
* ``time``: ``"%s.%03ld %c/%-8s(%5d): %s"`` — ``MM-DD HH:MM:SS.mmm P/Tag     (  PID): msg``
* ``brief``: ``"%c/%-8s(%5d): %s"``; ``tag``: ``"%c/%-8s: %s"``; ``process``:
  ``"%c(%5d) %s  (%s)"``; ``raw``: the message.

The system's own lines: every activity start is logged by ActivityTaskManager (the tag of
Android 10+) in the ``system`` buffer as ``START u0 {<intent>} from uid <caller>`` (AOSP
``ActivityStarter``), whether ``am start``/``monkey`` or a launcher tap started it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from device.virtual.phone import VirtualPhone

__all__ = [
    "FORMATS",
    "PRIORITIES",
    "LogBuffer",
    "LogEntry",
    "format_entry",
    "log_of",
    "note_activity_start",
    "observe_starts",
]

PRIORITIES = "VDIWEF"
"""liblog's priority letters, lowest first (verbose … fatal)."""
FORMATS = ("threadtime", "time", "brief", "tag", "process", "raw")
"""The ``logcat -v`` formats the virtual phone prints."""
SYSTEM_SERVER_PID = 1151
"""system_server's pid (as ``ps -A`` shows it)."""
_ATM_TID = 1402
_SHELL_UID = 2000
_LAUNCHER_UID = 10160
_NEW_TASK = 0x10000000
_RESET_IF_NEEDED = 0x00200000
_MAX_ENTRIES = 5000

T = TypeVar("T")


@dataclass(frozen=True)
class LogEntry:
    """One log line as liblog stores it."""

    time_ms: int
    pid: int
    tid: int
    priority: str
    tag: str
    message: str
    buffer: str = "main"


@dataclass
class LogBuffer:
    """The phone's ring of log entries (oldest dropped past a few thousand)."""

    entries: list[LogEntry] = field(default_factory=list)
    written: int = 0
    """How many entries were ever written (a reader's position survives trimming)."""
    foreground: tuple[str, str] | None = None
    """The focused component when the log last looked (to tell new starts apart)."""
    _grew: asyncio.Event | None = field(default=None, repr=False)

    def write(self, entry: LogEntry) -> None:
        """Append an entry and wake streaming readers."""
        self.entries.append(entry)
        self.written += 1
        del self.entries[:-_MAX_ENTRIES]
        if self._grew is not None:
            self._grew.set()

    def clear(self) -> None:
        """``logcat -c``: drop every entry."""
        self.entries.clear()

    def since(self, position: int) -> list[LogEntry]:
        """The entries written after ``position`` (a past value of :attr:`written`)."""
        fresh = min(self.written - position, len(self.entries))
        return self.entries[len(self.entries) - fresh :] if fresh > 0 else []

    async def wait_for_more(self, position: int) -> None:
        """Return once an entry was written after ``position``."""
        while self.written == position:
            if self._grew is None:
                self._grew = asyncio.Event()
            self._grew.clear()
            await self._grew.wait()


def log_of(phone: VirtualPhone) -> LogBuffer:
    """The phone's log buffer, created on first use (kept on the phone object)."""
    buffer = vars(phone).get("_log_buffer")
    if not isinstance(buffer, LogBuffer):
        buffer = LogBuffer()
        vars(phone)["_log_buffer"] = buffer
    return buffer


def format_entry(entry: LogEntry, form: str, local_time: str) -> str:
    """One line (with ``\\n``) in ``form``; ``local_time`` is ``MM-DD HH:MM:SS.mmm``."""
    tag, pri = entry.tag, entry.priority
    prefixes = {
        "threadtime": f"{local_time} {entry.pid:5d} {entry.tid:5d} {pri} {tag:<8s}: ",
        "time": f"{local_time} {pri}/{tag:<8s}({entry.pid:5d}): ",
        "brief": f"{pri}/{tag:<8s}({entry.pid:5d}): ",
        "tag": f"{pri}/{tag:<8s}: ",
        "process": f"{pri}({entry.pid:5d}) ",
        "raw": "",
    }
    suffix = f"  ({tag})" if form == "process" else ""
    return "".join(f"{prefixes[form]}{line}{suffix}\n" for line in entry.message.split("\n"))


def _short(package: str, activity: str) -> str:
    short = activity[len(package) :] if activity.startswith(package + ".") else activity
    return f"{package}/{short}"


def _start_line(phone: VirtualPhone, flags: int, caller_uid: int) -> None:
    package, activity = phone.current_focus()
    intent = (
        "act=android.intent.action.MAIN cat=[android.intent.category.LAUNCHER] "
        f"flg={flags:#x} cmp={_short(package, activity)}"
    )
    log = log_of(phone)
    log.foreground = (package, activity)
    log.write(
        LogEntry(
            phone.instance.state.os.clock_ms,
            SYSTEM_SERVER_PID,
            _ATM_TID,
            "I",
            "ActivityTaskManager",
            f"START u0 {{{intent}}} from uid {caller_uid}",
            "system",
        )
    )


def note_activity_start(phone: VirtualPhone) -> None:
    """Log the START line of an app the shell just started (``am start``, ``monkey``)."""
    _start_line(phone, _NEW_TASK, _SHELL_UID)


async def observe_starts(phone: VirtualPhone, event: Callable[[], Awaitable[T]]) -> T:
    """Run one input event; log a START when it brought another app to the front (a
    launcher icon, a notification: the launcher's or SystemUI's startActivity)."""
    log = log_of(phone)
    log.foreground = phone.current_focus()
    result = await event()
    focus = phone.current_focus()
    if focus != log.foreground and focus[0] != phone.home.package:
        _start_line(phone, _NEW_TASK | _RESET_IF_NEEDED, _LAUNCHER_UID)
    log.foreground = focus
    return result
