"""Facts about the phone that query tasks ask for, read root-free from AOSP's output formats.

* system properties: ``getprop KEY`` prints the value, or an empty line when unset;
* the Wi-Fi network: ``cmd wifi status`` (Android 11+, ``WifiShellCommand``) prints
  ``Wifi is enabled`` / ``Wifi is disabled`` and, when enabled, ``Wifi is connected to "SSID"``
  (``WifiInfo.getSSID()``: quoted for UTF-8 names, ``<unknown ssid>`` when redacted) or
  ``Wifi is not connected``;
* the paired Bluetooth devices: ``dumpsys bluetooth_manager`` lists them under
  ``Bonded devices:`` (``AdapterProperties.dump``: ``    AA:BB:CC:DD:EE:FF [BR/EDR] Name``;
  Android 16 anonymises addresses and drops names), but only while the adapter service is
  bound, i.e. with Bluetooth on; off, the dump ends with ``Bluetooth Service not connected``.

Reading a fact that needs a radio on may have to wait for the radio: :func:`poll` re-reads
until the fact appears or a deadline passes (a condition poll, never a fixed sleep).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

from device.tasks.base import Shell

__all__ = [
    "UNKNOWN_SSID",
    "WifiStatus",
    "getprop",
    "paired_devices",
    "parse_bonded_devices",
    "parse_wifi_status",
    "poll",
    "wifi_status",
]

_T = TypeVar("_T")
_ENABLED = re.compile(r"^Wifi is (enabled|disabled)\s*$", re.MULTILINE)
_CONNECTED = re.compile(r"^Wifi is connected to (.*?)\s*$", re.MULTILINE)
_BONDED = re.compile(r"^(\s*)Bonded devices:\s*$")
_DEVICE = re.compile(
    r"^\s+(?P<address>[0-9A-Fa-fX]{2}(?::[0-9A-Fa-fX]{2}){5})"
    r"(?:\s*=>\s*[0-9A-Fa-fX]{2}(?::[0-9A-Fa-fX]{2}){5})?"
    r"\s*\[[^\]]*\](?:\[[^\]]*\])?\s?(?P<name>.*)$"
)
UNKNOWN_SSID = "<unknown ssid>"
"""``WifiManager.UNKNOWN_SSID``: what ``getSSID()`` returns when the name is hidden."""


async def getprop(shell: Shell, key: str) -> str:
    """A system property, stripped ("" when the phone does not set it)."""
    return (await shell(f"getprop {key}")).strip()


@dataclass(frozen=True)
class WifiStatus:
    """What ``cmd wifi status`` says: Wi-Fi on or off, and the network it is connected to
    (None: not connected; :data:`UNKNOWN_SSID` when the phone hides the name)."""

    enabled: bool
    ssid: str | None


def parse_wifi_status(output: str) -> WifiStatus | None:
    """The status in ``cmd wifi status`` output; None when the output is not that (older
    Android, a ROM without the command)."""
    enabled = _ENABLED.search(output)
    if enabled is None:
        return None
    connected = _CONNECTED.search(output)
    ssid = connected.group(1) if connected else None
    if ssid is not None and len(ssid) >= 2 and ssid[0] == ssid[-1] == '"':
        ssid = ssid[1:-1]
    return WifiStatus(enabled=enabled.group(1) == "enabled", ssid=ssid)


async def wifi_status(shell: Shell) -> WifiStatus | None:
    """``cmd wifi status``, parsed (None when the phone does not answer it)."""
    return parse_wifi_status(await shell("cmd wifi status"))


def parse_bonded_devices(output: str) -> list[str] | None:
    """Names of the devices under ``Bonded devices:`` (the address when a dump has no
    name); None when the dump has no such list (Bluetooth off, or a ROM that omits it)."""
    lines = output.replace("\r", "").splitlines()
    start = next((i for i, line in enumerate(lines) if _BONDED.match(line)), None)
    if start is None:
        return None
    indent = len(lines[start]) - len(lines[start].lstrip())
    names: list[str] = []
    for line in lines[start + 1 :]:
        if not line.strip() or len(line) - len(line.lstrip()) <= indent:
            break
        device = _DEVICE.match(line)
        if device is not None:
            names.append(device.group("name").strip() or device.group("address"))
    return names


async def paired_devices(shell: Shell) -> list[str] | None:
    """``dumpsys bluetooth_manager``'s bonded devices (None while they are not listed)."""
    return parse_bonded_devices(await shell("dumpsys bluetooth_manager"))


async def poll(
    read: Callable[[], Awaitable[_T | None]], timeout_s: float, interval_s: float = 0.25
) -> _T | None:
    """``read()`` until it returns something other than None, for at most ``timeout_s``
    (the last result, None when the deadline passed first)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while True:
        value = await read()
        if value is not None or loop.time() >= deadline:
            return value
        await asyncio.sleep(min(interval_s, max(deadline - loop.time(), 0.0)))
