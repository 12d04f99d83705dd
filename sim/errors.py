"""Exceptions of the simulator, under the common :class:`bridge.errors.BridgeError` root."""

from __future__ import annotations

from bridge.errors import BridgeError, EnvError

__all__ = ["BrowserUnavailable", "EnvRefused", "SimError"]


class SimError(BridgeError):
    """Root of the simulator's exceptions."""


class BrowserUnavailable(SimError, EnvError):
    """No Chromium could be launched; the message says how to install one."""


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
