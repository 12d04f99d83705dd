"""Running simulator episodes into a run directory (what ``mgb sim run`` does).

The composition root for one world: it builds the simulator, instantiates tasks, picks the
policy, and records everything with :mod:`bridge.trajectory` (frames, trees, steps,
verdicts), then writes an ``index.html`` a person can open to see what happened
(:func:`transfer_eval.grid_run.record_grid`, which every single-world run shares).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar, Literal

from pydantic import Field

from bridge.env import ForkableEnv
from bridge.records import EpisodeRecord
from bridge.trajectory import RunStore
from sim.skins import DEFAULT_SKIN, SkinName
from transfer_eval.grid_run import Done, GridRun, play_jobs, record_grid
from transfer_eval.jobs import grid_jobs
from transfer_eval.sim_source import SimSource, sim_envs

__all__ = ["SimRunConfig", "run_sim"]


class SimRunConfig(GridRun):
    """What to run: tasks x seeds x languages with one policy, into ``out``."""

    pages: int = Field(default=2, ge=1)
    answer_mode: Literal["action", "sheet"] = "action"
    skin: SkinName = DEFAULT_SKIN
    """How the simulated phone looks (``sim/skins.py``): the same tasks and judge, another
    way through the screens (the scripted oracle walks this skin's)."""
    source: SimSource = SimSource()
    """Where the envs live (``--ray`` / ``--hosts``); not part of what the run measures."""

    NOT_MEASURED: ClassVar[frozenset[str]] = GridRun.NOT_MEASURED | {"source"}


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

    async def play(store: RunStore, done: Done) -> list[EpisodeRecord]:
        async with sim_envs(config.source, pages=config.pages) as sims:

            async def make_env() -> ForkableEnv:
                return await sims.env(answer_mode=config.answer_mode, skin=config.skin)

            jobs = grid_jobs(config, sims.tasks, config.policy, make_env, skin=config.skin)
            return await play_jobs(config, jobs, store, done)

    return await record_grid(config, {}, play, on_done)
