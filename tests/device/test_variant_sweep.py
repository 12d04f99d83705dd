"""Every device variant, solved by the task's scripted oracle on the virtual phone.

One phone serves the whole sweep, in a fixed order, and is never reset between tasks — as a
real phone is not — so each variant's setup must undo what earlier episodes left. Tasks
alternate between English and Chinese (Chinese names and search text go through the
clipboard path). Query oracles read their answers from the screen, so a phone whose data
differ from the simulator's world is answered from its own data.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from bridge.runner import run_episode
from bridge.schema import TaskInstance
from device.adb import AdbTarget
from device.env import AndroidEnv, AndroidEnvConfig
from device.session import ReconnectPolicy
from device.tasks.registry import default_variants
from device.virtual.attach import AttachedVirtualPhone, attach_virtual_phone
from policies.scripted import PlanPolicy
from sim.simulator import default_apps
from sim.tasks.registry import default_registry

VARIANTS = default_variants()
JUDGED = sorted(task_id for task_id, v in VARIANTS.items() if v.judged_by != "none")
KIND = {"probe": "state", "xpath": "ui", "answer": "answer"}

@pytest.fixture(scope="module")
def phone(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AttachedVirtualPhone]:
    with attach_virtual_phone(seed=0, android_user_home=tmp_path_factory.mktemp("home")) as p:
        yield p


def _task(task_id: str) -> TaskInstance:
    world = {app.id: app.world for app in default_apps()}
    lang = "zh" if JUDGED.index(task_id) % 2 else "en"
    return default_registry().instantiate(task_id, 0, world, lang)


@pytest.mark.device_virtual
@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize("task_id", JUDGED)
async def test_the_oracle_solves_the_variant_on_the_virtual_phone(
    phone: AttachedVirtualPhone, task_id: str
) -> None:
    task = _task(task_id)
    oracle = default_registry().get(task_id).oracle(task.params, task.lang)
    config = AndroidEnvConfig(
        target=AdbTarget(port=phone.adb_port, serial=phone.serial),
        reconnect=ReconnectPolicy(attempts=2, backoff_s=0.05, wait_s=3.0),
        step_timeout_s=30.0,
    )
    async with AndroidEnv(config, VARIANTS) as env:
        record = await asyncio.wait_for(
            run_episode(PlanPolicy(oracle, name="scripted"), env, task, episode_id=task_id), 180
        )
    verdict = record.verdict
    assert verdict is not None, record.error
    failed = [check for check in verdict.checks if not check.passed]
    assert record.outcome == "success", (task.lang, record.termination, failed, record.error)
    assert verdict.deterministic and verdict.kind == KIND[VARIANTS[task_id].judged_by]


def test_the_sweep_covers_most_of_the_simulator() -> None:
    """Nearly every template has a variant a phone can judge; the rest say why not."""
    templates = default_registry().ids()
    assert len(JUDGED) >= 0.8 * len(templates), (len(JUDGED), len(templates))
    for variant in VARIANTS.values():
        assert variant.judged_by != "none" or variant.note, variant.task_id
