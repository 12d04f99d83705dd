"""The env calls of a host, written once: look the env up by id, call it.

:class:`~scaleout.host.SimHost` (its envs are ``SimEnv``\\ s) and
:class:`~scaleout.hosts.HttpHost` (its envs are ``HttpEnv``\\ s of a server) differ in how
they make, fork, close and find envs; what a call on one env does is the env's own method.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

from bridge.records import TaskInstance
from bridge.schema import Action, Observation, StepResult, Verdict

__all__ = ["EnvsById"]


class EnvsById(ABC):
    """Forwards each per-env call to the env ``_env(env_id)`` finds."""

    @abstractmethod
    def _env(self, env_id: str) -> Any:
        """The env ``env_id`` names (a bridge ``ForkableEnv`` with ``observe``), or an error
        saying why there is none."""

    async def reset(self, env_id: str, task: TaskInstance) -> Observation:
        """Pose ``task`` on the env and observe."""
        return await self._env(env_id).reset(task)

    async def step(self, env_id: str, action: Action) -> StepResult:
        """Execute ``action`` on the env."""
        return await self._env(env_id).step(action)

    async def observe(self, env_id: str) -> Observation:
        """The env's current screen."""
        return await self._env(env_id).observe()

    async def verdict(self, env_id: str) -> Verdict:
        """Judge the env's task."""
        return await self._env(env_id).verdict()

    async def snapshot(self, env_id: str) -> bytes:
        """The env's state and task as JSON bytes."""
        return await self._env(env_id).snapshot()

    async def restore(self, env_id: str, snapshot: bytes) -> Observation:
        """Return the env to ``snapshot`` (of any host's env) and observe."""
        return await self._env(env_id).restore(snapshot)
