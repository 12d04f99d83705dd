"""One episode, step by step: the object every episode loop drives.

An :class:`Episode` is one task played in one env, a step at a time, whoever decides the
actions. :func:`bridge.runner.run_episode` asks a policy at every step; the console
(``transfer_eval.console``) asks a policy for a proposal and lets a person approve or
override it. Either way this object resets the env, records each step, decides when the
episode is over, asks the env for its verdict, puts a phone back and builds the
:class:`~bridge.records.EpisodeRecord`, so termination, outcome and infra errors mean the
same everywhere::

    episode = Episode(env, task, episode_id="e1", policy=policy.name, writer=writer)
    if await episode.begin() is not None and await episode.reset_policy(policy):
        while episode.termination is None:
            decision = await episode.ask(policy)
            if decision is not None:
                await episode.step(decision.output, policy_ms=decision.policy_ms)
    record = await episode.end()

Decisions (:mod:`bridge.runner` explains the failure rules at length):
    * The one termination rule, checked after every step: an ``answer`` action ends the
      episode as ``answer``; a ``finish`` action, or a result that says ``done``, as
      ``finish``; an action or screen the guard stops, as ``guard``; ``task.max_steps``
      steps (invalid ones included), as ``max_steps``. Outside a step, :meth:`Episode.stop`
      (a person) ends it as ``stopped``, and an infrastructure failure of any env or policy
      call as ``infra_error``.
    * An output without an action is an invalid step: recorded, counted, the env not
      called; the next observation is the same one with ``step + 1`` and
      ``last_action_error`` set.
    * Infrastructure failures (:func:`bridge.failures.guarded`) never raise out of these
      methods: the call returns None or False (a step returns its record), the episode is
      over as ``infra_error``, and :meth:`Episode.end` records it. Misuse and bugs propagate.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import partial
from typing import Literal, TypeVar

from bridge.env import Env, RestoringEnv, StartObserving
from bridge.errors import EnvUsageError, InfraFailure
from bridge.failures import FailureSource, guarded
from bridge.guard import ActionGuard
from bridge.outcome import Termination, episode_outcome
from bridge.outcome import classify as classify_outcome
from bridge.policy import Policy
from bridge.records import EpisodeRecord, StepRecord, TaskInstance
from bridge.schema import (
    Action,
    AnswerAction,
    BackendInfo,
    FinishAction,
    Observation,
    ObservedState,
    PolicyContext,
    PolicyOutput,
    Restoration,
    StepResult,
    Verdict,
)
from bridge.trajectory import EpisodeWriter

__all__ = ["DecidedBy", "Decision", "Episode", "EpisodeSettings", "Stepped", "TreeXml"]

TreeXml = Callable[[Observation], str | None]
"""Turns an observation into the UI tree XML saved for its step (e.g. ``bridge.uitree``)."""

DecidedBy = Literal["policy", "approved", "override", "human"]
"""Who chose a console step (``StepRecord.decided_by``); None outside the console."""

_T = TypeVar("_T")


@dataclass(frozen=True)
class EpisodeSettings:
    """The budgets of an episode's calls and what is saved with each step."""

    step_timeout_s: float = 120.0
    """Budget of each env call (reset, step, verdict, put back)."""
    policy_timeout_s: float | None = None
    """Budget of each policy call; None waits as long as it takes."""
    tree_xml: TreeXml | None = None
    """Makes the UI tree XML saved for each step; None saves none."""


@dataclass(frozen=True)
class Decision:
    """A policy's output on the episode's observation, and how long it took."""

    output: PolicyOutput
    policy_ms: float


@dataclass(frozen=True)
class Stepped:
    """One step as recorded, and why the episode ended with it (None: it goes on)."""

    record: StepRecord
    termination: Termination | None


