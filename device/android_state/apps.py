"""``AdbApps``: starting an app (``monkey -p``) and reading the foreground one, through
:mod:`device.app_shell`, which the driver uses too."""

from __future__ import annotations

from bridge.errors import StateUnavailable
from device.android_state.base import AdbStateBase
from device.app_shell import NO_LAUNCHER_ACTIVITY, foreground_activity, start_app

__all__ = ["AdbApps"]


class AdbApps(AdbStateBase):
    """:class:`bridge.android_state.AppsState` over ``adb shell``."""

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
