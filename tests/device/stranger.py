"""A "stranger phone": a phone whose world is not the simulator's.

Its user changed settings (Wi-Fi off, Bluetooth on, dark theme, a long timeout, vibrate, a
name of their own) and keeps other people: none of the simulator's contacts, some with the
same names but other numbers and companies, one name with a comma in its company. Every
change is made through the protocol, as on any phone, so the same function makes a
stranger of the virtual phone over adb and of one in memory.
"""

from __future__ import annotations

from bridge.android_contract import RAW_CONTACTS
from bridge.android_state import AndroidState
from bridge.judge import apply_op
from bridge.spec.contacts import EnsureContact

__all__ = ["STRANGERS", "make_stranger"]

USER_SETTINGS = (
    ("global", "wifi_on", "0"),
    ("global", "bluetooth_on", "1"),
    ("global", "mode_ringer", "1"),
    ("global", "device_name", "Mia's phone"),
    ("system", "screen_brightness", "200"),
    ("system", "screen_off_timeout", "600000"),
    ("secure", "ui_night_mode", "2"),
)
"""What this phone's user set for themselves."""

STRANGERS = (
    EnsureContact(name="张三", phones=["+86 135 1111 2222"], company="蓝鲸科技", starred=True),
    EnsureContact(name="Mia Wong", phones=["+852 6123 4567"], starred=True),
    EnsureContact(name="Kevin Brown", phones=["+1 212 555 0188"], company="Initech, Inc."),
    EnsureContact(name="Oskar Lind", phones=["+46 70 123 45 67"]),
)
"""The people on this phone (none of the simulator's contacts survive)."""


async def make_stranger(state: AndroidState) -> None:
    """Turn ``state``'s phone into the stranger phone."""
    for namespace, key, value in USER_SETTINGS:
        await state.put_setting(namespace, key, value)  # type: ignore[arg-type]
    await state.delete(RAW_CONTACTS, None)
    for person in STRANGERS:
        await apply_op(state, person)
