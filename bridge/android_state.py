"""``AndroidState``: the Android state a task may read and write, as a phone exposes it.

A task is posed and judged through this protocol only (:mod:`bridge.judge`), so one piece of
code judges both worlds: the simulator implements it over its instance state
(``sim.android_state``), a phone over ``adb shell`` (``device.android_state``), the virtual
phone through that same adb implementation.

Values are what Android prints, never Python objects: a setting is the text ``settings get``
prints (``"1"``, ``"0.85"``; None for ``null``), a provider row maps each projected column to
the text ``content query`` prints (None for ``NULL``), a property is the text ``getprop``
prints ("" when unset). A world that holds ints must print them, so that a judge reading the
simulator reads exactly what it would read on a phone.

Writes are made *as a user would make them*: :meth:`AndroidState.put_setting` of
``global.airplane_mode_on`` turns the radios off in the simulator as Android does, and on a
phone follows ``settings put`` with the service command (``cmd connectivity airplane-mode``)
that makes the change real.

Files are the shared storage as ``ls``/``stat`` show it (:class:`FileStat`, paths absolute
under ``/sdcard``); a judge writes files only inside a task's own folder
(:data:`TASK_FILES_ROOT`), never the user's.

A world that cannot read something raises :class:`~bridge.errors.StateUnavailable` (a
phone without a contacts provider, a ROM without ``cmd wifi status``); the judge then says
so in its verdict instead of guessing.

The protocol is composed of one small protocol per surface (:class:`SettingsState`,
:class:`RowsState`, :class:`SmsState`, :class:`PropsState`, :class:`RadiosState`,
:class:`ClockState`, :class:`AlarmsState`, :class:`AppsState`, :class:`FilesState`); each
world implements a surface in a module of the same name (``sim.android_state.settings``,
``device.android_state.settings``, …).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal, Protocol

from pydantic import BaseModel, ConfigDict

__all__ = [
    "NAMESPACES",
    "TASK_FILES_ROOT",
    "AlarmsState",
    "AndroidState",
    "AppsState",
    "BindValue",
    "ClockState",
    "FileStat",
    "FilesState",
    "Namespace",
    "PropsState",
    "RadiosState",
    "Row",
    "RowsState",
    "SettingsState",
    "SmsState",
    "in_task_folder",
    "printed",
]

Namespace = Literal["global", "system", "secure"]
NAMESPACES: tuple[Namespace, ...] = ("global", "system", "secure")
"""Android's settings namespaces, in the order a snapshot lists them."""

Row = dict[str, str | None]
"""One provider row: projected column -> the text ``content query`` prints (None: NULL)."""

BindValue = str | int | float | bool | None
"""A value bound in a provider write (``content --bind col:TYPE:value``): the Python type
picks the binding type (s, i, f, b; None binds NULL)."""


TASK_FILES_ROOT = "/sdcard/Download"
"""Task folders live directly under this directory; a judge writes nowhere else."""


class FileStat(BaseModel):
    """One entry of the shared storage as ``stat -c '%i %s %Y %F %n'`` shows it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    kind: Literal["dir", "file"]
    size: int
    mtime_ms: int
    """Modification time, epoch ms in whole seconds (``%Y`` has seconds only)."""
    inode: int
    """The inode number: a rename or move keeps it, a copy gets a new one."""


def in_task_folder(path: str) -> bool:
    """Whether the absolute ``path`` lies inside a task folder (``/sdcard/Download/<name>``
    or below it, no ``..``): the only place a judge may write files."""
    parts = path.split("/")
    if any(part in ("", ".", "..") for part in parts[1:]) or not path.startswith("/"):
        return False
    return path.startswith(TASK_FILES_ROOT + "/")


def printed(value: object) -> str | None:
    """A value as Android prints it (``settings get``, ``content query``): True -> ``1``,
    0.85 -> ``0.85``, None -> None (``null`` / ``NULL``). The one place this rule lives."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "1" if value else "0"
    return str(value)


class SettingsState(Protocol):
    """Android's settings (``settings get/put/list/delete``), values as printed text."""

    async def get_setting(self, namespace: Namespace, key: str) -> str | None:
        """``settings get NAMESPACE KEY``: the printed value, None for ``null``."""
        ...

    async def put_setting(self, namespace: Namespace, key: str, value: str) -> None:
        """Apply a setting as the user would (the owning service follows)."""
        ...

    async def list_settings(self, namespace: Namespace) -> dict[str, str]:
        """``settings list NAMESPACE``: every key with its printed value."""
        ...

    async def delete_setting(self, namespace: Namespace, key: str) -> None:
        """``settings delete NAMESPACE KEY`` (an absent key is no error): how a key an
        episode added is taken away again (:mod:`bridge.restore`)."""
        ...


