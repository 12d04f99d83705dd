"""Synchronous envs: any async :class:`~bridge.env.Env` driven from plain blocking code.

Gymnasium-style trainers, notebooks and scripts call ``env.step(action)`` and expect an
answer, not a coroutine. :class:`SyncEnv` gives them one: it runs the async env on a private
event loop in a background thread (a :class:`LoopThread`) and blocks the caller until each
call is done. Because that loop is not the caller's, it works from inside a running loop too
(Jupyter, an ``async def`` test).

Decisions:
    * The env is *created* on the loop thread (:meth:`SyncEnv.open` takes an async factory):
      a browser or adb connection belongs to the loop that made it.
    * Exceptions from the env reach the caller unchanged (same type, same object). A call
      exceeding ``timeout_s`` raises :class:`~bridge.errors.EnvTimeout`.
    * If the caller is interrupted while waiting (Ctrl-C, or a timeout), the pending call is
      cancelled on the loop; the loop never goes on running it unobserved.
    * The loop thread is a daemon and stops when the last env using it is closed; envs and
      loops still open at interpreter exit are closed then (``weakref.finalize``), so no
      thread we start outlives the program.
    * Envs made by :meth:`SyncEnv.fork` share their parent's loop (they live in the same
      world); pass one :class:`LoopThread` to several :meth:`SyncEnv.open` calls for envs that
      share a simulator.
    * A SyncEnv serves one caller at a time, as an async env does; it is not a thread pool.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
import weakref
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

from bridge.env import Env, ForkableEnv
from bridge.errors import EnvTimeout, EnvUsageError
from bridge.records import TaskInstance
from bridge.schema import Action, Observation, StepResult, Verdict

__all__ = ["EnvFactory", "LoopThread", "SyncEnv"]

EnvFactory = Callable[[], Awaitable[Env]]
"""An async factory of a fresh env, awaited on the loop that will run it."""

_T = TypeVar("_T")
_CLOSE_S = 30.0
"""How long ``close()`` waits for the env when no ``timeout_s`` was given: an env still
open at interpreter exit must not hang the exit."""


class LoopThread:
    """An asyncio event loop running in one daemon thread, for blocking callers.

    :meth:`run` submits a coroutine and waits for its result. A loop made by
    :meth:`SyncEnv.open` is *owned* by its envs and stops when the last of them closes; one
    you create yourself stops on :meth:`close` (or at interpreter exit). Use it as a context
    manager to share one loop (and, e.g., one simulator) between several envs.
    """

    def __init__(self, name: str = "bridge-sync") -> None:
        self._loop = asyncio.new_event_loop()
        started = threading.Event()
        self._thread = threading.Thread(
            target=_serve, args=(self._loop, started), name=name, daemon=True
        )
        self._thread.start()
        started.wait()
        self._users = 0
        self._owned = False
        self._lock = threading.Lock()
        self._finalizer = weakref.finalize(self, _stop_loop, self._loop, self._thread)

    @property
    def closed(self) -> bool:
        """True once the loop has been stopped (it cannot be restarted)."""
        return not self._finalizer.alive

    @property
    def thread(self) -> threading.Thread:
        """The thread the loop runs in (not alive once closed)."""
        return self._thread

    def run(self, coro: Coroutine[Any, Any, _T], timeout_s: float | None = None) -> _T:
        """Run ``coro`` on the loop and return its result (or raise its exception).

        Raises:
            EnvTimeout: it took longer than ``timeout_s``; it has been cancelled.
            EnvUsageError: the loop is closed, or this is called from the loop's own thread
                (which would wait for itself forever).
        """
        if self.closed or threading.current_thread() is self._thread:
            coro.close()  # never scheduled: close it so Python does not warn it was lost
            where = "closed" if self.closed else "being called from its own thread"
            raise EnvUsageError(f"the sync env's event loop is {where}; use the async env there")
        call = _Cancellable(coro)
        future: concurrent.futures.Future[_T] | None = None
        try:
            future = asyncio.run_coroutine_threadsafe(call.run(), self._loop)
            try:
                return future.result(timeout_s)
            except concurrent.futures.TimeoutError as exc:
                if not future.done():  # our wait ran out, not a TimeoutError of the env's own
                    raise EnvTimeout(f"the env call did not finish within {timeout_s:g} s") from exc
            return future.result()  # it finished after all: its own result or exception
        finally:
            if future is None or not future.done():
                # interrupted (Ctrl-C, even before the future was returned) or timed out:
                # stop the call on the loop, whether or not it has started yet
                self._loop.call_soon_threadsafe(call.cancel)

    def close(self) -> None:
        """Stop the loop and wait for its thread to end; idempotent."""
        self._finalizer()

    def __enter__(self) -> LoopThread:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _acquire(self) -> None:
        with self._lock:
            self._users += 1

    def _release(self) -> None:
        with self._lock:
            self._users -= 1
            last = self._owned and self._users == 0
        if last:
            self.close()


class _Cancellable:
    """A coroutine run as one task on the loop that can be cancelled from the loop's thread
    before or after it starts (a Ctrl-C can arrive before the caller holds its future)."""

    def __init__(self, coro: Coroutine[Any, Any, Any]) -> None:
        self.coro = coro
        self.task: asyncio.Task[Any] | None = None
        self.cancelled = False

    async def run(self) -> Any:
        if self.cancelled:
            self.coro.close()
            raise asyncio.CancelledError
        self.task = asyncio.current_task()
        return await self.coro

    def cancel(self) -> None:
        """Called on the loop's thread: cancel the task, or make it cancel itself at start."""
        self.cancelled = True
        if self.task is not None:
            self.task.cancel()


