"""``MobileGymRadios``: the Wi-Fi network and the paired Bluetooth devices, as MobileGym's
connectivity manager holds them (``os.hardware``)."""

from __future__ import annotations

from bridge.errors import StateUnavailable
from mobilegym.android_state.base import MobileGymStateBase

__all__ = ["MobileGymRadios"]

_READ = """() => {
  const os = window.__SIM__.getState().os;
  return {
    wifiOn: os.settings.global.wifiEnabled,
    ssid: os.hardware.wifi ? os.hardware.wifi.connectedSsid : null,
    bluetooth: os.hardware.nearbyBluetooth || [],
  };
}"""


class MobileGymRadios(MobileGymStateBase):
    """:class:`bridge.android_state.RadiosState` over ``os.hardware``."""

    async def _radios(self) -> dict[str, object]:
        found = await self.page.call(_READ)
        if not isinstance(found, dict):
            raise StateUnavailable("MobileGym's getState().os holds no hardware")
        return found

    async def wifi_ssid(self) -> str | None:
        """``hardware.wifi.connectedSsid`` while Wi-Fi is on (MobileGym's own rule: it keeps
        the last network while off); None when off or connected to nothing."""
        radios = await self._radios()
        ssid = radios.get("ssid")
        return str(ssid) if radios.get("wifiOn") and ssid else None

    async def bonded_devices(self) -> list[str]:
        """Names of ``hardware.nearbyBluetooth`` marked ``paired``, in MobileGym's order
        (held whatever the radio's state, so the radio is never touched)."""
        devices = (await self._radios()).get("bluetooth")
        if not isinstance(devices, list):
            raise StateUnavailable("MobileGym's hardware.nearbyBluetooth is not a list")
        return [str(d["name"]) for d in devices if isinstance(d, dict) and d.get("paired")]
