"""``AdbSettings``: the settings surface over ``settings get/put/list/delete``, a setting a
system service owns applied through that service as well (:data:`SERVICE_COMMANDS`)."""

from __future__ import annotations

import shlex

from bridge.android_state import Namespace
from bridge.errors import StateUnavailable
from device.android_state.base import AdbStateBase
from device.shell_output import parse_java_exception, parse_settings_list

__all__ = ["SERVICE_COMMANDS", "AdbSettings"]

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


def _turns_on(key: str, value: str) -> bool:
    """Whether ``value`` of ``key`` means "on" (``ui_night_mode``: 2; otherwise non-zero)."""
    if key == "ui_night_mode":
        return value.strip() == "2"
    try:
        return float(value) != 0
    except ValueError:
        return value.strip() not in ("", "0")


class AdbSettings(AdbStateBase):
    """:class:`bridge.android_state.SettingsState` over ``adb shell settings``."""

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
