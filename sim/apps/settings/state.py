"""The Settings app's overlay, typed: what :mod:`sim.apps.settings.app` writes into
``InstanceState.apps["settings"]`` (its judged state is Android's settings, kept by the OS:
only what Android keeps outside settings keys is here)."""

from __future__ import annotations

from typing import Literal

from sim.state import OverlayModel

__all__ = ["SettingsState"]


class SettingsState(OverlayModel):
    """``{"wifi_ssid": ..., "dialog": "rename", "dialog_error": "name_empty"}``, each optional."""

    wifi_ssid: str | None = None
    """The network joined by tapping it (absent: world ``wifi.connected``)."""
    dialog: Literal["rename"] | None = None
    """The device-name dialog while it is open (UI state)."""
    dialog_error: Literal["name_empty"] | None = None
    """The dialog's error, a string key (UI state)."""
