"""The simulator twin of a real phone: the simulator's cells start from what the phone holds.

A real phone cannot be reset to the simulator's factory state (its user's contacts, events,
messages and settings are theirs), so a paired run goes the other way: it reads the phone's
observable state once, before the first cell — every settings namespace and every provider
table a task may touch (:func:`bridge.restore.read`) — and makes a fresh simulator phone hold
the same (:func:`bridge.restore.put_back`, the very code that puts a phone back after an
episode). Every simulator cell then starts from that phone. What the simulator could not be
made to hold, and what the phone would not let us read (a retail phone keeps its alarms to
itself), stays different, and is said once in the run's log and in each pair's start-state
parity.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from bridge.restore import put_back as make_hold
from bridge.restore import read
from bridge.schema import Restoration
from device.adb import AdbTarget
from device.android_state import AdbAndroidState
from device.session import AdbSession
from sim.android_state import SimAndroidState
from sim.phone import Phone
from sim.simulator import installed_apps
from sim.state import InstanceState

__all__ = ["PhoneTwin", "twin_of"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class PhoneTwin:
    """A simulator phone that holds what a real phone holds, and what it could not."""

    state: InstanceState
    """The state every simulator cell's reset starts from (its seed is the cell's)."""
    differences: Restoration
    """``not_restored``: what the twin could not be made to hold, or was not read."""


async def twin_of(target: AdbTarget, seed: int = 0) -> PhoneTwin:
    """Read the phone at ``target`` and make a fresh simulator phone hold the same.

    Raises:
        DeviceError: the phone cannot be reached.
    """
    session = AdbSession(target)
    try:
        await session.open()
        found = await read(AdbAndroidState(session.shell))
    finally:
        await session.close()
    state = InstanceState(seed=seed)
    held = await make_hold(SimAndroidState(Phone(installed_apps()), state), found)
    for item in held.not_restored:
        log.warning("the simulator twin differs from the phone: %s", item)
    return PhoneTwin(state, held)
