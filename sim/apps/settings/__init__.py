"""Settings (``com.android.settings``): Wi-Fi, Bluetooth, airplane mode, display, sound,
language and about phone, writing Android settings keys (see :mod:`.app`, :mod:`.model`)."""

from sim.apps.settings.app import SettingsApp

__all__ = ["SettingsApp"]
