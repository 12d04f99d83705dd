"""``SimEnv``: a simulated phone behind the bridge Env protocol (plus snapshot and fork).

Each step advances the instance's own clock (never the host's), carries the action out on
a borrowed page, waits for the page runtime to report idle, and observes. Snapshots are the
instance's JSON state plus the task being judged; a fork copies both, so a GRPO group starts
from exactly one state and then evolves independently.

Each app's overlay is checked against its typed model (:func:`sim.app.check_overlays`)
where state enters an instance (a task's start state, a restore, a fork) and where it leaves
(a snapshot): a bug in an app's writes fails loudly there, never costing a step.
"""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING, Any

from bridge.actuate import perform
from bridge.errors import EnvUsageError
from bridge.records import TaskInstance
from bridge.schema import (
    Action,
    AnswerAction,
    Observation,
    ObservedState,
    Screenshot,
    StepResult,
    StepTimings,
    Verdict,
    WaitAction,
)
from bridge.uitree import to_xml
from sim.actuate import SimActuator
from sim.app import check_overlays
from sim.apps.answersheet import pose_questions
from sim.observe import observe
from sim.skins import DEFAULT_SKIN, check_skin
from sim.state import InstanceState
from sim.tasks.episode import TaskEpisode

if TYPE_CHECKING:
    from sim.instance import Instance
    from sim.simulator import Simulator

__all__ = ["ACTION_MS", "SimEnv"]

ACTION_MS = 2_000
"""Simulated milliseconds one action takes (``wait`` takes its own duration)."""


