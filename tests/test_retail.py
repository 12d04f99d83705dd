"""Every place that asks whether a retail phone can pose a task gets one answer
(:mod:`bridge.retail`, issue 29): a ``select`` suite's ``retail`` filter, the paired grid on
a real phone, ``mgb device run``'s check before a run, and ``AndroidEnv.reset`` on a real
phone — including for a task that carries no spec, which no phone can pose."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bridge.records import TaskInstance
from bridge.retail import retail_can_pose, retail_refusal
from bridge.spec.answers import AnswerRule
from bridge.spec.settings import PutSetting, SettingFact
from bridge.taskspec import Requirement, TaskSpec, Truth
from device.driver import SettleConfig
from device.env import AndroidEnv, AndroidEnvConfig
from device.errors import TaskUnsupported
from sim.tasks.base import TaskTemplate
from sim.tasks.registry import default_registry
from tests.device.fake_link import FakeLink
from transfer_eval.device_run import check_retail
from transfer_eval.paired import PairedConfig, _cells, left_out
from transfer_eval.suites import Suite, SuiteSelect, SuiteTask

NEEDS_ROOT = Requirement(fact="global.secret", reason="no shell user may write it")
POSES = TaskSpec(
    apps=["settings"],
    ensure=[PutSetting(namespace="global", key="wifi_on", value="0")],
    truths=[Truth(name="wifi", fact=SettingFact(namespace="global", key="wifi_on"))],
    answers=[AnswerRule(field="wifi", truth="wifi", match="text")],
)
"""Posed with one ``settings put`` a shell may run, and judged on an answer."""
SPECS: dict[str, TaskSpec | None] = {
    "settings/Poses-v1": POSES,
    "settings/NeedsRoot-v1": POSES.model_copy(update={"requires": [NEEDS_ROOT]}),
    "settings/NoSpec-v1": None,
}


def _task(task_id: str) -> TaskInstance:
    return TaskInstance(task_id=task_id, instruction="Turn Wi-Fi off", spec=SPECS[task_id])


class _Registry:
    """The task registry's face the three call sites use, over the instances above (each
    template is a real one, for its apps, level and kind)."""

    def __init__(self) -> None:
        self._template = default_registry().get("settings/SetWifi-v1")

    def __iter__(self) -> Iterator[TaskTemplate[Any]]:
        return iter([self._template])

    def ids(self) -> list[str]:
        return sorted(SPECS)

    def get(self, task_id: str) -> TaskTemplate[Any]:
        return self._template

    def instantiate(self, task_id: str, seed: int, lang: str = "en") -> TaskInstance:
        return _task(task_id)


def _selected(registry: _Registry) -> set[str]:
    select = SuiteSelect.model_validate({"retail": True}, context={"registry": registry})
    return {entry.task_id for entry in select.entries(registry, "en")}  # type: ignore[arg-type]


def _paired(registry: _Registry) -> set[str]:
    suite = Suite(tasks=[SuiteTask(task_id=task_id) for task_id in SPECS])
    config = PairedConfig(device="SERIAL123", out=Path("unused"))  # a real phone
    skip = left_out(suite, config, registry=registry)  # type: ignore[arg-type]
    cells = _cells(registry, suite, 1, skip=skip)  # type: ignore[arg-type]
    return {cell.task.task_id for cell in cells}


def _device_run(registry: _Registry) -> set[str]:
    passed = set()
    for task_id in SPECS:
        try:
            check_retail([task_id], registry)  # type: ignore[arg-type]
        except TaskUnsupported:
            continue
        passed.add(task_id)
    return passed


async def _env(task_id: str) -> bool:
    config = AndroidEnvConfig(
        settle=SettleConfig(interval_s=0.0, timeout_s=1.0), step_timeout_s=2.0, reset_timeout_s=2.0
    )
    env = AndroidEnv(config, link=FakeLink())  # type: ignore[arg-type]  # a scripted real phone
    try:
        await env.reset(_task(task_id))
    except TaskUnsupported:
        return False
    finally:
        await env.close()
    return True


@pytest.mark.asyncio
async def test_every_call_site_agrees_on_what_a_retail_phone_can_pose() -> None:
    registry = _Registry()
    env = {task_id for task_id in SPECS if await _env(task_id)}
    predicate = {task_id for task_id in SPECS if retail_can_pose(_task(task_id))}
    assert predicate == _selected(registry) == _paired(registry) == _device_run(registry)
    assert predicate == env == {"settings/Poses-v1"}


def test_a_refusal_says_why() -> None:
    assert retail_refusal(_task("settings/Poses-v1")) is None
    assert retail_can_pose(_task("settings/Poses-v1").model_copy(update={"spec": TaskSpec()}))
    needs_root = retail_refusal(_task("settings/NeedsRoot-v1")) or ""
    assert "no shell user may write it" in needs_root and "global.secret" in needs_root
    no_spec = retail_refusal(_task("settings/NoSpec-v1")) or ""
    assert "carries no spec" in no_spec and "registry" in no_spec
