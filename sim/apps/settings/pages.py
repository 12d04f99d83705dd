"""The screens of the Settings app: route → template, Android activity and template values.

Each ``*_values`` function reads the instance (settings by Android namespace, the app's
overlay, world data) and returns exactly the variables its template uses; templates only
lay the values out with the shared widgets.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sim import radios
from sim.app import AppContext, Screen
from sim.apps.settings import model

__all__ = [
    "DEVICE_NAME_FIELD",
    "PAGES",
    "SKIN_PAGES",
    "connected_ssid",
    "dialog_values",
    "locale_label_key",
    "read_overlay",
]

DEVICE_NAME_FIELD = "settings.device_name"
"""Draft key of the device-name text field in the rename dialog."""

Values = dict[str, Any]


def _global(ctx: AppContext) -> dict[str, Any]:
    return ctx.settings.get("global", {})


def _system(ctx: AppContext) -> dict[str, Any]:
    return ctx.settings.get("system", {})


def read_overlay(ctx: AppContext) -> dict[str, Any]:
    """The app's overlay for reading (``ctx.data`` would create it: renders stay pure)."""
    return ctx.state.apps.get(ctx.app.id, {})


def connected_ssid(ctx: AppContext) -> str | None:
    """The network Wi-Fi is connected to, None when Wi-Fi is off: the one reading
    (:func:`sim.radios.connected_ssid`) that ``cmd wifi status`` prints too."""
    return radios.connected_ssid(ctx.state, ctx.world)


def locale_label_key(code: str) -> str:
    """String key of a language's own name (``en-US`` → ``locale_en_us``)."""
    return "locale_" + code.lower().replace("-", "_")


def _on_off(ctx: AppContext, value: Any) -> str:
    return ctx.t("on") if model.is_on(value) else ctx.t("off")


def _timeout_text(ctx: AppContext, ms: Any) -> str:
    key, n = model.timeout_label(ms)
    return ctx.t(key, n=n)


def main_values(ctx: AppContext) -> Values:
    """The top-level list: connectivity summaries, airplane switch, sub-page entries."""
    g = _global(ctx)
    airplane = model.is_on(g.get("airplane_mode_on"))
    ssid = connected_ssid(ctx)
    wifi = ssid or (ctx.t("not_connected") if model.is_on(g.get("wifi_on")) else ctx.t("off"))
    mobile = ctx.t("unavailable_airplane") if airplane else _on_off(ctx, g.get("mobile_data"))
    locale = model.locale_choice(_system(ctx).get("system_locales")) or model.LOCALES[0]
    return {
        "wifi_summary": wifi,
        "bluetooth_summary": _on_off(ctx, g.get("bluetooth_on")),
        "mobile_summary": mobile,
        "airplane": airplane,
        "locale_label": ctx.t(locale_label_key(locale)),
        "device_name": str(g.get("device_name", "")),
        "os_version": ctx.world["about"]["os_version"],
    }


def wifi_values(ctx: AppContext) -> Values:
    """The Wi-Fi switch and, when on, the visible networks (connected one first)."""
    ssid = connected_ssid(ctx)
    networks = sorted(
        ctx.world["wifi"]["networks"], key=lambda n: (n["ssid"] != ssid, -int(n["signal"]))
    )
    rows = []
    for net in networks:
        if net["ssid"] == ssid:
            summary = ctx.t("connected")
        elif net["saved"]:
            summary = ctx.t("saved")
        else:
            summary = ctx.t("secured") if net["secured"] else ctx.t("open_network")
        desc = ctx.t("signal_desc", ssid=net["ssid"], n=net["signal"])
        rows.append(
            {
                "ssid": net["ssid"],
                "summary": summary,
                "desc": desc,
                "connected": net["ssid"] == ssid,
            }
        )
    return {"wifi_on": model.is_on(_global(ctx).get("wifi_on")), "networks": rows}


def bluetooth_values(ctx: AppContext) -> Values:
    """The Bluetooth switch, this phone's name and, when on, the paired devices."""
    g = _global(ctx)
    return {
        "bluetooth_on": model.is_on(g.get("bluetooth_on")),
        "device_name": str(g.get("device_name", "")),
        "paired": [device["name"] for device in radios.paired_devices(ctx.world)],
    }


