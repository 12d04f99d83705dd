"""Which exceptions are infrastructure failures: the one rule every episode loop shares.

The runner (:mod:`bridge.runner`) and the trainers (``policies.grpo``) call the env and the
policy through :func:`guarded`, so an exception means the same thing wherever it happens:

::

    kind      raised as                                    what happens
    infra     EnvError (EnvTimeout, device and state       the episode (rollout) ends as
              failures, …), PolicyError, a call that       ``infra_error``; a run may retry it
              overran its budget
    misuse    EnvUsageError (a verdict before reset,       propagates: the run stops, nothing
              a step after close)                          is retried
    bug       anything else (TypeError, KeyError, a        propagates with its traceback: the
              pydantic ValidationError, an unmapped        run stops, nothing is retried
              third-party exception, a wrong return type)

Only the mapped exceptions are infrastructure: each package converts the third-party
exceptions that *are* infrastructure (adbutils, uiautomator2, Playwright, httpx) into its
``EnvError`` / ``PolicyError`` subclasses at one boundary, so an exception that arrives
unmapped is a hole in that boundary or a bug, and hiding it as ``infra_error`` would shrink
one cell's denominator and bias every statistic computed over the rest.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from typing import Literal, TypeVar

from bridge.errors import EnvError, EnvTimeout, EnvUsageError, InfraFailure, PolicyError

__all__ = [
    "FailureKind",
    "FailureSource",
    "classify",
    "error_class",
    "guarded",
]

FailureKind = Literal["infra", "misuse", "bug"]
"""How an exception from an env or a policy is treated (see the module docstring)."""

FailureSource = Literal["env", "policy"]
"""Which side of the loop failed."""

_T = TypeVar("_T")


def classify(exc: BaseException) -> FailureKind:
    """``infra``, ``misuse`` or ``bug`` for an exception raised by an env or a policy."""
    if isinstance(exc, EnvUsageError):
        return "misuse"
    if isinstance(exc, EnvError | PolicyError):
        return "infra"
    return "bug"


def error_class(error: str) -> str:
    """The exception class an episode's recorded ``error`` (:func:`describe`'s text) names:
    ``"EnvError"`` for ``"EnvError: the phone went away"`` (or ``"EnvError()"``)."""
    return re.split(r"[:(]", error, maxsplit=1)[0].strip()


async def guarded(
    call: Callable[[], Awaitable[_T]], source: FailureSource, what: str, timeout_s: float | None
) -> _T:
    """Await ``call()`` within ``timeout_s`` seconds (None: no budget) and classify failures.

    Raises:
        InfraFailure: the call raised an infrastructure error, or overran the budget (an
            :class:`~bridge.errors.EnvTimeout` for an env, a
            :class:`~bridge.errors.PolicyError` for a policy).
        Exception: anything else the call raised, unchanged: misuse and bugs propagate. A
            ``TimeoutError`` the call raised itself is one of these — it is not our budget.
    """
    own: list[BaseException] = []

    async def watched() -> _T:
        try:
            return await call()
        except asyncio.TimeoutError as exc:  # the builtin TimeoutError too, on 3.11+
            own.append(exc)
            raise

    try:
        return await (watched() if timeout_s is None else asyncio.wait_for(watched(), timeout_s))
    except asyncio.TimeoutError as exc:
        if own:
            raise
        raise InfraFailure(source, _overran(source, what, timeout_s)) from exc
    except Exception as exc:
        if classify(exc) != "infra":
            raise
        raise InfraFailure(source, exc) from exc


def _overran(source: FailureSource, what: str, timeout_s: float | None) -> BaseException:
    message = f"{what} did not finish within {timeout_s:g} s"
    return EnvTimeout(message) if source == "env" else PolicyError(message)
