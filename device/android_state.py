"""``AdbAndroidState``: :class:`bridge.android_state.AndroidState` over ``adb shell``.

A phone shows its state root-free through AOSP's shell tools: ``settings``, ``content``,
``getprop``, ``cmd wifi status``, ``dumpsys``, ``date``, ``monkey``. Every read and write
here is one of those command lines run through a :class:`device.shell.Shell`, and every
answer is parsed by :mod:`device.shell_output`, so the same code judges a real phone and
the virtual phone.

Writes are made as a user would make them: a setting a system service owns is applied
through that service (``svc wifi disable``, ``cmd connectivity airplane-mode enable`` …) as
well as written, so the radio or the theme really changes. A fact that needs a radio on
(the paired Bluetooth devices) or a radio that is still joining a network is waited for with
a condition poll bounded by ``wait_s``, never a fixed sleep.

Failures: a phone that cannot read or write something (no such provider, permission denied,
a ROM without ``cmd wifi status``) raises :class:`~bridge.android_state.StateUnavailable`; a
provider query the SQL rejects, or ``content`` arguments it refuses, raise
:class:`~device.errors.DeviceError` (a bug in whoever wrote the query, never "no rows").
"""

from __future__ import annotations

import asyncio
import math
import re
import shlex
from collections.abc import Awaitable, Callable, Mapping, Sequence
from datetime import datetime
from typing import TypeVar

from bridge.android_contract import SMS, SMS_INBOX, SMS_TYPE_INBOX, sql_text
from bridge.android_state import (
    BindValue,
    FileStat,
    Namespace,
    Row,
    StateUnavailable,
    in_task_folder,
)
from bridge.phone_time import zone
from device.app_shell import NO_LAUNCHER_ACTIVITY, foreground_activity, start_app
from device.errors import DeviceError
from device.shell import Shell
from device.shell_output import (
    NO_RESULT,
    UNKNOWN_SSID,
    WifiStatus,
    parse_bonded_devices,
    parse_content_failure,
    parse_java_exception,
    parse_rows,
    parse_settings_list,
    parse_wifi_status,
)

__all__ = [
    "NEXT_ALARM_HEADER",
    "SERVICE_COMMANDS",
    "STAT_FORMAT",
    "AdbAndroidState",
    "bind_argument",
    "parse_next_alarm",
    "parse_stat_line",
]

_T = TypeVar("_T")
_NO_SU = re.compile(r"(^|\s)su: (inaccessible or not found|not found)", re.MULTILINE)
"""How a shell without ``su`` answers ``su …`` (mksh / toybox sh)."""

SERVICE_COMMANDS: dict[tuple[Namespace, str], tuple[str, str]] = {
    ("global", "wifi_on"): ("svc wifi enable", "svc wifi disable"),
    ("global", "bluetooth_on"): ("svc bluetooth enable", "svc bluetooth disable"),
    ("global", "airplane_mode_on"): (
        "cmd connectivity airplane-mode enable",
        "cmd connectivity airplane-mode disable",
    ),
    ("global", "zen_mode"): ("cmd notification set_dnd on", "cmd notification set_dnd off"),
    ("secure", "ui_night_mode"): ("cmd uimode night yes", "cmd uimode night no"),
    ("global", "mobile_data"): ("svc data enable", "svc data disable"),
}
"""The service command that applies a setting for real: (turn on, turn off)."""


NEXT_ALARM_HEADER = "Next alarm clock information:"
"""The ``dumpsys alarm`` section header AlarmManagerService prints (trailing space aside)."""
_ALARM_USER = re.compile(r"^\s*user:(?P<user>\d+)\s+pendingSend:\w+\s+time:(?P<ms>-?\d+)\b")


