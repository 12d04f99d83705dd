"""Composing the whole screen of an instance: bars, app or launcher, keyboard, shade, dialog.

The shade is drawn as the skin has it: AOSP's one shade (quick settings over the
notifications), or on a skin with a Control Center (:func:`sim.skins.has_control_center`)
the notification shade or, when the quick settings are shown (``ui.quick_settings``), the
Control Center. Its toggles are the same ``os:tile`` actions in every skin.

Everything here is a pure function of the instance state (and the installed apps), so any
browser page can render any instance and two renders of one state are byte-identical.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import cache
from importlib import resources
from typing import Any

from markupsafe import Markup

from sim.launcher import launcher_view
from sim.phone import Phone
from sim.radios import QUICK_TILES, connected_ssid, is_on, settings_world
from sim.skins import has_control_center, home_of, system_ui_of
from sim.state import LAUNCHER_DRAWER_SCROLL, LAUNCHER_SEARCH_FIELD, InstanceState, SystemDialog

__all__ = ["render_screen", "system_strings"]

_KEYBOARD_ROWS = {
    "abc": ("qwertyuiop", "asdfghjkl", "zxcvbnm"),
    "123": ("1234567890", "@#$%&-+()", "*\"':;!?"),
}


@cache
def system_strings(lang: str) -> dict[str, str]:
    """Strings of the system UI (bars, shade, keyboard) in ``lang``."""
    text = resources.files("sim").joinpath("system_strings.json").read_text("utf-8")
    table: dict[str, dict[str, str]] = json.loads(text)
    return table.get(lang) or table["en"]


def _clock(state: InstanceState) -> str:
    now = state.os.local_time()
    if str(state.os.settings["system"].get("time_12_24")) == "12":
        return f"{(now.hour % 12) or 12}:{now.minute:02d}"
    return f"{now.hour}:{now.minute:02d}"


def _date(state: InstanceState, s: dict[str, str]) -> str:
    now = state.os.local_time()
    weekday = s["weekdays"].split(",")[now.weekday()]
    month = s["months"].split(",")[now.month - 1]
    return s["date_format"].format(weekday=weekday, month=month, day=now.day)


def _launcher(phone: Phone, state: InstanceState, s: dict[str, str]) -> str:
    launcher, ui = state.os.launcher, state.ui
    query = ui.fields.get(LAUNCHER_SEARCH_FIELD, "") if launcher.drawer_open else ""
    view = launcher_view(
        phone.launcher_entries(state.os.lang),
        phone.launcher_grid,
        launcher.page,
        launcher.drawer_open,
        query,
    )
    values = {
        "v": view,
        "s": s,
        "time": _clock(state),
        "date": _date(state, s),
        "indicator": s["page_indicator"].format(page=view.page + 1, count=view.page_count),
        "search_field": LAUNCHER_SEARCH_FIELD,
        "search_focused": ui.focus == LAUNCHER_SEARCH_FIELD,
        "list_key": f"{LAUNCHER_DRAWER_SCROLL}?{query}" if query else LAUNCHER_DRAWER_SCROLL,
        "no_results": s["all_apps_no_results"].format(query=query.strip()),
    }
    return phone.renderer.render("launcher.html", values, state.os.skin)


def _recents(phone: Phone, state: InstanceState, s: dict[str, str]) -> str:
    lang = state.os.lang
    cards = [
        {"id": task.app, "label": phone.app(task.app).label(lang)}
        for task in reversed(state.os.tasks)
    ]
    return phone.renderer.render("recents.html", {"cards": cards, "s": s}, state.os.skin)


def _keyboard(phone: Phone, state: InstanceState, s: dict[str, str]) -> str:
    mode = state.ui.keyboard_mode if state.ui.keyboard_mode in _KEYBOARD_ROWS else "abc"
    shift = state.ui.keyboard_shift
    rows: list[list[dict[str, Any]]] = []
    for index, letters in enumerate(_KEYBOARD_ROWS[mode]):
        row: list[dict[str, Any]] = [
            {"code": c, "label": c.upper() if shift else c, "desc": c.upper() if shift else c}
            for c in letters
        ]
        if index == 2:
            row.insert(
                0, {"code": "shift", "icon": "shift", "desc": s["key_shift"], "special": True}
            )
            row.append(
                {"code": "backspace", "icon": "backspace", "desc": s["key_delete"], "special": True}
            )
        rows.append(row)
    toggle = "abc" if mode == "123" else "123"
    rows.append(
        [
            {
                "code": toggle,
                "label": "ABC" if mode == "123" else "?123",
                "desc": s["key_letters"] if mode == "123" else s["key_symbols"],
                "special": True,
            },
            {"code": ",", "label": ",", "desc": ","},
            {"code": "space", "label": "", "desc": s["key_space"], "wide": True},
            {"code": ".", "label": ".", "desc": "."},
            {"code": "enter", "icon": "enter", "desc": s["key_enter"], "special": True},
        ]
    )
    return phone.renderer.render("keyboard.html", {"rows": rows}, state.os.skin)


_CONTROL_CENTER_ROUND = (
    ("bluetooth", "bluetooth"),
    ("airplane", "airplane"),
    ("location", "location"),
    ("dnd", "dnd"),
    ("dark", "moon"),
)
"""The Control Center's round toggles under its two big tiles: (tile id, icon)."""