def mobile_values(ctx: AppContext) -> Values:
    """The mobile-data switch, disabled in airplane mode."""
    g = _global(ctx)
    return {
        "airplane": model.is_on(g.get("airplane_mode_on")),
        "data_on": model.is_on(g.get("mobile_data")),
    }


def display_values(ctx: AppContext) -> Values:
    """Brightness slider, dark theme switch, timeout and font-size entries."""
    s = _system(ctx)
    brightness = int(s.get("screen_brightness", 128))
    font = model.font_size_name(s, ctx.skin)
    return {
        "brightness": brightness,
        "brightness_shown": ctx.t("percent", n=round(brightness * 100 / model.BRIGHTNESS_MAX)),
        "dark": int(ctx.settings.get("secure", {}).get("ui_night_mode", 1)) == model.NIGHT_MODE_ON,
        "timeout_summary": _timeout_text(ctx, s.get("screen_off_timeout", 60_000)),
        "font_summary": ctx.t(f"font_{font}") if font else str(s.get("font_scale")),
    }


def timeout_values(ctx: AppContext) -> Values:
    """The screen-timeout choices the skin offers, the current one checked."""
    current = int(_system(ctx).get("screen_off_timeout", 60_000))
    return {
        "choices": [
            {"label": _timeout_text(ctx, ms), "ms": ms, "checked": ms == current}
            for ms in model.TIMEOUT_CHOICES_BY_SKIN[ctx.skin]
        ]
    }


def lock_screen_values(ctx: AppContext) -> Values:
    """HyperOS's Lock screen: the Sleep row's summary."""
    return {"timeout_summary": _timeout_text(ctx, _system(ctx).get("screen_off_timeout", 60_000))}


def more_connectivity_values(ctx: AppContext) -> Values:
    """HyperOS's More connectivity options: the airplane switch."""
    return {"airplane": model.is_on(_global(ctx).get("airplane_mode_on"))}


def dnd_values(ctx: AppContext) -> Values:
    """HyperOS's Do not disturb: three choices, the one ``global.zen_mode`` is checked (a
    zen mode HyperOS does not offer, alarms only, checks none)."""
    current = int(_global(ctx).get("zen_mode", 0))
    return {
        "choices": [
            {
                "label": ctx.t(f"dnd_{name}"),
                "summary": ctx.t(f"dnd_{name}_summary"),
                "mode": name,
                "rid": f"zen_{name}",
                "checked": value == current,
            }
            for name, value in model.ZEN_MODES.items()
        ]
    }


def font_values(ctx: AppContext) -> Values:
    """The font sizes the skin offers (AOSP's four, HyperOS's six), the current one checked
    (:func:`~sim.apps.settings.model.font_size_name`)."""
    current = model.font_size_name(_system(ctx), ctx.skin)
    return {
        "choices": [
            {"label": ctx.t(f"font_{name}"), "size": name, "checked": name == current}
            for name in model.FONT_SCALES_BY_SKIN[ctx.skin]
        ]
    }


def sound_values(ctx: AppContext) -> Values:
    """Ring volume, Do not disturb, and the ringer as each skin offers it: AOSP's ringer-mode
    choices, or MIUI's *Silent mode* (on while ``global.mode_ringer`` is not 2) and *Vibrate
    in silent mode* (``system.vibrate_in_silent``, unset on) switches."""
    g, s = _global(ctx), _system(ctx)
    ringer = int(g.get("mode_ringer", 2))
    return {
        "ring_volume": int(s.get("volume_ring", 10)),
        "ring_max": model.RING_VOLUME_MAX,
        "dnd": model.is_on(g.get("zen_mode")),
        "dnd_summary": _on_off(ctx, g.get("zen_mode")),
        "ringers": [
            {"label": ctx.t(f"ringer_{name}"), "mode": name, "checked": value == ringer}
            for name, value in model.RINGER_MODES.items()
        ],
        "silent": model.is_silent_mode(ringer),
        "vibrate_in_silent": model.vibrates_in_silent(s),
    }


