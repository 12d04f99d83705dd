"""Settings writes with Android's side effects, shared by the Settings app and the shade.

On Android, turning airplane mode on switches the radios off and turning it off brings back
the ones that were on; Wi-Fi and Bluetooth may still be switched by hand in between, and
that choice wins. The radios' earlier states are kept where Android keeps them, in
``global`` settings (``wifi_saved_state``, ``bluetooth_saved_state``), so a snapshot carries
them and every path (the Settings app, the shade) behaves the same.
"""

from __future__ import annotations

from typing import Any

__all__ = ["QUICK_TILES", "RADIO_KEYS", "is_on", "set_airplane", "set_radio", "toggle_tile"]

Settings = dict[str, dict[str, Any]]

QUICK_TILES: tuple[tuple[str, str], ...] = (
    ("wifi", "wifi"),
    ("bluetooth", "bluetooth"),
    ("airplane", "airplane"),
    ("dnd", "dnd"),
    ("dark", "moon"),
    ("location", "info"),
)
"""Quick-settings tiles of the shade: (tile id, icon)."""


def is_on(settings: Settings, tile: str) -> bool:
    """Whether the quick-settings ``tile`` is on."""
    g, s = settings["global"], settings["secure"]
    return {
        "wifi": g.get("wifi_on") == 1,
        "bluetooth": g.get("bluetooth_on") == 1,
        "airplane": g.get("airplane_mode_on") == 1,
        "dnd": g.get("zen_mode", 0) != 0,
        "dark": s.get("ui_night_mode") == 2,
        "location": s.get("location_mode", 0) != 0,
    }[tile]


RADIO_KEYS = ("wifi_on", "bluetooth_on")
"""The radios airplane mode switches off (``global`` settings keys)."""


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
    for key in RADIO_KEYS:
        saved = key.replace("_on", "_saved_state")
        if on:
            g[saved] = int(g.get(key, 0) == 1)
            g[key] = 0
        elif g.pop(saved, 0) == 1:
            g[key] = 1


def toggle_tile(settings: Settings, tile: str) -> None:
    """Flip a quick-settings tile, with the same effects as the Settings app's switch."""
    on = not is_on(settings, tile)
    g, s = settings["global"], settings["secure"]
    if tile == "airplane":
        set_airplane(settings, on)
    elif tile in ("wifi", "bluetooth"):
        set_radio(settings, f"{tile}_on", on)
    elif tile == "dnd":
        g["zen_mode"] = int(on)
    elif tile == "dark":
        s["ui_night_mode"] = 2 if on else 1
    elif tile == "location":
        s["location_mode"] = 3 if on else 0
    else:
        raise KeyError(f"unknown quick-settings tile {tile!r}")
