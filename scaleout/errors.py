"""The errors of scaling out.

::

    BridgeError (bridge.errors)
     ├── HostsUnavailable   the hosts asked for cannot be had (a user's to fix: an address,
     │                      a missing extra, room)
     ├── PoolFull           no host of the pool has room for another env
     └── EnvError
          └── HostRestarted a host restarted under its envs: they are gone (infra_error)
"""

from __future__ import annotations

from bridge.errors import BridgeError, EnvError

__all__ = ["HostRestarted", "HostsUnavailable", "PoolFull"]


class HostsUnavailable(BridgeError, RuntimeError):
    """The simulator hosts asked for cannot be had: Ray is not installed, no cluster answers
    at the address, the cluster has no room for them, a server does not answer. The
    message says which, and what to do."""


class PoolFull(BridgeError, RuntimeError):
    """Every host holds its limit of envs: close envs, add hosts, or raise ``max_envs``."""


class HostRestarted(EnvError):
    """The host holding an env died and was restarted: the env's instance is lost."""
