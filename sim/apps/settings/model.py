"""Pure rules of the Settings app: how a tap becomes Android settings values.

Everything here takes and returns plain values (no :class:`~sim.app.AppContext`), so task
setups, oracles and tests can use the same rules the handlers use. Values follow Android's
keys and encodings, so ``adb shell settings get`` on a phone reads the same numbers:

* ``global.airplane_mode_on``, ``wifi_on``, ``bluetooth_on`` 0/1. Airplane mode and the
  radios are not here: the Settings app and the OS's quick-settings shade share one
  implementation, :func:`sim.radios.set_airplane` / :func:`sim.radios.set_radio` (radios
  off and remembered in ``global.wifi_saved_state`` / ``bluetooth_saved_state``, brought
  back when the mode ends, a hand-switched radio keeping the user's choice).
* ``system.screen_brightness`` 0–255, ``system.volume_ring`` 0–15 (from a slider fraction).
* ``secure.ui_night_mode`` 2 on / 1 off; ``global.zen_mode`` 1 on / 0 off (any non-zero
  value reads as on); ``global.mode_ringer`` 2 sound / 1 vibrate / 0 silent;
  ``system.vibrate_in_silent`` 1/0 (unset: 1), which MIUI's silent mode reads.
* ``system.screen_off_timeout`` in ms, ``system.font_scale`` a float (and on HyperOS
  ``system.ui_mode_scale``, MIUI's size code), ``system.system_locales`` a BCP 47 tag list such
  as ``"zh-CN"``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from sim.skins import DEFAULT_SKIN

__all__ = [
    "FONT_SCALES",
    "FONT_SCALES_BY_SKIN",
    "FONT_SCALE_TOLERANCE",
    "FONT_SIZES_EVERY_SKIN",
    "LOCALES",
    "NIGHT_MODE_OFF",
    "NIGHT_MODE_ON",
    "RINGER_MODES",
    "RING_VOLUME_MAX",
    "TIMEOUT_CHOICES_BY_SKIN",
    "TIMEOUT_CHOICES_EVERY_SKIN",
    "TIMEOUT_CHOICES_MS",
    "TIMEOUT_NEVER_MS",
    "UI_MODE_SCALES_BY_SKIN",
    "VIBRATE_IN_SILENT_DEFAULT",
    "ZEN_MODES",
    "brightness_from_frac",
    "font_scale_name",
    "font_size_name",
    "is_on",
    "is_silent_mode",
    "locale_choice",
    "longest_timeout",
    "night_mode_value",
    "ring_volume_from_frac",
    "silent_mode_ringer",
    "timeout_label",
    "value_from_frac",
    "vibrates_in_silent",
    "zen_mode_value",
]

TIMEOUT_CHOICES_MS: tuple[int, ...] = (15_000, 30_000, 60_000, 120_000, 300_000, 600_000, 1_800_000)
"""The screen-timeout list, in ``system.screen_off_timeout`` milliseconds."""

TIMEOUT_NEVER_MS = 2_147_483_647
"""``screen_off_timeout`` of a screen that never sleeps (Integer.MAX_VALUE), as HyperOS's
*Never* writes it."""

TIMEOUT_CHOICES_BY_SKIN: dict[str, tuple[int, ...]] = {
    "aosp": TIMEOUT_CHOICES_MS,
    "hyperos": (15_000, 30_000, 60_000, 120_000, 300_000, 600_000, TIMEOUT_NEVER_MS),
}
"""The screen-timeout choices each skin offers (HyperOS's *Sleep*: no 30 minutes, a
*Never*). A task whose value one skin does not offer cannot be done there by tapping."""

TIMEOUT_CHOICES_EVERY_SKIN: tuple[int, ...] = tuple(
    ms for ms in TIMEOUT_CHOICES_MS if all(ms in c for c in TIMEOUT_CHOICES_BY_SKIN.values())
)
"""The timeouts every skin offers: what a task may ask for and mean the same everywhere."""


def longest_timeout(skin: str) -> int:
    """The longest duration ``skin``'s timeout list offers (HyperOS's *Never* is none)."""
    return max(ms for ms in TIMEOUT_CHOICES_BY_SKIN[skin] if ms != TIMEOUT_NEVER_MS)


ZEN_MODES: dict[str, int] = {"off": 0, "priority": 1, "total": 2}
"""HyperOS's Do-not-disturb choices (name → ``global.zen_mode``): *Always allow*, *Only allow
exceptions* (important interruptions) and *Silence all* (no interruptions)."""

FONT_SCALES: dict[str, float] = {"small": 0.85, "default": 1.0, "large": 1.15, "largest": 1.3}
"""AOSP's font-size choices (name → ``system.font_scale``), smallest first."""

