"""adbd's ``framebuffer:`` service: the screen as a DDMS raw image (header v2, then RGBA).

Real adbd runs ``screencap`` (raw output) and rewrites its header into ``struct fbinfo``
version 2 (AOSP ``daemon/framebuffer_service.cpp``): fourteen uint32 little-endian fields
``version=2, bpp, colorSpace, size, width, height, red offset/length, blue offset/length,
green offset/length, alpha offset/length``, then ``size`` bytes of pixels, then the stream
closes. For RGBA_8888 the offsets are red 0, green 8, blue 16, alpha 24, each 8 bits long;
``colorSpace`` is screencap's ``COLORSPACE_SRGB`` (1).
"""

from __future__ import annotations

import struct

import cv2
import numpy as np

from device.virtual.phone import ServiceStream, VirtualPhone

__all__ = [
    "COLORSPACE_SRGB",
    "FBINFO",
    "RAWIMAGE_VERSION",
    "framebuffer_image",
    "serve_framebuffer",
]

RAWIMAGE_VERSION = 2
"""``DDMS_RAWIMAGE_VERSION`` of the header modern adbd sends."""
COLORSPACE_SRGB = 1
"""screencap's colour-space code for sRGB (0 unknown, 2 Display P3)."""
FBINFO = struct.Struct("<14I")
"""``struct fbinfo`` (version 2): 14 packed uint32 little-endian fields."""


def framebuffer_image(png: bytes) -> bytes:
    """The ``framebuffer:`` reply for a PNG screen: the v2 header, then RGBA_8888 pixels."""
    image = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_UNCHANGED)
    if image is None:
        raise ValueError("the screen could not be decoded as PNG")
    code = cv2.COLOR_BGRA2RGBA if image.ndim == 3 and image.shape[2] == 4 else cv2.COLOR_BGR2RGBA
    rgba = np.ascontiguousarray(cv2.cvtColor(image, code))
    height, width = rgba.shape[:2]
    pixels = rgba.tobytes()
    header = FBINFO.pack(
        RAWIMAGE_VERSION,
        32,
        COLORSPACE_SRGB,
        len(pixels),
        width,
        height,
        *(0, 8),  # red offset, length
        *(16, 8),  # blue
        *(8, 8),  # green
        *(24, 8),  # alpha
    )
    return header + pixels


async def serve_framebuffer(phone: VirtualPhone, stream: ServiceStream) -> None:
    """Write the current screen as a raw image; the caller closes the stream after it."""
    await stream.write(framebuffer_image(await phone.screenshot("png")))
