"""Runs five toy episodes into a run directory; the third blocks forever mid-episode.

Used by the kill test in ``test_trajectory.py``::

    python -m tests.bridge.kill_target RUN_DIR            # ep-2 hangs after writing steps
    python -m tests.bridge.kill_target RUN_DIR --no-block # resume: everything finishes

The block is an env step awaiting an event nobody sets, so the process stays alive until it
is killed; no timing is involved.
"""

from __future__ import annotations

import argparse
import asyncio
from functools import partial

from bridge.env import Env
from bridge.runner import EpisodeJob, run_episodes
from bridge.trajectory import RunManifest, RunStore
from tests.bridge.toy_env import BACKEND, CounterEnv, ScriptedPolicy, counter_task, counter_tree_xml

__all__ = ["BLOCKED", "EPISODE_IDS", "STEPS_PER_EPISODE", "main"]

EPISODE_IDS = [f"ep-{index}" for index in range(5)]
BLOCKED = "ep-2"
STEPS_PER_EPISODE = 3
"""Two taps and a finish; the blocked episode hangs in its last step, after two are written."""


async def _make_env(hang: bool) -> Env:
    return CounterEnv(hang_on_step=STEPS_PER_EPISODE - 1 if hang else None, image_format="jpeg")


def _jobs(block: bool) -> list[EpisodeJob]:
    return [
        EpisodeJob(
            episode_id,
            counter_task(STEPS_PER_EPISODE - 1, seed=index),
            partial(_make_env, block and episode_id == BLOCKED),
            partial(ScriptedPolicy, STEPS_PER_EPISODE - 1),
            backend=BACKEND,
        )
        for index, episode_id in enumerate(EPISODE_IDS)
    ]


async def main(run_dir: str, block: bool) -> None:
    """Create (or resume) the run in ``run_dir`` and play every episode, one at a time."""
    manifest = RunManifest(
        run_id="kill-test", config={"suite": "toy"}, seeds=list(range(len(EPISODE_IDS)))
    )
    store = RunStore.create(run_dir, manifest, resume=True)
    await run_episodes(
        _jobs(block), store=store, concurrency=1, step_timeout_s=3600, tree_xml=counter_tree_xml
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("run_dir")
    parser.add_argument("--no-block", action="store_true", help="let the third episode finish")
    arguments = parser.parse_args()
    asyncio.run(main(arguments.run_dir, block=not arguments.no_block))
