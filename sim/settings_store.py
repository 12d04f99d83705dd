"""Android's settings as the simulator stores them and as ``settings`` prints them.

The instance keeps settings typed (``state.os.settings[namespace][key]``: ints, floats,
text) so apps can compute with them; Android keeps text. This module is the one place that
converts between the two, for every reader and writer: the virtual phone's ``settings``
command and ``content://settings`` provider, and :class:`sim.android_state.SimAndroidState`.

* :func:`parse_setting` — text as stored: an int or float when it reads as one, else text;
* :func:`setting_text` — a stored value as ``settings get`` prints it (booleans as 0/1);
* :func:`put_setting` — ``settings put``: store the value, nothing else happens (as on
  Android, where ``settings put global wifi_on 0`` does not switch the radio);
* :func:`apply_setting` — the change *as a user makes it*: airplane mode and the radios go
  through :mod:`sim.radios`, so the radios follow as the Settings app makes them.
"""

from __future__ import annotations

from typing import Any

from bridge.android_state import printed
from sim.errors import SimError
from sim.radios import RADIO_KEYS, set_airplane, set_radio
from sim.state import InstanceState

__all__ = [
    "apply_setting",
    "delete_setting",
    "get_setting",
    "list_settings",
    "parse_setting",
    "put_setting",
    "setting_text",
]


def parse_setting(value: str) -> Any:
    """A ``settings put`` value as stored: int or float when it reads as one, else text."""
    for kind in (int, float):
        try:
            return kind(value)
        except ValueError:
            continue
    return value


def setting_text(value: Any) -> str | None:
    """A stored setting as ``settings get`` prints it; None for ``null`` (unset)."""
    return printed(value)


def get_setting(state: InstanceState, namespace: str, key: str) -> str | None:
    """``settings get NAMESPACE KEY``: the printed value, None for ``null``."""
    return setting_text(state.os.settings.get(namespace, {}).get(key))


def list_settings(state: InstanceState, namespace: str) -> dict[str, str]:
    """``settings list NAMESPACE``: every key (sorted) with its printed value."""
    store = state.os.settings.get(namespace, {})
    return {key: setting_text(store[key]) or "null" for key in sorted(store)}


def put_setting(state: InstanceState, namespace: str, key: str, value: str | None) -> None:
    """``settings put``: store ``value`` typed (:func:`parse_setting`); None stores null."""
    stored = None if value is None else parse_setting(value)
    state.os.settings.setdefault(namespace, {})[key] = stored


def delete_setting(state: InstanceState, namespace: str, key: str) -> bool:
    """``settings delete``: whether the key existed."""
    return state.os.settings.setdefault(namespace, {}).pop(key, None) is not None


def _switch(key: str, value: str) -> bool:
    try:
        return int(value) != 0
    except ValueError:
        raise SimError(f"global.{key} is a switch: give 0 or 1, not {value!r}") from None


def apply_setting(state: InstanceState, namespace: str, key: str, value: str) -> None:
    """Change a setting as the user would: ``global.airplane_mode_on`` switches the radios
    off (and back), ``global.wifi_on`` / ``bluetooth_on`` switch the radio by hand; any other
    key is stored as :func:`put_setting` stores it."""
    settings = state.os.settings
    if namespace == "global" and key == "airplane_mode_on":
        set_airplane(settings, _switch(key, value))
    elif namespace == "global" and key in RADIO_KEYS:
        set_radio(settings, key, _switch(key, value))
    else:
        put_setting(state, namespace, key, value)
