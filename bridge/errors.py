"""The exception hierarchy of mobilegym-bridge.

Every package raises subclasses of :class:`BridgeError`, so a caller can catch everything
of ours in one place. Third-party exceptions (adbutils, uiautomator2, Playwright, lxml)
are converted at one boundary per package with ``raise X from exc``.

::

    BridgeError
     ├── CoordinateError       a coordinate outside the frame it claims to be in (ValueError)
     ├── UITreeError           a UI hierarchy dump that is malformed or empty (ValueError)
     ├── TrajectoryError       a run directory that is missing, corrupt or from another schema
     │    └── RunLocked        another live process writes the run directory
     ├── InfraErrorsInARow     a run stopped by its breaker: one infra error, N episodes in a row
     ├── EnvError              the environment's infrastructure failed: the episode ends as
     │    │                    ``infra_error``, never as a policy failure
     │    ├── EnvTimeout       an env call did not finish within its time budget
     │    ├── BrowserUnavailable  no Chromium could be launched (the message says how to
     │    │                    install one)
     │    ├── StateUnavailable this world cannot read or write that part of Android state
     │    └── TaskNotPosed     the world did not take the task's start state, or its goal
     │                         already held after posing
     ├── EnvUsageError         the env was used wrongly (a step before reset, a verdict after
     │                         close): a bug in the caller, never retried as infrastructure
     └── PolicyError           the policy's infrastructure failed (endpoint down, crash)

Two exceptions travel inside our code only: ``InfraFailure`` wraps an env's or a policy's
mapped error on its way from the call that failed to the runner, which ends the episode as
``infra_error`` (:mod:`bridge.failures`); ``TargetError`` (a ValueError) is an agent's target
that cannot be resolved, which actuation turns into a step error. ``EnvCheckError`` (an
AssertionError too) is an env that broke the contract (:mod:`bridge.env_checker`).

Agent mistakes (a tap on an element that does not exist, unparseable model output) are not
exceptions: they come back as ``last_action_error`` / invalid steps and the episode goes on.
"""

from __future__ import annotations

from typing import Literal

__all__ = [
    "BridgeError",
    "BrowserUnavailable",
    "CoordinateError",
    "EnvCheckError",
    "EnvError",
    "EnvTimeout",
    "EnvUsageError",
    "InfraErrorsInARow",
    "InfraFailure",
    "PolicyError",
    "RunLocked",
    "StateUnavailable",
    "TargetError",
    "TaskNotPosed",
    "TrajectoryError",
    "UITreeError",
    "describe",
]


class BridgeError(Exception):
    """Root of every exception raised by mobilegym-bridge."""


class CoordinateError(BridgeError, ValueError):
    """A coordinate lies outside the frame it is expressed in (see bridge.coords)."""


class UITreeError(BridgeError, ValueError):
    """A UI hierarchy dump cannot be used: malformed XML, no nodes, bad bounds."""


class TrajectoryError(BridgeError):
    """A run directory is missing, corrupt, or written by an incompatible schema."""


class RunLocked(TrajectoryError):
    """Another live process writes the run directory (:mod:`bridge.run_lock`): a second
    writer would interleave its results with the first's."""


class InfraErrorsInARow(BridgeError):
    """A run stopped because its last episodes all ended in the same infrastructure error
    (:mod:`bridge.breaker`): a dead model server or phone would fail every one left."""


class EnvError(BridgeError):
    """The environment's infrastructure failed; the episode ends as ``infra_error``."""


class EnvTimeout(EnvError):
    """An environment call exceeded its time budget."""


class BrowserUnavailable(EnvError):
    """No Chromium could be launched; the message says how to install one."""


class StateUnavailable(EnvError):
    """This world cannot read or write that part of Android state (the message says what
    and why); the judge records the gap rather than a pass or a fail."""


class TaskNotPosed(EnvError):
    """The world did not take the task's start state (a write was refused, a truth could
    not be read) or the goal already holds after posing."""


class EnvUsageError(BridgeError, RuntimeError):
    """An env was called out of order or after ``close()``: the caller's bug, not the
    world's. The runner stops on it (it is never an ``infra_error``, never retried)."""


class PolicyError(BridgeError):
    """The policy's infrastructure failed (model endpoint unreachable, adapter crash)."""


class TargetError(ValueError):
    """A target the agent gave that cannot be resolved (an agent mistake, not a crash)."""


class EnvCheckError(BridgeError, AssertionError):
    """An env broke the contract; the message lists every problem found."""


def describe(exc: BaseException) -> str:
    """``"EnvError: the phone went away"``: the text recorded as an episode's ``error``."""
    return f"{type(exc).__name__}: {exc}" if str(exc) else repr(exc)


class InfraFailure(Exception):
    """An infrastructure failure of the env or the policy: ends the episode as
    ``infra_error``. ``error`` is the mapped exception (also the ``__cause__``)."""

    def __init__(self, source: Literal["env", "policy"], error: BaseException) -> None:
        super().__init__(describe(error))
        self.source: Literal["env", "policy"] = source
        self.error = error
