"""Coordinate conventions of a mobile GUI agent, and exact conversions between them.

The canonical form is **normalized** screen coordinates: floats in [0, 1], top-left origin,
relative to the screen *as currently displayed* (the screenshot the policy saw). Everything
else is converted at the edge with the functions below.

Frames:
    normalized: floats in [0, 1]; x = 1.0 is the right edge, y = 1.0 the bottom edge.
    logical px: integer device pixels in the current orientation, the frame of ``input tap``,
        ``screencap`` and uiautomator bounds (``ScreenGeometry.logical_size``).
    natural px: integer pixels of the panel in its natural orientation (``wm size``, raw
        touch streams, screenshots some capture tools take unrotated).
    CSS px: floats in a browser viewport; device px = CSS px x device-pixel ratio.
    grid: values in [0, scale] printed by VLMs (1000: UI-TARS v1, AutoGLM, GUI-Owl-1.5;
        999: the Qwen3-VL cookbook, ``x / 999 * W``).
    resized: pixels of a ``smart_resize``-d image (Qwen2.5-VL, UI-TARS-1.5, GUI-Owl v3).

Pixel convention: pixel ``p`` covers ``[p, p + 1)``. normalized -> pixel is ``floor(x * W)``
clamped to ``W - 1`` (0.0 is pixel 0, 1.0 the last pixel); values within 1e-9 px below a pixel
boundary count as on it, so ``p / W`` always lands on ``p`` despite float error
(``0.29 * 100 == 28.999999999999996``). pixel -> normalized is the pixel *centre*
``(p + 0.5) / W``. So pixel -> normalized -> pixel is exact and normalized -> pixel ->
normalized moves a point by at most half a device pixel. Continuous frames (CSS, grid,
resized) have no half-pixel shift: ``v`` maps to ``v / extent``, as browsers and models do.

Rotation convention (AOSP): ``rotation`` is ``Display.getRotation()`` in degrees
(``Surface.ROTATION_0..ROTATION_270`` times 90): the angle the *content* is drawn rotated
clockwise on the panel, opposite to the device's physical turn. ROTATION_90 is a naturally
tall phone turned 90 degrees counter-clockwise: the panel's top edge is on the user's left and
its right edge on top. A natural pixel ``(x, y)`` of a ``W x H`` panel is then the logical pixel
``(y, W - 1 - x)`` in a ``H x W`` frame; 180 gives ``(W - 1 - x, H - 1 - y)`` and 270 gives
``(H - 1 - y, x)``. This is "90: swap x/y and reverse y; 270: swap x/y and reverse x" of
inputflinger's ``TouchInputMapper::rotateAndScale``. The four rotations form a group:
rotating by ``a`` then ``b`` equals rotating by ``(a + b) % 360``; 90 then 270 is the identity.

Out of range: every input is checked against the frame it claims to be in. A value outside it,
NaN or infinity raises :class:`bridge.errors.CoordinateError` (a ``ValueError``) naming the
value and the frame, e.g. ``x=1.2 is outside [0, 1] (normalized screen coordinates)``. Only
``grid_to_normalized`` and ``resized_to_normalized`` clamp, and only when asked
(``clamp=True``), because models do print 1000 on a 999 grid. Pixel indices must be integers
(``TypeError`` otherwise): use ``//`` for the centre of a bounds rectangle.
"""

from __future__ import annotations

import math
import operator
from dataclasses import dataclass
from typing import Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field

from bridge.errors import CoordinateError

__all__ = [
    "QWEN2_5_VL_FACTOR",
    "QWEN3_VL_FACTOR",
    "FloatPoint",
    "IntPoint",
    "Rotation",
    "ScreenGeometry",
    "Size",
    "Viewport",
    "css_to_normalized",
    "css_to_pixel",
    "grid_to_normalized",
    "logical_to_natural",
    "natural_to_logical",
    "normalized_to_css",
    "normalized_to_grid",
    "normalized_to_pixel",
    "normalized_to_resized",
    "pixel_to_css",
    "pixel_to_normalized",
    "resized_to_normalized",
    "rotate_normalized",
    "rotate_pixel",
    "rotation_from_surface",
    "smart_resize",
]

Rotation = Literal[0, 90, 180, 270]
"""Display rotation in degrees, ``Surface.ROTATION_*`` times 90 (see the module docstring)."""

QWEN2_5_VL_FACTOR = 28
"""``smart_resize`` factor of Qwen2.5-VL, UI-TARS-1.5 and GUI-Owl v3 (patch 14 x merge 2)."""
QWEN3_VL_FACTOR = 32
"""``smart_resize`` factor of Qwen3-VL (patch 16 x merge 2)."""

