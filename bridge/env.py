"""The environment protocol: one interface for the simulator, the virtual phone and a phone.

An ``Env`` is async because every real backend waits on I/O (a browser, adb, a phone).
Implementations are async context managers and ``close()`` may be called any number of
times. Infrastructure failures raise :class:`bridge.errors.EnvError` (the runner turns them
into ``infra_error`` episodes); agent mistakes come back in ``StepResult.error``.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from bridge.schema import Action, Observation, Screenshot, StepResult, TaskInstance, Verdict

__all__ = ["Env", "ForkableEnv", "LiveScreen"]


@runtime_checkable
class Env(Protocol):
    """A world a policy can act in: reset to a task, step actions, judge the result."""

    async def reset(self, task: TaskInstance) -> Observation:
        """Set up ``task`` (fresh state, task setup applied) and return the first view."""
        ...

    async def step(self, action: Action) -> StepResult:
        """Execute ``action``, wait until the screen settles, and observe."""
        ...

    async def verdict(self) -> Verdict:
        """Judge the episode so far against the task's checks."""
        ...

    async def close(self) -> None:
        """Release every resource; idempotent."""
        ...


@runtime_checkable
class ForkableEnv(Env, Protocol):
    """An env whose whole state can be saved and cloned (the simulator).

    What GRPO-style group sampling needs: ``fork(n)`` gives ``n`` independent envs that
    start exactly where this one is. Trainers depend on this protocol, never on ``sim``.
    """

    async def snapshot(self) -> bytes:
        """The env's complete state as JSON bytes (kilobytes, not a screenshot)."""
        ...

    async def restore(self, snapshot: bytes) -> Observation:
        """Return to a state produced by :meth:`snapshot` and observe it."""
        ...

    async def fork(self, n: int) -> list[ForkableEnv]:
        """``n`` new envs identical to this one that evolve independently."""
        ...


@runtime_checkable
class LiveScreen(Protocol):
    """An env that can show its screen as it is now, between steps (the console's live view).

    A screenshot only: no UI tree is read and nothing changes what the next ``step`` acts
    on (that is the observation the policy saw). On a phone the screen can change without
    any step (a notification, a person's finger); in the simulator only steps change it.
    """

    async def screenshot(self) -> Screenshot:
        """The screen now."""
        ...
