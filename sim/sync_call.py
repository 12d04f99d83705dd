"""Running a coroutine that never waits on I/O to completion, without an event loop.

The simulator's :class:`~sim.android_state.SimAndroidState` is async (it implements the
bridge protocol a phone implements over adb) but only touches JSON, so posing a task — a
hot path of GRPO's fork-and-reset — can run it synchronously, even from inside a running
loop.
"""

from __future__ import annotations

from collections.abc import Coroutine
from typing import Any, TypeVar

__all__ = ["complete"]

T = TypeVar("T")


def complete(coroutine: Coroutine[Any, Any, T]) -> T:
    """The result of ``coroutine``, which must finish without suspending.

    Raises:
        RuntimeError: the coroutine awaited something that suspends (real I/O); a bug,
            since only in-memory work may run this way.
    """
    try:
        coroutine.send(None)
    except StopIteration as done:
        return done.value
    coroutine.close()
    raise RuntimeError("a coroutine run with complete() suspended: it must not do I/O")