class RowsState(Protocol):
    """Provider rows (``content query/insert/update/delete``): contacts, calendar, …"""

    async def query(
        self,
        uri: str,
        projection: Sequence[str],
        where: str | None = None,
        sort: str | None = None,
    ) -> list[Row]:
        """``content query``: rows of ``uri`` matching the SQL ``where``, in ``sort`` order."""
        ...

    async def insert(self, uri: str, values: Mapping[str, BindValue]) -> None:
        """``content insert`` of one row."""
        ...

    async def update(self, uri: str, values: Mapping[str, BindValue], where: str | None) -> None:
        """``content update`` of the rows matching ``where``."""
        ...

    async def delete(self, uri: str, where: str | None) -> None:
        """``content delete`` of the rows matching ``where``."""
        ...


class SmsState(Protocol):
    """SMS as the carrier and the system write them (the shell cannot)."""

    async def deliver_sms(self, address: str, body: str, date_ms: int, read: bool) -> None:
        """An inbound SMS as a carrier delivers it: a row of ``content://sms/inbox`` from
        ``address`` at ``date_ms``, in the thread of that address. The shell cannot write
        SMS (its ``WRITE_SMS`` app-op is ignored), so a world that cannot be made to
        receive one raises :class:`~bridge.errors.StateUnavailable` (a retail phone without
        ``su``)."""
        ...

    async def delete_sms(self, where: str) -> None:
        """Delete the SMS rows matching ``where`` as the system would (root, not the shell);
        :class:`~bridge.errors.StateUnavailable` where the phone does not allow it."""
        ...


class PropsState(Protocol):
    """System properties (``getprop``)."""

    async def getprop(self, key: str) -> str:
        """A system property as ``getprop KEY`` prints it ("" when unset)."""
        ...


class RadiosState(Protocol):
    """What the radios are connected to: the Wi-Fi network, the paired Bluetooth devices."""

    async def wifi_ssid(self) -> str | None:
        """The Wi-Fi network the phone is connected to (None: off or not connected)."""
        ...

    async def bonded_devices(self) -> list[str]:
        """Names of the paired Bluetooth devices (read with Bluetooth on if need be; the
        radio is left as it was)."""
        ...


class ClockState(Protocol):
    """The phone's clock and time zone."""

    async def now(self) -> tuple[int, str]:
        """The phone's clock: (epoch milliseconds, time-zone id such as ``Asia/Shanghai``)."""
        ...


class AlarmsState(Protocol):
    """The next alarm clock AlarmManager holds."""

    async def next_alarm(self) -> int | None:
        """The next alarm clock as epoch milliseconds (None: no alarm is set to ring), as
        ``dumpsys alarm`` reports it under ``Next alarm clock information:``."""
        ...


class AppsState(Protocol):
    """Starting an app and reading which one is in front."""

    async def start_app(self, package: str) -> None:
        """Start an app's launcher activity (``am start`` / ``monkey -p``)."""
        ...

    async def foreground_package(self) -> str | None:
        """The package of the focused window (None: nothing focused)."""
        ...


class FilesState(Protocol):
    """The shared storage under ``/sdcard`` (:class:`FileStat`); writes only in a task folder."""

    async def stat_path(self, path: str) -> FileStat | None:
        """``stat`` of an absolute path under ``/sdcard`` (None: nothing is there)."""
        ...

    async def list_files(self, path: str) -> list[FileStat]:
        """The entries of a directory by name (``ls -a`` without ``.``/``..``); [] when
        there is no such directory."""
        ...

    async def write_file(self, path: str, text: str, mtime_ms: int) -> None:
        """Create or replace a text file, then set its modification time (``touch -m -d``);
        only inside a task folder under :data:`TASK_FILES_ROOT`."""
        ...

    async def make_dir(self, path: str) -> None:
        """``mkdir -p``; only inside a task folder under :data:`TASK_FILES_ROOT`."""
        ...

    async def remove(self, path: str) -> None:
        """``rm -rf`` (nothing there is no error); only inside a task folder."""
        ...


class AndroidState(
    SettingsState,
    RowsState,
    SmsState,
    PropsState,
    RadiosState,
    ClockState,
    AlarmsState,
    AppsState,
    FilesState,
    Protocol,
):
    """Reads and writes of Android state; see the module docstring for value conventions."""
