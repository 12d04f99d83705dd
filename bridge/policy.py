"""The policy protocol: observation in, action out, never touching the env.

A policy that never holds an env can be replayed, forked, and moved from the simulator to a
phone unchanged. Unparseable model output is not an exception: return a ``PolicyOutput``
with ``action=None`` and an ``error``; the runner records an invalid step and goes on.
Raise :class:`bridge.errors.PolicyError` only when the policy itself is broken (endpoint
down), which ends the episode as ``infra_error``.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from bridge.schema import Observation, PolicyContext, PolicyOutput

__all__ = ["Policy"]


@runtime_checkable
class Policy(Protocol):
    """Something that decides the next action from what is on screen."""

    @property
    def name(self) -> str:
        """The spec string that recreates this policy (``scripted``, ``vlm:...``)."""
        ...

    async def reset(self, instruction: str, context: PolicyContext) -> None:
        """Forget the previous episode and start on ``instruction``."""
        ...

    async def act(self, observation: Observation) -> PolicyOutput:
        """Choose the next action for ``observation``."""
        ...
