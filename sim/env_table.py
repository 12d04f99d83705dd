"""The envs a simulator host holds (the HTTP env API, a Ray host): a cap, and an idle expiry.

A trainer that crashes leaves its envs behind; each one holds an instance of the
simulator. So the table closes an env nobody used for ``SimConfig.idle_expiry_s`` and
remembers that it did, so a late request hears "expired", not "unknown"; and it refuses a
create or fork that would hold more than ``SimConfig.max_envs``.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING

from sim.errors import EnvRefused

if TYPE_CHECKING:
    from sim.env import SimEnv
    from sim.simulator import Simulator

__all__ = ["EXPIRED_REMEMBERED", "EnvTable"]

EXPIRED_REMEMBERED = 65_536
"""How many expired env ids are remembered (beyond that, the oldest read as unknown)."""


class EnvTable:
    """The live envs of the env API by id, with their last use."""

    def __init__(self, sim: Simulator) -> None:
        self.sim = sim
        self.envs: dict[str, SimEnv] = {}
        self._used: dict[str, float] = {}
        self._expired: OrderedDict[str, None] = OrderedDict()

    @property
    def limit(self) -> int:
        """The most envs held at once."""
        return self.sim.config.max_envs

    def sweep(self) -> None:
        """Close every env idle for longer than the expiry."""
        expiry = self.sim.config.idle_expiry_s
        if expiry is None:
            return
        now = self.sim.clock()
        for env_id in [e for e, used in self._used.items() if now - used > expiry]:
            self._drop(env_id)
            self._expired[env_id] = None
            while len(self._expired) > EXPIRED_REMEMBERED:
                self._expired.popitem(last=False)

    def get(self, env_id: str) -> SimEnv:
        """The live env ``env_id``, marked as used now.

        Raises:
            EnvRefused: ``expired-env`` if it was closed for idling, else ``unknown-env``.
        """
        self.sweep()
        env = self.envs.get(env_id)
        if env is not None:
            self._used[env_id] = self.sim.clock()
            return env
        if env_id in self._expired:
            raise EnvRefused(
                "expired-env",
                f"env {env_id!r} expired: unused for more than "
                f"{self.sim.config.idle_expiry_s:g} s; create a new env",
            )
        raise EnvRefused("unknown-env", f"no env {env_id!r} (closed, or never created)")

    def make_room(self, count: int) -> None:
        """Refuse (``too-many-envs``) when ``count`` more envs would exceed the limit."""
        self.sweep()
        if len(self.envs) + count > self.limit:
            raise EnvRefused(
                "too-many-envs",
                f"{len(self.envs)} envs are open and the limit is {self.limit}: close "
                "envs you no longer use, or start the host with a higher limit (--max-envs)",
            )

    def add(self, env: SimEnv) -> None:
        """Hold ``env`` (its instance id is its env id)."""
        self.envs[env.instance.id] = env
        self._used[env.instance.id] = self.sim.clock()

    def remove(self, env_id: str) -> None:
        """Close and forget ``env_id``; idempotent."""
        self._drop(env_id)

    def _drop(self, env_id: str) -> None:
        self.envs.pop(env_id, None)
        self._used.pop(env_id, None)
        self.sim.drop_instance(env_id)