FONT_SCALES_BY_SKIN: dict[str, dict[str, float]] = {
    "aosp": FONT_SCALES,
    "hyperos": {
        "small": 0.86,
        "default": 1.0,
        "medium": 1.15,
        "large": 1.32,
        "huge": 1.1,
        "godzilla": 1.14,
    },
}
"""The font sizes each skin offers (name → ``system.font_scale``), smallest first. A name is
the size's meaning; each skin words it (HyperOS's ``default`` is *Standard*). HyperOS's are
MIUI's six (``android.util.MiuiFontSizeUtils``), at the framework's defaults for a 440-dpi
screen such as the Redmi's; a device may override them. Its *huge* and *godzilla* are bigger
than *large* with a smaller ``font_scale`` because MIUI also forces 540 dpi for them, which
the simulator does not model (it draws at the profile's density)."""

UI_MODE_SCALES_BY_SKIN: dict[str, dict[str, int]] = {
    "hyperos": {"small": 12, "default": 1, "medium": 13, "large": 14, "huge": 15, "godzilla": 11},
}
"""MIUI's ``system.ui_mode_scale`` for each font size of a skin that writes one with
``font_scale`` (``android.content.res.MiuiConfiguration``); AOSP has none."""

FONT_SCALE_TOLERANCE = 0.05
"""How far a ``font_scale`` may sit from a size's and still be it, for a task: phones print
float32 noise (``1.2999999523``), and skins differ by a hundredth (0.85, 0.86)."""

FONT_SIZES_EVERY_SKIN: tuple[str, ...] = tuple(
    name
    for name, scale in FONT_SCALES_BY_SKIN[DEFAULT_SKIN].items()
    if all(
        name in sizes and math.isclose(sizes[name], scale, abs_tol=FONT_SCALE_TOLERANCE)
        for sizes in FONT_SCALES_BY_SKIN.values()
    )
)
"""The font sizes every skin offers with the same meaning (the name in every skin, the
``font_scale`` values within :data:`FONT_SCALE_TOLERANCE`): what a task may ask for and mean
the same everywhere. ``large`` is not one: 1.15 in AOSP, 1.32 in HyperOS."""

RINGER_MODES: dict[str, int] = {"sound": 2, "vibrate": 1, "silent": 0}
"""Ringer-mode choices (name → ``global.mode_ringer``)."""

VIBRATE_IN_SILENT_DEFAULT = 1
"""``system.vibrate_in_silent`` when unset, as MIUI reads it."""

LOCALES: tuple[str, ...] = ("en-US", "zh-CN")
"""The languages offered (``system.system_locales`` values)."""

NIGHT_MODE_ON = 2
NIGHT_MODE_OFF = 1
RING_VOLUME_MAX = 15
BRIGHTNESS_MAX = 255


def is_on(value: Any) -> bool:
    """Whether a 0/1-style setting is on (``"1"``, ``1`` and ``True`` are; missing is not)."""
    try:
        return int(value) != 0
    except (TypeError, ValueError):
        return False


def value_from_frac(frac: float, maximum: int) -> int:
    """A slider position in [0, 1] (clamped) as an integer 0..``maximum``."""
    if math.isnan(frac):
        raise ValueError("slider fraction is NaN")
    return round(min(max(frac, 0.0), 1.0) * maximum)


