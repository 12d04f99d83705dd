"""``MobileGymSettings``: Android's settings over MobileGym's, through one key table (:data:`KEYS`).

MobileGym keeps its settings in its own shape (``os.settings.global.wifiEnabled``, a 0–100
brightness, …). :data:`KEYS` says, for every Android key our task specs use, whether
MobileGym holds it **exactly** (a mapping of values, or one value its behaviour always has:
:class:`Fixed`), **rescaled** (a stated conversion and its rounding) or not at all
(**absent**, with the reason). A value is printed as ``settings
get`` prints it (``"1"``/``"0"``, None for ``null``). A key or value MobileGym cannot hold is
refused with :class:`~bridge.errors.StateUnavailable`, never guessed; :func:`settings_refusal`
says the same before a run (:mod:`mobilegym.poseable`).

**Writes** go through MobileGym's own managers, the registry its Settings app writes through
(``__OS__.device.setPreference``), so the side effects follow as for its user, and each write
is read back (a manager that keeps another value is refused, not ignored). MobileGym's rules
differ from Android's in two places, and we keep MobileGym's (a write made here must do what
its user's own switch does, or pose and episode would disagree):

* **Airplane mode** turns Wi-Fi, Bluetooth and mobile data off, as on Android; turning it off
  leaves them off, where Android brings back the radios that were on. MobileGym remembers
  nothing to bring back, so ``global.wifi_saved_state`` / ``bluetooth_saved_state`` are absent.
* **Do not disturb** silences the ringer (``silentMode``) and restores the user's choice when it
  ends; Android's priority mode leaves ``mode_ringer`` alone. :data:`FOLLOWERS` lists such
  MobileGym-only consequences, for a verdict to not count them as side effects
  (:func:`follower_globs`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from pydantic import JsonValue

from bridge.android_state import Namespace
from bridge.errors import StateUnavailable
from bridge.spec.base import equal
from mobilegym.android_state.base import MobileGymStateBase, read_json, unavailable

__all__ = [
    "FOLLOWERS",
    "KEYS",
    "LOCALES",
    "Absent",
    "Codec",
    "Fixed",
    "FontScale",
    "Held",
    "Locale",
    "MobileGymSettings",
    "NotHeld",
    "Scale",
    "Switch",
    "Text",
    "follower_globs",
    "settings_refusal",
]


@dataclass(frozen=True)
class NotHeld:
    """Why MobileGym cannot hold an Android value (what a codec answers instead of one)."""

    reason: str


class Codec(Protocol):
    """How an Android value and MobileGym's meet: printed one way, converted the other."""

    def to_android(self, value: Any) -> str | None:
        """MobileGym's value as ``settings get`` prints the Android one (None: ``null``)."""
        ...

    def from_android(self, value: str) -> JsonValue | NotHeld:
        """The value MobileGym holds for an Android one, or why it cannot hold it."""
        ...


def _half_up(x: float) -> int:
    """Rounded half up, as MobileGym's managers round (``Math.round``)."""
    return math.floor(x + 0.5)


def _integer(value: str, low: int, high: int) -> int | NotHeld:
    try:
        number = int(value.strip())
    except ValueError:
        return NotHeld("not an integer")
    if not low <= number <= high:
        return NotHeld(f"{number} is outside Android's {low}–{high}")
    return number


@dataclass(frozen=True)
class Switch:
    """An on/off switch printed as two Android values; ``others`` says why no other is held."""

    on: str
    off: str
    others: str

    def to_android(self, value: Any) -> str | None:
        """``on`` for true, ``off`` for false."""
        return None if value is None else (self.on if value else self.off)

    def from_android(self, value: str) -> JsonValue | NotHeld:
        """True for ``on``, false for ``off``; any other value is not held."""
        if value.strip() in (self.on, self.off):
            return value.strip() == self.on
        return NotHeld(self.others)


@dataclass(frozen=True)
class Scale:
    """An Android integer 0..``android_max`` and MobileGym's 0..100, each way rounded half up
    (``round(pct × max / 100)``, ``round(v × 100 / max)``)."""

    android_max: int

    def to_android(self, value: Any) -> str | None:
        """MobileGym's percentage on Android's scale."""
        return None if value is None else str(_half_up(float(value) * self.android_max / 100))

    def from_android(self, value: str) -> JsonValue | NotHeld:
        """Android's integer as MobileGym's percentage."""
        number = _integer(value, 0, self.android_max)
        return number if isinstance(number, NotHeld) else _half_up(number * 100 / self.android_max)


