"""Running our task templates in a MobileGym build into a run directory (what
``mgb mobilegym run`` does).

The same run format as ``mgb sim run`` and ``mgb device run`` (:mod:`bridge.trajectory`:
frames, trees, steps, verdicts, an ``index.html``), so ``mgb replay`` and the reports read it.
Every task is checked before the run starts: one MobileGym cannot pose
(:func:`mobilegym.poseable.mobilegym_refusal`) is refused with its reason, rather than
recorded as N failed episodes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from pydantic import Field

from bridge.breaker import InfraBreaker
from bridge.env import Env
from bridge.records import EpisodeRecord
from bridge.runner import run_episodes
from bridge.trajectory import RunManifest, RunStore
from mobilegym.poseable import mobilegym_refusal
from mobilegym.source import parse_source
from mobilegym.world import MobileGym
from policies.registry import preflight
from sim.tasks.registry import TaskRegistry, default_registry
from transfer_eval.episode_view import write_run_index
from transfer_eval.jobs import GRID, EpisodeGrid, grid_jobs
from transfer_eval.policy_factory import run_versions, tree_xml
from transfer_eval.resume_notes import announce_resume

__all__ = ["MobileGymRunConfig", "not_poseable", "run_mobilegym"]


class MobileGymRunConfig(EpisodeGrid):
    """What to run: tasks x seeds x languages with one policy in a MobileGym build."""

    build: str
    """``mobilegym:URL`` or ``mobilegym:PATH`` (the prefix may be left out)."""
    policy: str = "scripted"
    out: Path
    concurrency: int = Field(default=2, ge=1)
    step_timeout_s: float = Field(default=60.0, gt=0)
    infra_errors_in_a_row: int = Field(default=3, ge=0)
    """Stop after this many episodes in a row end in the same infra error (0: never)."""


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
    """Run every (task, seed, lang) episode in the build, resuming a run directory.

    Raises:
        mobilegym.errors.MobileGymSourceError: the build is not there (before any work).
        policies.registry.PolicySpecError: the policy spec is malformed.
        RunLocked: another process writes ``config.out`` (nothing is written).
        InfraErrorsInARow: the same infra error ended too many episodes in a row.
    """
    source = parse_source(config.build)
    await preflight(config.policy)
    manifest = RunManifest(
        config=config.model_dump(mode="json", exclude={"out", "infra_errors_in_a_row"}),
        versions={**run_versions(), "mobilegym-build": source.build_id()},
        seeds=list(config.seeds),
    )
    announce_resume(config.out)
    done = InfraBreaker(config.infra_errors_in_a_row).watch(on_done)
    registry = default_registry()
    with RunStore.create(config.out, manifest, resume=True, extendable=GRID, lock=True) as store:
        async with MobileGym(source) as gym:

            async def make_env() -> Env:
                return await gym.env(step_timeout_s=config.step_timeout_s)

            jobs = grid_jobs(config, registry, config.policy, make_env)
            records = await run_episodes(
                jobs,
                store=store,
                concurrency=config.concurrency,
                step_timeout_s=config.step_timeout_s,
                tree_xml=tree_xml,
                on_episode_done=done,
            )
        write_run_index(store)
    return records
