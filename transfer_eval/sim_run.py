"""Running simulator episodes into a run directory (what ``mgb sim run`` does).

The composition root for one world: it builds the simulator, instantiates tasks, picks the
policy, and records everything with :mod:`bridge.trajectory` (frames, trees, steps,
verdicts), then writes an ``index.html`` a person can open to see what happened.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from bridge.runner import EpisodeJob, run_episodes
from bridge.schema import EpisodeRecord
from bridge.trajectory import RunManifest, RunStore
from policies.registry import preflight
from sim.simulator import SimConfig, Simulator
from transfer_eval.episode_view import write_run_index
from transfer_eval.policy_factory import policy_factory, run_versions, tree_xml

GRID = ("tasks", "seeds", "langs")
"""Config keys a rerun into the same ``--out`` may extend (new tasks, seeds, languages)."""

__all__ = ["SimRunConfig", "episode_id", "run_sim"]


class SimRunConfig(BaseModel):
    """What to run: tasks x seeds x languages with one policy, into ``out``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    tasks: list[str] = Field(min_length=1)
    seeds: list[int] = Field(default_factory=lambda: [0], min_length=1)
    langs: list[Literal["en", "zh"]] = Field(default_factory=lambda: ["en"], min_length=1)
    policy: str = "scripted"
    out: Path
    pages: int = Field(default=2, ge=1)
    concurrency: int = Field(default=2, ge=1)
    answer_mode: Literal["action", "sheet"] = "action"
    step_timeout_s: float = Field(default=60.0, gt=0)


def episode_id(task_id: str, seed: int, lang: str) -> str:
    """A file-safe episode id: ``settings.SetWifi-v1_s0_en``."""
    return f"{task_id.replace('/', '.')}_s{seed}_{lang}"


async def run_sim(
    config: SimRunConfig, on_done: Callable[[EpisodeRecord], None] | None = None
) -> list[EpisodeRecord]:
    """Run every (task, seed, lang) episode, resuming a run directory that exists.

    Raises:
        policies.registry.PolicySpecError: the policy spec is malformed (checked before any
            episode starts, so a typo is one clear error rather than N infra errors).
    """
    await preflight(config.policy)  # a typo or a dead endpoint: one error, before any episode
    manifest = RunManifest(
        config=config.model_dump(mode="json", exclude={"out"}),
        versions=run_versions(),
        seeds=list(config.seeds),
    )
    store = RunStore.create(config.out, manifest, resume=True, extendable=GRID)
    async with Simulator(SimConfig(pages=config.pages)) as sim:
        jobs = _jobs(sim, config)
        records = await run_episodes(
            jobs,
            store=store,
            concurrency=config.concurrency,
            step_timeout_s=config.step_timeout_s,
            tree_xml=tree_xml,
            on_episode_done=on_done,
        )
    write_run_index(store)
    return records


def _jobs(sim: Simulator, config: SimRunConfig) -> Sequence[EpisodeJob]:
    world = {app_id: app.world for app_id, app in sim.phone.apps.items()}
    jobs = []
    for task_id in config.tasks:
        template = sim.tasks.get(task_id)
        for seed in config.seeds:
            for lang in config.langs:
                task = sim.tasks.instantiate(task_id, seed, world, lang)
                jobs.append(
                    EpisodeJob(
                        episode_id=episode_id(task_id, seed, lang),
                        task=task,
                        make_env=lambda: sim.env(answer_mode=config.answer_mode),
                        make_policy=policy_factory(config.policy, template, task),
                    )
                )
    return jobs
