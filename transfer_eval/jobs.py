"""The episodes of a run: tasks x seeds x languages, each with its file-safe id, as jobs for
:func:`bridge.runner.run_episodes`.

``mgb sim run`` and ``mgb device run`` describe what they run the same way
(:class:`EpisodeGrid`) and build their jobs here, so an episode has one id in every run
directory and a rerun into the same ``--out`` may extend exactly the grid's keys
(:data:`GRID`). A person (policy ``human``) plays one episode at a time: a grid they play
with ``concurrency`` above 1 is refused here, and the commands force 1 and say so.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from bridge.env import Env
from bridge.guard import ActionGuard
from bridge.records import TaskInstance
from bridge.runner import EpisodeJob
from policies.errors import PolicySpecError
from policies.registry import parse_spec
from sim.skins import DEFAULT_SKIN
from sim.tasks.registry import TaskRegistry
from transfer_eval.policy_factory import policy_factory

__all__ = ["GRID", "EpisodeGrid", "attended", "episode_id", "grid_jobs"]


def attended(policy: str) -> bool:
    """Whether the policy spec names a person (``human``), who plays one episode at a time
    at this terminal; False for a spec that does not parse (its own check says why)."""
    try:
        return parse_spec(policy).attended
    except PolicySpecError:
        return False


def episode_id(task_id: str, seed: int, lang: str) -> str:
    """A file-safe episode id: ``settings.SetWifi-v1_s0_en``."""
    return f"{task_id.replace('/', '.')}_s{seed}_{lang}"


_ENGLISH: list[Literal["en", "zh"]] = ["en"]


class EpisodeGrid(BaseModel):
    """Which episodes a run holds: every task x seed x language."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    tasks: list[str] = Field(min_length=1)
    seeds: list[int] = Field(default_factory=lambda: [0], min_length=1)
    langs: list[Literal["en", "zh"]] = Field(default_factory=lambda: _ENGLISH.copy(), min_length=1)

    @model_validator(mode="after")
    def _a_person_plays_one_at_a_time(self) -> EpisodeGrid:
        """Refuse ``concurrency`` above 1 for a person's ``policy`` (in the run configs that
        have both fields: ``SimRunConfig``; a phone run is one at a time anyway)."""
        policy, concurrency = getattr(self, "policy", None), getattr(self, "concurrency", 1)
        if isinstance(policy, str) and attended(policy) and concurrency > 1:
            raise ValueError(
                f"policy {policy!r} is a person, who plays one episode at a time: "
                f"concurrency must be 1, not {concurrency}"
            )
        return self

    def episodes(self) -> Iterator[tuple[str, int, str]]:
        """``(task_id, seed, lang)`` in run order: task-major, then seed, then language."""
        for task_id in self.tasks:
            for seed in self.seeds:
                for lang in self.langs:
                    yield task_id, seed, lang

    def episode_ids(self) -> list[str]:
        """The id of every episode of the grid, in run order."""
        return [episode_id(*episode) for episode in self.episodes()]


GRID = tuple(EpisodeGrid.model_fields)
"""Config keys a rerun into the same ``--out`` may extend (new tasks, seeds, languages)."""


def grid_jobs(
    grid: EpisodeGrid,
    registry: TaskRegistry,
    policy: str,
    make_env: Callable[[], Awaitable[Env]],
    guard_for: Callable[[TaskInstance], ActionGuard | None] | None = None,
    skin: str = DEFAULT_SKIN,
) -> list[EpisodeJob]:
    """One job per episode of ``grid``: the task instantiated from its seed, the policy
    ``policy`` built for it (an oracle walks ``skin``'s screens), ``make_env`` for its env
    and ``guard_for`` its guard."""
    jobs = []
    for task_id, seed, lang in grid.episodes():
        task = registry.instantiate(task_id, seed, lang)
        jobs.append(
            EpisodeJob(
                episode_id=episode_id(task_id, seed, lang),
                task=task,
                make_env=make_env,
                make_policy=policy_factory(policy, registry.get(task_id), task, skin=skin),
                guard=None if guard_for is None else guard_for(task),
            )
        )
    return jobs
