"""SyncEnv: a blocking facade over an async env, on a private loop in a background thread."""

from __future__ import annotations

import asyncio
import gc
import json
import signal
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator

import pytest

from bridge.env import Env, ForkableEnv
from bridge.errors import EnvError, EnvTimeout, EnvUsageError
from bridge.records import TaskInstance
from bridge.schema import Action, FinishAction, Observation, StepResult, TapAction, Target
from bridge.sync import LoopThread, SyncEnv
from tests.bridge.toy_env import BUTTON, CounterEnv, counter_task

TAP = TapAction(target=Target.node(BUTTON))
WAIT_S = 10.0
"""A generous bound for events that happen at once; never a sleep."""


class _Made:
    """An env factory that remembers what it made (and on which thread)."""

    def __init__(self, **knobs: object) -> None:
        self.knobs = knobs
        self.envs: list[CounterEnv] = []
        self.threads: list[threading.Thread] = []

    async def __call__(self) -> CounterEnv:
        self.threads.append(threading.current_thread())
        env = CounterEnv(**self.knobs)  # type: ignore[arg-type]
        self.envs.append(env)
        return env


class _Hanging(CounterEnv):
    """Steps hang until cancelled; ``interrupt`` sends the main thread a real SIGINT first."""

    def __init__(self, *, interrupt: bool = False) -> None:
        super().__init__()
        self.interrupt = interrupt
        self.cancelled = threading.Event()

    async def step(self, action: Action) -> StepResult:
        if self.interrupt:
            main = threading.main_thread().ident
            assert main is not None
            signal.pthread_kill(main, signal.SIGINT)
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            self.cancelled.set()
            raise
        raise AssertionError("unreachable")


class _Forkable(CounterEnv):
    """A counter whose state (the counter and target) can be saved and cloned."""

    task: TaskInstance | None = None

    async def reset(self, task: TaskInstance) -> Observation:
        self.task = task
        return await super().reset(task)

    async def snapshot(self) -> bytes:
        return json.dumps({"counter": self.counter, "target": self.target}).encode()

    async def restore(self, snapshot: bytes) -> Observation:
        state = json.loads(snapshot)
        self.counter, self.target = state["counter"], state["target"]
        return self._observe(None)

    async def fork(self, n: int) -> list[ForkableEnv]:
        forks: list[ForkableEnv] = []
        for _ in range(n):
            clone = _Forkable()
            assert self.task is not None
            await clone.reset(self.task)
            await clone.restore(await self.snapshot())
            forks.append(clone)
        return forks


async def _forkable() -> Env:
    return _Forkable()


def test_an_episode_runs_on_a_background_loop_and_close_ends_it() -> None:
    made = _Made()
    env = SyncEnv.open(made)
    assert made.threads == [env.loop.thread] and env.loop.thread is not threading.current_thread()
    assert env.reset(counter_task(2)).ui[1].text == "0"
    for _ in range(2):
        env.step(TAP)
    assert env.step(FinishAction()).done
    assert env.verdict().success
    env.close()
    env.close()
    assert made.envs[0].close_calls == 1
    assert env.closed and env.loop.closed and not env.loop.thread.is_alive()
    with pytest.raises(EnvUsageError, match="closed"):
        env.step(TAP)


def test_a_context_manager_closes() -> None:
    made = _Made()
    with SyncEnv.open(made) as env:
        env.reset(counter_task())
    assert made.envs[0].close_calls == 1 and not env.loop.thread.is_alive()


@pytest.mark.asyncio
async def test_works_from_inside_a_running_event_loop() -> None:
    running = asyncio.get_running_loop()
    with SyncEnv.open(_Made()) as env:
        env.reset(counter_task(1))
        assert env.step(TAP).observation.ui[1].text == "1"
        assert env.verdict().success
    assert asyncio.get_running_loop() is running


def test_env_exceptions_propagate_unchanged() -> None:
    with SyncEnv.open(_Made(fail_on_step=1)) as env:
        env.reset(counter_task())
        env.step(TAP)
        with pytest.raises(EnvError, match="crashed on step 1") as caught:
            env.step(TAP)
        assert type(caught.value) is EnvError


class _TimesOut(CounterEnv):
    async def step(self, action: Action) -> StepResult:
        raise TimeoutError("adb read timed out")


def test_an_envs_own_timeout_error_is_not_taken_for_the_budget() -> None:
    async def make() -> Env:
        return _TimesOut()

    with SyncEnv.open(make, timeout_s=WAIT_S) as env:
        env.reset(counter_task())
        with pytest.raises(TimeoutError, match="adb read") as caught:
            env.step(TAP)
        assert type(caught.value) is TimeoutError


