"""Screenshots as bytes and pixels: PNG/JPEG in and out (opencv), and decoded no larger
than their use needs. One home for every world's images: the simulator cuts captures to the
screen, the virtual phone scales and animates its frames, the phone driver compares them.

A phone's screenshot is 1080×2400 or so, but settling compares frames as 180-pixel-wide
thumbnails and a small probe is a quarter of the screen: a JPEG decoded at a reduced size
(libjpeg scales by 1/2, 1/4 or 1/8 while it decodes, several times faster than decoding all
of it) gives the same thumbnails. The full size is read from the file's header, so a frame
knows its dimensions without decoding them.
"""

from __future__ import annotations

from typing import Literal

import cv2
import numpy as np

__all__ = ["decode_at_least", "decode_image", "encode_image", "image_size"]

_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_JPEG_FRAME_MARKERS = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}
"""Start-of-frame markers (baseline, progressive, lossless…): the ones that carry the size;
0xC4, 0xC8 and 0xCC are Huffman tables, a reserved code and arithmetic conditioning."""
_REDUCED = ((8, cv2.IMREAD_REDUCED_COLOR_8), (4, cv2.IMREAD_REDUCED_COLOR_4),
            (2, cv2.IMREAD_REDUCED_COLOR_2))  # fmt: skip


def image_size(data: bytes) -> tuple[int, int] | None:
    """Width and height of a PNG or JPEG from its header; None for anything else."""
    if data.startswith(_PNG_SIGNATURE) and len(data) >= 24:
        return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    if not data.startswith(b"\xff\xd8"):
        return None
    at = 2
    while at + 9 <= len(data):
        if data[at] != 0xFF:
            return None
        marker = data[at + 1]
        if marker == 0xFF:  # fill byte before a marker
            at += 1
            continue
        if marker in _JPEG_FRAME_MARKERS:
            height = int.from_bytes(data[at + 5 : at + 7], "big")
            width = int.from_bytes(data[at + 7 : at + 9], "big")
            return (width, height) if width and height else None
        at += 2 + int.from_bytes(data[at + 2 : at + 4], "big")
    return None


def decode_at_least(data: bytes, width: int) -> np.ndarray | None:
    """``data`` as BGR pixels, decoded at the smallest reduction (1/8, 1/4, 1/2 or none)
    that is still at least ``width`` pixels wide; None when the bytes are not an image."""
    size = image_size(data)
    buffer = np.frombuffer(data, np.uint8)
    if size is not None:
        for factor, flag in _REDUCED:
            if -(-size[0] // factor) >= width:  # libjpeg rounds a reduced size up
                return cv2.imdecode(buffer, flag)
    return cv2.imdecode(buffer, cv2.IMREAD_COLOR)


def decode_image(data: bytes) -> np.ndarray:
    """Encoded PNG/JPEG bytes as BGR pixels; ValueError for bytes that are not an image."""
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if image is None:
        raise ValueError(f"{len(data)} bytes that are not a PNG or JPEG image")
    return image


def encode_image(image: np.ndarray, image_format: Literal["png", "jpeg"], quality: int) -> bytes:
    """BGR pixels as PNG, or as JPEG at ``quality`` (what ``screencap`` / u2 return)."""
    if image_format == "png":
        ok, data = cv2.imencode(".png", image)
    else:
        ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise ValueError(f"could not encode a {image.shape} frame as {image_format}")
    return data.tobytes()
