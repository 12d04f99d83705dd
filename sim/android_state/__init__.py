"""``SimAndroidState``: :class:`bridge.android_state.AndroidState` over a simulator instance.

Everything is read from and written to the instance's JSON state in memory (no I/O), with
the very functions the virtual phone's shell runs for ``settings``, ``content``,
``getprop``, ``cmd wifi status`` and ``dumpsys bluetooth_manager``: a judge reading the
simulator directly reads what it would read through the virtual phone's adb.

One module per surface, named as :mod:`bridge.android_state` names it:

* settings — :mod:`sim.settings_store` (printed text; writes as a user makes them);
* rows — :class:`sim.providers.ContentResolver` over the apps' declared tables, each
  value printed by :func:`sim.providers.format_value` (None for NULL);
* props — :func:`sim.device_props.system_properties` of a :class:`DeviceIdentity`;
* radios — :func:`sim.radios.connected_ssid`, :func:`sim.radios.paired_devices`;
* clock — ``state.os.clock_ms`` in :data:`sim.state.TIME_ZONE`;
* sms — written as the shell writes them (never: their providers say so,
  :attr:`sim.providers.table.Provider.shell_writes`), delivered and deleted as the system
  does (:meth:`~sim.android_state.sms.SimSms.deliver_sms`);
* files — :mod:`sim.storage`, the instance's ``/sdcard`` tree (``stat`` shows whole seconds);
* alarms — the soonest of every app's :meth:`sim.app.App.next_alarm_clock` (the Clock
  app's alarms; :func:`next_alarm_clock`, which the virtual phone's ``dumpsys alarm`` prints);
* apps — starting an app and reading the foreground one.

The shared instance access (the phone, its state, the resolver, the change callback) is
:class:`~sim.android_state.base.SimStateBase`.
"""

from __future__ import annotations

from sim.android_state.alarms import SimAlarms, next_alarm_clock
from sim.android_state.apps import SimApps
from sim.android_state.clock import SimClock
from sim.android_state.files import SimFiles, file_stat
from sim.android_state.props import SimProps
from sim.android_state.radios import SimRadios
from sim.android_state.rows import SimRows
from sim.android_state.settings import SimSettings
from sim.android_state.sms import SimSms

__all__ = ["SimAndroidState", "file_stat", "next_alarm_clock"]


class SimAndroidState(
    SimSettings,
    SimRows,
    SimSms,
    SimProps,
    SimRadios,
    SimClock,
    SimAlarms,
    SimApps,
    SimFiles,
):
    """The Android state of one simulated phone (see the module docstring): every
    surface's part composed (its constructor is :class:`~sim.android_state.base.SimStateBase`'s)."""
