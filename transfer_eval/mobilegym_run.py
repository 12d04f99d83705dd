"""Running episodes in a MobileGym build into a run directory (what ``mgb mobilegym run``
does): our task templates, or MobileGym's own tasks from the user's checkout.

The same run format as ``mgb sim run`` and ``mgb device run`` (:mod:`bridge.trajectory`:
frames, trees, steps, verdicts, an ``index.html``), so ``mgb replay`` and the reports read it
(:func:`transfer_eval.grid_run.record_grid`). The manifest's versions name the build
(``mobilegym-build``, a hash of its ``index.html``).

**Our templates** (:class:`MobileGymRunConfig`): every task is checked before the run starts;
one MobileGym cannot pose (:func:`mobilegym.poseable.mobilegym_refusal`) is refused with its
reason, rather than recorded as N failed episodes.

**Their tasks** (:class:`NativeRunConfig`): posed by their setup and judged by their judge
(:class:`~mobilegym.native_env.NativeEnv`); the manifest's versions also name their harness
(``mobilegym-commit`` and where it was read, their version axes), and a resume under another
commit or build is refused, since their judge may have changed. Their setup samples a task's
parameters from the phone's state, so an episode's task is what was sampled on its own phone:
each episode is an :class:`~bridge.episode.Episode` whose task is replaced by the sampled one
once the phone is posed (a record whose posing failed keeps the unfilled instruction).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path
from typing import Literal

from pydantic import field_validator

from bridge.env import Env
from bridge.episode import Episode, EpisodeSettings
from bridge.errors import InfraFailure, TrajectoryError
from bridge.failures import guarded
from bridge.policy import Policy
from bridge.records import EpisodeRecord, TaskInstance
from bridge.runner import gather_or_cancel
from bridge.trajectory import EpisodeWriter, RunStore
from mobilegym.native import EvalMode, NativeTasks
from mobilegym.native_env import NativeEnv, unposed_instance
from mobilegym.poseable import mobilegym_refusal
from mobilegym.source import parse_source
from mobilegym.world import MobileGym
from policies.errors import PolicySpecError
from policies.registry import load, parse_spec
from sim.tasks.registry import TaskRegistry, default_registry
from transfer_eval.grid_run import Done, GridRun, play_jobs, record_grid
from transfer_eval.jobs import episode_id, grid_jobs
from transfer_eval.policy_factory import tree_xml

__all__ = [
    "MobileGymRunConfig",
    "NativeRunConfig",
    "check_native",
    "native_versions",
    "not_poseable",
    "run_mobilegym",
    "run_native",
]

_log = logging.getLogger(__name__)

_EVAL_MODES: dict[str, EvalMode] = {"action": "text", "sheet": "grounded"}
"""``--answer-mode`` as their judge takes it: our answer action as their ``ANSWER`` text, or
their AnswerSheet app filled in on the screen."""


class MobileGymRunConfig(GridRun):
    """What to run: tasks x seeds x languages with one policy in a MobileGym build."""

    build: str
    """``mobilegym:URL`` or ``mobilegym:PATH`` (the prefix may be left out)."""


class NativeRunConfig(MobileGymRunConfig):
    """What to run of MobileGym's own tasks (``tasks`` are their ids, ``clock.ToggleAlarm``)
    from the checkout at ``checkout``, in a MobileGym build."""

    checkout: Path
    """The root of the user's MobileGym checkout (the folder holding ``bench_env/``), made
    absolute, so a resume from another folder names the same one."""
    answer_mode: Literal["action", "sheet"] = "action"
    """How an answer reaches their judge: our answer action (their ``text`` mode) or their
    AnswerSheet app, filled in on the screen (their ``grounded`` mode)."""

    @field_validator("checkout")
    @classmethod
    def _absolute(cls, checkout: Path) -> Path:
        return checkout.expanduser().resolve()

    def eval_mode(self) -> EvalMode:
        """Their judge's name for :attr:`answer_mode`."""
        return _EVAL_MODES[self.answer_mode]


