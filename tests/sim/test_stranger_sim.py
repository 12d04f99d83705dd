"""Every template's oracle solves it in the simulator on a stranger phone — a phone whose
user has other people and other settings (tests/device/stranger.py) — in both languages:
the spec poses the task over whatever the phone holds, and the oracle reads the screen.
(The same sweep through the real adb stack runs a sample, tests/device/test_stranger_phone.py.)
"""

from __future__ import annotations

import asyncio

import pytest

from bridge.runner import run_episode
from policies.scripted import PlanPolicy
from sim.android_state import SimAndroidState
from sim.env import SimEnv
from sim.simulator import Simulator
from sim.state import InstanceState
from sim.sync_call import complete
from sim.tasks.registry import default_registry
from tests.device.stranger import STRANGERS, make_stranger

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.browser]

TEMPLATE_IDS = default_registry().ids()
SHARD_BY_APP = True
"""make test splits this file's per-template tests by app (tests/conftest.py)."""


def _stranger(sim: Simulator) -> InstanceState:
    state = InstanceState(seed=0)
    complete(make_stranger(SimAndroidState(sim.phone, state)))
    return state


async def test_the_stranger_phone_is_a_stranger(sim: Simulator) -> None:
    android = SimAndroidState(sim.phone, _stranger(sim))
    names = [row["display_name"] for row in await android.query(
        "content://com.android.contacts/contacts", ["display_name"], sort="_id")]  # fmt: skip
    assert names == [person.name for person in STRANGERS]
    assert await android.get_setting("global", "wifi_on") == "0"


@pytest.mark.parametrize("task_id", TEMPLATE_IDS)
async def test_the_oracle_solves_it_on_a_stranger_phone(sim: Simulator, task_id: str) -> None:
    base = _stranger(sim)
    world = {app_id: app.world for app_id, app in sim.phone.apps.items()}
    tasks = [
        sim.tasks.instantiate(task_id, seed, world, lang) for seed, lang in ((0, "en"), (1, "zh"))
    ]

    async def play(task: object) -> object:
        instance = sim.create_instance()
        env = SimEnv(sim, instance, screenshot=False, base=base)
        try:
            oracle = sim.tasks.get(task_id).oracle_for(task)  # type: ignore[arg-type]
            return await run_episode(PlanPolicy(oracle), env, task, episode_id=task_id)  # type: ignore[arg-type]
        finally:
            await env.close()

    for task, record in zip(tasks, await asyncio.gather(*(play(t) for t in tasks)), strict=True):
        verdict = record.verdict  # type: ignore[attr-defined]
        assert verdict is not None, record.error  # type: ignore[attr-defined]
        failed = [c for c in verdict.checks if not c.passed]
        assert record.outcome == "success", (task.lang, failed)  # type: ignore[attr-defined]
        assert verdict.clean is True, verdict.side_effects
