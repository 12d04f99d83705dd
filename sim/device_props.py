"""The simulated phone's identity and its system properties (what ``getprop`` prints).

One table for every reader: the virtual phone's ``getprop`` and
:meth:`sim.android_state.SimAndroidState.getprop`. The identity defaults to the reference
phone (a Redmi Note 12 Turbo, ``23049RAD8C``, Android 14); the locale follows
``system.system_locales``, ``ro.product.marketname`` the Settings app's About page, and the
time zone :data:`sim.state.TIME_ZONE`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sim.phone import Phone
from sim.state import TIME_ZONE, InstanceState

__all__ = ["DEFAULT_DENSITY_DPI", "DeviceIdentity", "system_properties"]

DEFAULT_DENSITY_DPI = 480
"""``ro.sf.lcd_density`` of the default screen (:class:`sim.pages.SimProfile`)."""
_XIAOMI_BRANDS = ("Redmi", "Xiaomi", "POCO")


@dataclass(frozen=True)
class DeviceIdentity:
    """What a phone says it is: model, brand, device (code name), Android release, SDK
    level and serial number."""

    model: str = "23049RAD8C"
    brand: str = "Redmi"
    device: str = "marble"
    android_version: str = "14"
    sdk: int = 34
    serial: str = "SIM00000000"

    @property
    def manufacturer(self) -> str:
        """``ro.product.manufacturer``: Xiaomi for its brands, else the brand."""
        return "Xiaomi" if self.brand in _XIAOMI_BRANDS else self.brand

    @property
    def fingerprint(self) -> str:
        """``ro.build.fingerprint`` (a HyperOS user build)."""
        return (
            f"{self.brand}/{self.device}/{self.device}:{self.android_version}/"
            "UKQ1.230804.001/V816.0.5.0.UMRCNXM:user/release-keys"
        )


def _about(phone: Phone) -> Mapping[str, Any]:
    """The About page's facts (the Settings app's world data), {} without Settings."""
    settings_app = phone.apps.get("settings")
    return settings_app.world.get("about", {}) if settings_app is not None else {}


def system_properties(
    identity: DeviceIdentity,
    phone: Phone,
    state: InstanceState,
    *,
    density_dpi: int = DEFAULT_DENSITY_DPI,
) -> dict[str, str]:
    """Every system property of the phone, as ``getprop`` prints them."""
    locale = str(state.os.settings.get("system", {}).get("system_locales", "en-US"))
    values = {
        "ro.serialno": identity.serial,
        "ro.boot.serialno": identity.serial,
        "ro.product.model": identity.model,
        "ro.product.brand": identity.brand,
        "ro.product.name": identity.device,
        "ro.product.device": identity.device,
        "ro.product.manufacturer": identity.manufacturer,
        "ro.product.cpu.abi": "arm64-v8a",
        "ro.product.cpu.abilist": "arm64-v8a,armeabi-v7a,armeabi",
        "ro.build.version.sdk": str(identity.sdk),
        "ro.build.version.release": identity.android_version,
        "ro.build.fingerprint": identity.fingerprint,
        "ro.build.type": "user",
        "ro.build.tags": "release-keys",
        "ro.debuggable": "0",
        "ro.secure": "1",
        "ro.sf.lcd_density": str(density_dpi),
        "sys.boot_completed": "1",
        "dev.bootcomplete": "1",
        "persist.sys.locale": locale,
        "persist.sys.timezone": TIME_ZONE,
        "ro.product.locale": "zh-CN",
        "ro.kernel.qemu": "",
        "ro.mgb.virtual": "1",
    }
    if identity.manufacturer == "Xiaomi":
        values.update({"ro.miui.ui.version.name": "V140", "ro.miui.ui.version.code": "14"})
    marketname = _about(phone).get("model")
    if marketname:  # what About phone shows as the model, as on Xiaomi phones
        values["ro.product.marketname"] = str(marketname)
    return values
