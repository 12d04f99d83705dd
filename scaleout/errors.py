"""The errors of scaling out that are a user's to fix (an address, a missing extra, room)."""

from __future__ import annotations

from bridge.errors import BridgeError

__all__ = ["HostsUnavailable"]


class HostsUnavailable(BridgeError, RuntimeError):
    """The simulator hosts asked for cannot be had: Ray is not installed, no cluster answers
    at the address, the cluster has no room for them, a server does not answer. The
    message says which, and what to do."""
