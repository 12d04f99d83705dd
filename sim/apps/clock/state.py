"""The Clock's overlay, typed: what :mod:`sim.apps.clock.alarms`, :mod:`~sim.apps.clock.cities`
and the timer and stopwatch handlers (:mod:`sim.apps.clock.app`) write into
``InstanceState.apps["clock"]``. Defaults are what the readers take for a missing key."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import Field

from sim.state import OverlayModel, parse_overlay

__all__ = [
    "AlarmRow",
    "ClockState",
    "StopwatchState",
    "TimerState",
    "clock_state",
    "stopwatch_state",
    "timer_state",
]


class AlarmRow(OverlayModel):
    """An alarm as :func:`sim.apps.clock.alarms.normalize_alarm` stores it."""

    id: int
    hour: int = Field(ge=0, le=23)
    minute: int = Field(ge=0, le=59)
    days: list[int]
    """Weekdays it repeats on, 0 Monday … 6 Sunday, sorted; empty: rings once."""
    label: str
    enabled: bool


class TimerState(OverlayModel):
    """The timer: digits typed, and once started its duration, what is left and since when."""

    input: str = ""
    """Keypad digits, ``HHMMSS`` from the right (``"130"``: 1 min 30 s)."""
    duration_ms: int | None = None
    """Set by Start; absent: the keypad shows."""
    left_ms: int = 0
    since: int | None = None
    """``os.clock_ms`` when it last started; None while paused."""


class StopwatchState(OverlayModel):
    """The stopwatch: time run before ``since``, when it last started, and its laps."""

    total_ms: int = 0
    since: int | None = None
    laps: list[int] = Field(default_factory=list)
    """Elapsed ms at each lap, oldest first."""


class ClockState(OverlayModel):
    """``{"alarms": {"<id>": row | None}, "next_id": n, "cities": [ids], "timer": {...},
    "stopwatch": {...}}``."""

    alarms: dict[str, AlarmRow | None] = Field(default_factory=dict)
    """Changed alarms by id; None is a tombstone of a world alarm."""
    next_id: int | None = None
    """The id the next new alarm gets at least (ids are never reused)."""
    cities: list[str] | None = None
    """The world clocks' city ids in the order added; None: the world's list."""
    timer: TimerState | None = None
    stopwatch: StopwatchState | None = None


def clock_state(overlay: Mapping[str, Any]) -> ClockState:
    """The Clock's overlay, typed (``OverlayInvalid`` when it does not fit)."""
    return parse_overlay(ClockState, "clock", overlay)


def timer_state(timer: Mapping[str, Any]) -> TimerState:
    """The overlay's ``timer``, typed."""
    return parse_overlay(TimerState, "clock", timer)


def stopwatch_state(watch: Mapping[str, Any]) -> StopwatchState:
    """The overlay's ``stopwatch``, typed."""
    return parse_overlay(StopwatchState, "clock", watch)
