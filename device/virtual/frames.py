"""The virtual phone's last rendered frame, kept while it is still the screen.

A phone's compositor draws a frame when something on the screen changes, and a screenshot
copies the last one drawn. The virtual phone works the same way: what its screen shows is
a function of the simulator instance's version (every change moves the version, and pages
re-render on it), so a frame rendered at one version stays the screen until the version
moves. Settling takes two screenshots a moment apart; the second, of a screen that did not
change, costs no rendering, only its copy — as on a phone.

Frames are kept per format and quality (a PNG for ``screencap``, the JPEG uiautomator2
asked for), never re-encoded for a caller who asked for the same thing; smaller sizes are
made from the full frame, as uiautomator2 scales its bitmap before compressing it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from bridge.images import decode_at_least, decode_image

__all__ = ["FrameCache", "RenderedFrame"]

ImageFormat = Literal["png", "jpeg"]


@dataclass
class RenderedFrame:
    """One frame of the screen at full resolution: its encoded bytes and what it shows."""

    instance: str
    version: int
    image_format: ImageFormat
    quality: int
    """JPEG quality; 0 for PNG (lossless, one encoding)."""
    data: bytes
    _pixels: np.ndarray | None = field(default=None, repr=False)

    def pixels(self) -> np.ndarray:
        """The frame as BGR pixels (decoded once, on first use)."""
        if self._pixels is None:
            self._pixels = decode_image(self.data)
        return self._pixels

    def pixels_at_least(self, width: int) -> np.ndarray:
        """The frame as BGR pixels at least ``width`` wide: the full pixels when decoded
        already, else a JPEG decoded at a reduced size (a small screenshot's source)."""
        if self._pixels is not None:
            return self._pixels
        image = decode_at_least(self.data, width)
        if image is None:
            raise ValueError(f"{len(self.data)} bytes that are not a PNG or JPEG image")
        return image


def _quality(image_format: ImageFormat, quality: int) -> int:
    return 0 if image_format == "png" else quality


class FrameCache:
    """The frames rendered at the instance's current version (older ones are dropped)."""

    def __init__(self) -> None:
        self._frames: dict[tuple[ImageFormat, int], RenderedFrame] = {}
        self._shows: tuple[str, int] | None = None

    def get(
        self, instance: str, version: int, image_format: ImageFormat, quality: int
    ) -> RenderedFrame | None:
        """The frame of ``instance`` at ``version`` in this format, if one was rendered."""
        if self._shows != (instance, version):
            return None
        return self._frames.get((image_format, _quality(image_format, quality)))

    def put(self, frame: RenderedFrame) -> RenderedFrame:
        """Keep ``frame``; frames of another instance or version are forgotten."""
        shows = (frame.instance, frame.version)
        if self._shows != shows:
            self._frames.clear()
            self._shows = shows
        self._frames[(frame.image_format, _quality(frame.image_format, frame.quality))] = frame
        return frame
