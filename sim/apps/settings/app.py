"""The Settings app (``com.android.settings``): radios, display, sound, language, about.

Its judged state is the OS's: every handler writes Android settings
(``ctx.settings[namespace][key]``) with the rules in :mod:`sim.apps.settings.model`.
Airplane mode and the Wi-Fi and Bluetooth switches go through :mod:`sim.radios`, the one
implementation shared with the quick-settings shade: the radios to bring back when airplane
mode ends are Android's ``global.wifi_saved_state`` / ``bluetooth_saved_state`` (present only
while it is on), not app state. The app's own overlay holds only what Android keeps outside
settings keys:

* ``wifi_ssid`` — the network joined by tapping it (absent: world ``wifi.connected``);
* ``dialog`` / ``dialog_error`` — the open rename dialog and its error (UI state, not in
  :meth:`SettingsApp.view`).

Actions (``data-action`` → handler; ``data-arg-*`` in brackets): ``open[page]``,
``toggle_airplane``, ``toggle_wifi``, ``toggle_bluetooth``, ``toggle_mobile_data``,
``toggle_dark_theme``, ``toggle_dnd``, ``set_brightness[frac]``, ``set_ring_volume[frac]``,
``set_timeout[ms]``, ``set_font_scale[size]``, ``set_ringer[mode]``, ``set_zen[mode]``,
``toggle_silent_mode`` and ``toggle_vibrate_in_silent`` (HyperOS), ``set_locale[locale]``,
``wifi_network[ssid]``, ``rename``, ``rename_ok``, ``rename_cancel``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sim import radios
from sim.app import App, AppContext, Event, GalleryAction, GalleryScreen, on
from sim.apps.settings import model
from sim.apps.settings.pages import (
    DEVICE_NAME_FIELD,
    PAGES,
    SKIN_PAGES,
    connected_ssid,
    dialog_values,
    read_overlay,
)
from sim.apps.settings.state import SettingsState
from sim.errors import SimError

__all__ = ["SettingsApp"]


def _frac(event: Event) -> float:
    """The slider fraction of ``event``; garbage is a runtime bug, not an agent mistake."""
    try:
        return float(event.arg("frac"))
    except ValueError as exc:
        raise SimError(f"slider event {event.action!r} has a bad frac: {exc}") from exc


def _choice(event: Event, name: str, allowed: Mapping[str, Any] | tuple[Any, ...]) -> str:
    """The argument ``name`` of ``event``, which must be one of ``allowed``."""
    value = event.arg(name)
    keys = [str(key) for key in allowed]
    if value not in keys:
        raise SimError(f"{event.action!r}: {name}={value!r} is not one of {keys}")
    return value


class SettingsApp(App):
    """Android Settings in the style of Xiaomi HyperOS; see the module docstring."""

    id = "settings"
    overlay_model = SettingsState
    SCREENS = PAGES
    SKIN_SCREENS = SKIN_PAGES
    INTENT_ACTIONS = {
        "android.settings.SETTINGS": "/",
        "android.settings.WIFI_SETTINGS": "/wifi",
        "android.settings.WIRELESS_SETTINGS": "/wifi",
        "android.settings.BLUETOOTH_SETTINGS": "/bluetooth",
        "android.settings.DATA_ROAMING_SETTINGS": "/mobile",
        "android.settings.DISPLAY_SETTINGS": "/display",
        "android.settings.SOUND_SETTINGS": "/sound",
        "android.settings.LOCALE_SETTINGS": "/language",
        "android.settings.DEVICE_INFO_SETTINGS": "/about",
    }

    # ---- framework hooks
    def view(self, overlay: Mapping[str, Any]) -> dict[str, Any]:
        """``{"wifi_ssid": "..."}`` when a network was joined by tapping it, else ``{}``.

        Settings values themselves, the remembered radios included, are judged in
        ``os.settings`` (owned by the OS).
        """
        out: dict[str, Any] = {}
        if overlay.get("wifi_ssid"):
            out["wifi_ssid"] = str(overlay["wifi_ssid"])
        return out

    def render(self, ctx: AppContext) -> str:
        """The current page, with the rename dialog on top when it is open."""
        html = super().render(ctx)
        if read_overlay(ctx).get("dialog") == "rename":
            html += ctx.render("rename_dialog.html", **dialog_values(ctx))
        return html

    def gallery_screens(self) -> tuple[GalleryScreen, ...]:
        """The main list, the radio, display, font-size, sound, language and about pages,
        and the device-name dialog (keyboard up)."""
        pages = (
            ("wifi", "Wi-Fi"),
            ("bluetooth", "Bluetooth"),
            ("display", "Display"),
            ("sound", "Sound"),
            ("language", "Languages"),
            ("about", "About phone"),
        )
        return (
            GalleryScreen(name="main", title="Settings"),
            *(GalleryScreen(name=name, title=title, path=f"/{name}") for name, title in pages),
            GalleryScreen(name="font", title="Font size", path="/display/font"),
            GalleryScreen(
                name="rename-dialog",
                title="Device name dialog",
                path="/about",
                actions=(GalleryAction(action="rename"),),
            ),
        )

    def skin_gallery_screens(self, skin: str) -> tuple[GalleryScreen, ...]:
        """The pages a skin adds (HyperOS: More connectivity options, Lock screen, Sleep, Do
        not disturb, Detailed info and specs, Additional settings); a page it only hands to
        another package is in every skin's gallery already."""
        return tuple(
            GalleryScreen(name=path.strip("/").replace("/", "-"), title=path, path=path)
            for path in SKIN_PAGES.get(skin, {})
            if path not in self.SCREENS
        )

    def on_back(self, ctx: AppContext) -> bool:
        """Back closes the rename dialog before leaving the page."""
        if read_overlay(ctx).get("dialog"):
            self._close_dialog(ctx)
            return True
        return False

    # ---- navigation
    @on("open")
    def open_page(self, ctx: AppContext, event: Event) -> None:
        """Open the sub-page ``page`` (a route of :data:`PAGES`)."""
        ctx.navigate(_choice(event, "page", tuple(self.screens(ctx.skin))))

    # ---- radios
    @on("toggle_airplane")
    def toggle_airplane(self, ctx: AppContext, event: Event) -> None:
        """Airplane mode: radios off (remembered) or back to what they were."""
        radios.set_airplane(ctx.settings, not radios.is_on(ctx.settings, "airplane"))

    @on("toggle_wifi")
    def toggle_wifi(self, ctx: AppContext, event: Event) -> None:
        """Wi-Fi on/off (allowed in airplane mode, as on Android)."""
        radios.set_radio(ctx.settings, "wifi_on", not radios.is_on(ctx.settings, "wifi"))

    @on("toggle_bluetooth")
    def toggle_bluetooth(self, ctx: AppContext, event: Event) -> None:
        """Bluetooth on/off (allowed in airplane mode, as on Android)."""
        on = not radios.is_on(ctx.settings, "bluetooth")
        radios.set_radio(ctx.settings, "bluetooth_on", on)

    @on("toggle_mobile_data")
    def toggle_mobile_data(self, ctx: AppContext, event: Event) -> None:
        """Mobile data on/off; the switch is disabled (does nothing) in airplane mode."""
        g = ctx.settings.setdefault("global", {})
        if model.is_on(g.get("airplane_mode_on")):
            return
        g["mobile_data"] = 0 if model.is_on(g.get("mobile_data")) else 1

    @on("wifi_network")
    def wifi_network(self, ctx: AppContext, event: Event) -> None:
        """Join an open or saved network; an unknown secured one needs a password."""
        ssid = event.arg("ssid")
        network = next((n for n in ctx.world["wifi"]["networks"] if n["ssid"] == ssid), None)
        if network is None:
            raise SimError(f"wifi_network: no network {ssid!r} in world data")
        if ssid == connected_ssid(ctx):
            return
        if network["secured"] and not network["saved"]:
            ctx.toast(ctx.t("password_required"))
            return
        ctx.data["wifi_ssid"] = ssid
        ctx.toast(ctx.t("connected_to", ssid=ssid))

    # ---- display
    @on("set_brightness")
    def set_brightness(self, ctx: AppContext, event: Event) -> None:
        """Brightness slider: ``system.screen_brightness`` = round(frac * 255)."""
        level = model.brightness_from_frac(_frac(event))
        ctx.settings.setdefault("system", {})["screen_brightness"] = level

    @on("toggle_dark_theme")
    def toggle_dark_theme(self, ctx: AppContext, event: Event) -> None:
        """Dark theme: ``secure.ui_night_mode`` 2 (on) / 1 (off)."""
        secure = ctx.settings.setdefault("secure", {})
        on = int(secure.get("ui_night_mode", model.NIGHT_MODE_OFF)) == model.NIGHT_MODE_ON
        secure["ui_night_mode"] = model.night_mode_value(not on)

    @on("set_timeout")
    def set_timeout(self, ctx: AppContext, event: Event) -> None:
        """Screen timeout: ``system.screen_off_timeout`` = ``ms``."""
        ms = int(_choice(event, "ms", model.TIMEOUT_CHOICES_BY_SKIN[ctx.skin]))
        ctx.settings.setdefault("system", {})["screen_off_timeout"] = ms

    @on("set_font_scale")
    def set_font_scale(self, ctx: AppContext, event: Event) -> None:
        """Font size: ``system.font_scale`` from the choice named ``size``, one of the skin's
        own sizes; a skin with MIUI's size codes writes ``system.ui_mode_scale`` too, as MIUI
        does (:data:`~sim.apps.settings.model.UI_MODE_SCALES_BY_SKIN`)."""
        sizes = model.FONT_SCALES_BY_SKIN[ctx.skin]
        size = _choice(event, "size", sizes)
        system = ctx.settings.setdefault("system", {})
        system["font_scale"] = sizes[size]
        codes = model.UI_MODE_SCALES_BY_SKIN.get(ctx.skin)
        if codes is not None:
            system["ui_mode_scale"] = codes[size]

    # ---- sound
    @on("set_ring_volume")
    def set_ring_volume(self, ctx: AppContext, event: Event) -> None:
        """Ring volume slider: ``system.volume_ring`` = round(frac * 15)."""
        volume = model.ring_volume_from_frac(_frac(event))
        ctx.settings.setdefault("system", {})["volume_ring"] = volume

    @on("toggle_dnd")
    def toggle_dnd(self, ctx: AppContext, event: Event) -> None:
        """Do not disturb: ``global.zen_mode`` 1 (on) / 0 (off)."""
        g = ctx.settings.setdefault("global", {})
        g["zen_mode"] = model.zen_mode_value(not model.is_on(g.get("zen_mode")))

    @on("set_zen")
    def set_zen(self, ctx: AppContext, event: Event) -> None:
        """Do not disturb as HyperOS offers it: ``global.zen_mode`` from the choice ``mode``
        (:data:`~sim.apps.settings.model.ZEN_MODES`)."""
        mode = _choice(event, "mode", model.ZEN_MODES)
        ctx.settings.setdefault("global", {})["zen_mode"] = model.ZEN_MODES[mode]

    @on("set_ringer")
    def set_ringer(self, ctx: AppContext, event: Event) -> None:
        """Ringer mode (AOSP's list; HyperOS has MIUI's silent mode instead):
        ``global.mode_ringer`` from the choice named ``mode``."""
        mode = _choice(event, "mode", model.RINGER_MODES)
        ctx.settings.setdefault("global", {})["mode_ringer"] = model.RINGER_MODES[mode]

    @on("toggle_silent_mode")
    def toggle_silent_mode(self, ctx: AppContext, event: Event) -> None:
        """MIUI's *Silent mode* switch (HyperOS), its ``setSilenceModeOn``: on is
        ``global.mode_ringer`` 1 (vibrate) if ``system.vibrate_in_silent`` is on (unset: on),
        else 0 (silent); off is 2 (normal). It is on while the ringer is not normal."""
        g = ctx.settings.setdefault("global", {})
        on = not model.is_silent_mode(g.get("mode_ringer", model.RINGER_MODES["sound"]))
        vibrate = model.vibrates_in_silent(ctx.settings.get("system", {}))
        g["mode_ringer"] = model.silent_mode_ringer(on, vibrate)

    @on("toggle_vibrate_in_silent")
    def toggle_vibrate_in_silent(self, ctx: AppContext, event: Event) -> None:
        """MIUI's *Vibrate in silent mode* switch (HyperOS): ``system.vibrate_in_silent`` 1/0.
        While silent mode is on, the ringer follows (1 vibrate or 0 silent), as if silent mode
        were turned on again: our inference from ``setSilenceModeOn``, which reads the setting
        when silent mode turns on; the public code does not show the switch doing it."""
        system = ctx.settings.setdefault("system", {})
        vibrate = not model.vibrates_in_silent(system)
        system["vibrate_in_silent"] = int(vibrate)
        g = ctx.settings.setdefault("global", {})
        if model.is_silent_mode(g.get("mode_ringer", model.RINGER_MODES["sound"])):
            g["mode_ringer"] = model.silent_mode_ringer(True, vibrate)

    # ---- language
    @on("set_locale")
    def set_locale(self, ctx: AppContext, event: Event) -> None:
        """Language: ``system.system_locales``; the whole UI follows at once."""
        locale = _choice(event, "locale", model.LOCALES)
        ctx.settings.setdefault("system", {})["system_locales"] = locale

    # ---- device name
    @on("rename")
    def rename(self, ctx: AppContext, event: Event) -> None:
        """Open the device-name dialog, prefilled with the current name, its field focused
        (keyboard up; the keyboard's Enter is OK)."""
        ctx.data["dialog"] = "rename"
        ctx.data.pop("dialog_error", None)
        name = str(ctx.settings.get("global", {}).get("device_name", ""))
        ctx.set_field(DEVICE_NAME_FIELD, name)
        ctx.focus(DEVICE_NAME_FIELD, submit="rename_ok")

    @on("rename_ok")
    def rename_ok(self, ctx: AppContext, event: Event) -> None:
        """Save the typed name (trimmed); an empty one keeps the dialog with an error."""
        if read_overlay(ctx).get("dialog") != "rename":
            return
        name = ctx.field(DEVICE_NAME_FIELD).strip()
        if not name:
            ctx.data["dialog_error"] = "name_empty"
            return
        ctx.settings.setdefault("global", {})["device_name"] = name
        self._close_dialog(ctx)

    @on("rename_cancel")
    def rename_cancel(self, ctx: AppContext, event: Event) -> None:
        """Close the dialog without saving."""
        self._close_dialog(ctx)

    @staticmethod
    def _close_dialog(ctx: AppContext) -> None:
        data = read_overlay(ctx)
        data.pop("dialog", None)
        data.pop("dialog_error", None)
        if ctx.state.ui.focus == DEVICE_NAME_FIELD:
            ctx.focus(None)  # unfocus (submit action too), keyboard down
        ctx.clear_fields(DEVICE_NAME_FIELD)