def _serve(loop: asyncio.AbstractEventLoop, started: threading.Event) -> None:
    asyncio.set_event_loop(loop)
    loop.call_soon(started.set)
    try:
        loop.run_forever()
    finally:
        _cancel_leftovers(loop)
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.run_until_complete(loop.shutdown_default_executor())
        loop.close()


def _cancel_leftovers(loop: asyncio.AbstractEventLoop) -> None:
    pending = asyncio.all_tasks(loop)
    for task in pending:
        task.cancel()
    if pending:
        loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))


def _stop_loop(loop: asyncio.AbstractEventLoop, thread: threading.Thread) -> None:
    if loop.is_closed():
        return
    loop.call_soon_threadsafe(loop.stop)
    if threading.current_thread() is not thread:
        thread.join()


def _close_env(loop: LoopThread, env: Env, timeout_s: float) -> None:
    """Close a SyncEnv's env (on ``close()``, garbage collection or exit), then let go of
    the loop."""
    try:
        if loop.closed:
            return
        if threading.current_thread() is loop.thread:
            # collected on the loop's own thread: it cannot wait for itself, so schedule
            loop._loop.create_task(env.close())
        else:
            loop.run(env.close(), timeout_s)
    finally:
        loop._release()


class SyncEnv:
    """A blocking facade over an async env: ``reset``, ``step``, ``verdict``, ``close``.

    Make one with :meth:`open`. The snapshot methods (``snapshot``, ``restore``, ``fork``)
    work when the wrapped env is a :class:`~bridge.env.ForkableEnv` (the simulator) and
    raise :class:`~bridge.errors.EnvUsageError` otherwise. ``close()`` is idempotent; a
    SyncEnv is a context manager.
    """

    def __init__(self, env: Env, loop: LoopThread, *, timeout_s: float | None = None) -> None:
        """Wrap ``env``, which must have been created on ``loop``; prefer :meth:`open`."""
        self._env, self._loop, self.timeout_s = env, loop, timeout_s
        loop._acquire()
        close_s = _CLOSE_S if timeout_s is None else timeout_s
        self._finalizer = weakref.finalize(self, _close_env, loop, env, close_s)

    @classmethod
    def open(
        cls,
        make_env: EnvFactory,
        *,
        loop: LoopThread | None = None,
        timeout_s: float | None = None,
    ) -> SyncEnv:
        """Create an env with ``make_env`` on ``loop`` (a new private one by default).

        Args:
            make_env: an async factory, e.g. ``sim.env`` or ``lambda: AndroidEnv.open(...)``.
            loop: a shared :class:`LoopThread`; without one the env gets its own, stopped
                when the env (and every fork of it) is closed.
            timeout_s: a budget for every call; None waits as long as the env takes.
        """
        own = loop is None
        if loop is None:
            loop = LoopThread()
            loop._owned = True
        try:
            env = loop.run(_made(make_env), timeout_s)
        except BaseException:
            if own:
                loop.close()
            raise
        return cls(env, loop, timeout_s=timeout_s)

    @property
    def env(self) -> Env:
        """The wrapped async env (only to be awaited on :attr:`loop`)."""
        return self._env

    @property
    def loop(self) -> LoopThread:
        """The loop the env runs on; ``loop.run(coro)`` runs other coroutines there."""
        return self._loop

    @property
    def closed(self) -> bool:
        """True once :meth:`close` has been called."""
        return not self._finalizer.alive

    @property
    def forkable(self) -> bool:
        """Whether ``snapshot``, ``restore`` and ``fork`` are available."""
        return isinstance(self._env, ForkableEnv)

    def reset(self, task: TaskInstance) -> Observation:
        """Set up ``task`` and return the first observation (see :meth:`Env.reset`)."""
        self._check_open()
        return self._call(self._env.reset(task))

    def step(self, action: Action) -> StepResult:
        """Execute ``action`` and return what happened (see :meth:`Env.step`)."""
        self._check_open()
        return self._call(self._env.step(action))

    def verdict(self) -> Verdict:
        """Judge the episode so far (see :meth:`Env.verdict`)."""
        self._check_open()
        return self._call(self._env.verdict())

    def snapshot(self) -> bytes:
        """The env's complete state as JSON bytes (see :meth:`ForkableEnv.snapshot`)."""
        return self._call(self._forkable("snapshot").snapshot())

    def restore(self, snapshot: bytes) -> Observation:
        """Return to a state from :meth:`snapshot` and observe it."""
        return self._call(self._forkable("restore").restore(snapshot))

    def fork(self, n: int) -> list[SyncEnv]:
        """``n`` independent copies of this env, each a SyncEnv on this env's loop."""
        forks = self._call(self._forkable("fork").fork(n))
        return [SyncEnv(env, self._loop, timeout_s=self.timeout_s) for env in forks]

    def close(self) -> None:
        """Close the env and, when no other env uses it, stop the loop; idempotent.

        Waits at most ``timeout_s`` (30 s without one). An exception from the env's
        ``close`` propagates, after the loop was let go.
        """
        self._finalizer()

    def __enter__(self) -> SyncEnv:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _call(self, coro: Coroutine[Any, Any, _T]) -> _T:
        return self._loop.run(coro, self.timeout_s)

    def _check_open(self) -> None:
        if self.closed:
            raise EnvUsageError("this SyncEnv is closed; open a new one with SyncEnv.open")

    def _forkable(self, method: str) -> ForkableEnv:
        self._check_open()
        if not isinstance(self._env, ForkableEnv):
            raise EnvUsageError(
                f"{type(self._env).__name__} has no {method}(): only a bridge.ForkableEnv "
                "(the simulator) can be snapshot, restored and forked"
            )
        return self._env


async def _made(make_env: EnvFactory) -> Env:
    env = await make_env()
    if not isinstance(env, Env):
        raise TypeError(f"make_env returned {type(env).__name__}, not a bridge.Env")
    return env
