"""Running simulator episodes into a run directory (what ``mgb sim run`` does).

The composition root for one world: it builds the simulator, instantiates tasks, picks the
policy, and records everything with :mod:`bridge.trajectory` (frames, trees, steps,
verdicts), then writes an ``index.html`` a person can open to see what happened.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Literal

from pydantic import Field

from bridge.breaker import InfraBreaker
from bridge.env import ForkableEnv
from bridge.records import EpisodeRecord
from bridge.runner import run_episodes
from bridge.trajectory import RunManifest, RunStore
from policies.registry import preflight
from transfer_eval.episode_view import write_run_index
from transfer_eval.jobs import GRID, EpisodeGrid, grid_jobs
from transfer_eval.policy_factory import run_versions, tree_xml
from transfer_eval.resume_notes import announce_resume
from transfer_eval.sim_source import SimSource, sim_envs

__all__ = ["SimRunConfig", "run_sim"]


class SimRunConfig(EpisodeGrid):
    """What to run: tasks x seeds x languages with one policy, into ``out``."""

    policy: str = "scripted"
    out: Path
    pages: int = Field(default=2, ge=1)
    concurrency: int = Field(default=2, ge=1)
    answer_mode: Literal["action", "sheet"] = "action"
    step_timeout_s: float = Field(default=60.0, gt=0)
    source: SimSource = SimSource()
    """Where the envs live (``--ray`` / ``--hosts``); not part of what the run measures."""
    infra_errors_in_a_row: int = Field(default=3, ge=0)
    """Stop after this many episodes in a row end in the same infra error (0: never); not
    part of what the run measures either."""


async def run_sim(
    config: SimRunConfig, on_done: Callable[[EpisodeRecord], None] | None = None
) -> list[EpisodeRecord]:
    """Run every (task, seed, lang) episode, resuming a run directory that exists.

    Raises:
        policies.registry.PolicySpecError: the policy spec is malformed (checked before any
            episode starts, so a typo is one clear error rather than N infra errors).
        RunLocked: another process writes ``config.out`` (nothing is written).
        InfraErrorsInARow: the same infra error ended too many episodes in a row.
    """
    await preflight(config.policy)  # a typo or a dead endpoint: one error, before any episode
    manifest = RunManifest(
        config=config.model_dump(mode="json", exclude={"out", "source", "infra_errors_in_a_row"}),
        versions=run_versions(),
        seeds=list(config.seeds),
    )
    announce_resume(config.out)  # a damaged episode is re-run: say so first
    done = InfraBreaker(config.infra_errors_in_a_row).watch(on_done)
    with RunStore.create(config.out, manifest, resume=True, extendable=GRID, lock=True) as store:
        async with sim_envs(config.source, pages=config.pages) as sims:

            async def make_env() -> ForkableEnv:
                return await sims.env(answer_mode=config.answer_mode)

            jobs = grid_jobs(config, sims.tasks, config.policy, make_env)
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
