"""Draw the README's picture: Settings on the virtual phone (AOSP) beside the virtual Redmi
(HyperOS, 440 dpi), each taken through adb as a user would (``screencap`` over the private
adb server), side by side at half size.

    .venv/bin/python scripts/readme_images.py [OUT.png]

Default ``docs/images/settings_aosp_hyperos.png``. Both phones are started ready, Settings is
started as the driver starts an app (its package as the profile names it), and each is
stopped before the script ends.
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

import adbutils
import cv2
import numpy as np

from bridge.app_catalog import app_catalog
from bridge.images import decode_image
from device.app_shell import foreground_activity, start_app
from device.profiles import VIRTUAL_PROFILE, load_profile
from device.virtual.attach import attach_virtual_phone
from device.virtual.perturb import Perturbations
from sim.skins import SKINS

GAP_PX = 24
"""White space between the two screens (at half size)."""


async def _open(device: adbutils.AdbDevice, package: str) -> None:
    """Start ``package`` and wait until it is in front, as the driver does
    (:mod:`device.app_shell`)."""

    async def shell(command: str) -> str:
        return str(device.shell(command))

    await start_app(shell, package)
    deadline = time.monotonic() + 30
    while (await foreground_activity(shell) or (None, None))[0] != package:
        if time.monotonic() > deadline:
            raise RuntimeError(f"{package} did not come to the front")
        await asyncio.sleep(0.1)  # polling for a condition with a deadline


def settings_screen(profile: str) -> np.ndarray:
    """Settings' first page on a virtual phone playing ``profile``, as ``screencap`` gives it."""
    knobs = Perturbations(profile=profile)
    names = SKINS[load_profile(profile).skin].profile  # the profile its packages follow
    package = app_catalog().get("settings").package(names)
    if package is None:
        raise RuntimeError(f"Settings has no package on {names}")
    with attach_virtual_phone(perturbations=knobs) as phone:
        device = adbutils.AdbClient(port=phone.adb_port).device(phone.serial)
        asyncio.run(_open(device, package))
        return decode_image(device.shell("screencap -p", encoding=None))


def side_by_side(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """The two screens at half size with a white gap between them."""
    halves = [cv2.resize(i, (i.shape[1] // 2, i.shape[0] // 2), interpolation=cv2.INTER_AREA)
              for i in (left, right)]  # fmt: skip
    height = max(h.shape[0] for h in halves)
    gap = np.full((height, GAP_PX, 3), 255, np.uint8)
    return np.hstack([halves[0], gap, halves[1]])


def main(argv: list[str]) -> None:
    """Write the picture to ``argv[0]`` or the README's path."""
    out = Path(argv[0]) if argv else Path("docs/images/settings_aosp_hyperos.png")
    picture = side_by_side(settings_screen(VIRTUAL_PROFILE), settings_screen("redmi_note_12_turbo"))
    ok, data = cv2.imencode(".png", picture)
    if not ok:
        raise RuntimeError("could not encode the picture")
    out.write_bytes(data.tobytes())
    print(f"wrote {out} ({picture.shape[1]}x{picture.shape[0]})")


if __name__ == "__main__":
    main(sys.argv[1:])
