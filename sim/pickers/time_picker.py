"""The time picker dialog in AOSP's keyboard-input mode: state, parsing, what it shows.

The hour and the minute are two text fields the user types into (drafts in ``ui.fields``
under the keys :func:`hour_key` / :func:`minute_key`); in 12-hour mode an AM/PM toggle sits
beside them. The rest of the state is a plain dict in the route's params::

    {"kind": "time", "target": "end", "pm": False, "error": False}

OK accepts an hour of 0–23 (24-hour) or 1–12 (12-hour) and a minute of 0–59, one or two
digits each; anything else keeps the dialog open with "Enter a valid time".
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import time
from typing import Any

from sim.pickers.formats import picker_strings

__all__ = ["hour_key", "minute_key", "parse_time", "time_state", "time_texts", "time_view"]

_DIGITS = re.compile(r"\d{1,2}")


def hour_key(app_id: str) -> str:
    """Draft key of the hour field (under the app's prefix, so force-stop forgets it)."""
    return f"{app_id}.picker.hour"


def minute_key(app_id: str) -> str:
    """Draft key of the minute field."""
    return f"{app_id}.picker.minute"


def time_state(target: str, value: time) -> dict[str, Any]:
    """A fresh picker for ``target`` (its fields are filled by :func:`time_texts`)."""
    return {"kind": "time", "target": target, "pm": value.hour >= 12, "error": False}


def time_texts(value: time, twenty_four: bool) -> tuple[str, str]:
    """What the hour and minute fields show for ``value``: ``("09", "05")`` or ``("9", "05")``."""
    hour = f"{value.hour:02d}" if twenty_four else str((value.hour % 12) or 12)
    return hour, f"{value.minute:02d}"


def parse_time(hour_text: str, minute_text: str, pm: bool, twenty_four: bool) -> time | None:
    """The time typed, None when it is not a valid one (see the module docstring)."""
    hour_text, minute_text = hour_text.strip(), minute_text.strip()
    if not (_DIGITS.fullmatch(hour_text) and _DIGITS.fullmatch(minute_text)):
        return None
    hour, minute = int(hour_text), int(minute_text)
    if minute > 59:
        return None
    if twenty_four:
        return time(hour, minute) if hour <= 23 else None
    if not 1 <= hour <= 12:
        return None
    return time(hour % 12 + (12 if pm else 0), minute)


def time_view(
    state: Mapping[str, Any],
    lang: str,
    twenty_four: bool,
    fields: Mapping[str, str],
    focus: str | None,
    app_id: str,
) -> dict[str, Any]:
    """Everything ``pickers.html``'s ``time_picker`` macro lays out."""
    strings = picker_strings(lang)

    def box(key: str, label: str) -> dict[str, Any]:
        return {"key": key, "value": fields.get(key, ""), "focused": focus == key, "label": label}

    pm = bool(state.get("pm"))
    return {
        "title": strings["time_title"],
        "hour": box(hour_key(app_id), strings["hour"]),
        "minute": box(minute_key(app_id), strings["minute"]),
        "twenty_four": twenty_four,
        "halves": [
            {"half": "am", "text": strings["am"], "checked": not pm},
            {"half": "pm", "text": strings["pm"], "checked": pm},
        ],
        "error": strings["invalid_time"] if state.get("error") else None,
        "ok": strings["ok"],
        "cancel": strings["cancel"],
    }
