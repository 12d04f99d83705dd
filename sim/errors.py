"""Exceptions of the simulator, under the common :class:`bridge.errors.BridgeError` root.

::

    BridgeError (bridge.errors)
     └── SimError
          ├── EnvRefused          a host refuses a request about its envs (unknown, expired,
          │                       too many)
          ├── OverlayInvalid      an app's overlay does not fit its typed model: a bug
          ├── UnknownInstance     no instance of that id (also a KeyError)
          ├── UnknownTask         no template of that id (also a KeyError)
          ├── UnknownApp          no app of that id on this phone (also a KeyError)
          └── UnknownSkin         no skin of that name (also a KeyError)
    StorageError                  a file operation on ``/sdcard`` failed, with its errno and
     │                            toybox's message: what a command prints, never raised out
     │                            of the simulated shell or Files app
     ├── NotFound, AlreadyExists, IsADirectory, NotADirectory, NotEmpty
     └── InvalidMove, PermissionDenied
"""

from __future__ import annotations

import errno as errno_codes

from bridge.errors import BridgeError

__all__ = [
    "AlreadyExists",
    "EnvRefused",
    "InvalidMove",
    "IsADirectory",
    "NotADirectory",
    "NotEmpty",
    "NotFound",
    "OverlayInvalid",
    "PermissionDenied",
    "SimError",
    "StorageError",
    "UnknownApp",
    "UnknownInstance",
    "UnknownSkin",
    "UnknownTask",
]


class SimError(BridgeError):
    """Root of the simulator's exceptions."""


class EnvRefused(SimError):
    """A request about the envs a host holds that it refuses: ``kind`` is ``unknown-env``
    (no such env), ``expired-env`` (closed after the idle expiry) or ``too-many-envs`` (the
    host's limit). The HTTP env API answers it as 404 / 410 / 429 with this kind; other
    transports (a Ray host) let it travel as it is."""

    def __init__(self, kind: str, detail: str) -> None:
        super().__init__(detail)
        self.kind = kind

    def __str__(self) -> str:
        return str(self.args[0])


class OverlayInvalid(SimError):
    """An app's overlay (``InstanceState.apps[app]``) does not fit the app's typed model
    (:attr:`sim.app.App.overlay_model`): a key no code writes, or a value of the wrong type.
    The app's code wrote it (or a snapshot from elsewhere holds it), so it is a bug: fix the
    writer named by ``app`` and ``field`` rather than catching this."""

    def __init__(self, app: str, field: str, value: object, reason: str) -> None:
        super().__init__(
            f"app {app!r}: overlay field {field!r} = {value!r} is refused: {reason} "
            f"(the app's overlay_model says what its overlay holds)"
        )
        self.app = app
        self.field = field
        self.value = value


class UnknownInstance(SimError, KeyError):
    """No live instance has this id."""

    def __str__(self) -> str:
        return str(self.args[0])


class UnknownTask(SimError, KeyError):
    """No template has this id; the message names the closest ones."""

    def __str__(self) -> str:
        return str(self.args[0])


class UnknownApp(SimError, KeyError):
    """An app id that is not installed; the message lists the installed ones."""

    def __str__(self) -> str:
        return str(self.args[0])


class UnknownSkin(SimError, KeyError):
    """A skin name the simulator does not have; the message lists the ones it has."""

    def __str__(self) -> str:
        return str(self.args[0])


class StorageError(Exception):
    """A file operation failed; ``errno`` is the POSIX code, ``str()`` toybox's message."""

    errno: int = errno_codes.EIO
    message: str = "I/O error"

    def __init__(self, path: str = "") -> None:
        super().__init__(path)
        self.path = path

    def __str__(self) -> str:
        return self.message


class NotFound(StorageError):
    """ENOENT."""

    errno, message = errno_codes.ENOENT, "No such file or directory"


class AlreadyExists(StorageError):
    """EEXIST."""

    errno, message = errno_codes.EEXIST, "File exists"


class IsADirectory(StorageError):
    """EISDIR."""

    errno, message = errno_codes.EISDIR, "Is a directory"


class NotADirectory(StorageError):
    """ENOTDIR."""

    errno, message = errno_codes.ENOTDIR, "Not a directory"


class NotEmpty(StorageError):
    """ENOTEMPTY."""

    errno, message = errno_codes.ENOTEMPTY, "Directory not empty"


class InvalidMove(StorageError):
    """EINVAL: a directory moved or copied into itself."""

    errno, message = errno_codes.EINVAL, "Invalid argument"


class PermissionDenied(StorageError):
    """EACCES: the storage root itself cannot be removed or replaced."""

    errno, message = errno_codes.EACCES, "Permission denied"