class SimEnv:
    """A bridge ``ForkableEnv`` on one instance of a :class:`~sim.simulator.Simulator`."""

    def __init__(
        self,
        sim: Simulator,
        instance: Instance,
        *,
        screenshot: bool = True,
        answer_mode: str = "action",
        base: InstanceState | None = None,
        skin: str = DEFAULT_SKIN,
    ) -> None:
        """``base``: the phone every reset poses its task on (default: a factory-fresh one),
        e.g. a phone whose user has other contacts and settings. ``skin``: how that phone
        looks from the next reset on (:mod:`sim.skins`; a trainer may change :attr:`skin`
        between episodes)."""
        if answer_mode not in ("action", "sheet"):
            raise ValueError("answer_mode is 'action' (the answer action) or 'sheet'")
        self.sim = sim
        self.base = base
        self.skin = check_skin(skin)
        self.instance = instance
        self.with_screenshots = screenshot
        self.answer_mode = answer_mode
        self._last: Observation | None = None
        self._trees: list[str] = []
        """UI XML of every observation of the episode, kept when the spec judges them."""

    # ---- bridge.Env
    async def reset(self, task: TaskInstance) -> Observation:
        """Fresh state for ``task.seed``, the task's setup applied, on the home screen."""
        self.pose(task)
        return await self.observe()

    def pose(self, task: TaskInstance) -> None:
        """Set the instance up for ``task`` without rendering it (cheap: JSON only).

        A task without a spec (an older record read in this process, a host given only a
        task id and seed) is bound by the simulator's task registry first; the HTTP env API
        refuses a task object without its spec before it gets here."""
        self._check_open()
        if task.spec is None:
            task = self.sim.bind(task)
        state = self.fresh_state(task.seed)
        episode = TaskEpisode(task)
        episode.setup(self.sim.phone, state)
        self._trees = []
        if self.answer_mode == "sheet" and task.answer_fields:
            fields = [field.model_dump(exclude_none=True) for field in task.answer_fields]
            sheet = state.apps.setdefault("answersheet", {})
            pose_questions(sheet, task.instruction, fields)
        check_overlays(self.sim.phone.apps, state)  # the task's start state enters
        self.instance.state = state
        self.instance.episode = episode
        self.instance.changed()

    def start_state(self) -> ObservedState | None:
        """The observable state the task was posed in (``bridge.env.StartObserving``)."""
        episode = self.instance.episode
        return episode.start.observed if episode is not None else None

    def fresh_state(self, seed: int) -> InstanceState:
        """The state a reset starts from: a copy of ``base`` (or a factory-fresh phone), in
        this env's :attr:`skin`."""
        check_skin(self.skin)  # an attribute a trainer sets: a typo stops here
        state = InstanceState(seed=seed) if self.base is None else self.base.model_copy(deep=True)
        state.seed, state.os.skin = seed, self.skin
        return state

    async def step(self, action: Action) -> StepResult:
        """Carry out ``action`` on the observation the policy saw and observe the settled
        screen (:func:`bridge.actuate.perform` over this simulator's primitives)."""
        self._check_open()
        seen = self._last
        if seen is None:
            raise EnvUsageError("nothing observed yet: call reset(task) (or observe()) first")
        started = time.perf_counter()
        instance = self.instance
        async with instance.lock, self.sim.pool.page() as pooled:
            self._begin_step(action)
            world = SimActuator(pooled, instance, self.sim.config.profile)
            outcome = await perform(world, action, seen)  # touches show the page first
            if isinstance(action, AnswerAction) and instance.episode is not None:
                instance.episode.answer = dict(action.fields)
            acted = time.perf_counter()
            if self.with_screenshots:  # else the tree may be known without a layout
                await pooled.show(instance)
            settled = time.perf_counter()
            obs = await self._observe_on(pooled, outcome.error)
        done = time.perf_counter()
        self._last = obs
        timings = StepTimings(
            act_ms=(acted - started) * 1000,
            settle_ms=(settled - acted) * 1000,
            observe_ms=(done - settled) * 1000,
            total_ms=(done - started) * 1000,
        )
        route = instance.state.os.route
        notes = {**outcome.executed.notes, "route": route.path if route else "(home)"}
        return StepResult(
            observation=obs,
            executed=outcome.executed.model_copy(update={"notes": notes}),
            error=outcome.error,
            done=outcome.done,
            timings=timings,
        )

    async def verdict(self) -> Verdict:
        """Judge the task on the current state."""
        self._check_open()
        if self.instance.episode is None:
            raise EnvUsageError("no task to judge: call reset(task) first")
        return self.instance.episode.verdict(self.sim.phone, self.instance.state, self._trees)

    async def close(self) -> None:
        """Release the instance; idempotent."""
        self.sim.drop_instance(self.instance.id)

    async def __aenter__(self) -> SimEnv:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # ---- observation
    async def observe(self) -> Observation:
        """Observe the current screen without acting."""
        self._check_open()
        async with self.instance.lock, self.sim.pool.page() as pooled:
            self._last = await self._observe_on(pooled, None)
        return self._last

    async def screenshot(self) -> Screenshot:
        """The screen now, without reading the tree (``bridge.env.LiveScreen``)."""
        self._check_open()
        config = self.sim.config
        async with self.instance.lock, self.sim.pool.page() as pooled:
            await pooled.show(self.instance)
            data = await pooled.screenshot(config.image_format, config.jpeg_quality)
        profile = config.profile
        return Screenshot(
            format=config.image_format,
            width=profile.width_px,
            height=profile.height_px,
            data=data,
        )

    async def _observe_on(self, pooled: Any, error: str | None) -> Observation:
        config = self.sim.config
        obs = await observe(
            pooled,
            self.instance,
            config.profile,
            screenshot=self.with_screenshots,
            image_format=config.image_format,
            quality=config.jpeg_quality,
            last_action_error=error,
        )
        episode = self.instance.episode
        if episode is not None and episode.spec.needs_trees:
            self._trees.append(to_xml(obs.ui, rotation=0))
        return obs

    def _begin_step(self, action: Action) -> None:
        state = self.instance.state
        state.step += 1
        elapsed = action.seconds * 1000 if isinstance(action, WaitAction) else ACTION_MS
        state.os.clock_ms += int(elapsed)
        state.ui.toast = None
        self.instance.changed()

    def _check_open(self) -> None:
        if self.instance.closed:
            raise EnvUsageError(f"instance {self.instance.id} is closed: make a new env")

    # ---- snapshot and fork
    async def snapshot(self) -> bytes:
        """The instance state and the task being judged, as JSON bytes."""
        episode = self.instance.episode
        document = {
            "state": json.loads(self.instance.snapshot()),
            "episode": episode.document() if episode else None,
            "trees": self._trees,
        }
        return json.dumps(document, separators=(",", ":"), ensure_ascii=False).encode("utf-8")

    async def restore(self, snapshot: bytes) -> Observation:
        """Return to a snapshot's state (and task) and observe."""
        self._check_open()
        self._load(snapshot)
        return await self.observe()

    def _load(self, snapshot: bytes) -> None:
        document = json.loads(snapshot)
        state = InstanceState.model_validate(document["state"])
        check_overlays(self.sim.phone.apps, state)
        kept = document.get("episode")
        episode = None
        if kept is not None:
            episode = TaskEpisode.from_document(kept, self.sim.phone, self.fresh_state)
        self._trees = list(document.get("trees") or [])
        self.instance.state = state
        self.instance.episode = episode
        self.instance.changed()

    async def fork(self, n: int) -> list[SimEnv]:
        """``n`` envs on new instances identical to this one (state, route, scroll, focus)."""
        self._check_open()
        check_overlays(self.sim.phone.apps, self.instance.state)  # every child copies it
        forks = []
        for child in self.sim.fork_instance(self.instance, n):
            episode = self.instance.episode
            child.episode = episode.copy() if episode is not None else None
            env = SimEnv(
                self.sim,
                child,
                screenshot=self.with_screenshots,
                answer_mode=self.answer_mode,
                base=self.base,
                skin=self.skin,
            )
            env._last = self._last
            env._trees = list(self._trees)
            forks.append(env)
        return forks
