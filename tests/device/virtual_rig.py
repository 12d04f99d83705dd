"""How device tests attach an AndroidEnv to a virtual phone behind the real adb server."""

from __future__ import annotations

from device.adb import AdbTarget
from device.env import AndroidEnvConfig
from device.session import ReconnectPolicy
from device.virtual.attach import AttachedVirtualPhone

__all__ = ["env_config"]


def env_config(phone: AttachedVirtualPhone, *, step_timeout_s: float = 30.0) -> AndroidEnvConfig:
    """An env config for ``phone``: its private adb server, quick reconnects."""
    return AndroidEnvConfig(
        target=AdbTarget(port=phone.adb_port, serial=phone.serial),
        reconnect=ReconnectPolicy(attempts=2, backoff_s=0.05, wait_s=3.0),
        step_timeout_s=step_timeout_s,
    )
