"""The radios of the virtual phone: ``cmd wifi``, ``cmd bluetooth_manager`` and
``dumpsys bluetooth_manager``, in Android 14's output formats, read from the simulator's state
(the Wi-Fi network the Settings app shows as connected, the paired devices it lists:
:func:`sim.radios.connected_ssid` and :func:`sim.radios.paired_devices`, which the Settings
pages and :class:`sim.android_state.SimAndroidState` read too).

* ``cmd wifi status`` (``WifiShellCommand.printStatus`` for a non-root caller)::

      Wifi is enabled
      Wifi scanning is always available
      ==== Primary ClientModeManager instance ====
      Wifi is connected to "HomeNet-5G"
      WifiInfo: SSID: "HomeNet-5G", BSSID: …, Supplicant state: COMPLETED, …

  ``Wifi is not connected`` instead when on but not joined; only the first two lines when off.
* ``dumpsys bluetooth_manager`` (``BluetoothManagerService.dump``, then with Bluetooth on the
  adapter's ``AdapterProperties.dump``)::

      Bluetooth Status
        enabled: true
        state: ON
      …
      AdapterProperties
        Name: Redmi Note 12 Turbo
      …
        Bonded devices:
          4C:1A:2B:3C:4D:5E [BR/EDR] Redmi Buds 4 Pro

  With Bluetooth off the adapter service is unbound and the dump ends with
  ``Bluetooth Service not connected`` (no device list), as on a phone.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from device.virtual.phone import VirtualPhone
from device.virtual.shell_context import CommandContext
from sim import radios

__all__ = ["bluetooth_command", "connected_ssid", "dumpsys_bluetooth", "paired", "wifi_command"]

_DEVICE_TYPES = {"headphones": " DUAL ", "watch": "  LE  ", "car": "BR/EDR"}
"""``AdapterProperties.dumpDeviceType`` of a paired device, by the world's device kind."""


def _global(phone: VirtualPhone) -> Mapping[str, Any]:
    return phone.instance.state.os.settings.get("global", {})


def connected_ssid(phone: VirtualPhone) -> str | None:
    """:func:`sim.radios.connected_ssid` of the virtual phone (None: off or not joined)."""
    return radios.connected_ssid(phone.instance.state, radios.settings_world(phone.sim.phone))


def paired(phone: VirtualPhone) -> list[Mapping[str, Any]]:
    """:func:`sim.radios.paired_devices` of the virtual phone (``name``, ``kind``)."""
    return radios.paired_devices(radios.settings_world(phone.sim.phone))


def _address(seed: str) -> str:
    """A stable, upper-case MAC address (``BluetoothDevice.getAddress``) for a name."""
    octets = hashlib.md5(seed.encode()).digest()[:6]
    return ":".join(f"{octet:02X}" for octet in octets)


async def wifi_command(ctx: CommandContext, rest: list[str]) -> int:
    """``cmd wifi set-wifi-enabled enabled|disabled`` and ``cmd wifi status``."""
    settings_ = ctx.phone.instance.state.os.settings
    if rest[:1] == ["set-wifi-enabled"] and rest[1:2] in (["enabled"], ["disabled"]):
        radios.set_radio(settings_, "wifi_on", rest[1] == "enabled")
        ctx.changed()
        return 0
    if rest[:1] == ["status"]:
        await ctx.println(*_wifi_status(ctx.phone))
        return 0
    return await ctx.usage("Wi-Fi (wifi) commands:\n  set-wifi-enabled enabled|disabled\n  status")


def _wifi_status(phone: VirtualPhone) -> list[str]:
    on = radios.radio_on(phone.instance.state.os.settings, "wifi_on")
    lines = [f"Wifi is {'enabled' if on else 'disabled'}", "Wifi scanning is always available"]
    if not on:
        return lines
    lines.append("==== Primary ClientModeManager instance ====")
    ssid = connected_ssid(phone)
    if ssid is None:
        return [*lines, "Wifi is not connected"]
    info = (
        f'SSID: "{ssid}", BSSID: {_address("ap" + ssid).lower()}, MAC: '
        f"{_address(phone.serial).lower()}, IP: /192.168.1.23, Security type: 2, Supplicant "
        "state: COMPLETED, Wi-Fi standard: 11ax, RSSI: -52, Link speed: 864Mbps, Tx Link "
        "speed: 864Mbps, Max Supported Tx Link speed: 1201Mbps, Rx Link speed: 780Mbps, Max "
        "Supported Rx Link speed: 1201Mbps, Frequency: 5180MHz, Net ID: 0, Metered hint: "
        "false, score: 60"
    )
    return [
        *lines,
        f'Wifi is connected to "{ssid}"',
        f"WifiInfo: {info}",
        "successfulTxPackets: 0",
        "successfulTxPacketsPerSecond: 0.0",
        "retriedTxPackets: 0",
        "retriedTxPacketsPerSecond: 0.0",
        "lostTxPackets: 0",
        "lostTxPacketsPerSecond: 0.0",
        "successfulRxPackets: 0",
        "successfulRxPacketsPerSecond: 0.0",
    ]


async def bluetooth_command(ctx: CommandContext, rest: list[str]) -> int:
    """``cmd bluetooth_manager enable|disable``."""
    if rest[:1] not in (["enable"], ["disable"]):
        return await ctx.usage("Bluetooth Manager Commands:\n  enable\n  disable")
    radios.set_radio(ctx.phone.instance.state.os.settings, "bluetooth_on", rest[0] == "enable")
    ctx.changed()
    return 0


async def dumpsys_bluetooth(ctx: CommandContext) -> None:
    """``dumpsys bluetooth_manager``: the manager's status, then (Bluetooth on) the adapter's
    properties with the bonded devices, or (off) ``Bluetooth Service not connected``."""
    phone = ctx.phone
    on = radios.radio_on(phone.instance.state.os.settings, "bluetooth_on")
    name = str(_global(phone).get("device_name") or phone.identity.model)
    address = _address("bt" + phone.serial)
    lines = [
        "Bluetooth Status",
        f"  enabled: {str(on).lower()}",
        f"  state: {'ON' if on else 'OFF'}",
        f"  address: {address}",
        f"  name: {name}",
        *(["  time since enabled: 00:00:05.000"] if on else []),
        "",
        "Bluetooth never enabled!" if not on else "Enable log:",
        *(["  01-01 08:00:00.000 \tEnabled by com.android.settings"] if on else []),
        "",
        "Bluetooth crashed 0 times",
        "",
        "0 BLE appsregistered",
        "",
    ]
    if not on:
        await ctx.println(*lines, "Bluetooth Service not connected")
        return
    devices = [
        f"    {_address(device['name'])} [{_DEVICE_TYPES.get(device.get('kind', ''), 'BR/EDR')}] "
        f"{device['name']}"
        for device in paired(phone)
    ]
    await ctx.println(
        *lines,
        "AdapterProperties",
        f"  Name: {name}",
        f"  Address: {address}",
        "  BluetoothClass: 5a020c",
        "  ScanMode: SCAN_MODE_CONNECTABLE",
        "  ConnectionState: STATE_DISCONNECTED",
        "  State: ON",
        "  MaxConnectedAudioDevices: 5",
        "  A2dpOffloadEnabled: true",
        "  Discovering: false",
        "  DiscoveryEndMs: 0",
        "  Bonded devices:",
        *devices,
        "",
    )
