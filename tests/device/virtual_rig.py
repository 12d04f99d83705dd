"""How device tests attach an AndroidEnv to a virtual phone behind the real adb server."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import adbutils

from device.adb import AdbTarget
from device.env import AndroidEnvConfig
from device.session import ReconnectPolicy
from device.virtual.adb_server import PrivateAdbServer
from device.virtual.attach import AttachedVirtualPhone, attach_virtual_phone
from device.virtual.server import VirtualPhoneHandle

__all__ = ["Rig", "env_config", "rig_on_a_virtual_phone"]


@dataclass
class Rig:
    """The phone, the adb server it is attached to, and an adbutils device for it."""

    phone: VirtualPhoneHandle
    adb: PrivateAdbServer
    device: adbutils.AdbDevice

    @property
    def serial(self) -> str:
        """The phone's adb serial."""
        return self.phone.serial

    def run(
        self, *args: str, timeout: float = 60, input: str | None = None
    ) -> subprocess.CompletedProcess[str]:
        """``adb -P PORT -s SERIAL ARGS`` with the real binary."""
        return self.adb.adb("-s", self.phone.serial, *args, timeout=timeout, input=input)


@contextmanager
def rig_on_a_virtual_phone(home: Path) -> Iterator[Rig]:
    """A virtual phone (seed 0) behind a private adb server whose keys live in ``home``;
    checks on the way out that the server did not outlive it."""
    with attach_virtual_phone(seed=0, android_user_home=home) as attached:
        yield Rig(attached.phone, attached.adb, attached.adb.client().device(attached.serial))
    assert not attached.adb.running(), "the private adb server outlived the rig"


def env_config(phone: AttachedVirtualPhone, *, step_timeout_s: float = 30.0) -> AndroidEnvConfig:
    """An env config for ``phone``: its private adb server, quick reconnects."""
    return AndroidEnvConfig(
        target=AdbTarget(port=phone.adb_port, serial=phone.serial),
        reconnect=ReconnectPolicy(attempts=2, backoff_s=0.05, wait_s=3.0),
        step_timeout_s=step_timeout_s,
    )
