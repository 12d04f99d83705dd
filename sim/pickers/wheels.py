"""The time picker drawn as wheels (miuix's ``NumberPicker``, as HyperOS's Clock sets an
alarm's time): what the wheels show and how a scroll or a tap turns them (pure functions).

The wheels keep no state of their own. They show and change the time picker's own state
(:mod:`sim.pickers.time_picker`): the hour and minute drafts (``ui.fields`` under
:func:`~sim.pickers.time_picker.hour_key` / :func:`~sim.pickers.time_picker.minute_key`,
written as the keyboard dialog writes them: ``"09"`` and ``"05"``, or ``"9"`` on a 12-hour
clock) and ``pm`` in the picker's params, so OK saves exactly what the dialog would.

A wheel is a scroll container (``ui.scroll`` under :func:`wheel_key`); the page's own
scrolling moves it, and the rows it travelled since it was last settled are pending: the
wheel shows its draft moved by them (whole rows, rounded: a wheel snaps), and the next
picker action (a tap on a row, OK) folds them into the drafts and puts every wheel back at
its home offset, :data:`HOME_PX`. Rows are laid out around the offset the page scrolled to,
so the value shown always sits in the middle row. The hour and minute wheels wrap (23 → 00,
59 → 00); the AM/PM wheel stops at its ends. A wheel's key exists only while the picker is
open as wheels (:func:`home_wheels`): without one, nothing is pending and the wheel does not
scroll (its rows still take taps, which home it).
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass
from datetime import time
from typing import Any

from sim.pickers.formats import picker_strings
from sim.pickers.time_picker import hour_key, minute_key, time_texts

__all__ = [
    "BAND_PX",
    "HOME_PX",
    "ROW_PX",
    "SHOWN",
    "WHEEL_PX",
    "Wheel",
    "home_wheels",
    "row_fraction",
    "select_row",
    "settle_wheels",
    "shown_indices",
    "wheel_desc",
    "wheel_key",
    "wheel_text",
    "wheel_time",
    "wheels_of",
    "wheels_view",
]

ROW_PX = 48
"""The height of one row (CSS px)."""
SHOWN = 2
"""Rows shown on each side of the selected one."""
BAND_PX = 12
"""Empty space above and below the rows: a scroll of half the wheel (what a ``scroll``
action does by default) travels 2.75 rows, never a tie between two and three."""
WHEEL_PX = (2 * SHOWN + 1) * ROW_PX + 2 * BAND_PX
"""The height of a wheel on screen."""
HOME_ROWS = 1000
"""Rows a wheel can travel either way between two picker actions."""
HOME_PX = HOME_ROWS * ROW_PX
"""The scroll offset of a settled wheel."""
STRIP_PX = 2 * HOME_PX + WHEEL_PX
"""The height of the scrolled content."""


@dataclass(frozen=True)
class Wheel:
    """One wheel: its name (``hour``, ``minute``, ``am_pm``, also its resource id), how many
    values it has and whether it wraps."""

    name: str
    count: int
    wraps: bool = True

    def move(self, index: int, rows: int) -> int | None:
        """The index ``rows`` away from ``index``; None past the end of a wheel that stops."""
        if self.wraps:
            return (index + rows) % self.count
        moved = index + rows
        return moved if 0 <= moved < self.count else None

    def turn(self, index: int, rows: int) -> int:
        """Where ``rows`` of travel leave the wheel (a wheel that stops stays at its end)."""
        if self.wraps:
            return (index + rows) % self.count
        return min(max(index + rows, 0), self.count - 1)


def wheels_of(twenty_four: bool, lang: str) -> tuple[Wheel, ...]:
    """The wheels left to right: hour and minute; on a 12-hour clock an AM/PM wheel too,
    before the hour in Chinese (上午 7 30) and after the minute in English (7 30 AM)."""
    if twenty_four:
        return Wheel("hour", 24), Wheel("minute", 60)
    halves = Wheel("am_pm", 2, wraps=False)
    hour, minute = Wheel("hour", 12), Wheel("minute", 60)
    return (halves, hour, minute) if lang == "zh" else (hour, minute, halves)


def wheel_key(app_id: str, name: str) -> str:
    """The scroll key of a wheel (under the app's picker prefix: closing the picker or
    force-stopping the app forgets it)."""
    return f"{app_id}.picker.wheel_{name}"


def wheel_text(name: str, index: int, twenty_four: bool, lang: str) -> str:
    """A row's text: ``09`` (24-hour), ``9`` (12-hour), ``05``, ``AM`` / ``上午``."""
    if name == "am_pm":
        return picker_strings(lang)["pm" if index else "am"]
    if name == "hour" and not twenty_four:
        return str(index + 1)
    return f"{index:02d}"


def wheel_desc(name: str, text: str, lang: str) -> str:
    """A wheel's content description, naming its value: ``Hour 09`` / ``09时``."""
    if name == "am_pm":
        return text
    return picker_strings(lang)[f"wheel_{name}"].format(value=text)


def _number(text: str, low: int, high: int) -> int | None:
    text = text.strip()
    if not text.isdigit() or not low <= int(text) <= high:
        return None
    return int(text)


def _drafted(
    state: Mapping[str, Any], fields: Mapping[str, str], app_id: str, twenty_four: bool
) -> dict[str, int]:
    """Each wheel's index as the drafts have it (a draft no wheel holds reads as its first)."""
    hour_text = fields.get(hour_key(app_id), "")
    low, high = (0, 23) if twenty_four else (1, 12)
    hour = (_number(hour_text, low, high) or low) - low
    minute = _number(fields.get(minute_key(app_id), ""), 0, 59) or 0
    return {"hour": hour, "minute": minute, "am_pm": int(bool(state.get("pm")))}


