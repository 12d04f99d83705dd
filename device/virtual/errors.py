"""The exceptions of the virtual phone, under :class:`device.errors.DeviceError`.

::

    DeviceError (device)
     └── VirtualPhoneError          the virtual phone could not be started or served
          ├── PrivateAdbServerError  our private adb server did not start, answer or connect
          │    └── AdbPortTaken      another process took the port before adb could listen
          └── DetachError            a detached phone could not be started or found

What the emulated phone raises inside itself, each turned into what Android would print or
send at one boundary, never escaping the phone:

    ProtocolError (Exception)      a peer sent something that is no adb transport message
    StreamClosed (ConnectionResetError)  the adb stream went away mid-message
    ShellSyntaxError (ValueError)  a command line the shell cannot parse: sh's error text
    ShellExit (Exception)          ``exit N`` stopping a script
    FsError (OSError)              a file operation failed: the errno text Android prints
    InstallFailure (ValueError)    ``pm install`` refused: the ``Failure [...]`` line
    ApkParseError (ValueError)     an APK whose manifest cannot be read
    JavaException (Exception)      what uiautomator's jar would throw: a JSON-RPC error
    SecurityRefused (Exception)    a call the phone's permissions refuse (a Redmi without
                                   its input switch): Java's SecurityException message
    InvalidParams (ValueError)     a JSON-RPC call with the wrong parameters
    ServerStopped (Exception)      the uiautomator2 server was stopped mid-call
    BadHttpRequest (Exception)     an HTTP request the uiautomator2 server cannot read
    SyncFailed (Exception)         a sync request answered with ``FAIL`` and its message
    PmUnknownOption (ValueError)   an option ``pm`` does not know
    LogcatUsage (Exception)        an argument ``logcat`` rejects
    ScreenrecordUsage (Exception)  a bad ``screenrecord`` argument (it exits 2)
"""

from __future__ import annotations

from device.errors import DeviceError

__all__ = [
    "AdbPortTaken",
    "ApkParseError",
    "BadHttpRequest",
    "DetachError",
    "FsError",
    "InstallFailure",
    "InvalidParams",
    "JavaException",
    "LogcatUsage",
    "PmUnknownOption",
    "PrivateAdbServerError",
    "ProtocolError",
    "ScreenrecordUsage",
    "SecurityRefused",
    "ServerStopped",
    "ShellExit",
    "ShellSyntaxError",
    "StreamClosed",
    "SyncFailed",
    "VirtualPhoneError",
]


class VirtualPhoneError(DeviceError):
    """The virtual phone (simulator + adbd listener) failed to start or stopped serving."""


class PrivateAdbServerError(VirtualPhoneError):
    """Our private adb server (the bundled ``adb`` binary on a non-default port) failed."""


class InstallFailure(ValueError):
    """pm refused the install: ``reason`` is the ``INSTALL_FAILED_…`` code, then its text."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail


class SecurityRefused(Exception):
    """A call the phone refuses for want of a permission, as Android's
    ``java.lang.SecurityException`` with this message: injected input and secure settings
    on a Xiaomi phone whose "USB debugging (Security settings)" is off. The command that
    made the call prints it as Android's tools do; it never escapes the phone."""

    INJECT = (
        "Injecting input events requires the caller (or the source of the instrumentation, "
        "if any) to have the INJECT_EVENTS permission."
    )
    WRITE_SECURE = (
        "Permission denial: writing to settings requires:android.permission.WRITE_SECURE_SETTINGS"
    )


class JavaException(Exception):
    """What the jar would throw, by Java class name; the server turns it into a -32001 error.

    Never escapes the u2 server: it only travels from a method to the JSON-RPC envelope.
    """

    def __init__(self, java_class: str, message: str) -> None:
        super().__init__(f"{java_class}: {message}")
        self.java_class = java_class
        self.message = message


class InvalidParams(ValueError):
    """The params do not fit the method (JSON-RPC -32602); never leaves the u2 server."""


class ServerStopped(Exception):
    """The u2 server stopped while a call waited; its connection drops without an answer."""


class ShellSyntaxError(ValueError):
    """The line uses shell syntax the virtual phone does not implement (or is invalid)."""


class DetachError(RuntimeError):
    """A detached phone that could not be started or stopped; the message says why."""


class ShellExit(Exception):
    """``exit N``: stop the script with status N."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


class ProtocolError(Exception):
    """The peer sent something that is not an adb transport message; the link is dropped."""


class StreamClosed(ConnectionResetError):
    """A write to a stream the host (or the connection) has already closed."""


class FsError(OSError):
    """A file operation failed; ``str()`` is the errno text Android prints."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class ApkParseError(ValueError):
    """The bytes are not an installable APK; ``reason`` is pm's failure code.

    ``detail(path)`` is the text pm prints after the code, for the staged file ``path``.
    """

    def __init__(self, reason: str, template: str) -> None:
        super().__init__(f"{reason}: {template}")
        self.reason = reason
        self.template = template

    def detail(self, path: str) -> str:
        """The failure text for the staged APK at ``path``."""
        return self.template.format(path=path)


class PmUnknownOption(ValueError):
    """An option pm does not know (IllegalArgumentException ``Unknown option``)."""


class LogcatUsage(Exception):
    """A logcat argument logcat rejects (message printed as is)."""


class ScreenrecordUsage(Exception):
    """A bad argument: screenrecord prints the message and exits 2."""


class SyncFailed(Exception):
    """Reply FAIL with this message."""


class BadHttpRequest(Exception):
    """An HTTP request the server cannot read; answered with ``status``."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class AdbPortTaken(PrivateAdbServerError):
    """adb could not listen on its port: another process took it after it was picked."""