def brightness_from_frac(frac: float) -> int:
    """``system.screen_brightness`` (0–255) for a touch at ``frac`` of the slider."""
    return value_from_frac(frac, BRIGHTNESS_MAX)


def ring_volume_from_frac(frac: float) -> int:
    """``system.volume_ring`` (0–15) for a touch at ``frac`` of the slider."""
    return value_from_frac(frac, RING_VOLUME_MAX)


def night_mode_value(on: bool) -> int:
    """``secure.ui_night_mode`` for dark theme on or off."""
    return NIGHT_MODE_ON if on else NIGHT_MODE_OFF


def zen_mode_value(on: bool) -> int:
    """``global.zen_mode`` for Do not disturb on (priority only) or off."""
    return 1 if on else 0


def font_scale_name(scale: Any, skin: str = DEFAULT_SKIN) -> str | None:
    """The name of ``scale`` among ``skin``'s font sizes (:data:`FONT_SCALES_BY_SKIN`), or
    None for a value not in its list.

    Phones store the float with float32 noise (``1.1500000357627869``), hence the tolerance.
    """
    try:
        value = float(scale)
    except (TypeError, ValueError):
        return None
    sizes = FONT_SCALES_BY_SKIN[skin]
    return next((name for name, s in sizes.items() if math.isclose(s, value, abs_tol=1e-3)), None)


def font_size_name(system: Mapping[str, Any], skin: str = DEFAULT_SKIN) -> str | None:
    """The font size ``skin``'s font page shows as chosen, from the ``system`` settings: by
    ``ui_mode_scale`` in a skin that writes one (MIUI reads its size from it) when it holds
    one of the skin's codes, else by ``font_scale`` (:func:`font_scale_name`)."""
    codes = UI_MODE_SCALES_BY_SKIN.get(skin, {})
    try:
        code = int(system["ui_mode_scale"])
    except (KeyError, TypeError, ValueError):
        code = None
    named = next((name for name, c in codes.items() if c == code), None)
    return named or font_scale_name(system.get("font_scale", 1.0), skin)


def vibrates_in_silent(system: Mapping[str, Any]) -> bool:
    """Whether ``system.vibrate_in_silent`` is on (unset: :data:`VIBRATE_IN_SILENT_DEFAULT`)."""
    value = system.get("vibrate_in_silent")
    return is_on(VIBRATE_IN_SILENT_DEFAULT if value is None else value)


def is_silent_mode(mode_ringer: Any) -> bool:
    """MIUI's ``isSilenceModeOn``: the ringer is not normal (``mode_ringer`` != 2)."""
    try:
        return int(mode_ringer) != RINGER_MODES["sound"]
    except (TypeError, ValueError):
        return False


def silent_mode_ringer(on: bool, vibrate_in_silent: bool) -> int:
    """``global.mode_ringer`` after MIUI's ``setSilenceModeOn(on)``
    (``android.provider.MiuiSettings$SoundMode``): on is vibrate (1) if the phone vibrates in
    silent mode, else silent (0); off is normal (2)."""
    if not on:
        return RINGER_MODES["sound"]
    return RINGER_MODES["vibrate"] if vibrate_in_silent else RINGER_MODES["silent"]


def timeout_label(ms: Any) -> tuple[str, int]:
    """How to say a screen timeout: a string key (``never``, ``n_seconds``, ``one_minute``,
    ``n_minutes``) and n."""
    if int(ms) >= TIMEOUT_NEVER_MS:
        return "never", 0
    seconds = max(round(int(ms) / 1000), 0)
    if seconds < 60 or seconds % 60:
        return "n_seconds", seconds
    minutes = seconds // 60
    return ("one_minute", 1) if minutes == 1 else ("n_minutes", minutes)


def locale_choice(system_locales: Any) -> str | None:
    """Which of :data:`LOCALES` ``system.system_locales`` selects (its first tag), if any."""
    first = str(system_locales or "").split(",")[0].strip().lower()
    exact = next((code for code in LOCALES if code.lower() == first), None)
    if exact:
        return exact
    return next((c for c in LOCALES if first.split("-")[0] == c.lower().split("-")[0]), None)
