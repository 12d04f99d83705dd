"""The timer and the stopwatch, on the instance's clock (``os.clock_ms``; never the host's).

Both keep when they last started and what had run before it, so their value at any clock
reading is a pure function of the state (the screen shows it as of the instance's clock):

* timer ``{"input": "130", "duration_ms": n, "left_ms": n, "since": ms | None}``: the keypad
  types digits into ``input`` as ``HHMMSS`` from the right (AOSP's timer setup); Start turns
  it into ``duration_ms``; ``since`` is set while it runs;
* stopwatch ``{"total_ms": n, "since": ms | None, "laps": [elapsed at each lap]}``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sim.apps.clock.state import StopwatchState, TimerState, stopwatch_state, timer_state

__all__ = [
    "MAX_INPUT",
    "input_ms",
    "input_parts",
    "stopwatch_elapsed",
    "stopwatch_text",
    "timer_left",
    "timer_text",
]

MAX_INPUT = 6
"""Digits the timer keypad takes (HHMMSS)."""


def input_parts(digits: str) -> tuple[int, int, int]:
    """The keypad's digits as (hours, minutes, seconds): ``"130"`` is 0 h 1 m 30 s."""
    padded = digits[-MAX_INPUT:].rjust(MAX_INPUT, "0")
    return int(padded[:2]), int(padded[2:4]), int(padded[4:])


def input_ms(digits: str) -> int:
    """The duration typed (minutes and seconds over 59 carry, as AOSP's timer allows)."""
    hours, minutes, seconds = input_parts(digits)
    return ((hours * 60 + minutes) * 60 + seconds) * 1000


def timer_left(timer: TimerState | Mapping[str, Any], now_ms: int) -> int:
    """Milliseconds left on a started timer (0 once it has run out)."""
    typed = timer if isinstance(timer, TimerState) else timer_state(timer)
    left = typed.left_ms
    if typed.since is not None:
        left -= now_ms - typed.since
    return max(0, left)


def timer_text(ms: int) -> str:
    """A timer's display: ``1:05:09`` with hours, else ``05:09`` (seconds rounded up, as a
    countdown shows them)."""
    seconds = -(-ms // 1000)
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{seconds:02d}" if hours else f"{minutes:02d}:{seconds:02d}"


def stopwatch_elapsed(stopwatch: StopwatchState | Mapping[str, Any], now_ms: int) -> int:
    """Milliseconds the stopwatch has run."""
    typed = stopwatch if isinstance(stopwatch, StopwatchState) else stopwatch_state(stopwatch)
    since = typed.since
    return typed.total_ms + (now_ms - since if since is not None else 0)


def stopwatch_text(ms: int) -> str:
    """A stopwatch's display: ``01:02.34`` (hundredths), ``1:01:02.34`` past an hour."""
    hundredths = ms // 10
    seconds, cs = divmod(hundredths, 100)
    minutes, seconds = divmod(seconds, 60)
    hours, minutes = divmod(minutes, 60)
    head = f"{hours}:{minutes:02d}" if hours else f"{minutes:02d}"
    return f"{head}:{seconds:02d}.{cs:02d}"
