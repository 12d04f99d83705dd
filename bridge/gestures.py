"""Gesture geometry shared by every world: how a ``scroll`` becomes a finger path.

``ScrollAction.direction`` names where the wanted content is (``down`` reveals content
below), so the finger moves the opposite way, as in AndroidWorld. The path stays inside the
scrolled area, away from its edges, so it neither misses the area nor starts a system
gesture at the screen's edge.
"""

from __future__ import annotations

from bridge.actions import Point

__all__ = ["scroll_path"]

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
