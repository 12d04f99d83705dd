"""The coordinate frames VLMs print points in, converted to normalized screen points.

Two kinds (models.md §8.1):

* **grid** — relative values on ``0..scale`` whatever the image size: Qwen3-VL (999 in the
  cookbook, 1000 elsewhere), GUI-Owl-1.5 (1000), AutoGLM (0–999 in the prompt, divided by
  1000 by Open-AutoGLM), UI-TARS v1 and Doubao (1000);
* **resized** — absolute pixels of the image the processor really saw,
  ``smart_resize(H, W, 28, min_pixels, max_pixels)`` of the screenshot: Qwen2.5-VL,
  UI-TARS-1.5, GUI-Owl v3.

A value a hair outside the frame (1000 on a 999 grid, 1093 on a 1092-pixel image) is pinned
to the edge. Anything further is the model's mistake and raises
:class:`bridge.errors.CoordinateError` — unless the frame was built with a ``pixel_fallback``
screen size, in which case values that fit the *screen* are read as screen pixels (what some
evaluation harnesses do when a grid model prints ``y=1975`` on a 1080x2400 phone).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from bridge.actions import Point
from bridge.coords import Size, resized_to_normalized, smart_resize
from bridge.errors import CoordinateError
from bridge.schema import Observation

__all__ = ["ModelFrame", "box_centre", "image_size", "numbers"]

_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_SLACK = 0.002
"""Fraction of a frame's extent (at least one unit) beyond its edge that is pinned to it."""


@dataclass(frozen=True)
class ModelFrame:
    """The frame a model's numbers are in: ``width x height`` units over the whole screen."""

    width: int
    height: int
    label: str
    pixel_fallback: Size | None = None

    @classmethod
    def grid(cls, scale: int, pixel_fallback: Size | None = None) -> ModelFrame:
        """A relative ``0..scale`` grid (both axes)."""
        return cls(scale, scale, f"0-{scale} grid", pixel_fallback)

    @classmethod
    def resized(cls, image: Size, factor: int, min_pixels: int, max_pixels: int) -> ModelFrame:
        """Absolute pixels of ``image`` after ``smart_resize`` with these processor limits."""
        size = smart_resize(image.height, image.width, factor, min_pixels, max_pixels)
        label = f"{size} resized image (smart_resize of {image}, factor {factor})"
        return cls(size.width, size.height, label)

    @property
    def size(self) -> Size:
        """The frame's extent."""
        return Size(self.width, self.height)

    def point(self, x: float, y: float) -> Point:
        """The normalized screen point of the model's ``(x, y)``.

        Raises:
            CoordinateError: the point is outside the frame (and outside the fallback screen).
        """
        if not (math.isfinite(x) and math.isfinite(y)):
            raise CoordinateError(f"point ({x}, {y}) is not finite")
        if _inside(x, self.width) and _inside(y, self.height):
            nx, ny = resized_to_normalized(x, y, self.width, self.height, clamp=True)
            return Point(x=nx, y=ny)
        screen = self.pixel_fallback
        if screen is not None and 0 <= x <= screen.width and 0 <= y <= screen.height:
            nx, ny = resized_to_normalized(x, y, screen.width, screen.height)
            return Point(x=nx, y=ny)
        also = f" or the {screen} screen in pixels" if screen is not None else ""
        raise CoordinateError(
            f"point ({x:g}, {y:g}) is outside the model's {self.label}{also}; "
            f"coordinates must lie in [0, {self.width}] x [0, {self.height}]"
        )

    def point_of(self, values: Sequence[float]) -> Point:
        """:meth:`point` of a 2-number point or the centre of a 4-number box."""
        x, y = box_centre(values)
        return self.point(x, y)


def _inside(value: float, extent: int) -> bool:
    slack = max(1.0, _SLACK * extent)
    return -slack <= value <= extent + slack


def image_size(observation: Observation) -> Size:
    """The size of the image the model sees: the screenshot's, else the screen's."""
    shot = observation.screenshot
    if shot is not None:
        return Size(shot.width, shot.height)
    return Size(observation.screen.width_px, observation.screen.height_px)


def numbers(value: object) -> list[float]:
    """The numbers of a coordinate value: a JSON list, or any text holding them
    (``'(395,74)'``, ``'<point>510 150</point>'``, ``'<bbox>637 964 637 964</bbox>'``)."""
    if isinstance(value, (list, tuple)):
        try:  # numbers, or numbers quoted as strings ("512")
            if not any(isinstance(v, bool) for v in value):
                return [float(v) for v in value]
        except (TypeError, ValueError):
            pass
        raise CoordinateError(f"coordinate {value!r} holds something other than numbers")
    if isinstance(value, str):
        cleaned = re.sub(r"<\|?/?\w+\|?>", " ", value)  # <|box_start|>, <point>, </bbox>
        return [float(v) for v in _NUMBER.findall(cleaned)]
    raise CoordinateError(f"coordinate {value!r} is neither a list nor text")


def box_centre(values: Sequence[float]) -> tuple[float, float]:
    """``(x, y)`` of a point, or the centre of an ``[x1, y1, x2, y2]`` box."""
    if len(values) == 2:
        return values[0], values[1]
    if len(values) == 4:
        return (values[0] + values[2]) / 2.0, (values[1] + values[3]) / 2.0
    raise CoordinateError(
        f"coordinate {list(values)} has {len(values)} numbers; expected a point (x, y) "
        "or a box (x1, y1, x2, y2)"
    )
