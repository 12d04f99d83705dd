"""Running episodes: the loop between a policy and an env, one at a time or many at once.

:func:`run_episode` plays one task: reset env and policy, act and step until the policy
finishes or answers, the env reports ``done`` or ``task.max_steps`` steps were taken, then
ask the env for its verdict. It is a loop over a :class:`bridge.episode.Episode`, the
stepwise episode that holds the termination rule and writes the records; the console drives
the same object one approved step at a time. :func:`run_episodes` runs many concurrently,
each with its own env and policy, records them in a :class:`~bridge.trajectory.RunStore`
and skips what an interrupted run already finished.

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
from typing import Any

from bridge.env import Env
from bridge.episode import Episode, EpisodeSettings, TreeXml
from bridge.errors import InfraFailure
from bridge.failures import classify, guarded
from bridge.guard import ActionGuard
from bridge.policy import Policy
from bridge.records import EpisodeRecord, TaskInstance
from bridge.schema import BackendInfo, Observation
from bridge.trajectory import EpisodeWriter, RunStore

__all__ = ["EpisodeJob", "TreeXml", "gather_or_cancel", "run_episode", "run_episodes"]

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
    episode: EpisodeSettings
    on_episode_done: Callable[[EpisodeRecord], None] | None = None


async def _play(episode: Episode, policy: Policy, start: Observation | None = None) -> None:
    """Play ``episode`` with ``policy`` until it is over: begin it (from ``start``, with no
    reset, when given), reset the policy, then act and step. The loop of
    :func:`run_episode`; :meth:`Episode.end` is left to the caller."""
    if await episode.begin(start) is None or not await episode.reset_policy(policy):
        return
    while episode.termination is None:
        decision = await episode.ask(policy)
        if decision is not None:
            await episode.step(decision.output, policy_ms=decision.policy_ms)


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

    The one episode loop: runs, evaluation and GRPO's rollouts all play through it (and
    the console steps the same :class:`~bridge.episode.Episode`), so termination, outcome
    and infra errors mean the same everywhere.

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
    settings = EpisodeSettings(step_timeout_s, policy_timeout_s, tree_xml)
    episode = Episode(
        env,
        task,
        episode_id=episode_id,
        policy=policy.name,
        writer=writer,
        settings=settings,
        guard=guard,
        backend=backend,
    )
    await _play(episode, policy, start)
    return await episode.end()


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
    episode = EpisodeSettings(step_timeout_s, policy_timeout_s, tree_xml)
    settings = _Settings(episode, on_episode_done)
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
        env = await guarded(job.make_env, "env", "make_env", settings.episode.step_timeout_s)
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
            step_timeout_s=settings.episode.step_timeout_s,
            policy_timeout_s=settings.episode.policy_timeout_s,
            tree_xml=settings.episode.tree_xml,
            backend=job.backend,
            guard=job.guard,
        )
    finally:
        await _close_env(env, settings.episode.step_timeout_s)


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
