"""Running episodes: the loop between a policy and an env, one at a time or many at once.

:func:`run_episode` plays one task: reset env and policy, act and step until the policy
finishes or answers, the env reports ``done`` or ``task.max_steps`` steps were taken, then
ask the env for its verdict. :func:`run_episodes` runs many concurrently, each with its own
env and policy, records them in a :class:`~bridge.trajectory.RunStore` and skips what an
interrupted run already finished.

Decisions:
    * An output without an action (``PolicyOutput.action is None``) is an *invalid step*:
      recorded with ``invalid=True`` and no result, counted against ``max_steps``, and the
      policy next sees the same observation with ``step + 1`` and ``last_action_error`` set
      to ``"invalid policy output: <error>"`` (the env is not called).
    * Exceptions are classified by :func:`bridge.failures.classify`, the rule the trainers
      share. *Infrastructure* — an :class:`~bridge.errors.EnvError` (including
      :class:`~bridge.errors.EnvTimeout`, the device's and the simulator's subclasses, and
      an env call exceeding ``step_timeout_s``) or a :class:`~bridge.errors.PolicyError`
      (including a policy call exceeding ``policy_timeout_s``) — ends the episode as
      ``infra_error`` with ``error_source`` ``env`` or ``policy``; it does not propagate,
      is never scored as a policy failure, and :func:`run_episodes` plays it again on
      resume (``retry_infra_errors``). A step whose ``env.step`` failed this way is still
      recorded (without a result): it shows the action that broke the env.
    * *Misuse* — :class:`~bridge.errors.EnvUsageError` (a verdict before reset, a step
      after close) — is the caller's bug: it propagates out of :func:`run_episode` and
      :func:`run_episodes` (which cancels the other episodes) and is never retried.
    * *Anything else* is a bug of the harness and propagates the same way, with its
      traceback: a ``TypeError`` in a judge, a ``KeyError``, a pydantic ``ValidationError``,
      a third-party exception no boundary mapped (a bare ``TimeoutError`` included), an env
      or policy returning the wrong type (a ``TypeError``), a policy factory that raises
      something other than a ``PolicyError``. Hiding these as ``infra_error`` would drop
      cells from one side of a comparison only.
    * ``asyncio.CancelledError`` and ``KeyboardInterrupt`` do propagate: Ctrl-C stops the
      run and leaves the episode without a result, so resuming plays it again. So does an
      episode stopped by misuse or a bug.
    * Failures to write the trajectory (disk full) propagate too: a run that cannot record
      must stop, not go on unrecorded. A failed ``env.close()`` after the episode is logged
      when it is infrastructure (the record is decided) and propagates otherwise.
    * A job's optional :class:`~bridge.guard.ActionGuard` ends the episode instead of asking
      a person: an action it stops *before* is recorded without a result (the env is not
      called, ``invalid`` stays False); a screen it stops *after* ends the episode once that
      step is recorded. Either way the episode ends with termination ``guard`` and the
      guard's reason as ``stop_reason``, and is judged by the env's verdict like any other.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, Literal, TypeVar

from bridge.env import Env, RestoringEnv, StartObserving
from bridge.failures import InfraFailure, classify, guarded
from bridge.guard import ActionGuard, GuardStop
from bridge.outcome import Termination, episode_outcome
from bridge.outcome import classify as classify_outcome
from bridge.policy import Policy
from bridge.schema import (
    Action,
    AnswerAction,
    BackendInfo,
    EpisodeRecord,
    FinishAction,
    Observation,
    ObservedState,
    PolicyContext,
    PolicyOutput,
    Restoration,
    StepRecord,
    StepResult,
    TaskInstance,
    Verdict,
)
from bridge.trajectory import EpisodeWriter, RunStore

__all__ = ["EpisodeJob", "TreeXml", "gather_or_cancel", "run_episode", "run_episodes"]

TreeXml = Callable[[Observation], str | None]
"""Turns an observation into the UI tree XML saved for its step (e.g. ``bridge.uitree``)."""

_Termination = Literal["finish", "answer", "max_steps", "guard"]
_T = TypeVar("_T")
_log = logging.getLogger(__name__)


@dataclass(frozen=True)
class EpisodeJob:
    """One episode to run: its id, its task, and factories for a fresh env and policy.

    ``backend`` is recorded if the env fails before its first observation says it; a
    ``guard`` ends the episode (termination ``guard``) at what it stops.
    """

    episode_id: str
    task: TaskInstance
    make_env: Callable[[], Awaitable[Env]]
    make_policy: Callable[[], Policy]
    backend: BackendInfo | None = None
    guard: ActionGuard | None = None


@dataclass(frozen=True)
class _Settings:
    step_timeout_s: float = 120.0
    policy_timeout_s: float | None = None
    tree_xml: TreeXml | None = None
    on_episode_done: Callable[[EpisodeRecord], None] | None = None


async def _env_call(
    call: Callable[[], Awaitable[object]], timeout_s: float, what: str, returns: type[_T]
) -> _T:
    return _expect(await guarded(call, "env", what, timeout_s), returns, what)


async def _policy_call(
    call: Callable[[], Awaitable[object]], timeout_s: float | None, what: str, returns: type[_T]
) -> _T:
    return _expect(await guarded(call, "policy", what, timeout_s), returns, what)


def _expect(value: object, returns: type[_T], what: str) -> _T:
    if not isinstance(value, returns):  # a bug of the env or policy, not its infrastructure
        raise TypeError(f"{what} returned {type(value).__name__}, not {returns.__name__}")
    return value


@dataclass
class _Episode:
    """The state of one episode while it is played."""

    policy: Policy
    env: Env
    task: TaskInstance
    writer: EpisodeWriter | None
    settings: _Settings
    guard: ActionGuard | None = None
    steps: int = 0
    invalid: int = 0
    final_action: Action | None = None
    backend: BackendInfo | None = None
    stop: GuardStop | None = None
    start_state: ObservedState | None = None
    restoration: Restoration | None = None

    async def play(self, start: Observation | None = None) -> _Termination:
        timeout = self.settings.step_timeout_s
        task = self.task
        if start is None:
            begin = partial(self.env.reset, task)
            obs = await _env_call(begin, timeout, "env.reset", Observation)
            if isinstance(self.env, StartObserving):
                self.start_state = self.env.start_state()
        else:
            obs = start  # an env already set up for the task (a fork): no reset
        self.backend = obs.backend
        context = PolicyContext.for_task(task, obs.backend)
        reset = partial(self.policy.reset, task.instruction, context)
        await _policy_call(reset, self.settings.policy_timeout_s, "policy.reset", object)
        for _ in range(task.max_steps):
            obs, termination = await self._step(obs)
            if termination is not None:
                return termination
        return "max_steps"

    async def _step(self, obs: Observation) -> tuple[Observation, _Termination | None]:
        started = time.perf_counter()
        act = partial(self.policy.act, obs)
        out = await _policy_call(act, self.settings.policy_timeout_s, "policy.act", PolicyOutput)
        policy_ms = (time.perf_counter() - started) * 1000.0
        invalid = out.action is None
        record = StepRecord(
            step=self.steps, observation=obs, output=out, invalid=invalid, policy_ms=policy_ms
        )
        action = out.action
        if action is None:
            self.invalid += 1
            await self._save(record)
            return _after_invalid(obs, out), None
        self.final_action = action
        if self.guard is not None and (stop := self.guard.before(action, obs)) is not None:
            self.stop = stop
            await self._save(record)
            return obs, "guard"
        try:
            step = partial(self.env.step, action)
            result = await _env_call(step, self.settings.step_timeout_s, "env.step", StepResult)
        except InfraFailure:
            await self._save(record)
            raise
        await self._save(record.model_copy(update={"result": result}))
        if self.guard is not None and (stop := self.guard.after(result.observation)) is not None:
            self.stop = stop
            return result.observation, "guard"
        return result.observation, _termination(action, result)

    async def _save(self, record: StepRecord) -> None:
        self.steps += 1
        if self.writer is not None:
            await asyncio.to_thread(_persist, self.writer, record, self.settings.tree_xml)

    def record(
        self,
        episode_id: str,
        started: float,
        fallback: BackendInfo | None,
        *,
        verdict: Verdict | None = None,
        termination: _Termination | None = None,
        failure: InfraFailure | None = None,
    ) -> EpisodeRecord:
        ended: Termination = "infra_error" if failure or not termination else termination
        ending = classify_outcome(ended, verdict, self.final_action)  # bridge.outcome's rule
        return EpisodeRecord(
            episode_id=episode_id,
            task=self.task,
            policy=self.policy.name,
            backend=self.backend or fallback,
            outcome=episode_outcome(ending),
            outcome_class=ending,
            termination=ended,
            verdict=verdict,
            steps=self.steps,
            invalid_steps=self.invalid,
            final_action=self.final_action,
            error=str(failure) if failure else None,
            error_source=failure.source if failure else None,
            duration_s=time.perf_counter() - started,
            stop_reason=self.stop.reason if self.stop and not failure else None,
            start_state=self.start_state,
            restoration=self.restoration,
        )

    async def put_back(self) -> None:
        """Let a world that outlives its episodes undo this one (:class:`RestoringEnv`); a
        failure is recorded as not restored (the verdict stands) and the next pose, which
        checks the phone, names what was left."""
        if not isinstance(self.env, RestoringEnv):
            return
        try:
            self.restoration = await _env_call(
                self.env.put_back, self.settings.step_timeout_s, "env.put_back", Restoration
            )
        except InfraFailure as failure:
            self.restoration = Restoration(not_restored=[f"putting the phone back: {failure}"])


def _persist(writer: EpisodeWriter, record: StepRecord, tree_xml: TreeXml | None) -> None:
    xml = tree_xml(record.observation) if tree_xml is not None else None
    writer.write_step(record, record.observation.screenshot, xml)


def _after_invalid(obs: Observation, out: PolicyOutput) -> Observation:
    error = f"invalid policy output: {out.error}"
    return obs.model_copy(update={"step": obs.step + 1, "last_action_error": error})


def _termination(action: Action, result: StepResult) -> _Termination | None:
    if isinstance(action, AnswerAction):
        return "answer"
    if isinstance(action, FinishAction) or result.done:
        return "finish"
    return None


async def run_episode(
    policy: Policy,
    env: Env,
    task: TaskInstance,
    *,
    episode_id: str,
    writer: EpisodeWriter | None = None,
    step_timeout_s: float = 120.0,
    policy_timeout_s: float | None = None,
    tree_xml: TreeXml | None = None,
    backend: BackendInfo | None = None,
    guard: ActionGuard | None = None,
    start: Observation | None = None,
) -> EpisodeRecord:
    """Play ``task`` with ``policy`` in ``env`` and return the episode's record.

    The one episode loop: runs, evaluation and GRPO's rollouts all play through it, so
    termination, outcome and infra errors mean the same everywhere.

    Args:
        policy: Decides the actions; reset here for the task.
        env: The world; reset here, but not closed (the caller owns it).
        task: What to do, including ``max_steps``.
        episode_id: The id recorded in the result.
        writer: Where to record each step (``writer.finish`` is left to the caller).
        step_timeout_s: Budget of each env call (reset, step, verdict).
        policy_timeout_s: Budget of each policy call; None waits as long as it takes.
        tree_xml: Makes the UI tree XML saved for each step; None saves none.
        backend: Recorded if the env fails before its first observation.
        guard: Ends the episode (termination ``guard``) at an action or screen it stops.
        start: The observation of an env already set up for ``task`` (a fork of one reset
            to it): the episode plays from there, with no reset.

    Returns:
        The record, its outcome judged by :mod:`bridge.outcome` from the env's verdict,
        the termination and the last action; or ``infra_error``.

    Raises:
        EnvUsageError: the env was used out of order (never recorded as ``infra_error``).
        Exception: any other exception that is not infrastructure (a bug), unchanged.
    """
    started = time.perf_counter()
    settings = _Settings(step_timeout_s, policy_timeout_s, tree_xml)
    episode = _Episode(policy, env, task, writer, settings, guard)
    try:
        termination = await episode.play(start)
        verdict = await _env_call(env.verdict, step_timeout_s, "env.verdict", Verdict)
    except InfraFailure as failure:
        await episode.put_back()
        return episode.record(episode_id, started, backend, failure=failure)
    await episode.put_back()
    return episode.record(episode_id, started, backend, verdict=verdict, termination=termination)


async def run_episodes(
    jobs: Iterable[EpisodeJob],
    *,
    store: RunStore | None = None,
    concurrency: int = 1,
    step_timeout_s: float = 120.0,
    policy_timeout_s: float | None = None,
    tree_xml: TreeXml | None = None,
    on_episode_done: Callable[[EpisodeRecord], None] | None = None,
    retry_infra_errors: bool = True,
) -> list[EpisodeRecord]:
    """Run ``jobs`` with at most ``concurrency`` episodes at a time.

    Each episode gets a fresh env (closed afterwards) and policy. With a ``store``, steps
    and results are recorded and episodes that already have a result are not run again
    (except ``infra_error`` ones when ``retry_infra_errors``). ``on_episode_done`` is called
    with each newly finished record (for a progress bar); other arguments as in
    :func:`run_episode`. On a cancel or error, unfinished episodes are cancelled and their
    envs closed, then the error propagates — an error raised by ``on_episode_done`` too,
    which is how a :class:`~bridge.breaker.InfraBreaker` stops a run.

    Returns:
        One record per job, in job order (earlier results from the store included).
    """
    job_list = _checked(jobs, concurrency)
    ids = [job.episode_id for job in job_list]
    todo = set(store.pending(ids, retry_infra_errors=retry_infra_errors)) if store else set(ids)
    earlier = store.completed() if store else {}
    semaphore = asyncio.Semaphore(concurrency)
    settings = _Settings(step_timeout_s, policy_timeout_s, tree_xml, on_episode_done)
    tasks = {
        job.episode_id: asyncio.ensure_future(_run_job(job, semaphore, store, settings))
        for job in job_list
        if job.episode_id in todo
    }
    await gather_or_cancel(list(tasks.values()))
    return [tasks[i].result() if i in tasks else earlier[i] for i in ids]


def _checked(jobs: Iterable[EpisodeJob], concurrency: int) -> list[EpisodeJob]:
    if concurrency < 1:
        raise ValueError(f"concurrency must be at least 1, got {concurrency}")
    job_list = list(jobs)
    counts = collections.Counter(job.episode_id for job in job_list)
    duplicates = sorted(episode_id for episode_id, count in counts.items() if count > 1)
    if duplicates:
        raise ValueError(f"episode ids must be unique; repeated: {duplicates[:5]}")
    return job_list


async def gather_or_cancel(tasks: Sequence[asyncio.Future[Any]]) -> None:
    """Wait for every task; on an error or a cancel, cancel the rest, let them clean up
    (their envs closed), then let the error propagate: the episodes of a run, or the two
    worlds of a paired run, end together."""
    try:
        await asyncio.gather(*tasks)
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise


async def _run_job(
    job: EpisodeJob, semaphore: asyncio.Semaphore, store: RunStore | None, settings: _Settings
) -> EpisodeRecord:
    async with semaphore:
        writer = store.begin_episode(job.episode_id) if store is not None else None
        try:
            record = await _play_job(job, writer, settings)
            if writer is not None:
                await asyncio.to_thread(writer.finish, record)
        finally:
            if writer is not None:
                writer.close()
    if settings.on_episode_done is not None:
        settings.on_episode_done(record)
    return record


async def _play_job(
    job: EpisodeJob, writer: EpisodeWriter | None, settings: _Settings
) -> EpisodeRecord:
    started = time.perf_counter()
    try:
        policy = job.make_policy()
    except Exception as exc:
        if classify(exc) != "infra":
            raise
        return _setup_failure(job, "unknown", InfraFailure("policy", exc), started)
    try:
        env = await guarded(job.make_env, "env", "make_env", settings.step_timeout_s)
    except InfraFailure as failure:
        return _setup_failure(job, policy.name, failure, started)
    if not isinstance(env, Env):  # as _expect, which mypy lets take no Protocol class
        raise TypeError(f"make_env returned {type(env).__name__}, not Env")
    try:
        return await run_episode(
            policy,
            env,
            job.task,
            episode_id=job.episode_id,
            writer=writer,
            step_timeout_s=settings.step_timeout_s,
            policy_timeout_s=settings.policy_timeout_s,
            tree_xml=settings.tree_xml,
            backend=job.backend,
            guard=job.guard,
        )
    finally:
        await _close_env(env, settings.step_timeout_s)


def _setup_failure(
    job: EpisodeJob, policy_name: str, failure: InfraFailure, started: float
) -> EpisodeRecord:
    return EpisodeRecord(
        episode_id=job.episode_id,
        task=job.task,
        policy=policy_name,
        backend=job.backend,
        outcome="infra_error",
        outcome_class="infra_error",
        termination="infra_error",
        steps=0,
        error=str(failure),
        error_source=failure.source,
        duration_s=time.perf_counter() - started,
    )


async def _close_env(env: Env, timeout_s: float) -> None:
    try:
        await guarded(env.close, "env", "env.close", timeout_s)
    except InfraFailure as failure:  # the record is decided; a failed close must not replace it
        _log.warning("closing the env failed: %s", failure)
