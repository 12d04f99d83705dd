"""The episode runner: termination, invalid steps, infra errors vs misuse vs bugs,
cancellation, concurrency, and a run killed with SIGKILL that resumes."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
import pytest

from bridge.env import Env
from bridge.errors import (
    EnvError,
    EnvTimeout,
    EnvUsageError,
    InfraFailure,
    PolicyError,
    TrajectoryError,
    UITreeError,
)
from bridge.failures import classify, guarded
from bridge.runner import EpisodeJob, run_episode, run_episodes
from bridge.schema import (
    Action,
    AnswerAction,
    FinishAction,
    Observation,
    PolicyOutput,
    StepResult,
    Target,
    Verdict,
)
from bridge.trajectory import RunManifest, RunStore
from tests.bridge import kill_target
from tests.bridge.toy_env import (
    BACKEND,
    CounterEnv,
    ScriptedPolicy,
    Tracker,
    counter_task,
    counter_tree_xml,
)

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.asyncio
async def test_scripted_policy_succeeds_and_finishes() -> None:
    env, policy = CounterEnv(), ScriptedPolicy(taps=3)
    record = await run_episode(policy, env, counter_task(3), episode_id="ok")
    assert (record.outcome, record.termination) == ("success", "finish")
    assert record.steps == 4 and record.invalid_steps == 0
    assert isinstance(record.final_action, FinishAction)
    assert record.verdict is not None and record.verdict.progress == 1.0
    assert record.backend == BACKEND and record.policy == "toy-scripted"
    assert record.error is None and record.error_source is None and record.duration_s > 0
    assert policy.contexts[0].task_id == "toy/Counter-v1" and policy.contexts[0].backend == BACKEND
    assert [obs.step for obs in policy.seen] == [0, 1, 2, 3]
    assert env.close_calls == 0  # the caller owns the env


@pytest.mark.asyncio
async def test_point_targets_and_answer_termination() -> None:
    policy = ScriptedPolicy(taps=2, answer=True, target=Target.at(0.5, 0.7))
    record = await run_episode(policy, CounterEnv(), counter_task(2), episode_id="answer")
    assert (record.outcome, record.termination) == ("success", "answer")
    assert record.final_action == AnswerAction(fields={"value": 2})


@pytest.mark.asyncio
async def test_step_budget_ends_the_episode_as_a_failure() -> None:
    task = counter_task(3, max_steps=2)
    record = await run_episode(ScriptedPolicy(taps=5), CounterEnv(), task, episode_id="slow")
    assert (record.outcome, record.termination, record.steps) == ("failure", "max_steps", 2)
    assert record.verdict is not None and not record.verdict.success


@pytest.mark.asyncio
async def test_invalid_outputs_are_recorded_and_the_episode_goes_on(tmp_path: Path) -> None:
    store = RunStore.create(tmp_path / "run", RunManifest())
    writer = store.begin_episode("flaky")
    policy = ScriptedPolicy(taps=3, invalid_at={1})
    record = await run_episode(
        policy, CounterEnv(), counter_task(3), episode_id="flaky", writer=writer
    )
    assert (record.outcome, record.steps, record.invalid_steps) == ("success", 5, 1)
    after = policy.seen[2]
    assert (
        after.step == 2 and after.last_action_error == "invalid policy output: no action in '???'"
    )
    assert after.ui == policy.seen[1].ui  # the same screen: the env was not called
    assert policy.seen[3].last_action_error is None  # a real step clears it
    writer.finish(record)
    steps = store.read_steps("flaky")
    assert [step.invalid for step in steps] == [False, True, False, False, False]
    assert steps[1].result is None and steps[1].output.error == "no action in '???'"


@pytest.mark.asyncio
async def test_invalid_steps_count_against_the_budget() -> None:
    policy = ScriptedPolicy(invalid_at=range(100))
    task = counter_task(1, max_steps=3)
    record = await run_episode(policy, CounterEnv(), task, episode_id="mute")
    assert (record.outcome, record.termination, record.invalid_steps) == ("failure", "max_steps", 3)
    assert record.final_action is None


@pytest.mark.asyncio
async def test_env_crash_is_an_infra_error_not_a_failure(tmp_path: Path) -> None:
    store = RunStore.create(tmp_path / "run", RunManifest())
    writer = store.begin_episode("crash")
    env = CounterEnv(fail_on_step=1)
    record = await run_episode(
        ScriptedPolicy(), env, counter_task(), episode_id="crash", writer=writer
    )
    assert (record.outcome, record.termination) == ("infra_error", "infra_error")
    assert record.error_source == "env" and record.verdict is None
    assert record.error == "EnvError: toy env crashed on step 1"
    assert record.steps == 2  # the step that broke the env is kept, without a result
    writer.finish(record)
    assert store.read_steps("crash")[1].result is None


@pytest.mark.asyncio
async def test_env_that_fails_to_reset_uses_the_fallback_backend() -> None:
    env = CounterEnv(fail_on_reset=True)
    record = await run_episode(
        ScriptedPolicy(), env, counter_task(), episode_id="dead", backend=BACKEND
    )
    assert (record.outcome, record.error_source, record.steps) == ("infra_error", "env", 0)
    assert record.backend == BACKEND and "could not start" in (record.error or "")


@pytest.mark.asyncio
async def test_policy_crash_is_an_infra_error_from_the_policy() -> None:
    policy = ScriptedPolicy(raise_at=2)
    record = await run_episode(policy, CounterEnv(), counter_task(), episode_id="p")
    assert (record.outcome, record.error_source, record.steps) == ("infra_error", "policy", 2)
    assert record.error == "PolicyError: toy policy endpoint is down"


@pytest.mark.asyncio
async def test_a_hanging_step_times_out_as_an_env_infra_error() -> None:
    env = CounterEnv(hang_on_step=1)
    record = await run_episode(
        ScriptedPolicy(), env, counter_task(), episode_id="hang", step_timeout_s=0.05
    )
    assert (record.outcome, record.error_source) == ("infra_error", "env")
    assert record.error is not None and record.error.startswith("EnvTimeout: env.step")
    assert env.hanging.is_set()


@pytest.mark.asyncio
async def test_cancellation_propagates() -> None:
    env = CounterEnv(hang_on_step=0)
    running = asyncio.ensure_future(
        run_episode(ScriptedPolicy(), env, counter_task(), episode_id="c", step_timeout_s=60)
    )
    await env.hanging.wait()
    running.cancel()
    with pytest.raises(asyncio.CancelledError):
        await running


@pytest.mark.asyncio
async def test_keyboard_interrupt_from_the_policy_propagates() -> None:
    policy = ScriptedPolicy(raise_at=1, error=KeyboardInterrupt())
    with pytest.raises(KeyboardInterrupt):
        await run_episode(policy, CounterEnv(), counter_task(), episode_id="ctrl-c")


def _jobs(count: int, tracker: Tracker, **env_knobs: object) -> list[EpisodeJob]:
    async def make_env() -> Env:
        tracker.created += 1
        return CounterEnv(tracker=tracker, **env_knobs)  # type: ignore[arg-type]

    return [
        EpisodeJob(f"ep-{index}", counter_task(2, seed=index), make_env, lambda: ScriptedPolicy(2))
        for index in range(count)
    ]


@pytest.mark.asyncio
async def test_run_episodes_respects_the_concurrency_bound() -> None:
    tracker = Tracker(hold_until=3)
    done: list[str] = []
    records = await run_episodes(
        _jobs(7, tracker),
        concurrency=3,
        step_timeout_s=10,
        on_episode_done=lambda record: done.append(record.episode_id),
    )
    assert tracker.peak == 3  # reached (resets waited for it) and never exceeded
    assert [record.episode_id for record in records] == [f"ep-{i}" for i in range(7)]
    assert all(record.outcome == "success" for record in records)
    assert sorted(done) == sorted(record.episode_id for record in records)
    assert tracker.closed == tracker.created == 7 and tracker.active == 0


@pytest.mark.asyncio
async def test_run_episodes_records_and_skips_finished_episodes(tmp_path: Path) -> None:
    store = RunStore.create(tmp_path / "run", RunManifest())
    first = Tracker()
    await run_episodes(_jobs(3, first), store=store, concurrency=2, tree_xml=counter_tree_xml)
    second, done = Tracker(), []
    records = await run_episodes(
        _jobs(5, second), store=store, concurrency=2, on_episode_done=done.append
    )
    assert (first.created, second.created) == (3, 2)
    assert sorted(record.episode_id for record in done) == ["ep-3", "ep-4"]
    assert len(records) == 5 and set(store.completed()) == {f"ep-{i}" for i in range(5)}
    assert store.tree_path("ep-0", 0).read_text().startswith("<?xml")
    assert len(store.read_steps("ep-4")) == 3


@pytest.mark.asyncio
async def test_infra_errors_are_recorded_and_retried_on_resume(tmp_path: Path) -> None:
    store = RunStore.create(tmp_path / "run", RunManifest())
    broken = await run_episodes(_jobs(1, Tracker(), fail_on_step=0), store=store)
    assert broken[0].outcome == "infra_error" and broken[0].steps == 1
    assert store.pending(["ep-0"]) == ["ep-0"]
    assert store.pending(["ep-0"], retry_infra_errors=False) == []
    fixed = await run_episodes(_jobs(1, Tracker()), store=store)
    assert fixed[0].outcome == "success"
    lines = store.results_path.read_text().splitlines()
    assert len(lines) == 2 and RunStore.open(store.root).completed()["ep-0"].outcome == "success"


@pytest.mark.asyncio
async def test_failing_factories_become_infra_errors_and_envs_are_closed() -> None:
    async def no_env() -> Env:
        raise EnvError("no phone attached")

    def no_policy() -> ScriptedPolicy:
        raise PolicyError("checkpoints/base has no weights.npy")

    tracker = Tracker()
    crashing = _jobs(1, tracker, fail_on_step=0)[0]
    jobs = [
        EpisodeJob("no-env", counter_task(), no_env, ScriptedPolicy, backend=BACKEND),
        EpisodeJob("no-policy", counter_task(), crashing.make_env, no_policy),
        crashing,
    ]
    records = await run_episodes(jobs, concurrency=2)
    sources = [(r.outcome, r.error_source) for r in records]
    assert sources == [("infra_error", "env"), ("infra_error", "policy"), ("infra_error", "env")]
    assert records[0].error == "EnvError: no phone attached" and records[0].backend == BACKEND
    assert records[1].error == "PolicyError: checkpoints/base has no weights.npy"
    assert tracker.created == tracker.closed == 1  # the policy failed before an env was made


@pytest.mark.asyncio
async def test_cancelling_run_episodes_closes_envs_and_leaves_no_result(tmp_path: Path) -> None:
    store = RunStore.create(tmp_path / "run", RunManifest())
    tracker = Tracker()
    env = CounterEnv(hang_on_step=1, tracker=tracker)

    async def make_env() -> Env:
        return env

    job = EpisodeJob("stuck", counter_task(), make_env, ScriptedPolicy)
    running = asyncio.ensure_future(run_episodes([job], store=store, step_timeout_s=60))
    await env.hanging.wait()
    running.cancel()
    with pytest.raises(asyncio.CancelledError):
        await running
    assert env.close_calls == 1 and tracker.active == 0 and store.completed() == {}
    assert store.pending(["stuck"]) == ["stuck"] and len(store.read_steps("stuck")) == 1
    store.begin_episode("stuck").close()  # the writer was released: the episode can restart


def test_run_episodes_rejects_bad_arguments() -> None:
    jobs = _jobs(2, Tracker())
    with pytest.raises(ValueError, match="unique"):
        asyncio.run(run_episodes([jobs[0], jobs[0]]))
    with pytest.raises(ValueError, match="concurrency"):
        asyncio.run(run_episodes(jobs, concurrency=0))


# --------------------------------------------------------------------------- infra, misuse, bugs


class JudgeBug(CounterEnv):
    """A judge with a programming error in it."""

    async def verdict(self) -> Verdict:
        raise TypeError("unsupported operand type(s) for +: 'int' and 'str'")


class ClosedEnv(CounterEnv):
    """An env that is stepped after it was closed (the caller's bug)."""

    async def step(self, action: Action) -> StepResult:
        self.steps += 1
        raise EnvUsageError("step() after close(): make a new env")


class RawTimeout(CounterEnv):
    """A world whose socket timeout escaped its error boundary unmapped."""

    async def step(self, action: Action) -> StepResult:
        raise TimeoutError("timed out")


class WrongReturn(CounterEnv):
    """An env whose step returns an observation instead of a step result."""

    async def step(self, action: Action) -> StepResult:
        return self._observe(None)  # type: ignore[return-value]


class WrongOutput(ScriptedPolicy):
    """A policy that returns a bare action instead of a PolicyOutput."""

    async def act(self, observation: Observation) -> PolicyOutput:
        return FinishAction()  # type: ignore[return-value]


class SlowPolicy(ScriptedPolicy):
    """A policy whose model never answers."""

    async def act(self, observation: Observation) -> PolicyOutput:
        await asyncio.Event().wait()  # never set: only the budget ends this
        raise AssertionError("unreachable")


@pytest.mark.parametrize(
    ("error", "kind"),
    [
        (EnvError("adb went away"), "infra"),
        (EnvTimeout("step over budget"), "infra"),
        (PolicyError("endpoint down"), "infra"),
        (EnvUsageError("verdict before reset"), "misuse"),
        (TypeError("bad operand"), "bug"),
        (KeyError("missing"), "bug"),
        (UITreeError("empty dump"), "bug"),  # ours, but not an infrastructure failure
        (TimeoutError("socket"), "bug"),  # unmapped: a hole in a boundary
    ],
)
def test_only_mapped_errors_are_infrastructure(error: Exception, kind: str) -> None:
    assert classify(error) == kind


@pytest.mark.asyncio
async def test_guarded_tells_its_own_budget_from_a_timeout_the_call_raised() -> None:
    async def hang() -> None:
        await asyncio.Event().wait()

    async def raw() -> None:
        raise TimeoutError("socket timed out")

    with pytest.raises(InfraFailure) as env_budget:
        await guarded(hang, "env", "env.step", 0.01)
    assert isinstance(env_budget.value.error, EnvTimeout) and env_budget.value.source == "env"
    with pytest.raises(InfraFailure) as policy_budget:
        await guarded(hang, "policy", "policy.act", 0.01)
    assert type(policy_budget.value.error) is PolicyError
    assert str(policy_budget.value) == "PolicyError: policy.act did not finish within 0.01 s"
    with pytest.raises(TimeoutError, match="socket timed out"):
        await guarded(raw, "env", "env.step", 5.0)


@pytest.mark.asyncio
async def test_a_bug_in_the_judge_propagates_and_is_not_an_infra_error() -> None:
    with pytest.raises(TypeError, match="unsupported operand"):
        await run_episode(ScriptedPolicy(2), JudgeBug(), counter_task(2), episode_id="judge")


@pytest.mark.asyncio
async def test_a_bug_in_the_judge_stops_run_episodes_and_records_nothing(tmp_path: Path) -> None:
    store = RunStore.create(tmp_path / "run", RunManifest())
    tracker = Tracker()
    stuck = CounterEnv(hang_on_step=0, tracker=tracker)

    async def buggy() -> Env:
        return JudgeBug(tracker=tracker)

    async def hanging() -> Env:
        return stuck

    jobs = [
        EpisodeJob("judge", counter_task(2), buggy, lambda: ScriptedPolicy(2)),
        EpisodeJob("other", counter_task(2), hanging, lambda: ScriptedPolicy(2)),
    ]
    with pytest.raises(TypeError, match="unsupported operand"):
        await run_episodes(jobs, store=store, concurrency=2, step_timeout_s=60)
    assert stuck.hanging.is_set()  # the other episode was running, then cancelled
    assert store.completed() == {}  # no infra_error (nor any result) was recorded
    assert store.pending(["judge", "other"]) == ["judge", "other"]
    assert tracker.closed == 2 and tracker.active == 0


@pytest.mark.asyncio
async def test_misuse_propagates_and_is_never_retried(tmp_path: Path) -> None:
    store = RunStore.create(tmp_path / "run", RunManifest())
    made: list[ClosedEnv] = []

    async def make_env() -> Env:
        made.append(ClosedEnv())
        return made[-1]

    job = EpisodeJob("misuse", counter_task(2), make_env, lambda: ScriptedPolicy(2))
    with pytest.raises(EnvUsageError, match="after close"):
        await run_episodes([job], store=store, retry_infra_errors=True)
    assert len(made) == 1 and made[0].steps == 1  # one env, one step: no retry
    assert made[0].close_calls == 1
    assert store.completed() == {}
    with pytest.raises(EnvUsageError):
        await run_episode(ScriptedPolicy(2), ClosedEnv(), counter_task(2), episode_id="direct")


@pytest.mark.asyncio
async def test_an_env_error_is_still_an_infra_error_in_run_episodes(tmp_path: Path) -> None:
    store = RunStore.create(tmp_path / "run", RunManifest())
    records = await run_episodes(_jobs(2, Tracker(), fail_on_step=1), store=store)
    assert [(r.outcome, r.error_source) for r in records] == [("infra_error", "env")] * 2
    assert records[0].error == "EnvError: toy env crashed on step 1"
    assert store.completed()["ep-1"].outcome == "infra_error"
    assert store.pending(["ep-0", "ep-1"]) == ["ep-0", "ep-1"]  # retried on resume


@pytest.mark.asyncio
async def test_a_policy_over_its_budget_is_a_policy_infra_error() -> None:
    record = await run_episode(
        SlowPolicy(), CounterEnv(), counter_task(), episode_id="slow", policy_timeout_s=0.02
    )
    assert (record.outcome, record.error_source) == ("infra_error", "policy")
    assert record.error == "PolicyError: policy.act did not finish within 0.02 s"


@pytest.mark.asyncio
async def test_unmapped_timeouts_and_wrong_types_are_bugs_that_propagate() -> None:
    with pytest.raises(TimeoutError, match="timed out"):
        await run_episode(ScriptedPolicy(), RawTimeout(), counter_task(), episode_id="raw")
    with pytest.raises(TypeError, match=r"env\.step returned Observation, not StepResult"):
        await run_episode(ScriptedPolicy(), WrongReturn(), counter_task(), episode_id="env")
    with pytest.raises(TypeError, match=r"policy\.act returned FinishAction, not PolicyOutput"):
        await run_episode(WrongOutput(), CounterEnv(), counter_task(), episode_id="policy")


@pytest.mark.asyncio
async def test_a_policy_factory_bug_stops_the_run() -> None:
    def no_policy() -> ScriptedPolicy:
        raise RuntimeError("bad policy spec")

    tracker = Tracker()
    job = EpisodeJob("bad", counter_task(), _jobs(1, tracker)[0].make_env, no_policy)
    with pytest.raises(RuntimeError, match="bad policy spec"):
        await run_episodes([job])
    assert tracker.created == 0


# --------------------------------------------------------------------------- kill and resume


def _lines(path: Path) -> list[bytes]:
    return path.read_bytes().split(b"\n")[:-1] if path.exists() else []


def _wait_for(
    condition: Callable[[], bool], process: subprocess.Popen[bytes], deadline_s: float
) -> None:
    """Poll ``condition`` until it holds; fail early if the process died."""
    deadline = time.monotonic() + deadline_s
    while not condition():
        assert process.poll() is None, f"kill_target exited early with {process.returncode}"
        assert time.monotonic() < deadline, "kill_target made no progress"
        time.sleep(0.02)  # polling interval, not synchronization: the condition decides


def _kill_target(run: Path, *flags: str) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "tests.bridge.kill_target", str(run), *flags]
    environment = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.Popen(command, cwd=REPO, env=environment, stderr=subprocess.PIPE)