def parse_next_alarm(output: str, user: int = 0) -> int | None:
    """The next alarm clock of ``user`` from ``dumpsys alarm``: the epoch ms of its
    ``time:<ms>`` under :data:`NEXT_ALARM_HEADER` (None when the section has no line for
    the user, or ``time:0``: no alarm clock is set).

    Raises:
        StateUnavailable: the dump has no such section (not AlarmManagerService's dump).
    """
    lines = output.splitlines()
    start = next((i for i, line in enumerate(lines) if line.strip() == NEXT_ALARM_HEADER), None)
    if start is None:
        first = next((line.strip() for line in lines if line.strip()), "nothing")
        raise StateUnavailable(
            f"`dumpsys alarm` printed no '{NEXT_ALARM_HEADER}' section (it begins: "
            f"{first[:80]!r}), so the next alarm cannot be read on this phone"
        )
    for line in lines[start + 1 :]:
        found = _ALARM_USER.match(line)
        if found is None:
            break
        if int(found["user"]) == user:
            ms = int(found["ms"])
            return ms if ms > 0 else None
    return None


STAT_FORMAT = "%i/%s/%Y/%F/%n"
"""``stat -c`` of a file: inode, size, mtime (s), type, path ("/" cannot be in a name, so
the first four fields split cleanly and the path is the rest)."""


def parse_stat_line(line: str) -> FileStat | None:
    """One line of ``stat -c STAT_FORMAT`` (None: not such a line, e.g. an error)."""
    fields = line.split("/", 4)
    if len(fields) != 5 or not all(f.isdigit() for f in fields[:3]):
        return None
    inode, size, mtime, kind, path = fields
    return FileStat(
        name=path.rstrip("/").rsplit("/", 1)[-1],
        kind="dir" if kind == "directory" else "file",
        size=int(size),
        mtime_ms=int(mtime) * 1000,
        inode=int(inode),
    )


def _turns_on(key: str, value: str) -> bool:
    """Whether ``value`` of ``key`` means "on" (``ui_night_mode``: 2; otherwise non-zero)."""
    if key == "ui_night_mode":
        return value.strip() == "2"
    try:
        return float(value) != 0
    except ValueError:
        return value.strip() not in ("", "0")


def bind_argument(column: str, value: BindValue) -> str:
    """One ``--bind col:TYPE:value`` argument, shell-quoted; the Python type picks the
    type: bool ``b``, int ``i``, float ``f``, None ``n``, str ``s`` (``Content.java``
    parses ``i`` as a long and ``f`` as a double)."""
    if value is None:
        kind, text = "n", ""
    elif isinstance(value, bool):
        kind, text = "b", "true" if value else "false"
    elif isinstance(value, int):
        kind, text = "i", str(value)
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"{column}: content cannot bind the non-finite number {value}")
        kind, text = "f", repr(value)
    else:
        kind, text = "s", value
    return "--bind " + shlex.quote(f"{column}:{kind}:{text}")


