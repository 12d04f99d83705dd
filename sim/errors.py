"""Exceptions of the simulator, under the common :class:`bridge.errors.BridgeError` root."""

from __future__ import annotations

from bridge.errors import BridgeError, EnvError

__all__ = ["BrowserUnavailable", "SimError"]


class SimError(BridgeError):
    """Root of the simulator's exceptions."""


class BrowserUnavailable(SimError, EnvError):
    """No Chromium could be launched; the message says how to install one."""
