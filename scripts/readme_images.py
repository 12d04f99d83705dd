"""Draw the README's picture: Settings on the virtual phone (AOSP) beside the virtual Redmi
(HyperOS, 440 dpi), each taken through adb as a user would (``screencap`` over the private
adb server), side by side at half size.

    .venv/bin/python scripts/readme_images.py [OUT.png]

Default ``docs/images/settings_aosp_hyperos.png``. Both phones are started ready, Settings is
opened with ``am start`` of the launcher activity its profile names, and each is stopped
before the script ends.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import adbutils
import cv2
import numpy as np

from bridge.app_catalog import app_catalog
from bridge.images import decode_image
from device.profiles import VIRTUAL_PROFILE, load_profile
from device.virtual.attach import attach_virtual_phone
from device.virtual.perturb import Perturbations
from sim.skins import SKINS

GAP_PX = 24
"""White space between the two screens (at half size)."""


def settings_screen(profile: str) -> np.ndarray:
    """Settings' first page on a virtual phone playing ``profile``, as ``screencap`` gives it."""
    knobs = Perturbations(profile=profile)
    names = SKINS[load_profile(profile).skin].profile  # the profile its packages follow
    settings = app_catalog().get("settings")
    package, activity = settings.package(names), settings.launcher_activity(names)
    with attach_virtual_phone(perturbations=knobs) as phone:
        device = adbutils.AdbClient(port=phone.adb_port).device(phone.serial)
        device.shell(f"am start -n {package}/{activity}")
        deadline = time.monotonic() + 30
        while f"{package}/" not in device.shell("dumpsys window | grep mCurrentFocus"):
            if time.monotonic() > deadline:
                raise RuntimeError(f"Settings did not come to the front on {profile}")
            time.sleep(0.1)  # polling for a condition with a deadline
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
