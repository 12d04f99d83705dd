"""``AdbAndroidState``: :class:`bridge.android_state.AndroidState` over ``adb shell``.

A phone shows its state root-free through AOSP's shell tools: ``settings``, ``content``,
``getprop``, ``cmd wifi status``, ``dumpsys``, ``date``, ``monkey``. Every read and write
here is one of those command lines run through a :class:`device.shell.Shell`, and every
answer is parsed by :mod:`device.shell_output`, so the same code judges a real phone and
the virtual phone.

Writes are made as a user would make them: a setting a system service owns is applied
through that service (``svc wifi disable``, ``cmd connectivity airplane-mode enable`` …) as
well as written, so the radio or the theme really changes. A fact that needs a radio on
(the paired Bluetooth devices) or a radio that is still joining a network is waited for with
a condition poll bounded by ``wait_s``, never a fixed sleep.

Failures: a phone that cannot read or write something (no such provider, permission denied,
a ROM without ``cmd wifi status``) raises :class:`~bridge.android_state.StateUnavailable`; a
provider query the SQL rejects, or ``content`` arguments it refuses, raise
:class:`~device.errors.DeviceError` (a bug in whoever wrote the query, never "no rows").

One module per surface, named as :mod:`bridge.android_state` names it (``settings``,
``rows``, ``sms``, ``props``, ``radios``, ``clock``, ``alarms``, ``apps``, ``files``); the
shell and the ``content`` runner they share are :mod:`device.android_state.base`. A surface
that reads another builds on it: ``sms`` on ``rows`` (a write is read back), ``radios`` on
``settings`` (Bluetooth turned on for a read), ``clock`` on ``props`` (the time zone),
``files`` on ``clock`` (a modification time in the phone's zone).
"""

from __future__ import annotations

from device.android_state.alarms import NEXT_ALARM_HEADER, AdbAlarms, parse_next_alarm
from device.android_state.apps import AdbApps
from device.android_state.base import bind_argument
from device.android_state.clock import AdbClock
from device.android_state.files import STAT_FORMAT, AdbFiles, parse_stat_line
from device.android_state.props import AdbProps
from device.android_state.radios import AdbRadios
from device.android_state.rows import AdbRows
from device.android_state.settings import SERVICE_COMMANDS, AdbSettings
from device.android_state.sms import AdbSms

__all__ = [
    "NEXT_ALARM_HEADER",
    "SERVICE_COMMANDS",
    "STAT_FORMAT",
    "AdbAndroidState",
    "bind_argument",
    "parse_next_alarm",
    "parse_stat_line",
]


class AdbAndroidState(
    # A surface that builds on another comes before it (Python's MRO requires it).
    AdbRadios,
    AdbSettings,
    AdbSms,
    AdbRows,
    AdbFiles,
    AdbClock,
    AdbProps,
    AdbAlarms,
    AdbApps,
):
    """The Android state of one phone, read and written over ``adb shell``: every surface's
    part composed (its constructor is :class:`~device.android_state.base.AdbStateBase`'s)."""