FONT_MIN, FONT_MAX = 0.85, 1.30
"""MobileGym's text scale at ``fontSizePct`` 0 and 100: the root font is 16 px × (0.85 +
pct × 0.0045), its own formula."""


@dataclass(frozen=True)
class FontScale:
    """``font_scale`` as MobileGym's text scale: 0.85 + ``fontSizePct`` × 0.0045, printed to
    4 decimals (``1.0`` is held as 33, which reads 0.9985); a scale outside 0.85–1.30 is not
    held."""

    def to_android(self, value: Any) -> str | None:
        """The scale MobileGym renders for its percentage."""
        if value is None:
            return None
        return str(round(FONT_MIN + float(value) * (FONT_MAX - FONT_MIN) / 100, 4))

    def from_android(self, value: str) -> JsonValue | NotHeld:
        """The nearest percentage (rounded half up)."""
        try:
            scale = float(value)
        except ValueError:
            return NotHeld("not a number")
        if not FONT_MIN - 1e-9 <= scale <= FONT_MAX + 1e-9:
            return NotHeld(f"MobileGym's text scale runs from {FONT_MIN} to {FONT_MAX}")
        return min(max(_half_up((scale - FONT_MIN) / (FONT_MAX - FONT_MIN) * 100), 0), 100)


LOCALES = {"en": "en-US", "zh-Hans": "zh-CN"}
"""MobileGym's two languages and the ``system_locales`` each prints as."""


@dataclass(frozen=True)
class Locale:
    """``system_locales`` as MobileGym's one language: ``en`` prints ``en-US``, ``zh-Hans``
    prints ``zh-CN``; no other tag (nor a list of several) is held."""

    def to_android(self, value: Any) -> str | None:
        """The tag MobileGym's language prints as."""
        if value is None:
            return None
        text = str(value).strip().lower()
        english = text == "en" or text.startswith(("en-", "en_"))  # MobileGym's own rule
        return LOCALES["en" if english else "zh-Hans"]

    def from_android(self, value: str) -> JsonValue | NotHeld:
        """MobileGym's language for one of the two tags."""
        found = next((mg for mg, tag in LOCALES.items() if tag == value.strip()), None)
        if found is None:
            return NotHeld(
                "MobileGym speaks English or Simplified Chinese only, one at a time "
                f"({' or '.join(LOCALES.values())})"
            )
        return found


@dataclass(frozen=True)
class Text:
    """A name held as it is; an empty one is not (MobileGym shows its model's name instead)."""

    def to_android(self, value: Any) -> str | None:
        """The name."""
        return None if value is None else str(value)

    def from_android(self, value: str) -> JsonValue | NotHeld:
        """The name, unless empty."""
        return value if value else NotHeld("an empty name reads back as the model's name")


@dataclass(frozen=True)
class Held:
    """An Android setting MobileGym holds: at ``path`` in ``getState().os``, written through
    the manager of ``preference``; ``default`` is what MobileGym's own getter reads when the
    path is missing."""

    kind: Literal["exact", "rescaled"]
    path: str
    preference: str
    codec: Codec
    default: JsonValue = None


@dataclass(frozen=True)
class Fixed:
    """An Android setting whose one value MobileGym's behaviour always has (nothing to write:
    a put of ``value`` changes nothing, any other is refused with ``reason``)."""

    value: str
    reason: str


@dataclass(frozen=True)
class Absent:
    """An Android setting MobileGym does not hold, and why."""

    reason: str


_RADIOS_OFF = "MobileGym's airplane mode leaves the radios off when it ends (it remembers none)"