class Episode:
    """One task in one env, played a step at a time (see the module doc).

    Attributes:
        observation: What the next action is decided on (None before :meth:`begin`).
        termination: Why the episode is over; None while it goes on.
        steps: Steps taken, invalid ones included.
        task: The task; its ``instruction`` is what the record says was asked (the console
            replaces it when a person edits the instruction).
    """

    def __init__(
        self,
        env: Env,
        task: TaskInstance,
        *,
        episode_id: str,
        policy: str,
        writer: EpisodeWriter | None = None,
        settings: EpisodeSettings | None = None,
        guard: ActionGuard | None = None,
        backend: BackendInfo | None = None,
    ) -> None:
        """``policy`` is the name recorded; ``writer`` records each step (and the record,
        with ``end(commit=True)``); ``guard`` ends the episode at what it stops;
        ``backend`` is recorded if the env fails before its first observation."""
        self.env = env
        self.task = task
        self.episode_id = episode_id
        self.policy = policy
        self.writer = writer
        self.settings = settings or EpisodeSettings()
        self.guard = guard
        self.backend = backend
        self.observation: Observation | None = None
        self.termination: Termination | None = None
        self.steps = 0
        self.invalid = 0
        self.final_action: Action | None = None
        self.stop_reason: str | None = None
        self.failure: InfraFailure | None = None
        self.start_state: ObservedState | None = None
        self.restoration: Restoration | None = None
        self._started = time.perf_counter()
        self._ended = False

    async def begin(self, start: Observation | None = None) -> Observation | None:
        """Reset the env for the task and return the first observation (None: the env
        failed, and the episode is over as ``infra_error``).

        ``start`` is the observation of an env already set up for the task (a fork of one
        reset to it): the episode plays from there, with no reset.
        """
        if start is None:
            reset = partial(self.env.reset, self.task)
            try:
                start = await self._env_call(reset, "env.reset", Observation)
            except InfraFailure as failure:
                self._fail(failure)
                return None
            if isinstance(self.env, StartObserving):
                self.start_state = self.env.start_state()
        self.observation, self.backend = start, start.backend
        return start

    async def reset_policy(self, policy: Policy, instruction: str | None = None) -> bool:
        """Reset ``policy`` for the task (with ``instruction`` instead of the task's, when
        given); False when the policy failed and the episode is over."""
        observation = self._running()
        context = PolicyContext.for_task(self.task, observation.backend)
        reset = partial(policy.reset, instruction or self.task.instruction, context)
        try:
            await _expect_call(
                reset, "policy", self.settings.policy_timeout_s, "policy.reset", object
            )
        except InfraFailure as failure:
            self._fail(failure)
            return False
        return True

    async def ask(self, policy: Policy) -> Decision | None:
        """What ``policy`` decides on :attr:`observation` (None: the policy failed, and the
        episode is over)."""
        act = partial(policy.act, self._running())
        started = time.perf_counter()
        try:
            output = await _expect_call(
                act, "policy", self.settings.policy_timeout_s, "policy.act", PolicyOutput
            )
        except InfraFailure as failure:
            self._fail(failure)
            return None
        return Decision(output, (time.perf_counter() - started) * 1000.0)

    async def step(
        self,
        output: PolicyOutput,
        *,
        policy_ms: float = 0.0,
        decided_by: DecidedBy | None = None,
        proposal: PolicyOutput | None = None,
    ) -> Stepped:
        """Execute ``output``'s action (a policy's, or one a person decided), record the
        step, and say whether the episode ended with it.

        ``decided_by`` and ``proposal`` are recorded as given (the console's; see
        :class:`~bridge.records.StepRecord`). A step whose ``env.step`` failed is recorded
        without a result and ends the episode as ``infra_error``.
        """
        observation = self._running()
        action = output.action
        record = StepRecord(
            step=self.steps,
            observation=observation,
            output=output,
            invalid=action is None,
            policy_ms=policy_ms,
            decided_by=decided_by,
            proposal=proposal,
        )
        if action is None:
            self.invalid += 1
            self.observation = _after_invalid(observation, output)
            return await self._recorded(record, None)
        self.final_action = action
        if self.guard is not None and (stop := self.guard.before(action, observation)) is not None:
            self.stop_reason = stop.reason
            return await self._recorded(record, "guard")
        try:
            result = await self._env_call(partial(self.env.step, action), "env.step", StepResult)
        except InfraFailure as failure:
            self._fail(failure)
            return await self._recorded(record, "infra_error")
        record = record.model_copy(update={"result": result})
        self.observation = result.observation
        if self.guard is not None and (stop := self.guard.after(result.observation)) is not None:
            self.stop_reason = stop.reason
            return await self._recorded(record, "guard")
        return await self._recorded(record, _termination(action, result))

    def stop(self, reason: str) -> None:
        """End the episode as ``stopped`` for ``reason`` (a person's decision)."""
        self._running()
        self.termination, self.stop_reason = "stopped", reason

    async def end(self, *, commit: bool = False) -> EpisodeRecord:
        """Judge the ended episode (the env's verdict), put a phone back, and return its
        record; with ``commit``, also write it with the writer (``episode.json`` and
        ``results.jsonl``); else that is left to the writer's owner."""
        if self.termination is None or self._ended:
            state = "has already ended" if self._ended else "is still running; step or stop it"
            raise EnvUsageError(f"episode {self.episode_id!r} {state}")
        self._ended = True
        verdict: Verdict | None = None
        if self.failure is None:
            try:
                verdict = await self._env_call(self.env.verdict, "env.verdict", Verdict)
            except InfraFailure as failure:
                self._fail(failure)
        await self._put_back()
        record = self._record(verdict)
        if commit and self.writer is not None:
            await asyncio.to_thread(self.writer.finish, record)
        return record

    async def abandon(self) -> None:
        """End an episode that will have no record (a person reset it before its first
        step): only the phone is put back."""
        self._ended = True
        self.termination = self.termination or "stopped"
        await self._put_back()

    # ---- internals
    def _running(self) -> Observation:
        if self.observation is None:
            raise EnvUsageError(f"episode {self.episode_id!r} has not begun: call begin()")
        if self.termination is not None:
            raise EnvUsageError(f"episode {self.episode_id!r} is over ({self.termination})")
        return self.observation

    def _fail(self, failure: InfraFailure) -> None:
        self.failure, self.termination = failure, "infra_error"

    async def _env_call(
        self, call: Callable[[], Awaitable[object]], what: str, returns: type[_T]
    ) -> _T:
        return await _expect_call(call, "env", self.settings.step_timeout_s, what, returns)

    async def _recorded(self, record: StepRecord, termination: Termination | None) -> Stepped:
        self.steps += 1
        if self.writer is not None:
            await asyncio.to_thread(_persist, self.writer, record, self.settings.tree_xml)
        if termination is None and self.steps >= self.task.max_steps:
            termination = "max_steps"
        self.termination = termination
        return Stepped(record, termination)

    async def _put_back(self) -> None:
        """Let a world that outlives its episodes undo this one (:class:`RestoringEnv`); a
        failure is recorded as not restored (the verdict stands) and the next pose, which
        checks the phone, names what was left."""
        if not isinstance(self.env, RestoringEnv):
            return
        try:
            self.restoration = await self._env_call(self.env.put_back, "env.put_back", Restoration)
        except InfraFailure as failure:
            self.restoration = Restoration(not_restored=[f"putting the phone back: {failure}"])

    def _record(self, verdict: Verdict | None) -> EpisodeRecord:
        failure = self.failure
        ended: Termination = self.termination or "infra_error"
        ending = classify_outcome(ended, verdict, self.final_action)  # bridge.outcome's rule
        return EpisodeRecord(
            episode_id=self.episode_id,
            task=self.task,
            policy=self.policy,
            backend=self.backend,
            outcome=episode_outcome(ending),
            outcome_class=ending,
            termination=ended,
            verdict=verdict,
            steps=self.steps,
            invalid_steps=self.invalid,
            final_action=self.final_action,
            error=str(failure) if failure else None,
            error_source=failure.source if failure else None,
            duration_s=time.perf_counter() - self._started,
            stop_reason=self.stop_reason if not failure else None,
            start_state=self.start_state,
            restoration=self.restoration,
        )


async def _expect_call(
    call: Callable[[], Awaitable[object]],
    source: FailureSource,
    timeout_s: float | None,
    what: str,
    returns: type[_T],
) -> _T:
    value = await guarded(call, source, what, timeout_s)
    if not isinstance(value, returns):  # a bug of the env or policy, not its infrastructure
        raise TypeError(f"{what} returned {type(value).__name__}, not {returns.__name__}")
    return value


def _persist(writer: EpisodeWriter, record: StepRecord, tree_xml: TreeXml | None) -> None:
    xml = tree_xml(record.observation) if tree_xml is not None else None
    writer.write_step(record, record.observation.screenshot, xml)


def _after_invalid(obs: Observation, out: PolicyOutput) -> Observation:
    error = f"invalid policy output: {out.error}"
    return obs.model_copy(update={"step": obs.step + 1, "last_action_error": error})


def _termination(action: Action, result: StepResult) -> Termination | None:
    if isinstance(action, AnswerAction):
        return "answer"
    if isinstance(action, FinishAction) or result.done:
        return "finish"
    return None
