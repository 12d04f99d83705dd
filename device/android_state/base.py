"""``AdbStateBase``: what every surface of :class:`~device.android_state.AdbAndroidState`
shares, the shell and the one way a ``content`` command is run and its failures mapped."""

from __future__ import annotations

import math
import re
import shlex
from collections.abc import Sequence

from bridge.android_state import BindValue
from bridge.app_catalog import app_catalog
from bridge.errors import StateUnavailable
from device.errors import DeviceError
from device.shell import Shell
from device.shell_output import parse_content_failure

__all__ = ["AdbStateBase", "bind_argument"]

_NO_SU = re.compile(r"(^|\s)su: (inaccessible or not found|not found)", re.MULTILINE)
"""How a shell without ``su`` answers ``su …`` (mksh / toybox sh)."""


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


class AdbStateBase:
    """The Android state of one phone, read and written over ``adb shell``.

    Args:
        shell: runs one command line on the phone.
        wait_s: how long to wait for a radio (Wi-Fi joining a network, Bluetooth listing
            its paired devices) before giving up.
        volatile_settings: settings keys the phone's OEM rewrites by itself (from the
            device profile), which a judge should not expect to hold.
        clock_package: the Clock app's package on this phone (from the device profile;
            None: AOSP's), whose alarm clocks are the user's.
    """

    def __init__(
        self,
        shell: Shell,
        *,
        wait_s: float = 15.0,
        volatile_settings: frozenset[str] = frozenset(),
        clock_package: str | None = None,
    ) -> None:
        if wait_s < 0:
            raise ValueError(f"wait_s must be 0 or more seconds, not {wait_s}")
        self.shell = shell
        self.wait_s = wait_s
        self.volatile_settings = frozenset(volatile_settings)
        self.clock_package = clock_package or app_catalog().get("clock").package() or ""

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
