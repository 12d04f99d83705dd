"""The virtual phone's input methods: the built-in Latin IME and those of installed APKs.

As InputMethodManagerService keeps them: every IME of an installed package is *available*
(``ime list -a``), the ones in ``secure enabled_input_methods`` (``:``-separated ids, each
maybe followed by ``;subtype``) are *enabled* (``ime list``), and ``secure
default_input_method`` is the *selected* one (the Latin IME until another is set). An id is
the service's short component name, ``com.github.uiautomator/.AdbKeyboard``.
"""

from __future__ import annotations

from device.virtual.packages import installed, short_component
from device.virtual.phone import VirtualPhone

__all__ = [
    "LATIN_IME",
    "available",
    "current",
    "enabled",
    "forget_package",
    "select",
    "set_enabled",
]

LATIN_IME = "com.android.inputmethod.latin/.LatinIME"
"""The phone's built-in keyboard, enabled and selected out of the box."""


def available(phone: VirtualPhone) -> list[str]:
    """Every installed IME id, the built-in one first."""
    ids = [LATIN_IME]
    for info in installed(phone):
        ids += [short_component(info.name, service) for service in info.input_methods]
    return ids


def _setting(phone: VirtualPhone, key: str) -> str:
    value = phone.settings_get("secure", key)
    return "" if value == "null" else value


def enabled(phone: VirtualPhone) -> list[str]:
    """The enabled IME ids (the Latin IME unless it was disabled), in ``available`` order."""
    raw = _setting(phone, "enabled_input_methods")
    listed = {entry.split(";", 1)[0] for entry in raw.split(":") if entry} if raw else {LATIN_IME}
    return [ime for ime in available(phone) if ime in listed]


def current(phone: VirtualPhone) -> str:
    """The selected IME id (``settings get secure default_input_method``)."""
    selected = _setting(phone, "default_input_method")
    return selected if selected in available(phone) else LATIN_IME


def set_enabled(phone: VirtualPhone, ime: str, on: bool) -> bool:
    """Enable or disable an available IME; returns whether it was enabled before."""
    before = enabled(phone)
    now = [i for i in before if i != ime] + ([ime] if on else [])
    phone.settings_put("secure", "enabled_input_methods", ":".join(now))
    if not on and current(phone) == ime:
        fallback = next((i for i in now if i != ime), LATIN_IME)
        phone.settings_put("secure", "default_input_method", fallback)
    return ime in before


def select(phone: VirtualPhone, ime: str) -> None:
    """Make an enabled IME the selected one."""
    phone.settings_put("secure", "default_input_method", ime)


def forget_package(phone: VirtualPhone, package: str) -> None:
    """After ``package`` is uninstalled: drop its IMEs from the enabled and selected ones."""
    raw = _setting(phone, "enabled_input_methods")
    if raw:
        kept = [e for e in raw.split(":") if e and not e.startswith(package + "/")]
        phone.settings_put("secure", "enabled_input_methods", ":".join(kept))
    if _setting(phone, "default_input_method").startswith(package + "/"):
        phone.settings_put("secure", "default_input_method", LATIN_IME)