KEYS: dict[tuple[Namespace, str], Held | Fixed | Absent] = {
    ("global", "wifi_on"): Held(
        "exact", "settings.global.wifiEnabled", "wifi_enabled",
        Switch("1", "0", "Wi-Fi is on or off")),
    ("global", "bluetooth_on"): Held(
        "exact", "settings.global.bluetoothEnabled", "bluetooth_enabled",
        Switch("1", "0", "Bluetooth is on or off")),
    ("global", "mobile_data"): Held(
        "exact", "settings.global.mobileDataEnabled", "mobile_data_enabled",
        Switch("1", "0", "mobile data is on or off")),
    ("global", "airplane_mode_on"): Held(
        "exact", "settings.global.airplaneModeEnabled", "airplane_mode_enabled",
        Switch("1", "0", "airplane mode is on or off")),
    ("global", "zen_mode"): Held(
        "exact", "settings.global.doNotDisturbEnabled", "do_not_disturb",
        Switch("1", "0", "MobileGym's Do not disturb is one switch: no total silence (2) or "
               "alarms only (3)")),
    ("global", "mode_ringer"): Held(
        "exact", "settings.global.silentMode", "silent",
        Switch("0", "2", "MobileGym's ringer is silent or not: it has no vibrate mode (1)")),
    ("global", "device_name"): Held(
        "exact", "hardware.bluetooth.name", "device_name", Text()),
    ("global", "wifi_saved_state"): Absent(_RADIOS_OFF),
    ("global", "bluetooth_saved_state"): Absent(_RADIOS_OFF),
    ("secure", "ui_night_mode"): Held(
        "exact", "settings.global.darkModeEnabled", "dark_mode",
        Switch("2", "1", "MobileGym's dark theme is on or off: no automatic (0) or custom (3) "
               "schedule")),
    ("system", "screen_brightness"): Held(
        "rescaled", "settings.system.brightness", "brightness", Scale(255)),
    ("system", "screen_brightness_mode"): Held(
        "exact", "settings.global.autoBrightnessEnabled", "auto_brightness",
        Switch("1", "0", "brightness is automatic or manual")),
    ("system", "font_scale"): Held(
        "rescaled", "settings.system.fontSizePct", "font_size", FontScale()),
    ("system", "volume_ring"): Held(
        "rescaled", "preferences.volume_ring", "volume_ring", Scale(15), default=50),
    ("system", "system_locales"): Held(
        "rescaled", "settings.global.language", "language", Locale()),
    ("system", "screen_off_timeout"): Absent(
        "MobileGym has no screen timeout: its Settings' auto-lock page (screen_timeout_settings) "
        "is a placeholder ('not yet simulated') and nothing in its state holds one"),
    ("system", "time_12_24"): Fixed(
        "24", "MobileGym's clocks always show 24-hour time (HH:mm in its status bar, Clock and "
        "Calendar, in both languages); its Settings' 24-hour switch (select_time_format) is "
        "stored but read by nothing"),
}  # fmt: skip
"""Every Android setting our specs use, as MobileGym holds it (module docstring). Exact:
``Switch`` values, a :class:`Text`, a :class:`Fixed` behaviour (``time_12_24``: its notification
times and theme widgets alone follow the language). Rescaled: ``Scale(255)`` brightness 0–255
↔ 0–100, ``Scale(15)`` ring volume 0–15 ↔ 0–100 (a missing one reads MobileGym's default, 50),
:class:`FontScale`, :class:`Locale`."""

FOLLOWERS: dict[str, tuple[str, ...]] = {"global.zen_mode": ("global.mode_ringer",)}
"""Settings MobileGym changes along with another where Android does not: Do not disturb
silences its ringer (and gives it back when it ends)."""


def follower_globs(expected: list[str]) -> tuple[str, ...]:
    """The settings (``namespace.key``) that change in MobileGym only because a setting in
    ``expected`` (a spec's ``expected.settings``) did: pass them to the judge as ``volatile``."""
    return tuple(f for leader, follow in FOLLOWERS.items() if leader in expected for f in follow)


def _key(namespace: Namespace, key: str) -> Held | Fixed | Absent:
    return KEYS.get(
        (namespace, key),
        Absent(f"{namespace}.{key} is not in MobileGym's key table (mobilegym.android_state."
               "settings.KEYS), which lists every setting our specs use"),
    )  # fmt: skip


