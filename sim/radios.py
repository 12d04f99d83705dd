"""Settings writes with Android's side effects, shared by the Settings app and the shade.

On Android, turning airplane mode on switches the radios off and turning it off brings back
the ones that were on; Wi-Fi and Bluetooth may still be switched by hand in between, and
that choice wins. The radios' earlier states are kept where Android keeps them, in
``global`` settings (``wifi_saved_state``, ``bluetooth_saved_state``), so a snapshot carries
them and every path (the Settings app, the shade) behaves the same.

What the radios are connected to is world data of the Settings app (the networks in range,
the paired devices) with the instance's overlay; :func:`connected_ssid` and
:func:`paired_devices` are the one reading of it, for the Settings pages, the virtual
phone's ``cmd wifi`` / ``dumpsys bluetooth_manager`` and :mod:`sim.android_state`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sim.phone import Phone
    from sim.state import InstanceState

__all__ = [
    "QUICK_TILES",
    "RADIO_KEYS",
    "airplane_changed",
    "connected_ssid",
    "is_on",
    "paired_devices",
    "radio_on",
    "set_airplane",
    "set_radio",
    "settings_world",
    "toggle_tile",
]

Settings = dict[str, dict[str, Any]]

QUICK_TILES: tuple[tuple[str, str], ...] = (
    ("wifi", "wifi"),
    ("bluetooth", "bluetooth"),
    ("airplane", "airplane"),
    ("dnd", "dnd"),
    ("dark", "moon"),
    ("location", "info"),
)
"""Quick-settings tiles of the shade: (tile id, icon). HyperOS's Control Center adds
``mobile_data``, which AOSP's shade does not have."""


def is_on(settings: Settings, tile: str) -> bool:
    """Whether the quick-settings ``tile`` is on."""
    g, s = settings["global"], settings["secure"]
    return {
        "wifi": g.get("wifi_on") == 1,
        "mobile_data": g.get("mobile_data") == 1,
        "bluetooth": g.get("bluetooth_on") == 1,
        "airplane": g.get("airplane_mode_on") == 1,
        "dnd": g.get("zen_mode", 0) != 0,
        "dark": s.get("ui_night_mode") == 2,
        "location": s.get("location_mode", 0) != 0,
    }[tile]


RADIO_KEYS = ("wifi_on", "bluetooth_on")
"""The radios airplane mode switches off (``global`` settings keys)."""


def radio_on(settings: Settings, key: str) -> bool:
    """Whether the radio ``key`` (``wifi_on``, ``bluetooth_on``) is on."""
    return settings.get("global", {}).get(key) == 1


def set_radio(settings: Settings, key: str, on: bool) -> None:
    """Switch one radio by hand; in airplane mode this choice wins when the mode ends."""
    if key not in RADIO_KEYS:
        raise KeyError(f"{key!r} is not a radio; expected one of {RADIO_KEYS}")
    g = settings["global"]
    g[key] = int(on)
    g.pop(key.replace("_on", "_saved_state"), None)


def set_airplane(settings: Settings, on: bool) -> None:
    """Turn airplane mode on (radios off, states saved) or off (saved radios restored)."""
    g = settings["global"]
    if on == (g.get("airplane_mode_on") == 1):
        return
    g["airplane_mode_on"] = int(on)
    if on:  # a fresh flight: what the radios are now is what comes back
        for key in RADIO_KEYS:
            g.pop(key.replace("_on", "_saved_state"), None)
    airplane_changed(settings)


def airplane_changed(settings: Settings) -> None:
    """What the radios do on Android's ``AIRPLANE_MODE_CHANGED`` broadcast, for the mode the
    setting holds now: on, switch off the radios still on (saving that they were); off,
    bring back the saved ones. Idempotent, so it may follow a bare ``settings put``, as
    ``cmd connectivity airplane-mode`` does on a phone."""
    g = settings["global"]
    on = g.get("airplane_mode_on") == 1
    for key in RADIO_KEYS:
        saved = key.replace("_on", "_saved_state")
        if on and g.get(key, 0) == 1:
            g[saved], g[key] = 1, 0
        elif on:
            g.setdefault(saved, 0)
        elif g.pop(saved, 0) == 1:
            g[key] = 1


def settings_world(phone: Phone) -> Mapping[str, Any]:
    """World data of the Settings app (networks, paired devices); {} without Settings."""
    app = phone.apps.get("settings")
    return app.world if app is not None else {}


def connected_ssid(state: InstanceState, world: Mapping[str, Any]) -> str | None:
    """The network Wi-Fi is connected to (what Settings shows as Connected), None when Wi-Fi
    is off: the one joined by tapping it, else the world's connected network.

    Args:
        state: The instance (its ``global.wifi_on`` and the Settings app's overlay).
        world: The Settings app's world data (:func:`settings_world`).
    """
    if not radio_on(state.os.settings, "wifi_on"):
        return None
    joined = state.apps.get("settings", {}).get("wifi_ssid")
    return joined or world.get("wifi", {}).get("connected") or None


def paired_devices(world: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The paired Bluetooth devices (``name``, ``kind``) of the Settings app's world data,
    whatever the radio's state (Android remembers bonds with Bluetooth off)."""
    return list(world.get("bluetooth", {}).get("paired", []))


def toggle_tile(settings: Settings, tile: str) -> None:
    """Flip a quick-settings tile, with the same effects as the Settings app's switch."""
    on = not is_on(settings, tile)
    g, s = settings["global"], settings["secure"]
    if tile == "airplane":
        set_airplane(settings, on)
    elif tile in ("wifi", "bluetooth"):
        set_radio(settings, f"{tile}_on", on)
    elif tile == "mobile_data":  # disabled in airplane mode, as the Settings switch
        if g.get("airplane_mode_on") != 1:
            g["mobile_data"] = int(on)
    elif tile == "dnd":
        g["zen_mode"] = int(on)
    elif tile == "dark":
        s["ui_night_mode"] = 2 if on else 1
    elif tile == "location":
        s["location_mode"] = 3 if on else 0
    else:
        raise KeyError(f"unknown quick-settings tile {tile!r}")