def not_poseable(
    registry: TaskRegistry, episodes: Iterable[tuple[str, int, str]]
) -> dict[tuple[str, int, str], str]:
    """Each ``(task id, seed, lang)`` MobileGym cannot pose, and why (a template may pose
    with one seed and not another: a ringer set to vibrate, an alarm's days)."""
    refused = {}
    for task_id, seed, lang in episodes:
        spec = registry.instantiate(task_id, seed, lang).spec
        reason = "it carries no spec" if spec is None else mobilegym_refusal(spec)
        if reason is not None:
            refused[(task_id, seed, lang)] = reason
    return refused


async def run_mobilegym(
    config: MobileGymRunConfig, on_done: Callable[[EpisodeRecord], None] | None = None
) -> list[EpisodeRecord]:
    """Run every (task, seed, lang) episode of our templates in the build, resuming a run
    directory.

    Raises:
        mobilegym.errors.MobileGymSourceError: the build is not there (before any work).
        policies.registry.PolicySpecError: the policy spec is malformed.
        RunLocked: another process writes ``config.out`` (nothing is written).
        InfraErrorsInARow: the same infra error ended too many episodes in a row.
    """
    source = parse_source(config.build)
    registry = default_registry()

    async def play(store: RunStore, done: Done) -> list[EpisodeRecord]:
        async with MobileGym(source) as gym:

            async def make_env() -> Env:
                return await gym.env(step_timeout_s=config.step_timeout_s)

            jobs = grid_jobs(config, registry, config.policy, make_env)
            return await play_jobs(config, jobs, store, done)

    return await record_grid(config, {"mobilegym-build": source.build_id()}, play, on_done)


# --------------------------------------------------------------------------- their tasks


def check_native(config: NativeRunConfig) -> NativeTasks:
    """Their tasks from ``config.checkout``, every task and language of the grid checked
    and the policy one that can play them; nothing is started.

    Raises:
        MobileGymSourceError: the checkout has no usable ``bench_env`` (the message names
            the extra to install when its Python needs are missing).
        NativeTaskError: a task id the checkout lacks (the nearest are named), or a
            language a task has no instruction in.
        PolicySpecError: ``scripted``, which plays our oracle plans (their tasks have none).
    """
    if parse_spec(config.policy).kind == "scripted":
        raise PolicySpecError(
            "scripted plays our tasks' oracle plans, and MobileGym's own tasks have none; "
            "use random, replay:, vlm:, learned: or human"
        )
    native = NativeTasks(config.checkout, eval_mode=config.eval_mode())
    for task_id in config.tasks:
        info = native.info(task_id)
        for lang in config.langs:
            unposed_instance(info, 0, lang)  # a language it has no instruction in: here
    return native


def native_versions(native: NativeTasks, build_id: str) -> dict[str, str]:
    """What a native run's manifest records of MobileGym: the build, and the harness that
    posed and judged (its commit and where that was read, whether it had local changes,
    its version axes; ``unknown`` where the checkout does not say)."""
    found = native.fingerprint()
    skip = {"harness", "checkout", "eval_mode"}  # the config holds the last two
    return {
        "mobilegym-build": build_id,
        **{f"mobilegym-{key.replace('_', '-')}": v for key, v in found.items() if key not in skip},
    }


def _same_judge(out: Path, versions: dict[str, str]) -> None:
    """Refuse to resume a native run under another MobileGym commit or build (their judge
    and their data may differ), naming the old and new values."""
    if not (out / "manifest.json").is_file():
        return
    recorded = RunStore.open(out).manifest.versions
    keys = ("mobilegym-build", "mobilegym-commit")
    changed = [
        f"{key} {recorded.get(key, '(none)')!r} → {versions[key]!r}"
        for key in keys
        if recorded.get(key, versions[key]) != versions[key]
    ]
    if changed:
        raise TrajectoryError(
            f"{out} holds a run judged by another MobileGym ({'; '.join(changed)}); give a "
            "new --out, or the checkout and build it ran on"
        )