def settings_refusal(
    namespace: Namespace, key: str, value: str | None = None, tolerance: float | None = None
) -> str | None:
    """Why MobileGym cannot hold ``namespace.key`` (with ``value``, when given), or None.

    With ``tolerance`` the value must also read back within it (a goal ``key == value``):
    a rescaled value that reads back otherwise could never be met.
    """
    found = _key(namespace, key)
    if isinstance(found, Absent):
        return f"{namespace}.{key}: {found.reason}"
    if value is None:
        return None
    if isinstance(found, Fixed):
        return None if value == found.value else f"{namespace}.{key}={value}: {found.reason}"
    held = found.codec.from_android(value)
    if isinstance(held, NotHeld):
        return f"{namespace}.{key}={value}: {held.reason}"
    back = found.codec.to_android(held)
    if tolerance is not None and not equal(back, value, tolerance):
        return f"{namespace}.{key}={value}: MobileGym holds it as {back} ({found.kind})"
    return None


def _at(tree: Mapping[str, Any], path: str) -> Any:
    node: Any = tree
    for part in path.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return None
        node = node[part]
    return node


_READ = """() => {
  const os = window.__SIM__.getState().os;
  return {settings: os.settings, preferences: os.preferences, hardware: os.hardware};
}"""
_WRITE = """([key, value]) => {
  window.__OS__.device.setPreference(key, value);
  const os = window.__SIM__.getState().os;
  return {settings: os.settings, preferences: os.preferences, hardware: os.hardware};
}"""
"""A write through MobileGym's manager and what its state holds right after (one call)."""


class MobileGymSettings(MobileGymStateBase):
    """:class:`bridge.android_state.SettingsState` over MobileGym's settings (:data:`KEYS`)."""

    async def _held(self) -> dict[str, Any]:
        found = await read_json(self.page, _READ)
        if not isinstance(found, dict):
            raise StateUnavailable("MobileGym's getState().os holds no settings")
        return found

    @staticmethod
    def _printed(held: Held, os_state: Mapping[str, Any]) -> str | None:
        value = _at(os_state, held.path)
        return held.codec.to_android(held.default if value is None else value)

    def _require(self, namespace: Namespace, key: str) -> Held | Fixed:
        found = _key(namespace, key)
        if isinstance(found, Absent):
            unavailable(f"{namespace}.{key}", found.reason)
        return found

    async def get_setting(self, namespace: Namespace, key: str) -> str | None:
        """``settings get``: MobileGym's value printed as Android's (None: ``null``)."""
        held = self._require(namespace, key)
        if isinstance(held, Fixed):
            return held.value
        return self._printed(held, await self._held())

    async def put_setting(self, namespace: Namespace, key: str, value: str) -> None:
        """Write through MobileGym's manager (its side effects follow), then read it back.

        Raises:
            StateUnavailable: MobileGym does not hold the key or the value, or its manager
                kept another value (the ringer stays silent while Do not disturb is on).
        """
        held = self._require(namespace, key)
        if isinstance(held, Fixed):
            if value != held.value:
                unavailable(f"{namespace}.{key}={value}", held.reason)
            return
        converted = held.codec.from_android(value)
        if isinstance(converted, NotHeld):
            unavailable(f"{namespace}.{key}={value}", converted.reason)
        after = await read_json(self.page, _WRITE, [held.preference, converted])
        if not isinstance(after, dict):
            raise StateUnavailable("MobileGym's getState().os holds no settings")
        expected = held.codec.to_android(converted)
        now = self._printed(held, after)
        if now != expected:
            unavailable(
                f"{namespace}.{key}={value}",
                f"its manager for {held.preference!r} kept {now} (expected {expected})",
            )

    async def list_settings(self, namespace: Namespace) -> dict[str, str]:
        """``settings list``: every key of the namespace MobileGym holds, printed."""
        os_state = await self._held()
        listed: dict[str, str] = {}
        for (ns, key), found in sorted(KEYS.items()):
            if ns != namespace or isinstance(found, Absent):
                continue
            value = found.value if isinstance(found, Fixed) else self._printed(found, os_state)
            if value is not None:
                listed[key] = value
        return listed

    async def delete_setting(self, namespace: Namespace, key: str) -> None:
        """``settings delete``: a key MobileGym does not hold is absent already (no error);
        one it holds always has a value, so deleting it is refused."""
        found = _key(namespace, key)
        if not isinstance(found, Absent):
            where = found.path if isinstance(found, Held) else "in its behaviour"
            unavailable(
                f"{namespace}.{key} deleted",
                f"MobileGym always holds a value ({where}); put one instead",
            )
