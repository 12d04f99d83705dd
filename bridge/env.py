"""The environment protocol: one interface for the simulator, the virtual phone and a phone.

An ``Env`` is async because every real backend waits on I/O (a browser, adb, a phone).
Implementations are async context managers and ``close()`` may be called any number of
times. Infrastructure failures raise :class:`bridge.errors.EnvError` (the runner turns them
into ``infra_error`` episodes); agent mistakes come back in ``StepResult.error``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from bridge.records import TaskInstance
from bridge.schema import (
    Action,
    Observation,
    ObservedState,
    Restoration,
    Screenshot,
    StepResult,
    Verdict,
)

__all__ = ["Env", "ForkableEnv", "LiveScreen", "RestoringEnv", "StartObserving"]


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

    async def fork(self, n: int) -> Sequence[ForkableEnv]:
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


@runtime_checkable
class StartObserving(Protocol):
    """An env that says in which observable state it posed its task (after reset): the
    runner records it, and a pair of cells in two worlds compares it (start-state parity)."""

    def start_state(self) -> ObservedState | None:
        """The spec's observable state at step 0 (None: this world could not observe it)."""
        ...


@runtime_checkable
class RestoringEnv(Protocol):
    """An env whose world outlives its episodes (a phone): after the verdict, it puts back
    what the episode changed, so the next episode finds what this one found."""

    async def put_back(self) -> Restoration:
        """Undo the episode's changes (its posing included) and say what could not be."""
        ...
