"""Gesture geometry and meaning shared by every world: how a ``scroll`` becomes a finger
path, and what Android makes of a stroke (tap, long press, drag or fling) by its travel and
timing (:func:`classify_stroke`), so a duration means the same in the simulator, on the
virtual phone and on a phone.

``ScrollAction.direction`` names where the wanted content is (``down`` reveals content
below), so the finger moves the opposite way, as in AndroidWorld. The path stays inside the
scrolled area, away from its edges, so it neither misses the area nor starts a system
gesture at the screen's edge.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from bridge.actions import Point

__all__ = [
    "DOUBLE_TAP_TIMEOUT_MS",
    "LONG_PRESS_TIMEOUT_MS",
    "MIN_FLING_VELOCITY_DP_S",
    "TOUCH_SLOP_DP",
    "Stroke",
    "classify_stroke",
    "scroll_path",
]

_MARGIN = 0.15
"""Fraction of the area kept free at each end of the finger path."""


def scroll_path(
    direction: str,
    area: tuple[float, float, float, float] = (0.0, 0.0, 1.0, 1.0),
    distance: float = 0.5,
) -> tuple[Point, Point]:
    """Start and end of a swipe that scrolls ``area`` (normalized l, t, r, b) ``direction``.

    ``distance`` is the fraction of the area's extent the content moves, limited to what
    fits between the margins.
    """
    left, top, right, bottom = area
    if not (0.0 <= left < right <= 1.0 and 0.0 <= top < bottom <= 1.0):
        raise ValueError(f"area {area} is not a non-empty box inside [0, 1]")
    cx, cy = (left + right) / 2.0, (top + bottom) / 2.0
    width, height = right - left, bottom - top
    travel = min(max(distance, 0.0), 1.0 - 2 * _MARGIN)
    if direction in ("up", "down"):
        half = travel * height / 2.0
        sign = 1.0 if direction == "down" else -1.0  # down: finger moves up
        return Point(x=cx, y=cy + sign * half), Point(x=cx, y=cy - sign * half)
    if direction in ("left", "right"):
        half = travel * width / 2.0
        sign = 1.0 if direction == "right" else -1.0  # right: finger moves left
        return Point(x=cx + sign * half, y=cy), Point(x=cx - sign * half, y=cy)
    raise ValueError(f"unknown scroll direction {direction!r}; use up, down, left or right")


# --------------------------------------------------------------------------- classifying

LONG_PRESS_TIMEOUT_MS = 400
"""``ViewConfiguration``'s default long-press timeout; phones store the user's choice in
``settings secure long_press_timeout`` (unset on most phones: then this)."""
DOUBLE_TAP_TIMEOUT_MS = 300
"""Two taps at most this far apart are a double tap (``ViewConfiguration``)."""
TOUCH_SLOP_DP = 8
"""A finger that moves less than this (in dp) has not moved: a tap or a long press."""
MIN_FLING_VELOCITY_DP_S = 50
"""A stroke released faster than this (dp per second) flings (``ViewConfiguration``)."""

StrokeKind = Literal["tap", "long_press", "drag", "fling"]


@dataclass(frozen=True)
class Stroke:
    """What Android's touch framework makes of one finger stroke."""

    kind: StrokeKind
    start: tuple[float, float]
    end: tuple[float, float]


def classify_stroke(
    path: Sequence[tuple[float, float]],
    duration_ms: float,
    *,
    density_dpi: int,
    long_press_timeout_ms: float = LONG_PRESS_TIMEOUT_MS,
) -> Stroke:
    """Classify a finger path in device pixels, its points evenly spaced in time over
    ``duration_ms``, as Android would: within the touch slop it is a long press when held at
    least ``long_press_timeout_ms``, else a tap; beyond it a fling when the finger's speed
    at release (over the last segment) reaches the minimum fling velocity, else a drag.

    Only the class is decided (no fling physics): each world applies it its own way.
    """
    if not path:
        raise ValueError("a stroke needs at least one point")
    start, end = path[0], path[-1]
    slop = TOUCH_SLOP_DP * density_dpi / 160
    if max(math.dist(start, point) for point in path) < slop:
        kind: StrokeKind = "long_press" if duration_ms >= long_press_timeout_ms else "tap"
        return Stroke(kind, start, start)
    segments = max(len(path) - 1, 1)
    segment_s = max(duration_ms, 1.0) / 1000 / segments
    release = math.dist(path[-2], path[-1]) if len(path) > 1 else 0.0
    fling_px_s = MIN_FLING_VELOCITY_DP_S * density_dpi / 160
    return Stroke("fling" if release / segment_s >= fling_px_s else "drag", start, end)