def test_a_failing_factory_propagates_and_stops_its_thread() -> None:
    started: list[threading.Thread] = []

    async def broken() -> Env:
        started.append(threading.current_thread())
        raise EnvError("no simulator")

    with pytest.raises(EnvError, match="no simulator"):
        SyncEnv.open(broken)
    assert len(started) == 1 and not started[0].is_alive()


def test_a_factory_must_make_an_env() -> None:
    async def not_an_env() -> Env:
        return object()  # type: ignore[return-value]

    with pytest.raises(TypeError, match=r"not a bridge\.Env"):
        SyncEnv.open(not_an_env)


def test_a_call_over_its_budget_is_cancelled_on_the_loop() -> None:
    hanging = _Hanging()

    async def make() -> Env:
        return hanging

    with SyncEnv.open(make, timeout_s=0.05) as env:
        env.reset(counter_task())
        with pytest.raises(EnvTimeout, match=r"0\.05 s"):
            env.step(TAP)
        assert hanging.cancelled.wait(WAIT_S)
    assert not env.loop.thread.is_alive()


@pytest.fixture
def default_sigint() -> Iterator[None]:
    """Python's own SIGINT handler (KeyboardInterrupt) for the test, whatever an earlier
    test or plugin installed; restored afterwards."""
    assert threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@pytest.mark.usefixtures("default_sigint")
def test_ctrl_c_while_waiting_cancels_the_pending_call() -> None:
    hanging = _Hanging(interrupt=True)

    async def make() -> Env:
        return hanging

    env = SyncEnv.open(make)
    env.reset(counter_task())
    with pytest.raises(KeyboardInterrupt):
        env.step(TAP)
    assert hanging.cancelled.wait(WAIT_S)
    env.close()
    assert hanging.close_calls == 1 and not env.loop.thread.is_alive()


def test_calling_from_the_loop_thread_is_refused_not_a_deadlock() -> None:
    with SyncEnv.open(_Made()) as env:

        async def reenter() -> None:
            env.reset(counter_task())

        with pytest.raises(EnvUsageError, match="its own thread"):
            env.loop.run(reenter())


def test_snapshot_restore_and_fork_share_the_loop() -> None:
    env = SyncEnv.open(_forkable)
    assert env.forkable
    env.reset(counter_task(5))
    env.step(TAP)
    saved = env.snapshot()
    env.step(TAP)
    assert env.restore(saved).ui[1].text == "1"
    forks = env.fork(2)
    assert all(isinstance(fork, SyncEnv) and fork.loop is env.loop for fork in forks)
    forks[0].step(TAP)
    assert [fork.snapshot() for fork in forks] != [saved, saved]
    assert forks[1].snapshot() == saved == env.snapshot()
    env.close()  # the forks still use the loop
    assert env.loop.thread.is_alive() and forks[0].step(TAP).observation.ui[1].text == "3"
    for fork in forks:
        fork.close()
    assert not env.loop.thread.is_alive()


def test_a_plain_env_cannot_fork() -> None:
    with SyncEnv.open(_Made()) as env:
        assert not env.forkable
        with pytest.raises(EnvUsageError, match="ForkableEnv"):
            env.fork(2)


def test_a_shared_loop_outlives_its_envs_until_closed() -> None:
    made = _Made()
    with LoopThread() as loop:
        first, second = SyncEnv.open(made, loop=loop), SyncEnv.open(made, loop=loop)
        assert made.threads == [loop.thread, loop.thread]
        first.close()
        second.close()
        assert loop.thread.is_alive()
    assert not loop.thread.is_alive()
    with pytest.raises(EnvUsageError, match="closed"):
        SyncEnv.open(made, loop=loop)


def test_an_env_dropped_without_close_is_closed_and_its_thread_stops() -> None:
    made = _Made()
    env = SyncEnv.open(made)
    thread = env.loop.thread
    del env
    gc.collect()
    assert made.envs[0].close_calls == 1
    thread.join(WAIT_S)
    assert not thread.is_alive()


def test_an_env_left_open_is_closed_at_interpreter_exit() -> None:
    script = textwrap.dedent(
        """
        import threading
        from bridge.sync import SyncEnv

        class Env:
            async def reset(self, task): ...
            async def step(self, action): ...
            async def verdict(self): ...
            async def close(self):
                print("closed on", threading.current_thread().name, flush=True)

        async def make():
            return Env()

        env = SyncEnv.open(make)
        print("open", flush=True)
        """
    )
    done = subprocess.run(
        [sys.executable, "-W", "error", "-c", script],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:2] == ["open", "closed on bridge-sync"]
    assert done.stderr == ""
