"""Screenshots decoded no larger than needed: sizes from headers, reduced JPEG decoding."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from bridge.images import decode_at_least, decode_image, encode_image, image_size
from device.driver import THUMB_WIDTH, decode_frame, frame_change
from device.errors import DeviceError


def _screen(width: int = 1080, height: int = 2400) -> np.ndarray:
    image = np.full((height, width, 3), 235, np.uint8)
    cv2.rectangle(image, (60, 300), (width - 60, 420), (40, 90, 200), -1)
    cv2.putText(image, "Wi-Fi", (80, 700), cv2.FONT_HERSHEY_SIMPLEX, 3, (20, 20, 20), 5)
    return image


def _encoded(image: np.ndarray, ext: str, *flags: int) -> bytes:
    ok, data = cv2.imencode(ext, image, list(flags))
    assert ok
    return data.tobytes()


@pytest.mark.parametrize(
    ("ext", "flags"),
    [(".png", ()), (".jpg", (cv2.IMWRITE_JPEG_QUALITY, 80)),
     (".jpg", (cv2.IMWRITE_JPEG_PROGRESSIVE, 1))],
)  # fmt: skip
@pytest.mark.parametrize("size", [(1080, 2400), (1200, 2670), (270, 600), (7, 5)])
def test_the_header_gives_the_size(ext: str, flags: tuple[int, ...], size: tuple[int, int]) -> None:
    data = _encoded(_screen(*size), ext, *flags)
    assert image_size(data) == size


def test_anything_else_has_no_size() -> None:
    assert image_size(b"") is None
    assert image_size(b"\xff\xd8\xff") is None
    assert image_size(b"GIF89a" + bytes(40)) is None
    assert image_size(b"\xff\xd8" + b"\x00" * 40) is None  # no marker where one must be


def test_a_jpeg_decodes_reduced_but_wide_enough() -> None:
    data = _encoded(_screen(), ".jpg", cv2.IMWRITE_JPEG_QUALITY, 80)
    assert decode_at_least(data, THUMB_WIDTH).shape == (600, 270, 3)  # a quarter
    assert decode_at_least(data, 300).shape == (1200, 540, 3)  # a half
    assert decode_at_least(data, 1080).shape == (2400, 1080, 3)
    assert decode_at_least(b"not an image", 10) is None


def test_a_frame_compares_as_the_full_image_would() -> None:
    before, after = _screen(), _screen()
    cv2.rectangle(after, (60, 1200), (1020, 1500), (0, 160, 0), -1)  # a dialog appears
    a, b = (decode_frame(_encoded(i, ".jpg", cv2.IMWRITE_JPEG_QUALITY, 80), "jpeg")
            for i in (before, after))  # fmt: skip
    assert (a.width, a.height) == (1080, 2400) and a.small.shape[1] == 270
    reduced, full = frame_change(a.small, b.small), frame_change(a.image, b.image)
    assert reduced == pytest.approx(full, abs=0.005) and reduced > 0.05
    assert frame_change(a.small, a.small) == 0.0
    assert a.image.shape == (2400, 1080, 3)


def test_bytes_that_are_no_image_are_a_device_error() -> None:
    with pytest.raises(DeviceError, match="is not an image"):
        decode_frame(b"\xff\xd8\xff\xc0" + bytes(20), "jpeg")


def test_pixels_round_trip_as_png_and_refuse_what_is_no_image() -> None:
    image = _screen(90, 200)
    assert (decode_image(encode_image(image, "png", 80)) == image).all()
    assert decode_image(encode_image(image, "jpeg", 80)).shape == image.shape
    with pytest.raises(ValueError, match="not a PNG or JPEG"):
        decode_image(b"nope")