_ROTATIONS: tuple[Rotation, ...] = (0, 90, 180, 270)
_SNAP_PX = 1e-9  # float error of x * W is ~1e-12 px for W < 1e4; snap it onto the boundary
_NORMALIZED = "normalized screen coordinates"


class FloatPoint(NamedTuple):
    """A continuous point: normalized, CSS pixels, or grid / resized-image units."""

    x: float
    y: float


class IntPoint(NamedTuple):
    """An integer point: a device pixel index, or a grid / resized value a model prints."""

    x: int
    y: int


@dataclass(frozen=True, slots=True)
class Size:
    """Width and height of a pixel frame.

    Deliberately not a tuple: ``w, h = size`` raises, so the (height, width) order of Qwen's
    original ``smart_resize`` cannot be confused with (width, height) silently.
    """

    width: int
    height: int

    def __post_init__(self) -> None:
        if operator.index(self.width) <= 0 or operator.index(self.height) <= 0:
            raise CoordinateError(f"frame size {self} must be positive in both dimensions")

    def __str__(self) -> str:
        return f"{self.width}x{self.height}"

    def rotated(self, rotation: Rotation) -> Size:
        """The size of this frame after a rotation: swapped for 90 and 270 degrees."""
        _check_rotation(rotation)
        return Size(self.height, self.width) if rotation in (90, 270) else self


class ScreenGeometry(BaseModel):
    """A phone screen: natural panel size (``wm size``, e.g. 1080x2400) and current rotation.

    ``width_px``/``height_px`` are the *natural* size; ``bridge.schema.ScreenSpec`` holds the
    size as displayed, so build from it with ``from_logical(width, height, orientation)``.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    width_px: int = Field(gt=0, strict=True, description="natural (rotation 0) panel width")
    height_px: int = Field(gt=0, strict=True, description="natural (rotation 0) panel height")
    rotation: Rotation = Field(default=0, description="Display.getRotation() in degrees")

    @classmethod
    def from_logical(cls, width_px: int, height_px: int, rotation: Rotation) -> ScreenGeometry:
        """Build from the *current* size (uiautomator2 ``window_size()``) and rotation."""
        natural = Size(width_px, height_px).rotated(rotation)
        return cls(width_px=natural.width, height_px=natural.height, rotation=rotation)

    @property
    def natural_size(self) -> Size:
        """The panel in its natural orientation, as ``wm size`` prints it."""
        return Size(self.width_px, self.height_px)

    @property
    def logical_size(self) -> Size:
        """The frame of ``input tap``, screenshots and uiautomator bounds (swapped at 90/270)."""
        return self.natural_size.rotated(self.rotation)


class Viewport(BaseModel):
    """A browser viewport: CSS size and device-pixel ratio (360x800 at DPR 3 is 1080x2400 px)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    width_css: float = Field(gt=0, allow_inf_nan=False)
    height_css: float = Field(gt=0, allow_inf_nan=False)
    dpr: float = Field(default=1.0, gt=0, allow_inf_nan=False)

    @property
    def pixel_size(self) -> Size:
        """Device pixels covered by the viewport: CSS size x DPR, rounded."""
        width = max(1, round(self.width_css * self.dpr))
        return Size(width, max(1, round(self.height_css * self.dpr)))


def rotation_from_surface(index: int | str) -> Rotation:
    """Degrees for an Android ``Surface.ROTATION_*`` index 0..3.

    The index is what uiautomator dumps as ``<hierarchy rotation="1">``, uiautomator2 as
    ``info["displayRotation"]`` and Java as ``Display.getRotation()``; strings are accepted
    so the XML attribute can be passed as it is. Anything but 0..3 raises CoordinateError.
    """
    try:
        value = int(index) if isinstance(index, str) else operator.index(index)
    except ValueError:
        value = -1
    if not 0 <= value <= 3:
        raise CoordinateError(f"surface rotation {index!r} is not one of 0, 1, 2, 3")
    return _ROTATIONS[value]


def normalized_to_pixel(x: float, y: float, frame: Size) -> IntPoint:
    """The pixel of ``frame`` containing a normalized point: ``floor(x * W)``, 1.0 -> ``W - 1``."""
    nx, ny = _normalized(x, y)
    return IntPoint(_cell(nx, frame.width), _cell(ny, frame.height))


def pixel_to_normalized(x: int, y: int, frame: Size) -> FloatPoint:
    """The normalized centre ``(p + 0.5) / W`` of a pixel; raises if it is outside ``frame``."""
    px, py = _pixel(x, y, frame)
    return FloatPoint((px + 0.5) / frame.width, (py + 0.5) / frame.height)