async def run_native(
    config: NativeRunConfig,
    on_done: Callable[[EpisodeRecord], None] | None = None,
    native: NativeTasks | None = None,
) -> list[EpisodeRecord]:
    """Run every (task, seed, lang) episode of MobileGym's own tasks in the build, resuming
    a run directory; ``native`` is :func:`check_native`'s (checked again when not given).

    Raises:
        MobileGymSourceError: the build or the checkout is not usable (before any work).
        NativeTaskError: an unknown task id or a language it lacks (before any work).
        PolicySpecError: the policy spec is malformed or ``scripted``.
        TrajectoryError: ``config.out`` holds a run with other settings or another
            MobileGym (nothing is run).
        RunLocked: another process writes ``config.out`` (nothing is written).
        InfraErrorsInARow: the same infra error ended too many episodes in a row.
    """
    source = parse_source(config.build)
    native = native or check_native(config)
    versions = native_versions(native, source.build_id())
    _same_judge(config.out, versions)

    async def play(store: RunStore, done: Done) -> list[EpisodeRecord]:
        async with MobileGym(source) as gym:
            return await _play_native(config, gym, native, store, done)

    return await record_grid(config, versions, play, on_done)


async def _play_native(
    config: NativeRunConfig, gym: MobileGym, native: NativeTasks, store: RunStore, done: Done
) -> list[EpisodeRecord]:
    """Every episode of the grid not yet recorded, ``config.concurrency`` at a time (as
    :func:`bridge.runner.run_episodes` plays them: an infra error is played again on resume);
    every episode's record in grid order."""
    keys = list(config.episodes())
    ids = [episode_id(*key) for key in keys]
    todo = set(store.pending(ids, retry_infra_errors=True))
    earlier = store.completed()
    room = asyncio.Semaphore(config.concurrency)

    async def one(task: TaskInstance, episode: str) -> EpisodeRecord:
        async with room:
            writer = store.begin_episode(episode)
            try:
                record = await _native_episode(config, gym, native, task, episode, writer)
                await asyncio.to_thread(writer.finish, record)
            finally:
                writer.close()
        done(record)
        return record

    running = {
        episode: asyncio.ensure_future(
            one(unposed_instance(native.info(task_id), seed, lang), episode)
        )
        for (task_id, seed, lang), episode in zip(keys, ids, strict=True)
        if episode in todo
    }
    await gather_or_cancel(list(running.values()))
    return [running[i].result() if i in running else earlier[i] for i in ids]


async def _native_episode(
    config: NativeRunConfig,
    gym: MobileGym,
    native: NativeTasks,
    task: TaskInstance,
    episode_id: str,
    writer: EpisodeWriter,
) -> EpisodeRecord:
    """One episode on a new phone: posed by their setup, the task then the one it sampled,
    played by a fresh policy, judged by their judge; the phone closed after."""
    started = time.perf_counter()
    policy: Policy = load(config.policy, seed=task.seed)
    budget = config.step_timeout_s
    opening = partial(NativeEnv.open, gym, native, step_timeout_s=budget)
    try:
        env = await guarded(opening, "env", "make_env", budget)
    except InfraFailure as failure:
        return _not_started(task, episode_id, policy.name, failure, started)
    try:
        episode = Episode(
            env,
            task,
            episode_id=episode_id,
            policy=policy.name,
            writer=writer,
            settings=EpisodeSettings(step_timeout_s=budget, tree_xml=tree_xml),
        )
        if await episode.begin() is not None and env.task is not None:
            episode.task = env.task  # what their setup sampled on this phone
            await _play(episode, policy)
        return await episode.end()
    finally:
        try:
            await guarded(env.close, "env", "env.close", budget)
        except InfraFailure as failure:  # the record is decided; a failed close must not undo it
            _log.warning("closing the MobileGym phone failed: %s", failure)


async def _play(episode: Episode, policy: Policy) -> None:
    """The policy's turns until the episode is over (:func:`bridge.runner.run_episode`'s
    loop, on an episode already begun)."""
    if not await episode.reset_policy(policy):
        return
    while episode.termination is None:
        decision = await episode.ask(policy)
        if decision is not None:
            await episode.step(decision.output, policy_ms=decision.policy_ms)


def _not_started(
    task: TaskInstance, episode_id: str, policy: str, failure: InfraFailure, started: float
) -> EpisodeRecord:
    """The record of an episode whose phone could not be opened."""
    return EpisodeRecord(
        episode_id=episode_id,
        task=task,
        policy=policy,
        outcome="infra_error",
        outcome_class="infra_error",
        termination="infra_error",
        steps=0,
        error=str(failure),
        error_source=failure.source,
        duration_s=time.perf_counter() - started,
    )