async def _poll(
    read: Callable[[], Awaitable[_T | None]], timeout_s: float, interval_s: float = 0.25
) -> _T | None:
    """``read()`` until it returns something other than None, for at most ``timeout_s``
    (the last result: None when the deadline passed first)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while True:
        value = await read()
        if value is not None or loop.time() >= deadline:
            return value
        await asyncio.sleep(min(interval_s, max(deadline - loop.time(), 0.0)))


class AdbAndroidState:
    """The Android state of one phone, read and written over ``adb shell``.

    Args:
        shell: runs one command line on the phone.
        wait_s: how long to wait for a radio (Wi-Fi joining a network, Bluetooth listing
            its paired devices) before giving up.
        volatile_settings: settings keys the phone's OEM rewrites by itself (from the
            device profile), which a judge should not expect to hold.
    """

    def __init__(
        self,
        shell: Shell,
        *,
        wait_s: float = 15.0,
        volatile_settings: frozenset[str] = frozenset(),
    ) -> None:
        if wait_s < 0:
            raise ValueError(f"wait_s must be 0 or more seconds, not {wait_s}")
        self.shell = shell
        self.wait_s = wait_s
        self.volatile_settings = frozenset(volatile_settings)

    # ------------------------------------------------------------------ settings

    async def _settings(self, command: str) -> str:
        output = await self.shell(command)
        refused = parse_java_exception(output)
        if refused is not None:
            raise StateUnavailable(f"the phone refused `{command}`: {refused}")
        return output

    async def get_setting(self, namespace: Namespace, key: str) -> str | None:
        """``settings get NAMESPACE KEY``: the printed value, None for ``null``."""
        value = (await self._settings(f"settings get {namespace} {shlex.quote(key)}")).strip()
        return None if value == "null" else value

    async def put_setting(self, namespace: Namespace, key: str, value: str) -> None:
        """Apply a setting as the user would: the owning service's command (see
        :data:`SERVICE_COMMANDS`), then ``settings put`` of the exact value.

        The service goes first because it acts on the change it is asked for, whatever the
        setting reads (the virtual phone's ``cmd connectivity airplane-mode enable`` does
        nothing when ``airplane_mode_on`` already reads 1); the write after it keeps values
        a service command cannot express (``zen_mode`` 2, ``ui_night_mode`` 0).
        """
        service = SERVICE_COMMANDS.get((namespace, key))
        if service is not None:
            await self.shell(service[0] if _turns_on(key, value) else service[1])
        await self._settings(f"settings put {namespace} {shlex.quote(key)} {shlex.quote(value)}")

    async def list_settings(self, namespace: Namespace) -> dict[str, str]:
        """``settings list NAMESPACE``: every key with its printed value."""
        return parse_settings_list(await self._settings(f"settings list {namespace}"))

    async def delete_setting(self, namespace: Namespace, key: str) -> None:
        """``settings delete NAMESPACE KEY`` (an absent key is no error)."""
        await self._settings(f"settings delete {namespace} {shlex.quote(key)}")

    # ------------------------------------------------------------------ providers

    async def _content(
        self, operation: str, uri: str, arguments: Sequence[str], as_root: bool = False
    ) -> str:
        command = " ".join(["content", operation, "--uri", shlex.quote(uri), *arguments])
        if as_root:
            command = f"su 0 {command}"
        output = await self.shell(command)
        if as_root and _NO_SU.search(output):
            raise StateUnavailable(
                "this phone has no su, and its shell cannot write SMS (its WRITE_SMS app-op "
                "is ignored: `content insert` of content://sms writes nothing), so it cannot "
                "be made to receive the task's messages; pose the task in the simulator or "
                "on the virtual phone"
            )
        failure = parse_content_failure(output)
        if failure is None:
            return output
        if failure.kind == "provider":
            raise StateUnavailable(f"this phone cannot {operation} {uri}: {failure.detail}")
        if failure.kind == "sql":
            raise DeviceError(
                f"content {operation} of {uri} failed in SQL: {failure.detail}; fix the "
                "task's projection, where or sort (a column or clause this provider lacks)"
            )
        raise DeviceError(
            f"content {operation} refused the arguments `{command}`: {failure.detail}"
        )

    async def query(
        self,
        uri: str,
        projection: Sequence[str],
        where: str | None = None,
        sort: str | None = None,
    ) -> list[Row]:
        """``content query``: rows of ``uri`` matching the SQL ``where``, in ``sort`` order."""
        if not projection:
            raise ValueError(f"a query of {uri} needs at least one projected column")
        arguments = ["--projection", shlex.quote(":".join(projection))]
        if where:
            arguments += ["--where", shlex.quote(where)]
        if sort:
            arguments += ["--sort", shlex.quote(sort)]
        output = await self._content("query", uri, arguments)
        rows = parse_rows(output, projection)
        if not rows and NO_RESULT not in output:
            first = next((line for line in output.splitlines() if line.strip()), "nothing")
            raise StateUnavailable(f"content query of {uri} printed no rows but: {first.strip()}")
        for row in rows:
            if len(row) != len(projection):
                raise StateUnavailable(
                    f"content query of {uri} printed a row without the columns "
                    f"{', '.join(c for c in projection if c not in row)} (does this phone's "
                    "provider ignore the projection?)"
                )
        return rows

    async def insert(self, uri: str, values: Mapping[str, BindValue]) -> None:
        """``content insert`` of one row."""
        await self._content("insert", uri, [bind_argument(c, v) for c, v in values.items()])

    async def update(self, uri: str, values: Mapping[str, BindValue], where: str | None) -> None:
        """``content update`` of the rows matching ``where``."""
        arguments = [bind_argument(c, v) for c, v in values.items()]
        if where:
            arguments += ["--where", shlex.quote(where)]
        await self._content("update", uri, arguments)

    async def delete(self, uri: str, where: str | None) -> None:
        """``content delete`` of the rows matching ``where``."""
        await self._content("delete", uri, ["--where", shlex.quote(where)] if where else [])

    async def deliver_sms(self, address: str, body: str, date_ms: int, read: bool) -> None:
        """An inbound SMS, written as root (``su 0 content insert --uri content://sms``): the
        shell's own write would be dropped without a word (its ``WRITE_SMS`` app-op is
        ``MODE_IGNORED``), so the row is read back to be sure it is there.

        Raises:
            StateUnavailable: the phone has no ``su`` (a retail phone), or kept no row.
        """
        values: dict[str, BindValue] = {
            "address": address, "body": body, "date": date_ms, "date_sent": date_ms,
            "type": SMS_TYPE_INBOX, "read": int(read), "seen": int(read),
        }  # fmt: skip
        binds = [bind_argument(column, value) for column, value in values.items()]
        await self._content("insert", SMS, binds, as_root=True)
        where = f"address={sql_text(address)} AND date={date_ms} AND body={sql_text(body)}"
        if not await self.query(SMS_INBOX, ["_id"], where):
            raise StateUnavailable(
                f"the phone kept no SMS from {address} after `su 0 content insert`: its "
                "SMS provider ignored the write, so the task's messages cannot be delivered"
            )

    async def delete_sms(self, where: str) -> None:
        """Delete SMS rows as root (``su 0 content delete``), then check none is left.

        Raises:
            StateUnavailable: the phone has no ``su``, or kept the rows.
        """
        await self._content("delete", SMS, ["--where", shlex.quote(where)], as_root=True)
        if await self.query(SMS, ["_id"], where):
            raise StateUnavailable(f"the phone kept the SMS rows matching {where!r} after su")

    # ------------------------------------------------------------------ system facts

    async def getprop(self, key: str) -> str:
        """A system property as ``getprop KEY`` prints it ("" when unset)."""
        return (await self.shell(f"getprop {shlex.quote(key)}")).strip()

    async def _wifi_status(self) -> WifiStatus:
        status = parse_wifi_status(await self.shell("cmd wifi status"))
        if status is None:
            raise StateUnavailable(
                "this phone prints no `cmd wifi status` (it needs Android 11 or later), so "
                "the connected Wi-Fi network cannot be read"
            )
        return status

    async def wifi_ssid(self) -> str | None:
        """The Wi-Fi network the phone is connected to (None: off, or not connected within
        ``wait_s`` of finding Wi-Fi on)."""

        async def settled() -> WifiStatus | None:
            status = await self._wifi_status()
            return status if not status.enabled or status.ssid is not None else None

        status = await _poll(settled, self.wait_s)
        if status is None or status.ssid is None:
            return None
        if status.ssid == UNKNOWN_SSID:
            raise StateUnavailable(
                "the phone hides the Wi-Fi network's name from adb (<unknown ssid>): turn on "
                "Location (Settings > Location) so that `cmd wifi status` shows it, then retry"
            )
        return status.ssid

    async def _bonded(self) -> list[str] | None:
        return parse_bonded_devices(await self.shell("dumpsys bluetooth_manager"))

    async def bonded_devices(self) -> list[str]:
        """Names of the paired Bluetooth devices (the address where Android 16 hides the
        name). Android lists them only with Bluetooth on, so an off radio is turned on for
        the read (waiting up to ``wait_s``) and off again afterwards."""
        names = await self._bonded()
        if names is not None:
            return names
        was_off = await self.get_setting("global", "bluetooth_on") in (None, "0")
        if was_off:
            await self.put_setting("global", "bluetooth_on", "1")
        try:
            names = await _poll(self._bonded, self.wait_s)
        finally:
            if was_off:
                await self.put_setting("global", "bluetooth_on", "0")
        if names is None:
            raise StateUnavailable(
                "`dumpsys bluetooth_manager` lists no 'Bonded devices:' on this phone even "
                f"with Bluetooth on for {self.wait_s:g} s, so its paired devices cannot be read"
            )
        return names

    async def now(self) -> tuple[int, str]:
        """The phone's clock: (epoch milliseconds, time-zone id such as ``Asia/Shanghai``).

        ``date +%s`` has whole seconds only (``%N`` is missing from older toolbox/toybox
        builds), so the milliseconds are the second times 1000.
        """
        printed = (await self.shell("date +%s")).strip()
        if not printed.isdigit():
            raise DeviceError(f"`date +%s` printed {printed[:80]!r} instead of epoch seconds")
        zone = await self.getprop("persist.sys.timezone")
        if not zone:
            raise StateUnavailable(
                "the phone sets no persist.sys.timezone, so its time zone is unknown: pick "
                "one in Settings > System > Date & time"
            )
        return int(printed) * 1000, zone

    async def next_alarm(self) -> int | None:
        """The next alarm clock of the shell's user (0) as epoch ms, from ``dumpsys alarm``
        (:func:`parse_next_alarm`); None when no alarm clock is set."""
        return parse_next_alarm(await self.shell("dumpsys alarm"))

    # ------------------------------------------------------------------ files

    async def stat_path(self, path: str) -> FileStat | None:
        """``stat -c`` of one path (None: nothing there)."""
        output = await self.shell(f"stat -c {STAT_FORMAT} {shlex.quote(path)} 2>/dev/null")
        return next(filter(None, map(parse_stat_line, output.splitlines())), None)

    async def list_files(self, path: str) -> list[FileStat]:
        """``ls -a`` of a directory, then one ``stat -c`` of its entries ([] when ``path``
        is no directory)."""
        quoted = shlex.quote(path)
        output = await self.shell(f"[ -d {quoted} ] && ls -a {quoted}")
        names = [n for n in output.splitlines() if n not in ("", ".", "..")]
        if not names:
            return []
        paths = " ".join(shlex.quote(f"{path.rstrip('/')}/{name}") for name in names)
        printed = await self.shell(f"stat -c {STAT_FORMAT} {paths} 2>/dev/null")
        found = [stat for stat in map(parse_stat_line, printed.splitlines()) if stat]
        return sorted(found, key=lambda stat: stat.name)

    def _task_path(self, path: str) -> str:
        if not in_task_folder(path):
            raise StateUnavailable(
                f"refusing to write {path!r} on a phone: a task writes files only inside its "
                "own folder under /sdcard/Download"
            )
        return shlex.quote(path)

    async def _files(self, command: str, what: str) -> None:
        output = await self.shell(f"{command} 2>&1; echo status=$?")
        lines = output.rstrip().splitlines()
        if not lines or lines[-1] != "status=0":
            detail = " ".join(lines[:-1])[:200] or "no output"
            raise StateUnavailable(f"the phone could not {what}: {detail}")

    async def write_file(self, path: str, text: str, mtime_ms: int) -> None:
        """``printf '%s' TEXT > PATH`` then ``touch -m -d "YYYY-MM-DD HH:MM:SS"`` in the
        phone's zone (inside a task folder only)."""
        quoted = self._task_path(path)
        _, zone_name = await self.now()
        local = datetime.fromtimestamp(mtime_ms / 1000, zone(zone_name))
        stamp = shlex.quote(local.strftime("%Y-%m-%d %H:%M:%S"))
        command = f"printf '%s' {shlex.quote(text)} > {quoted} && touch -m -d {stamp} {quoted}"
        await self._files(command, f"write {path}")

    async def make_dir(self, path: str) -> None:
        """``mkdir -p`` (inside a task folder only)."""
        await self._files(f"mkdir -p {self._task_path(path)}", f"make the folder {path}")

    async def remove(self, path: str) -> None:
        """``rm -rf`` (inside a task folder only)."""
        await self._files(f"rm -rf {self._task_path(path)}", f"remove {path}")

    # ------------------------------------------------------------------ apps

    async def start_app(self, package: str) -> None:
        """Start an app's launcher activity with ``monkey -p PACKAGE`` (one event: the start).

        Raises:
            StateUnavailable: the phone has no launchable activity of ``package``.
        """
        _, output = await start_app(self.shell, package)
        if NO_LAUNCHER_ACTIVITY in output:
            raise StateUnavailable(
                f"{package} has no launcher activity on this phone: install the app (check "
                f"with `adb shell pm path {package}`) or pose the task on another phone"
            )

    async def foreground_package(self) -> str | None:
        """The package of the focused window (``dumpsys window windows``), else of the
        resumed activity (``dumpsys activity activities``); None when nothing has focus."""
        found = await foreground_activity(self.shell)
        return found[0] if found is not None else None
