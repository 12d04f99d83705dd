"""Recording a grid of episodes into a run directory: the body every single-world run shares
(``mgb sim run`` and ``mgb mobilegym run``, of our templates or MobileGym's own).

::

    records = await record_grid(config, versions, play, on_done)

:func:`record_grid` checks the policy spec (a typo is one error before any episode), says
which damaged episodes a resume plays again, opens the run directory (new, or the same run
resumed and perhaps grown by tasks, seeds or languages: :data:`transfer_eval.jobs.GRID`),
lets ``play`` run the episodes into it while an :class:`~bridge.breaker.InfraBreaker`
watches them, and writes the run's ``index.html``. What differs between worlds is ``play``:
which world it starts, which envs, which jobs (:func:`play_jobs` for a world whose tasks
are instantiated before their envs exist).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import ClassVar

from pydantic import Field

from bridge.breaker import InfraBreaker
from bridge.records import EpisodeRecord
from bridge.runner import EpisodeJob, run_episodes
from bridge.trajectory import RunManifest, RunStore
from policies.registry import preflight
from transfer_eval.episode_view import write_run_index
from transfer_eval.jobs import GRID, EpisodeGrid
from transfer_eval.policy_factory import run_versions, tree_xml
from transfer_eval.resume_notes import announce_resume

__all__ = ["Done", "GridRun", "Play", "play_jobs", "record_grid"]

Done = Callable[[EpisodeRecord], None]
"""Called with each newly finished episode (the progress bar, behind the breaker)."""

Play = Callable[[RunStore, Done], Awaitable[list[EpisodeRecord]]]
"""Runs a grid's episodes into an open run store, calling ``done`` with each new record,
and returns every episode's record in grid order (earlier ones from the store)."""


class GridRun(EpisodeGrid):
    """A grid of episodes played by one policy in one world, recorded in ``out``.

    The run's manifest records every field but :attr:`NOT_MEASURED`'s, so resuming with
    other settings is refused.
    """

    policy: str = "scripted"
    out: Path
    concurrency: int = Field(default=2, ge=1)
    step_timeout_s: float = Field(default=60.0, gt=0)
    infra_errors_in_a_row: int = Field(default=3, ge=0)
    """Stop after this many episodes in a row end in the same infra error (0: never); not
    part of what the run measures."""

    NOT_MEASURED: ClassVar[frozenset[str]] = frozenset({"out", "infra_errors_in_a_row"})
    """Fields that say how a run is carried out, not what it measures (left out of the
    manifest)."""

    def manifest(self, versions: dict[str, str]) -> RunManifest:
        """The run's manifest: this config but what it does not measure, our software
        versions and ``versions`` (the world's), and the seeds."""
        return RunManifest(
            config=self.model_dump(mode="json", exclude=set(self.NOT_MEASURED)),
            versions={**run_versions(), **versions},
            seeds=list(self.seeds),
        )


async def record_grid(
    config: GridRun,
    versions: dict[str, str],
    play: Play,
    on_done: Done | None = None,
) -> list[EpisodeRecord]:
    """Run ``config``'s grid with ``play`` into ``config.out``, resuming a run there.

    Raises:
        policies.registry.PolicySpecError: the policy spec is malformed (before any work).
        TrajectoryError: ``config.out`` holds a run with other settings (nothing is run).
        RunLocked: another process writes ``config.out`` (nothing is written).
        InfraErrorsInARow: the same infra error ended too many episodes in a row.
    """
    await preflight(config.policy)  # a typo or a dead endpoint: one error, before any episode
    manifest = config.manifest(versions)
    announce_resume(config.out)  # a damaged episode is re-run: say so first
    done = InfraBreaker(config.infra_errors_in_a_row).watch(on_done)
    with RunStore.create(config.out, manifest, resume=True, extendable=GRID, lock=True) as store:
        records = await play(store, done)
        write_run_index(store)
    return records


async def play_jobs(
    config: GridRun, jobs: Sequence[EpisodeJob], store: RunStore, done: Done
) -> list[EpisodeRecord]:
    """Run ``jobs`` into ``store`` as ``config`` says (:func:`bridge.runner.run_episodes`,
    saving each step's UI tree)."""
    return await run_episodes(
        jobs,
        store=store,
        concurrency=config.concurrency,
        step_timeout_s=config.step_timeout_s,
        tree_xml=tree_xml,
        on_episode_done=done,
    )