def _big_tiles(phone: Phone, state: InstanceState, s: dict[str, str]) -> list[dict[str, Any]]:
    """The Control Center's two big tiles, mobile data (greyed out in airplane mode, as its
    switch in Settings) and WLAN (naming the network it is connected to)."""
    settings = state.os.settings
    airplane = is_on(settings, "airplane")
    data_on = is_on(settings, "mobile_data") and not airplane
    wifi_on = is_on(settings, "wifi")
    ssid = connected_ssid(state, settings_world(phone))
    wifi_status = ssid or (s["cc_not_connected"] if wifi_on else s["cc_off"])
    data = {"id": "mobile_data", "icon": "signal", "label": s["cc_mobile_data"], "on": data_on}
    wifi = {"id": "wifi", "icon": "wifi", "label": s["cc_wlan"], "on": wifi_on}
    return [
        {**data, "enabled": not airplane, "status": s["cc_on"] if data_on else s["cc_off"]},
        {**wifi, "enabled": True, "status": wifi_status},
    ]


def _tiles(
    state: InstanceState, s: dict[str, str], table: Sequence[tuple[str, str]], prefix: str
) -> list[dict[str, Any]]:
    """Quick toggles of ``table`` ((tile id, icon)), labelled by the strings ``prefix`` + id."""
    settings = state.os.settings
    return [
        {"id": tile, "icon": icon, "label": s[f"{prefix}{tile}"], "on": is_on(settings, tile)}
        for tile, icon in table
    ]


def _panel(state: InstanceState, s: dict[str, str], **values: Any) -> dict[str, Any]:
    """What every pulled-down panel shows besides its own ``values``."""
    return {
        **values,
        "brightness": int(state.os.settings["system"]["screen_brightness"]),
        "time": _clock(state),
        "date": _date(state, s),
        "system_ui": system_ui_of(state.os.skin),
        "s": s,
    }


def _control_center(phone: Phone, state: InstanceState, s: dict[str, str]) -> str:
    values = _panel(
        state,
        s,
        big_tiles=_big_tiles(phone, state, s),
        tiles=_tiles(state, s, _CONTROL_CENTER_ROUND, "cc_"),
    )
    return phone.renderer.render("control_center.html", values, state.os.skin)


def _shade(phone: Phone, state: InstanceState, s: dict[str, str]) -> str:
    if state.ui.quick_settings and has_control_center(state.os.skin):
        return _control_center(phone, state, s)
    lang = state.os.lang
    notifications = [
        {
            "id": n.id,
            "title": n.title,
            "text": n.text,
            "app_label": phone.app(n.app).label(lang) if n.app in phone.apps else n.app,
            "when": state.os.local_time(n.time_ms).strftime("%H:%M"),
        }
        for n in reversed(state.os.notifications)
    ]
    values = _panel(
        state, s, tiles=_tiles(state, s, QUICK_TILES, "tile_"), notifications=notifications
    )
    return phone.renderer.render("shade.html", values, state.os.skin)


def _content(phone: Phone, state: InstanceState, s: dict[str, str]) -> tuple[str, str]:
    """HTML of the main window and the package that owns it."""
    if state.ui.recents_open:
        return _recents(phone, state, s), system_ui_of(state.os.skin)
    if state.os.foreground is None:
        return _launcher(phone, state, s), home_of(state.os.skin).package
    ctx = phone.context(state, state.os.foreground)
    return ctx.app.render(ctx), ctx.app.package_for(state.os.route, state.os.skin)


def _dialog_buttons(dialog: SystemDialog) -> list[dict[str, Any]]:
    """The dialog's buttons in Android's order: negative (``button2``), then positive."""
    buttons = [(dialog.negative, "2"), (dialog.positive, "1")]
    return [
        {"text": text, "action": "os:dismiss_dialog", "args": {"button": n}, "rid": f"button{n}"}
        for text, n in buttons
        if text is not None
    ]


def render_screen(phone: Phone, state: InstanceState) -> str:
    """The full screen of ``state`` as HTML for the page's ``#screen`` element."""
    if not state.os.screen_on:
        return '<div class="screen-inner screen-off" style="background:#000"></div>'
    s = system_strings(state.os.lang)
    os = state.os
    settings = os.settings
    content, package = _content(phone, state, s)
    values = {
        "content": Markup(content),
        "window_package": package,
        "keyboard": Markup(_keyboard(phone, state, s)) if state.ui.keyboard_visible else "",
        "shade": Markup(_shade(phone, state, s)) if state.ui.shade_open else "",
        "toast": state.ui.toast or "",
        "dialog": state.os.dialog,
        "dialog_buttons": _dialog_buttons(state.os.dialog) if state.os.dialog else [],
        "clock": _clock(state),
        "battery": 85,
        "wifi": settings["global"].get("wifi_on") == 1,
        "bluetooth": settings["global"].get("bluetooth_on") == 1,
        "airplane": settings["global"].get("airplane_mode_on") == 1,
        "dnd": settings["global"].get("zen_mode", 0) != 0,
        "dark": settings["secure"].get("ui_night_mode") == 2,
        "font_scale": round(float(settings["system"].get("font_scale", 1.0)) * os.text_zoom, 4),
        "lang": state.os.lang,
        "skin": state.os.skin,
        "s": s,
    }
    return phone.renderer.render("shell.html", values, state.os.skin)
