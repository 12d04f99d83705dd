"""One console session: an env, a policy, a run directory, and a person who decides.

The person works step by step on *frozen* observations: the screenshot and UI tree of one
instant, the one the policy decides on. :meth:`ConsoleSession.propose` asks the policy and
keeps its proposal with where it would land (:func:`bridge.actuate.placement`) and what the
guard thinks of it; :meth:`approve` executes it; :meth:`override` executes the person's
action instead; :meth:`run` approves on the person's behalf until :meth:`pause`, a
breakpoint, the guard, or the end of the episode. Every executed step is recorded in the
standard trajectory layout with who decided (``StepRecord.decided_by``), so ``mgb replay``,
the episode pages and ``replay:RUN/EPISODE`` read a console run like any other.

Decisions:
    * One operation at a time (an ``asyncio.Lock``); a second one while a step runs is a
      :class:`ConsoleBusy`, which the page shows, never a queue of clicks on a moving
      screen.
    * An episode is the runner's stepwise :class:`bridge.episode.Episode`: the console
      decides who acts, the episode executes, records and ends the step, so termination,
      outcomes, infra errors, records and putting a phone back are the runner's. It ends
      when an action ends it (``finish``, ``answer``, or a result that says ``done``), at
      ``max_steps``, by :meth:`finish`, by an infrastructure failure of the env or the
      policy (``infra_error``; the error is raised to the page after the episode is
      committed), or by :meth:`reset` and :meth:`close` (``stopped``, with the reason);
      it is then judged and committed. An episode stopped without steps is dropped, not
      committed (the phone is still put back).
    * The guard does not end a console episode as it ends a run's: a person is there, so
      it is not given to the episode; it marks a proposal and makes :meth:`run` pause.
    * Overriding a proposal, or re-asking after the instruction was edited, does not undo
      what the policy remembers of its proposal: the console shows the policy's mind, it
      does not edit it. Editing the instruction resets the policy with the new one.
    * On a real phone the console starts in step mode and :meth:`run` pauses before any
      action the guard marks as consequential, and after any step that leaves the apps the
      run may use.
    * With ``human`` (``--policy human``) the person is the policy: there is nothing to
      propose or run, every step is theirs (``decided_by`` ``human``) and the episodes'
      policy is ``human``, so a person's attempts are a baseline like any policy's. Without
      a policy and without ``human`` the person drives too, recorded as overrides of no
      proposal by ``person``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Literal, NoReturn

from pydantic import BaseModel, ConfigDict, Field

from bridge.actuate import placement
from bridge.env import Env, LiveScreen
from bridge.episode import DecidedBy, Episode, EpisodeSettings
from bridge.errors import BridgeError, CoordinateError, TargetError
from bridge.guard import ActionGuard, GuardStop
from bridge.policy import Policy
from bridge.records import EpisodeRecord, StepRecord, TaskInstance
from bridge.schema import Action, FinishAction, Observation, PolicyOutput, StepResult, Verdict
from bridge.trajectory import RunStore
from transfer_eval.errors import ConsoleBusy, ConsoleError

__all__ = [
    "Breakpoints",
    "ConsoleSession",
    "DecidedBy",
    "Proposal",
]

_log = logging.getLogger(__name__)


class Breakpoints(BaseModel):
    """When :meth:`ConsoleSession.run` stops to ask: an action kind, a change of app, a step.

    ``kinds`` are action types (``type``, ``open_app``); ``app_change`` stops after a step
    that changed the foreground app; ``at_step`` stops before that step number.
    """

    model_config = ConfigDict(extra="forbid")

    kinds: list[str] = Field(default_factory=list)
    app_change: bool = False
    at_step: int | None = Field(default=None, ge=0)

    def before(self, action: Action, step: int) -> str | None:
        """Why to stop before ``action`` as step ``step`` (None: go on)."""
        if action.type in self.kinds:
            return f"breakpoint: the policy proposes {action.type!r}"
        if self.at_step is not None and step == self.at_step:
            return f"breakpoint: step {step}"
        return None

    def after(self, seen: Observation, now: Observation) -> str | None:
        """Why to stop after a step that went from ``seen`` to ``now`` (None: go on)."""
        before, after = seen.foreground.package, now.foreground.package
        if self.app_change and before != after:
            return f"breakpoint: the app changed from {before} to {after}"
        return None


@dataclass(frozen=True)
class Proposal:
    """What the policy proposed on the frozen observation, before anything runs."""

    output: PolicyOutput
    step: int
    policy_ms: float
    point_px: tuple[int, int] | None = None
    end_px: tuple[int, int] | None = None
    element: int | None = None
    problem: str | None = None
    """Why it cannot run as proposed (an element not on screen), as the step would say."""
    guard: GuardStop | None = None


class ConsoleSession:
    """An env, a policy and a run directory, operated by a person (see the module doc)."""

    def __init__(
        self,
        env: Env,
        task: TaskInstance,
        store: RunStore,
        *,
        make_policy: Callable[[], Policy] | None,
        episode_prefix: str,
        guard: ActionGuard | None = None,
        attended: bool = False,
        tree_xml: Callable[[Observation], str | None] | None = None,
        judged: bool = True,
        human: bool = False,
    ) -> None:
        """``attended``: a real phone (step mode only until the person switches; the guard
        prompts); ``judged``: the task has checks worth showing (not a free console);
        ``human``: the person is the policy (no ``make_policy``; see the module doc)."""
        if human and make_policy is not None:
            raise ValueError("a console where the person is the policy has no other policy")
        self.env = env
        self.task = task
        self.store = store
        self.guard = guard
        self.attended = attended
        self.judged = judged
        self.human = human
        self.breakpoints = Breakpoints()
        self.instruction = task.instruction
        self.mode: Literal["step", "run"] = "step"
        self.frozen: Observation | None = None
        self.frozen_at = 0.0
        self.proposal: Proposal | None = None
        self.last: StepRecord | None = None
        self.verdict: Verdict | None = None
        self.ended: EpisodeRecord | None = None
        self.notice: str | None = None
        """Why the console stopped to ask (guard, breakpoint, end of episode)."""
        self.history: list[StepRecord] = []
        self.version = 0
        self._make_policy = make_policy
        self._policy: Policy | None = None
        self._prefix = episode_prefix
        self._settings = EpisodeSettings(tree_xml=tree_xml)
        self._episode: Episode | None = None
        self._lock = asyncio.Lock()
        self._changed = asyncio.Condition()
        self._released = False
        self.polls = 0
        """How many long polls wait for a change now."""
        self._runner: asyncio.Task[None] | None = None
        self.busy: str | None = None

    # ---- observing the session
    @property
    def policy_name(self) -> str | None:
        """The policy's spec (``human`` when the person is the policy), or None when the
        person drives alone."""
        if self._policy is not None:
            return self._policy.name
        return "human" if self.human else None

    @property
    def proposes(self) -> bool:
        """Whether there is a policy to ask (Step, Approve and Run apply)."""
        return self._policy is not None

    @property
    def _person(self) -> DecidedBy:
        """How a person's own step is recorded: ``human``, or an ``override``."""
        return "human" if self.human else "override"

    @property
    def episode_id(self) -> str | None:
        """The id of the episode being recorded (None between episodes)."""
        return self._episode.episode_id if self._episode else None

    @property
    def live(self) -> LiveScreen | None:
        """The env's live screen, when it has one."""
        return self.env if isinstance(self.env, LiveScreen) else None

    async def wait_changed(self, after: int, timeout_s: float) -> int:
        """Wait until the session's version passes ``after`` (or the timeout, or
        :meth:`release_waiters`); returns it."""
        async with self._changed:
            self.polls += 1
            try:
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(
                        self._changed.wait_for(lambda: self.version > after or self._released),
                        timeout_s,
                    )
            finally:
                self.polls -= 1
            return self.version

    async def release_waiters(self) -> None:
        """Answer every long poll now and from now on: the server is stopping, and it waits
        for the requests in flight (a poll would otherwise hold the shutdown for 20 s)."""
        async with self._changed:
            self._released = True
            self._changed.notify_all()

    async def _touch(self) -> None:
        async with self._changed:
            self.version += 1
            self._changed.notify_all()

    # ---- lifecycle
    async def start(self) -> None:
        """Pose the task and begin the first episode."""
        async with self._operation("starting"):
            await self._begin()

    async def close(self) -> None:
        """Stop a run, commit an episode with steps (``stopped``), close the env."""
        await self.pause()
        async with self._lock:
            if self._episode is not None:
                await self._stop("the console was closed")
        await self.env.close()

    # ---- the person's operations
    async def propose(self) -> Proposal:
        """Ask the policy for its next action on the frozen observation (kept until it is
        executed or replaced); returns the proposal."""
        async with self._operation("asking the policy"):
            return await self._propose()

    async def approve(self) -> StepRecord:
        """Execute the pending proposal (ask for one first if there is none)."""
        async with self._operation("executing the proposal"):
            proposal = self.proposal or await self._propose()
            if proposal.output.action is None:
                raise ConsoleError(
                    f"the policy's output has no action ({proposal.output.error}); "
                    "ask again, edit the instruction, or give the action yourself"
                )
            return await self._execute(proposal.output, "approved", proposal)

    async def override(self, action: Action, note: str | None = None) -> StepRecord:
        """Execute ``action`` instead of what the policy proposed (recorded as a
        correction, with the proposal it replaced)."""
        async with self._operation("executing your action"):
            output = PolicyOutput(action=action, thought=note or "given by a person")
            return await self._execute(output, self._person, self.proposal)

    async def set_instruction(self, instruction: str) -> Proposal | None:
        """Replace the instruction the policy follows (the task's checks stay), reset the
        policy with it and ask again."""
        text = instruction.strip()
        if not text:
            raise ConsoleError("the instruction is empty; type what the policy should do")
        async with self._operation("asking the policy"):
            self.instruction = text
            if self._policy is None:
                return None
            self._check_running()
            await self._reset_policy()
            return await self._propose()

    async def finish(self) -> EpisodeRecord:
        """End the episode now with ``finish`` (the person's decision unless the policy
        proposed it), judged and committed."""
        async with self._operation("finishing"):
            self._check_running()
            proposal = self.proposal
            if proposal is not None and isinstance(proposal.output.action, FinishAction):
                await self._execute(proposal.output, "approved", proposal)
            else:
                output = PolicyOutput(action=FinishAction(), thought="finished by a person")
                await self._execute(output, self._person, proposal)
            assert self.ended is not None
            return self.ended

    async def reset(self) -> None:
        """End the episode (``stopped``, when it has steps), pose the task again, begin a
        new episode."""
        await self.pause()
        async with self._operation("resetting"):
            if self._episode is not None:
                await self._stop(f"reset by a person after {self._episode.steps} steps")
            await self._begin()

    async def set_mode(self, mode: Literal["step", "run"]) -> None:
        """Switch between step mode and auto-approving (``run``)."""
        if mode == "run":
            await self.run()
        else:
            await self.pause()

    async def run(self) -> None:
        """Approve the policy's actions until paused, a breakpoint, the guard, or the end."""
        if self._policy is None:
            raise ConsoleError(self._no_policy("to run"))
        if self._runner is not None and not self._runner.done():
            return
        self._check_running()
        self.mode, self.notice = "run", None
        self._runner = asyncio.create_task(self._run_loop())
        await self._touch()

    async def pause(self) -> None:
        """Stop auto-approving after the step in progress (if any)."""
        self.mode = "step"
        runner, self._runner = self._runner, None
        if runner is not None and not runner.done():
            await asyncio.wait([runner])
        await self._touch()

    async def set_breakpoints(self, breakpoints: Breakpoints) -> None:
        """Replace the breakpoints :meth:`run` stops at."""
        self.breakpoints = breakpoints
        await self._touch()

    # ---- internals
    @contextlib.asynccontextmanager
    async def _operation(self, what: str) -> AsyncIterator[None]:
        if self._lock.locked():
            raise ConsoleBusy(f"the console is busy ({self.busy or 'working'}); wait or pause")
        async with self._lock:
            self.busy = what
            await self._touch()
            try:
                yield
            finally:
                self.busy = None
                await self._touch()

    def _no_policy(self, what: str) -> str:
        if self.human:
            return (
                f"no policy {what}: with --policy human you decide every step; act on the "
                "frame or with the override controls"
            )
        return f"no policy {what}: start the console with --policy SPEC, or act yourself"

    def _check_running(self) -> None:
        if self._episode is None:
            raise ConsoleError("the episode is over; press Reset to start the task again")

    async def _run_loop(self) -> None:
        try:
            while self.mode == "run":
                async with self._operation("running"):
                    stop = await self._auto_step()
                if stop is not None:
                    self.notice = stop
                    break
        except BridgeError as exc:
            self.notice = f"error: {exc}"
        except Exception as exc:  # a bug: on the page and in the log with its traceback
            self.notice = f"error: a bug stopped the run: {exc!r} (see the console's log)"
            _log.exception("the console's run loop crashed")
            raise
        finally:
            self.mode = "step"
            await self._touch()

    async def _auto_step(self) -> str | None:
        """One step of :meth:`run`: why it stopped, or None to go on."""
        if self._episode is None:
            return "the episode is over"
        proposal = self.proposal or await self._propose()
        action = proposal.output.action
        if action is None:
            return f"the policy's output has no action: {proposal.output.error}"
        stop = self.breakpoints.before(action, self._episode.steps)
        if stop is None and proposal.guard is not None:
            stop = f"guard: {proposal.guard.reason}"
        if stop is not None:
            return stop
        seen = self.frozen
        record = await self._execute(proposal.output, "policy", proposal)
        if self.ended is not None:
            return None
        assert seen is not None and record.result is not None
        return self.notice or self.breakpoints.after(seen, record.result.observation)

    async def _reset_policy(self) -> None:
        assert self._policy is not None and self._episode is not None
        if not await self._episode.reset_policy(self._policy, self.instruction):
            await self._failed()

    async def _begin(self) -> None:
        self.proposal, self.last, self.verdict, self.ended = None, None, None, None
        self.history, self.notice = [], None
        self._policy = self._make_policy() if self._make_policy is not None else None
        episode_id = self._next_episode_id()
        writer = self.store.begin_episode(episode_id)
        episode = Episode(
            self.env,
            self.task,
            episode_id=episode_id,
            policy=self.policy_name or "person",
            writer=writer,
            settings=self._settings,
        )
        try:
            observation = await episode.begin()
        except BaseException:
            writer.close()  # a bug or misuse: nothing was recorded, the id stays free
            raise
        self._episode = episode
        if observation is None:
            await self._failed()
        self._freeze(observation)
        if self._policy is not None:
            await self._reset_policy()
        if self.judged:
            self.verdict = await self.env.verdict()

    def _next_episode_id(self) -> str:
        taken = set(self.store.completed())
        attempt = 1
        while f"{self._prefix}_a{attempt}" in taken:
            attempt += 1
        return f"{self._prefix}_a{attempt}"

    def _freeze(self, observation: Observation) -> None:
        self.frozen = observation
        self.frozen_at = time.time()

    async def _propose(self) -> Proposal:
        self._check_running()
        if self._policy is None:
            raise ConsoleError(self._no_policy("to ask"))
        episode = self._episode
        assert episode is not None and episode.observation is not None
        seen = episode.observation
        decision = await episode.ask(self._policy)
        if decision is None:
            await self._failed()
        output, policy_ms = decision.output, decision.policy_ms
        self.proposal = _placed(output, episode.steps, policy_ms, seen, self.guard)
        return self.proposal

    async def _execute(
        self, output: PolicyOutput, decided_by: DecidedBy, proposal: Proposal | None
    ) -> StepRecord:
        self._check_running()
        episode = self._episode
        assert episode is not None and output.action is not None
        stepped = await episode.step(
            output,
            policy_ms=proposal.policy_ms if proposal and decided_by != "override" else 0.0,
            decided_by=decided_by,
            proposal=proposal.output if proposal and decided_by == "override" else None,
        )
        record = stepped.record
        assert episode.observation is not None
        self._freeze(episode.observation)
        self.proposal, self.last = None, record
        self.history.append(record)
        if episode.failure is not None:
            await self._failed()
        assert record.result is not None  # no guard in a console episode stops before a step
        self.notice = self._after(record.result)
        if stepped.termination is not None:
            await self._end()  # its verdict is the one shown
        elif self.judged:
            self.verdict = await self.env.verdict()
        return record

    def _after(self, result: StepResult) -> str | None:
        if self.guard is None:
            return None
        stop = self.guard.after(result.observation)
        return f"guard: {stop.reason}" if stop is not None else None

    async def _stop(self, reason: str) -> None:
        """End the episode as ``stopped`` (a person's reset, the console closing); one
        without steps is dropped and its id reused."""
        episode = self._episode
        assert episode is not None
        if episode.steps == 0:
            self._episode = None
            await episode.abandon()
            if episode.writer is not None:
                episode.writer.close()
            return
        episode.stop(reason)
        await self._end()

    async def _failed(self) -> NoReturn:
        """Commit the episode an infrastructure failure ended, then raise that failure."""
        episode = self._episode
        assert episode is not None and episode.failure is not None
        await self._end()
        raise episode.failure.error

    async def _end(self) -> None:
        """Judge, put back and commit the ended episode (the runner's way)."""
        episode, self._episode = self._episode, None
        assert episode is not None
        episode.task = self.task.model_copy(update={"instruction": self.instruction})
        record = await episode.end(commit=True)
        self.verdict, self.ended, self.proposal = record.verdict, record, None
        ending = f"episode over: {record.outcome} ({record.termination})"
        if record.error:
            ending = f"{ending}: {record.error}"
        self.notice = f"{self.notice}; {ending}" if self.notice else ending


def _placed(
    output: PolicyOutput,
    step: int,
    policy_ms: float,
    seen: Observation,
    guard: ActionGuard | None,
) -> Proposal:
    """A proposal with where its action lands on ``seen`` and the guard's opinion."""
    action = output.action
    if action is None:
        return Proposal(output, step, policy_ms)
    try:
        where = placement(action, seen)
    except (TargetError, CoordinateError) as exc:
        return Proposal(output, step, policy_ms, problem=str(exc))
    return Proposal(
        output,
        step,
        policy_ms,
        point_px=(where.point.x, where.point.y) if where.point else None,
        end_px=(where.end.x, where.end.y) if where.end else None,
        element=where.node.id if where.node else None,
        guard=guard.before(action, seen) if guard is not None else None,
    )
