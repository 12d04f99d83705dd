"""Fixtures the device tests share: a virtual phone behind a private adb server, once per
module (a module that needs a different phone defines its own ``attached``)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from device.virtual.attach import AttachedVirtualPhone, attach_virtual_phone


@pytest.fixture(scope="module")
def attached(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AttachedVirtualPhone]:
    """A virtual phone (seed 0) attached to a private adb server with its own keys."""
    home = tmp_path_factory.mktemp("android-home")
    with attach_virtual_phone(seed=0, android_user_home=home) as phone:
        yield phone