def rotate_pixel(x: int, y: int, frame: Size, rotation: Rotation) -> IntPoint:
    """Map a pixel of ``frame`` into ``frame.rotated(rotation)`` (AOSP sense, module docstring).

    ``rotate_pixel(x, y, natural, r)`` is where a natural-frame pixel appears on a screen at
    display rotation ``r``. Exact; the inverse is rotating by ``(360 - r) % 360``.
    """
    _check_rotation(rotation)
    px, py = _pixel(x, y, frame)
    last_x, last_y = frame.width - 1, frame.height - 1
    if rotation == 90:
        return IntPoint(py, last_x - px)
    if rotation == 180:
        return IntPoint(last_x - px, last_y - py)
    if rotation == 270:
        return IntPoint(last_y - py, px)
    return IntPoint(px, py)


def rotate_normalized(x: float, y: float, rotation: Rotation) -> FloatPoint:
    """:func:`rotate_pixel` for normalized points: 90 maps ``(x, y)`` to ``(y, 1 - x)``."""
    _check_rotation(rotation)
    nx, ny = _normalized(x, y)
    if rotation == 90:
        return FloatPoint(ny, 1.0 - nx)
    if rotation == 180:
        return FloatPoint(1.0 - nx, 1.0 - ny)
    if rotation == 270:
        return FloatPoint(1.0 - ny, nx)
    return FloatPoint(nx, ny)


def natural_to_logical(x: int, y: int, geometry: ScreenGeometry) -> IntPoint:
    """Where a pixel of the panel's natural frame appears in the current (logical) frame."""
    return rotate_pixel(x, y, geometry.natural_size, geometry.rotation)


