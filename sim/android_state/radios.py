"""``SimRadios``: what the radios are connected to, :func:`sim.radios.connected_ssid` and
:func:`sim.radios.paired_devices`."""

from __future__ import annotations

from sim.android_state.base import SimStateBase
from sim.radios import connected_ssid, paired_devices, settings_world

__all__ = ["SimRadios"]


class SimRadios(SimStateBase):
    """:class:`bridge.android_state.RadiosState` of the simulated phone."""

    async def wifi_ssid(self) -> str | None:
        """The network Wi-Fi is connected to (None: off)."""
        return connected_ssid(self.state, settings_world(self.phone))

    async def bonded_devices(self) -> list[str]:
        """Names of the paired Bluetooth devices, whatever the radio's state."""
        return [str(device["name"]) for device in paired_devices(settings_world(self.phone))]