def _check_killed_run(run: Path) -> dict[str, bytes]:
    """The two finished episodes are intact, the cut-off one is not complete; returns the
    bytes of the finished ``episode.json`` files."""
    store = RunStore.open(run)
    done = store.completed()
    assert list(done) == ["ep-0", "ep-1"]
    for episode_id, record in done.items():
        assert record.outcome == "success" and store.read_episode(episode_id) == record
        steps = store.read_steps(episode_id)
        assert [step.step for step in steps] == [0, 1, 2] == list(range(record.steps))
        for step in steps:
            data = store.frame_path(episode_id, step.step).read_bytes()
            assert cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR) is not None
    assert kill_target.BLOCKED not in done and len(store.read_steps(kill_target.BLOCKED)) >= 1
    with pytest.raises(TrajectoryError, match="has no result"):
        store.read_episode(kill_target.BLOCKED)
    assert store.pending(kill_target.EPISODE_IDS) == ["ep-2", "ep-3", "ep-4"]
    return {key: (store.episode_dir(key) / "episode.json").read_bytes() for key in done}


def _check_resumed_run(run: Path, kept: dict[str, bytes], results_before: bytes) -> None:
    store = RunStore.open(run)
    ids = [json.loads(line)["episode_id"] for line in _lines(store.results_path)]
    assert ids == kill_target.EPISODE_IDS  # each exactly once, in order (concurrency 1)
    assert store.results_path.read_bytes().startswith(results_before)
    assert all(record.outcome == "success" for record in store.completed().values())
    for episode_id, data in kept.items():
        assert (store.episode_dir(episode_id) / "episode.json").read_bytes() == data
    restarted = store.episode_dir(kill_target.BLOCKED)
    steps = store.read_steps(kill_target.BLOCKED)
    assert [step.step for step in steps] == list(range(kill_target.STEPS_PER_EPISODE))
    assert len(_lines(restarted / "steps.jsonl")) == kill_target.STEPS_PER_EPISODE
    frames = sorted(path.name for path in (restarted / "frames").iterdir())
    assert frames == ["0000.jpg", "0001.jpg", "0002.jpg"]
    assert [p for p in run.rglob("*") if p.name.endswith(".tmp")] == []


def test_a_killed_run_keeps_what_it_finished_and_resumes(tmp_path: Path) -> None:
    run = tmp_path / "run"
    blocked_steps = run / "episodes" / kill_target.BLOCKED / "steps.jsonl"
    process = _kill_target(run)
    try:
        _wait_for(
            lambda: len(_lines(run / "results.jsonl")) == 2 and len(_lines(blocked_steps)) >= 1,
            process,
            deadline_s=60,
        )
    finally:
        process.kill()  # SIGKILL: no cleanup runs
        process.communicate()
    kept = _check_killed_run(run)
    results_before = (run / "results.jsonl").read_bytes()

    resumed = _kill_target(run, "--no-block")
    _, stderr = resumed.communicate(timeout=60)
    assert resumed.returncode == 0, stderr.decode()
    _check_resumed_run(run, kept, results_before)