def logical_to_natural(x: int, y: int, geometry: ScreenGeometry) -> IntPoint:
    """Where a logical pixel (``input tap``, screenshot) lands on the physical panel."""
    inverse = _ROTATIONS[(4 - geometry.rotation // 90) % 4]
    return rotate_pixel(x, y, geometry.logical_size, inverse)


def normalized_to_css(x: float, y: float, viewport: Viewport) -> FloatPoint:
    """Normalized to CSS pixels of ``viewport`` (continuous: ``x * width_css``)."""
    nx, ny = _normalized(x, y)
    return FloatPoint(nx * viewport.width_css, ny * viewport.height_css)


def css_to_normalized(x: float, y: float, viewport: Viewport) -> FloatPoint:
    """CSS pixels in ``[0, width_css] x [0, height_css]`` to normalized (``x / width_css``)."""
    frame = f"CSS viewport {viewport.width_css:g}x{viewport.height_css:g}"
    cx = _in_range("x", x, viewport.width_css, frame)
    cy = _in_range("y", y, viewport.height_css, frame)
    return FloatPoint(cx / viewport.width_css, cy / viewport.height_css)


def css_to_pixel(x: float, y: float, viewport: Viewport) -> IntPoint:
    """The device pixel under a CSS point: ``floor(x * dpr)``, right/bottom edge -> last pixel."""
    nx, ny = css_to_normalized(x, y, viewport)
    return normalized_to_pixel(nx, ny, viewport.pixel_size)


def pixel_to_css(x: int, y: int, viewport: Viewport) -> FloatPoint:
    """The CSS position of a device pixel's centre, ``(p + 0.5) / dpr``."""
    nx, ny = pixel_to_normalized(x, y, viewport.pixel_size)
    return FloatPoint(nx * viewport.width_css, ny * viewport.height_css)


def normalized_to_grid(x: float, y: float, scale: int) -> IntPoint:
    """Normalized to an integer grid ``0..scale`` (nearest value, ties to even)."""
    return normalized_to_resized(x, y, scale, scale)


def grid_to_normalized(x: float, y: float, scale: int, *, clamp: bool = False) -> FloatPoint:
    """A model's grid point (``0..scale``; 1000 or 999) to normalized, ``v / scale``.

    Values outside ``[0, scale]`` raise CoordinateError unless ``clamp=True``, which pins them
    to the edge (1000 on a 999 grid becomes 1.0). NaN and infinity raise even when clamping.
    """
    return resized_to_normalized(x, y, scale, scale, clamp=clamp)


def resized_to_normalized(
    x: float, y: float, resized_w: int, resized_h: int, *, clamp: bool = False
) -> FloatPoint:
    """Pixels of a resized image (``resized_w x resized_h``) to normalized, ``x / resized_w``.

    Same range rule as :func:`grid_to_normalized`: outside ``[0, resized_w] x [0, resized_h]``
    raises CoordinateError unless ``clamp=True``; NaN and infinity always raise.
    """
    size = Size(resized_w, resized_h)
    frame = f"model frame {size}" + ("" if clamp else "; clamp=True pins it to the edge")
    rx = _in_range("x", x, size.width, frame, clamp=clamp)
    ry = _in_range("y", y, size.height, frame, clamp=clamp)
    return FloatPoint(rx / size.width, ry / size.height)


def normalized_to_resized(x: float, y: float, resized_w: int, resized_h: int) -> IntPoint:
    """Normalized to integer pixels of a resized image: ``round(x * resized_w)`` (ties to even)."""
    size = Size(resized_w, resized_h)
    nx, ny = _normalized(x, y)
    return IntPoint(round(nx * size.width), round(ny * size.height))


def smart_resize(
    height: int,
    width: int,
    factor: int = QWEN2_5_VL_FACTOR,
    min_pixels: int = 56 * 56,
    max_pixels: int = 14 * 14 * 4 * 1280,
) -> Size:
    """The size Qwen-VL processors resize an image to. Takes (height, width); returns a Size.

    Each side is rounded to a multiple of ``factor`` (Python ``round``, ties to even). If the
    area then exceeds ``max_pixels`` (or is below ``min_pixels``), both sides are scaled by the
    same factor to fit and floored (ceiled) to multiples of ``factor``, never below ``factor``.
    The float arithmetic follows the processors' so results match them bit for bit.
    Example: ``smart_resize(2400, 1080, 28, 3136, 12845056) == Size(width=1092, height=2408)``.

    Raises:
        CoordinateError: a side is smaller than ``factor``, the aspect ratio exceeds 200, or
            the limits are not positive with ``min_pixels <= max_pixels``.
    """
    _check_resize_args(height, width, factor, min_pixels, max_pixels)
    new_h, new_w = round(height / factor) * factor, round(width / factor) * factor
    if new_h * new_w > max_pixels:
        beta = math.sqrt(height * width / max_pixels)
        new_h = max(factor, math.floor(height / beta / factor) * factor)
        new_w = max(factor, math.floor(width / beta / factor) * factor)
    elif new_h * new_w < min_pixels:
        beta = math.sqrt(min_pixels / (height * width))
        new_h = math.ceil(height * beta / factor) * factor
        new_w = math.ceil(width * beta / factor) * factor
    return Size(width=new_w, height=new_h)


def _check_resize_args(
    height: int, width: int, factor: int, min_pixels: int, max_pixels: int
) -> None:
    limits = (operator.index(factor), operator.index(min_pixels), operator.index(max_pixels))
    if not (limits[0] > 0 and 0 < limits[1] <= limits[2]):
        raise CoordinateError(
            f"smart_resize needs factor > 0 and 0 < min_pixels <= max_pixels, "
            f"got {factor=}, {min_pixels=}, {max_pixels=}"
        )
    image = f"image {width}x{height} (w x h)"
    if operator.index(height) < factor or operator.index(width) < factor:
        raise CoordinateError(f"{image} is smaller than the resize factor {factor}")
    if max(height, width) / min(height, width) > 200:
        raise CoordinateError(f"{image} has an aspect ratio above 200")


def _check_rotation(rotation: int) -> None:
    if rotation not in _ROTATIONS:
        raise CoordinateError(f"rotation={rotation} is not one of 0, 90, 180, 270 degrees")


def _in_range(name: str, value: float, high: float, frame: str, *, clamp: bool = False) -> float:
    if not math.isfinite(value):
        raise CoordinateError(f"{name}={value} is not a finite number ({frame})")
    if clamp:
        return min(max(float(value), 0.0), float(high))
    if not 0.0 <= value <= high:
        raise CoordinateError(f"{name}={value} is outside [0, {high:g}] ({frame})")
    return float(value)


def _normalized(x: float, y: float) -> FloatPoint:
    return FloatPoint(_in_range("x", x, 1.0, _NORMALIZED), _in_range("y", y, 1.0, _NORMALIZED))


def _pixel(x: int, y: int, frame: Size) -> IntPoint:
    px, py = operator.index(x), operator.index(y)
    for name, value, extent in (("x", px, frame.width), ("y", py, frame.height)):
        if not 0 <= value < extent:
            raise CoordinateError(
                f"{name}={value} is outside [0, {extent - 1}] (pixel frame {frame})"
            )
    return IntPoint(px, py)


def _cell(u: float, extent: int) -> int:
    return min(math.floor(u * extent + _SNAP_PX), extent - 1)
