"""``SimAndroidState``: :class:`bridge.android_state.AndroidState` over a simulator instance.

Everything is read from and written to the instance's JSON state in memory (no I/O), with
the very functions the virtual phone's shell runs for ``settings``, ``content``,
``getprop``, ``cmd wifi status`` and ``dumpsys bluetooth_manager``: a judge reading the
simulator directly reads what it would read through the virtual phone's adb.

* settings — :mod:`sim.settings_store` (printed text; writes as a user makes them);
* providers — :class:`sim.providers.ContentResolver` over the apps' declared tables, each
  value printed by :func:`sim.providers.format_value` (None for NULL);
* properties — :func:`sim.device_props.system_properties` of a :class:`DeviceIdentity`;
* radios — :func:`sim.radios.connected_ssid`, :func:`sim.radios.paired_devices`;
* clock — ``state.os.clock_ms`` in :data:`sim.state.TIME_ZONE`;
* SMS — written as the shell writes them (never: their providers say so,
  :attr:`sim.providers.table.Provider.shell_writes`), delivered and deleted as the system
  does (:meth:`deliver_sms`);
* files — :mod:`sim.storage`, the instance's ``/sdcard`` tree (``stat`` shows whole seconds);
* next alarm — the soonest of every app's :meth:`sim.app.App.next_alarm_clock` (the Clock
  app's alarms; :func:`next_alarm_clock`, which the virtual phone's ``dumpsys alarm`` prints).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TypeVar

from bridge.android_contract import SMS, SMS_TYPE_INBOX
from bridge.android_state import (
    BindValue,
    FileStat,
    Namespace,
    Row,
    StateUnavailable,
    in_task_folder,
)
from sim import storage as sdcard
from sim.device_props import DEFAULT_DENSITY_DPI, DeviceIdentity, system_properties
from sim.observe import foreground_of
from sim.phone import Phone
from sim.providers import ContentResolver, UnknownAuthority, cell_text
from sim.radios import connected_ssid, paired_devices, settings_world
from sim.settings_store import apply_setting, delete_setting, get_setting, list_settings
from sim.state import TIME_ZONE, InstanceState

__all__ = ["SimAndroidState", "file_stat", "next_alarm_clock"]

T = TypeVar("T")


def next_alarm_clock(phone: Phone, state: InstanceState) -> int | None:
    """Epoch ms of the soonest alarm clock any installed app has set after the instance's
    clock, None when none has: what AlarmManager holds as the next alarm clock."""
    now = state.os.clock_ms
    rings = [
        ring
        for app in phone.apps.values()
        if (ring := app.next_alarm_clock(state.apps.get(app.id) or {}, now, TIME_ZONE)) is not None
    ]
    return min(rings, default=None)


def file_stat(node: sdcard.Node) -> FileStat:
    """A storage node as ``stat`` shows it: the time in whole seconds, as ``%Y`` has it."""
    return FileStat(
        name=node.name,
        kind=node.kind,
        size=node.size if node.kind == "file" else 4096,
        mtime_ms=node.mtime_ms // 1000 * 1000,
        inode=node.id,
    )


class SimAndroidState:
    """The Android state of one simulated phone (see the module docstring).

    Args:
        phone: The installed apps (the simulator's :class:`~sim.phone.Phone`).
        state: The instance state read and changed.
        identity: What ``getprop`` reports (the reference phone, serial ``SIM00000000``).
        density_dpi: ``ro.sf.lcd_density`` (the simulator's screen).
        on_change: Called after every write (e.g. ``Instance.changed``, so pages re-render).
    """

    def __init__(
        self,
        phone: Phone,
        state: InstanceState,
        *,
        identity: DeviceIdentity | None = None,
        density_dpi: int = DEFAULT_DENSITY_DPI,
        on_change: Callable[[], None] | None = None,
    ) -> None:
        self.phone = phone
        self.state = state
        self.identity = identity or DeviceIdentity()
        self.density_dpi = density_dpi
        self.resolver = ContentResolver(phone)
        self._on_change = on_change

    def _changed(self) -> None:
        if self._on_change is not None:
            self._on_change()

    # ---- settings
    async def get_setting(self, namespace: Namespace, key: str) -> str | None:
        """``settings get``: the printed value, None for ``null``."""
        return get_setting(self.state, namespace, key)

    async def put_setting(self, namespace: Namespace, key: str, value: str) -> None:
        """The change as a user makes it (airplane mode and radios through their switches)."""
        apply_setting(self.state, namespace, key, value)
        self._changed()

    async def list_settings(self, namespace: Namespace) -> dict[str, str]:
        """``settings list``: every key with its printed value."""
        return list_settings(self.state, namespace)

    async def delete_setting(self, namespace: Namespace, key: str) -> None:
        """``settings delete``: the key is gone (an absent one is no error)."""
        if delete_setting(self.state, namespace, key):
            self._changed()

    # ---- providers
    def _provider_call(self, call: Callable[[], T]) -> T:
        try:
            return call()
        except UnknownAuthority as exc:
            raise StateUnavailable(
                f"the simulated phone has no provider {exc.authority!r}; it has "
                f"{', '.join(sorted(self.resolver.providers))}"
            ) from exc

    def _shell_may_write(self, uri: str) -> bool:
        """Whether a shell's ``content`` write of ``uri`` reaches its provider."""
        return self._provider_call(lambda: self.resolver.shell_may_write(uri))

    async def query(
        self,
        uri: str,
        projection: Sequence[str],
        where: str | None = None,
        sort: str | None = None,
    ) -> list[Row]:
        """``content query``: every projected column as ``content query`` prints it."""
        cursor = self._provider_call(
            lambda: self.resolver.query(self.state, uri, list(projection), where, sort)
        )
        return [dict(zip(cursor.columns, map(cell_text, row), strict=True)) for row in cursor.rows]

    async def insert(self, uri: str, values: Mapping[str, BindValue]) -> None:
        """``content insert`` of one row (an SMS one does nothing, as the shell's does)."""
        if self._shell_may_write(uri):
            self._provider_call(lambda: self.resolver.insert(self.state, uri, values))
            self._changed()

    async def update(self, uri: str, values: Mapping[str, BindValue], where: str | None) -> None:
        """``content update`` of the rows matching ``where`` (not SMS rows: see insert)."""
        if self._shell_may_write(uri):
            self._provider_call(lambda: self.resolver.update(self.state, uri, values, where))
            self._changed()

    async def delete(self, uri: str, where: str | None) -> None:
        """``content delete`` of the rows matching ``where`` (not SMS rows: see insert)."""
        if self._shell_may_write(uri):
            self._provider_call(lambda: self.resolver.delete(self.state, uri, where))
            self._changed()

    async def deliver_sms(self, address: str, body: str, date_ms: int, read: bool) -> None:
        """An inbound SMS into the ``sms`` provider, as the radio's dispatcher stores it."""
        values = {"address": address, "body": body, "date": date_ms, "date_sent": date_ms,
                  "type": SMS_TYPE_INBOX, "read": int(read), "seen": int(read)}  # fmt: skip
        self._provider_call(lambda: self.resolver.insert(self.state, SMS, values))
        self._changed()

    async def delete_sms(self, where: str) -> None:
        """Delete SMS rows as the system does (the shell cannot)."""
        self._provider_call(lambda: self.resolver.delete(self.state, SMS, where))
        self._changed()

    # ---- device facts
    async def getprop(self, key: str) -> str:
        """A system property as ``getprop KEY`` prints it ("" when unset)."""
        props = system_properties(
            self.identity, self.phone, self.state, density_dpi=self.density_dpi
        )
        return props.get(key, "")

    async def wifi_ssid(self) -> str | None:
        """The network Wi-Fi is connected to (None: off)."""
        return connected_ssid(self.state, settings_world(self.phone))

    async def bonded_devices(self) -> list[str]:
        """Names of the paired Bluetooth devices, whatever the radio's state."""
        return [str(device["name"]) for device in paired_devices(settings_world(self.phone))]

    async def now(self) -> tuple[int, str]:
        """(``state.os.clock_ms``, :data:`sim.state.TIME_ZONE`)."""
        return self.state.os.clock_ms, TIME_ZONE

    async def next_alarm(self) -> int | None:
        """The Clock app's next ring (:func:`next_alarm_clock`)."""
        return next_alarm_clock(self.phone, self.state)

    # ---- files
    def _task_path(self, path: str) -> str:
        if not in_task_folder(path):
            raise StateUnavailable(f"a task writes files only inside a task folder, not {path!r}")
        return path

    async def stat_path(self, path: str) -> FileStat | None:
        """The node at ``path`` as ``stat`` shows it (None: nothing there)."""
        try:
            node = sdcard.lookup(self.state.os.storage, path)
        except sdcard.NotADirectory:
            return None
        return None if node is None else file_stat(node)

    async def list_files(self, path: str) -> list[FileStat]:
        """The entries of the directory ``path`` by name ([] when there is none)."""
        found = await self.stat_path(path)
        if found is None or found.kind != "dir":
            return []
        return [file_stat(n) for n in sdcard.children(self.state.os.storage, found.inode)]

    async def write_file(self, path: str, text: str, mtime_ms: int) -> None:
        """Create or replace a text file in a task folder, modified at ``mtime_ms``."""
        tree = self.state.os.storage
        sdcard.write(tree, self._task_path(path), text, self.state.os.clock_ms)
        sdcard.set_mtime(tree, path, mtime_ms)
        self._changed()

    async def make_dir(self, path: str) -> None:
        """``mkdir -p`` in a task folder."""
        sdcard.make_dir(
            self.state.os.storage, self._task_path(path), self.state.os.clock_ms, parents=True
        )
        self._changed()

    async def remove(self, path: str) -> None:
        """``rm -rf`` in a task folder."""
        try:
            sdcard.remove(self.state.os.storage, self._task_path(path), recursive=True)
        except sdcard.NotFound:
            return
        self._changed()

    # ---- apps
    async def start_app(self, package: str) -> None:
        """Bring the app of ``package`` to the front (started on its first screen)."""
        app = self.phone.package_app(package)
        if app is None:
            installed = sorted(a.package for a in self.phone.apps.values())
            raise StateUnavailable(f"no app has package {package!r}; installed: {installed}")
        self.phone.launch(self.state, app.id)
        self._changed()

    async def foreground_package(self) -> str | None:
        """The foreground app's package, the launcher's on the home screen."""
        return foreground_of(self.phone, self.state).package
