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
  value reads as on); ``global.mode_ringer`` 2 sound / 1 vibrate / 0 silent.
* ``system.screen_off_timeout`` in ms, ``system.font_scale`` a float, ``system.system_locales``
  a BCP 47 tag list such as ``"zh-CN"``.
"""

from __future__ import annotations

import math
from typing import Any

__all__ = [
    "FONT_SCALES",
    "LOCALES",
    "NIGHT_MODE_OFF",
    "NIGHT_MODE_ON",
    "RINGER_MODES",
    "RING_VOLUME_MAX",
    "TIMEOUT_CHOICES_BY_SKIN",
    "TIMEOUT_CHOICES_EVERY_SKIN",
    "TIMEOUT_CHOICES_MS",
    "TIMEOUT_NEVER_MS",
    "ZEN_MODES",
    "brightness_from_frac",
    "font_scale_name",
    "is_on",
    "locale_choice",
    "longest_timeout",
    "night_mode_value",
    "ring_volume_from_frac",
    "timeout_label",
    "value_from_frac",
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
"""Font-size choices (name → ``system.font_scale``), smallest first."""

RINGER_MODES: dict[str, int] = {"sound": 2, "vibrate": 1, "silent": 0}
"""Ringer-mode choices (name → ``global.mode_ringer``)."""

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


def font_scale_name(scale: Any) -> str | None:
    """The :data:`FONT_SCALES` name of ``scale``, or None for a value not in the list.

    Phones store the float with float32 noise (``1.1500000357627869``), hence the tolerance.
    """
    try:
        value = float(scale)
    except (TypeError, ValueError):
        return None
    return next(
        (name for name, s in FONT_SCALES.items() if math.isclose(s, value, abs_tol=1e-3)), None
    )


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
