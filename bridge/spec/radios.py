"""The radios: the Wi-Fi network the phone is on, the Bluetooth devices it is paired with."""

from __future__ import annotations

from typing import Literal

from pydantic import JsonValue

from bridge.android_state import AndroidState
from bridge.spec.base import FactNode, Truths

__all__ = ["BondedFact", "WifiFact"]


class WifiFact(FactNode):
    """The Wi-Fi network the phone is connected to."""

    source: Literal["wifi_ssid"] = "wifi_ssid"

    async def read(self, state: AndroidState, truths: Truths) -> list[JsonValue]:
        """The SSID; nothing when Wi-Fi is off or not connected."""
        ssid = await state.wifi_ssid()
        return [] if ssid is None else [ssid]


class BondedFact(FactNode):
    """The names of the paired Bluetooth devices."""

    source: Literal["bonded_devices"] = "bonded_devices"

    async def read(self, state: AndroidState, truths: Truths) -> list[JsonValue]:
        """Each paired device's name."""
        return list(await state.bonded_devices())
