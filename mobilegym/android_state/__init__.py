"""``MobileGymAndroidState``: :class:`bridge.android_state.AndroidState` over a MobileGym phone.

Everything is read from ``__SIM__.getState()`` and MobileGym's runtime, and written through
MobileGym's own managers and APIs, so a write has the side effects it has for MobileGym's
user. What MobileGym does not hold is refused with
:class:`~bridge.errors.StateUnavailable` (never guessed), and :mod:`mobilegym.poseable` says
so from a spec before a run. One module per surface, named as :mod:`bridge.android_state`
names it:

* settings — one key table, exact / rescaled / absent
  (:data:`~mobilegym.android_state.settings.KEYS`);
* rows — Android's provider tables synthesized from MobileGym's contacts, calendar and alarms
  (:mod:`mobilegym.android_state.rows`);
* sms — MobileGym's SMS provider (:mod:`mobilegym.android_state.sms`);
* props — ``getprop`` from ``os.build`` (:data:`~mobilegym.android_state.props.PROPS`);
* radios — ``hardware.wifi.connectedSsid`` while Wi-Fi is on, ``hardware.nearbyBluetooth``
  marked paired;
* clock — ``__SIM_TIME__.now()`` in the page's time zone;
* alarms — the soonest of MobileGym's AlarmManager (it follows ``apps.clock.alarms``);
* apps — ``__OS__.openApp`` by the package the build's manifests give;
* files — ``__SIM_FS__``, shown as ``stat`` shows Android's files.

What every surface shares (the page, the zone, the one refusal) is
:class:`~mobilegym.android_state.base.MobileGymStateBase`.
"""

from __future__ import annotations

from mobilegym.android_state.alarms import MobileGymAlarms
from mobilegym.android_state.apps import MobileGymApps
from mobilegym.android_state.clock import MobileGymClock
from mobilegym.android_state.files import MobileGymFiles
from mobilegym.android_state.props import MobileGymProps
from mobilegym.android_state.radios import MobileGymRadios
from mobilegym.android_state.rows import MobileGymRows
from mobilegym.android_state.settings import MobileGymSettings
from mobilegym.android_state.sms import MobileGymSms

__all__ = ["MobileGymAndroidState"]


class MobileGymAndroidState(
    MobileGymSettings,
    MobileGymRows,
    MobileGymSms,
    MobileGymProps,
    MobileGymRadios,
    MobileGymClock,
    MobileGymAlarms,
    MobileGymApps,
    MobileGymFiles,
):
    """The Android state of one MobileGym phone (see the module docstring): every surface's
    part composed (its constructor is
    :class:`~mobilegym.android_state.base.MobileGymStateBase`'s: the page and its zone)."""