def _pending(scroll: Mapping[str, int], key: str) -> int:
    """Rows a wheel travelled since it was settled (rounded half up: a wheel snaps)."""
    if key not in scroll:
        return 0
    return (scroll[key] - HOME_PX + ROW_PX // 2) // ROW_PX


def shown_indices(
    state: Mapping[str, Any],
    fields: Mapping[str, str],
    scroll: Mapping[str, int],
    app_id: str,
    twenty_four: bool,
) -> dict[str, int]:
    """Each wheel's index as it shows now: its draft moved by the rows pending."""
    drafted = _drafted(state, fields, app_id, twenty_four)
    return {
        wheel.name: wheel.turn(drafted[wheel.name], _pending(scroll, wheel_key(app_id, wheel.name)))
        for wheel in wheels_of(twenty_four, "en")
    }


def wheel_time(indices: Mapping[str, int], twenty_four: bool) -> time:
    """The time of day the wheels show."""
    if twenty_four:
        return time(indices["hour"], indices["minute"])
    hour = (indices["hour"] + 1) % 12 + 12 * indices["am_pm"]
    return time(hour, indices["minute"])


def _write(
    indices: Mapping[str, int],
    state: MutableMapping[str, Any],
    fields: MutableMapping[str, str],
    scroll: MutableMapping[str, int],
    app_id: str,
    twenty_four: bool,
) -> None:
    """Store ``indices`` in the drafts (as the dialog's fields hold a time) and home every
    wheel."""
    value = wheel_time(indices, twenty_four)
    fields[hour_key(app_id)], fields[minute_key(app_id)] = time_texts(value, twenty_four)
    if not twenty_four:
        state["pm"] = bool(indices["am_pm"])
    home_wheels(scroll, app_id, twenty_four)


def home_wheels(scroll: MutableMapping[str, int], app_id: str, twenty_four: bool) -> None:
    """Put every wheel at its home offset, nothing pending (the picker opens as wheels)."""
    for wheel in wheels_of(twenty_four, "en"):
        scroll[wheel_key(app_id, wheel.name)] = HOME_PX


def settle_wheels(
    state: MutableMapping[str, Any],
    fields: MutableMapping[str, str],
    scroll: MutableMapping[str, int],
    app_id: str,
    twenty_four: bool,
) -> None:
    """Fold the rows the wheels travelled into the drafts (before any picker action); a
    picker not shown as wheels (no wheel keys: AOSP's dialog) is left as it is."""
    if not any(wheel_key(app_id, w.name) in scroll for w in wheels_of(twenty_four, "en")):
        return
    indices = shown_indices(state, fields, scroll, app_id, twenty_four)
    _write(indices, state, fields, scroll, app_id, twenty_four)


def select_row(
    state: MutableMapping[str, Any],
    fields: MutableMapping[str, str],
    scroll: MutableMapping[str, int],
    app_id: str,
    twenty_four: bool,
    name: str,
    index: int,
) -> None:
    """A tap on a row of wheel ``name``: its value ``index`` becomes the wheel's (the other
    wheels keep what they show)."""
    wheel = next((w for w in wheels_of(twenty_four, "en") if w.name == name), None)
    if wheel is None or not 0 <= index < wheel.count:
        raise ValueError(f"no row {index} on a wheel {name!r} here")
    indices = shown_indices(state, fields, scroll, app_id, twenty_four)
    indices[name] = index
    _write(indices, state, fields, scroll, app_id, twenty_four)


def row_fraction(offset: int) -> float:
    """Where the row ``offset`` rows below the selected one (negative: above) sits in its
    wheel, as a fraction of the wheel's height from its top (a plan taps there)."""
    if not -SHOWN <= offset <= SHOWN:
        raise ValueError(f"a wheel shows {SHOWN} rows either side, not {offset}")
    return (BAND_PX + (SHOWN + offset) * ROW_PX + ROW_PX / 2) / WHEEL_PX


def _rows(wheel: Wheel, index: int, top: int, twenty_four: bool, lang: str) -> list[dict[str, Any]]:
    """The rows a wheel shows around ``index``, placed for the page's scroll offset ``top``."""
    rows = []
    for offset in range(-SHOWN, SHOWN + 1):
        value = wheel.move(index, offset)
        if value is not None:
            rows.append(
                {
                    "value": value,
                    "text": wheel_text(wheel.name, value, twenty_four, lang),
                    "distance": abs(offset),
                    "top": top + BAND_PX + (SHOWN + offset) * ROW_PX,
                }
            )
    return rows


def wheels_view(
    state: Mapping[str, Any],
    lang: str,
    twenty_four: bool,
    fields: Mapping[str, str],
    scroll: Mapping[str, int],
    app_id: str,
) -> dict[str, Any]:
    """Everything ``pickers.html``'s ``time_wheels`` macro lays out, and the time shown."""
    indices = shown_indices(state, fields, scroll, app_id, twenty_four)
    wheels = []
    for wheel in wheels_of(twenty_four, lang):
        key = wheel_key(app_id, wheel.name)
        index = indices[wheel.name]
        text = wheel_text(wheel.name, index, twenty_four, lang)
        wheels.append(
            {
                "name": wheel.name,
                "key": key if key in scroll else None,
                "desc": wheel_desc(wheel.name, text, lang),
                "rows": _rows(wheel, index, scroll.get(key, 0), twenty_four, lang),
            }
        )
    return {
        "wheels": wheels,
        "row_px": ROW_PX,
        "wheel_px": WHEEL_PX,
        "strip_px": STRIP_PX,
        "time": wheel_time(indices, twenty_four),
    }
