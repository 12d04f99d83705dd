"""Fixtures the device tests share: a virtual phone behind a private adb server, once per
module, as ``attached`` or as a ``rig`` with an adbutils device (a module that needs a
different phone defines its own)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from device.virtual.attach import AttachedVirtualPhone, attach_virtual_phone
from tests.device.virtual_rig import Rig, rig_on_a_virtual_phone


@pytest.fixture(scope="module")
def attached(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AttachedVirtualPhone]:
    """A virtual phone (seed 0) attached to a private adb server with its own keys."""
    home = tmp_path_factory.mktemp("android-home")
    with attach_virtual_phone(seed=0, android_user_home=home) as phone:
        yield phone


@pytest.fixture(scope="module")
def rig(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Rig]:
    """The same phone as a :class:`~tests.device.virtual_rig.Rig` (adb binary, adbutils)."""
    with rig_on_a_virtual_phone(tmp_path_factory.mktemp("android-home")) as ready:
        yield ready
