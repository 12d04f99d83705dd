"""The exceptions of the phone driver, under :class:`bridge.errors.EnvError`.

Every failure of the phone's infrastructure is an :class:`DeviceError`, so the runner ends
the episode as ``infra_error`` and never scores it as a policy failure. adbutils and
uiautomator2 exceptions are converted to these in one place, :func:`device.adb.translate`.
Agent mistakes (an element that is not on screen, an app id the profile does not know) are
not exceptions: they come back as step errors.

::

    EnvError (bridge)
     └── DeviceError              the phone or its link failed
          ├── AdbServerUnavailable  no adb server answers at host:port
          ├── DeviceNotFound        the serial is not attached (or several are and none given)
          ├── DeviceDisconnected    the device went away and reconnecting failed
          ├── UiAutomatorError      the uiautomator2 server cannot be started or answered
          ├── InjectEventsDenied    the phone refuses injected input (MIUI's security switch)
          ├── ProfileError          an unknown or malformed device profile (also ValueError)
          ├── TaskUnsupported       a task a phone cannot pose (no spec, or a fact it requires)
          ├── PhoneNotReady         the doctor found what a run needs missing (one line)
          └── DeviceTimeout         an adb / uiautomator2 call ran out of time (EnvTimeout)
"""

from __future__ import annotations

from bridge.errors import EnvError, EnvTimeout

__all__ = [
    "AdbServerUnavailable",
    "DeviceDisconnected",
    "DeviceError",
    "DeviceNotFound",
    "DeviceTimeout",
    "InjectEventsDenied",
    "PhoneNotReady",
    "ProfileError",
    "TaskUnsupported",
    "UiAutomatorError",
]


class DeviceError(EnvError):
    """Root of the phone driver's exceptions: the episode ends as ``infra_error``."""


class AdbServerUnavailable(DeviceError):
    """Nothing answers at the adb server's host and port."""


class DeviceNotFound(DeviceError):
    """The requested serial is not attached to the adb server (or no serial was given and
    there is not exactly one device)."""


class DeviceDisconnected(DeviceError):
    """The device dropped off the adb server and did not come back within the retries."""


class UiAutomatorError(DeviceError):
    """The uiautomator2 server on the phone cannot be started, or its answers are unusable."""


class InjectEventsDenied(DeviceError):
    """The phone refuses injected touches and keys (``INJECT_EVENTS`` permission).

    On Xiaomi phones (MIUI / HyperOS) this is the "USB debugging (Security settings)" switch
    in Developer options, which must be turned on (it needs a SIM card and a Mi account).
    """

    def __init__(self, detail: str = "") -> None:
        message = (
            "the phone refused an injected input event (INJECT_EVENTS permission). On a "
            "Xiaomi/Redmi/POCO phone turn on Settings > Additional settings > Developer "
            'options > "USB debugging (Security settings)" (and "Install via USB"), then '
            "run again"
        )
        super().__init__(f"{message}: {detail.strip()[:300]}" if detail.strip() else message)


class PhoneNotReady(DeviceError):
    """A phone a run cannot use yet: the first check of ``mgb device doctor`` that failed,
    with the one thing to do (refused before the run starts)."""


class ProfileError(DeviceError, ValueError):
    """A device profile that does not exist or does not validate."""


class TaskUnsupported(DeviceError):
    """A task this phone cannot pose: it carries no bound spec, or its spec requires a fact
    a retail phone cannot be made to hold (the message gives the reason)."""


class DeviceTimeout(DeviceError, EnvTimeout):
    """An adb or uiautomator2 call did not finish within its time budget."""