def language_values(ctx: AppContext) -> Values:
    """The languages, each in its own script, the current one checked."""
    current = model.locale_choice(_system(ctx).get("system_locales"))
    return {
        "choices": [
            {"label": ctx.t(locale_label_key(code)), "locale": code, "checked": code == current}
            for code in model.LOCALES
        ]
    }


def about_values(ctx: AppContext) -> Values:
    """Device name (editable) and read-only facts from world data."""
    about = ctx.world["about"]
    facts = [
        ("model", about["model"]),
        ("android_version", about["android_version"]),
        ("os_version", about["os_version"]),
        ("security_patch", about["security_patch"]),
        ("processor", about["processor"]),
        ("ram", about["ram"]),
        ("storage", about["storage"]),
        ("build_number", about["build_number"]),
        ("kernel", about["kernel"]),
    ]
    rows = [{"title": ctx.t(key), "value": value, "rid": key} for key, value in facts]
    rows += [
        {"title": ctx.t("imei", n=n), "value": about[f"imei{n}"], "rid": f"imei{n}"} for n in (1, 2)
    ]
    rows.append({"title": ctx.t("serial"), "value": about["serial"], "rid": "serial"})
    return {
        "device_name": str(_global(ctx).get("device_name", "")),
        "os_version": about["os_version"],
        "facts": rows,
    }


def dialog_values(ctx: AppContext) -> Values:
    """The rename dialog: the draft name, focus, and an error after an empty OK."""
    error = read_overlay(ctx).get("dialog_error")
    return {
        "field_key": DEVICE_NAME_FIELD,
        "name": ctx.field(DEVICE_NAME_FIELD),
        "focused": ctx.state.ui.focus == DEVICE_NAME_FIELD,
        "error": ctx.t(error) if error else None,
    }


def _page(template: str, values: Callable[[AppContext], Values], activity: str) -> Screen:
    """A sub-page: its own fragment activity, which other apps may start by name."""
    return Screen(template, values, activity, exported=True)


PAGES: dict[str, Screen] = {
    "/": Screen("main.html", main_values),  # the launcher activity
    "/wifi": _page("wifi.html", wifi_values, ".wifi.WifiSettings"),
    "/bluetooth": Screen(
        "bluetooth.html", bluetooth_values, ".bluetooth.BluetoothSettings", exported=True
    ),
    "/mobile": Screen(
        "mobile.html", mobile_values, ".network.MobileNetworkSettings", exported=True
    ),
    "/display": _page("display.html", display_values, ".display.DisplaySettings"),
    "/display/timeout": Screen(
        "timeout.html", timeout_values, ".display.ScreenTimeoutSettings", exported=True
    ),
    "/display/font": Screen(
        "font.html", font_values, ".display.ToggleFontSizePreferenceFragment", exported=True
    ),
    "/sound": _page("sound.html", sound_values, ".sound.SoundSettings"),
    "/language": Screen(
        "language.html", language_values, ".localepicker.LocaleListEditor", exported=True
    ),
    "/about": Screen(
        "about.html", about_values, ".deviceinfo.aboutphone.MyDeviceInfoFragment", exported=True
    ),
}
"""Every route of the app (as AOSP arranges it)."""


def _sub_page(template: str, values: Callable[[AppContext], Values]) -> Screen:
    """A page HyperOS shows as a fragment of ``SubSettings`` (as Settings does for most
    pages), which other apps do not start by name."""
    return Screen(template, values, ".SubSettings")


SKIN_PAGES: dict[str, dict[str, Screen]] = {
    "hyperos": {
        "/more_connectivity": _sub_page("more_connectivity.html", more_connectivity_values),
        "/mobile": Screen(  # the SIM page is the phone app's (com.android.phone)
            "mobile.html",
            mobile_values,
            ".settings.MobileNetworkSettings",
            package="com.android.phone",
        ),
        "/lock_screen": _sub_page("lock_screen.html", lock_screen_values),
        "/lock_screen/sleep": _sub_page("timeout.html", timeout_values),  # HyperOS choices
        "/sound/dnd": _sub_page("dnd.html", dnd_values),
        "/about/specs": _sub_page("specs.html", about_values),
        "/additional": _sub_page("additional.html", main_values),
    }
}
"""The routes HyperOS adds (its templates in ``skins/hyperos/templates``) or hands to
another package."""
