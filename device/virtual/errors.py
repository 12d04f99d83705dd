"""The exceptions of the virtual phone, under :class:`device.errors.DeviceError`.

::

    DeviceError (device)
     └── VirtualPhoneError          the virtual phone could not be started or served
          └── PrivateAdbServerError  our private adb server did not start, answer or connect
"""

from __future__ import annotations

from device.errors import DeviceError

__all__ = ["PrivateAdbServerError", "VirtualPhoneError"]


class VirtualPhoneError(DeviceError):
    """The virtual phone (simulator + adbd listener) failed to start or stopped serving."""


class PrivateAdbServerError(VirtualPhoneError):
    """Our private adb server (the bundled ``adb`` binary on a non-default port) failed."""
