"""Every task template end to end in Chromium: its oracle solves it in English on the
simulator's own phone and in Chinese on a stranger phone — a phone whose user has other
people and other settings, so the spec must pose the task over whatever the phone holds and
the oracle must read the screen — and a plausible wrong plan (its module's ``WRONG``) fails
or leaves side effects. In the HyperOS skin (``sim/skins.py``: Settings arranged and worded
as on a Redmi, MIUI's look everywhere) every oracle solves its task too, in one language
(alternating along the list), and every Settings wrong plan still fails: the same spec and
judge, a different way through the screens. Each end state in AOSP's skin is judged a second
time through the virtual phone's shell (the phone's judge path; the judge reads no skin):
the verdicts must be the same. Doing
nothing is judged browser-free in both worlds (tests/device/test_judge_parity.py).

Episodes run without screenshots (the scripted policy reads the UI tree; screenshots are
covered by test_env_e2e). The English and Chinese oracles of a template run concurrently,
one per pooled page.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

import pytest

from bridge.plans import (
    AnswerStep,
    FinishStep,
    KeyStep,
    OpenAppStep,
    Plan,
    Selector,
    TapStep,
    TypeStep,
)
from bridge.records import EpisodeRecord, TaskInstance
from bridge.runner import run_episode
from policies.scripted import PlanPolicy
from sim.android_state import SimAndroidState
from sim.apps.settings.tasks import settings_plan
from sim.discovery import scan_wrong_plans
from sim.simulator import Simulator
from sim.skins import planning_for
from sim.state import InstanceState
from sim.sync_call import complete
from sim.tasks.registry import default_registry
from tests.device.parity import phone_verdict
from tests.device.stranger import STRANGERS, make_stranger

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.browser]

TEMPLATE_IDS = default_registry().ids()
SHARD_BY_APP = True
"""make test splits this file's per-template tests by app (tests/conftest.py)."""

_FINISH = FinishStep()


async def _play(
    sim: Simulator, task: TaskInstance, plan: Plan, *, on_phone: bool = True, **options: Any
) -> EpisodeRecord:
    """Run ``plan``; the end state is then judged through the phone's path too (unless not
    ``on_phone``), and the two verdicts must agree."""
    env = await sim.env(screenshot=False, **options)
    try:
        record = await run_episode(PlanPolicy(plan), env, task, episode_id=task.task_id)
        episode = env.instance.episode
        if on_phone and record.verdict is not None and episode is not None:
            answer = episode.answer if episode.answer is not None else None
            answer = answer or episode.sheet_answer(env.instance.state)
            on_phone = await phone_verdict(
                sim, episode.task, env.instance.state, answer, list(env._trees), env.base
            )
            in_sim = record.verdict.model_dump(mode="json", exclude={"sim_side_effects"})
            assert on_phone == in_sim, (task.task_id, task.lang, in_sim, on_phone)
        return record
    finally:
        await env.close()


WRONG = scan_wrong_plans()
"""Each template's wrong plan, from its module's ``WRONG`` (``sim.discovery``)."""


async def test_every_template_has_a_wrong_plan() -> None:
    assert sorted(WRONG) == TEMPLATE_IDS


def _stranger(sim: Simulator) -> InstanceState:
    """A phone whose user has other people and other settings (tests/device/stranger.py)."""
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
async def test_oracle_solves_in_english_and_on_a_stranger_phone_in_chinese(
    sim: Simulator, task_id: str
) -> None:
    template = sim.tasks.get(task_id)
    tasks = [sim.tasks.instantiate(task_id, seed, lang) for seed, lang in ((0, "en"), (1, "zh"))]
    bases = (None, _stranger(sim))  # the simulator's own phone; another person's
    records = await asyncio.gather(
        *(_play(sim, task, template.oracle_for(task), base=base)
          for task, base in zip(tasks, bases, strict=True))
    )  # fmt: skip
    for task, record in zip(tasks, records, strict=True):
        verdict = record.verdict
        assert verdict is not None, f"{task.lang}: {record.outcome} {record.error}"
        failed = [c for c in verdict.checks if not c.passed]
        assert record.outcome == "success", f"{task.lang}: {failed} ({record.final_action})"
        assert verdict.clean, f"{task.lang}: side effects {verdict.side_effects}"
        assert verdict.progress == 1.0 and record.steps <= task.max_steps


@pytest.mark.parametrize("task_id", TEMPLATE_IDS)
async def test_a_wrong_plan_fails_or_is_unclean(sim: Simulator, task_id: str) -> None:
    world = sim.tasks.world
    lang = ("en", "zh")[TEMPLATE_IDS.index(task_id) % 2]
    task = sim.tasks.instantiate(task_id, 3, lang)
    record = await _play(sim, task, WRONG[task_id](task.params, task.lang, world))
    verdict = record.verdict
    assert verdict is not None and record.outcome != "infra_error", record.error
    assert record.final_action is not None and record.final_action.type in ("finish", "answer")
    assert getattr(record.final_action, "status", "success") == "success", "the plan ran out"
    assert not (verdict.success and verdict.clean), verdict.checks


@pytest.mark.parametrize("task_id", TEMPLATE_IDS)
async def test_oracle_solves_in_the_hyperos_skin(sim: Simulator, task_id: str) -> None:
    template = sim.tasks.get(task_id)
    lang = ("zh", "en")[TEMPLATE_IDS.index(task_id) % 2]
    task = sim.tasks.instantiate(task_id, 2, lang)
    plan = template.oracle_for(task, "hyperos")  # the judge reads no skin: judged once
    record = await _play(sim, task, plan, on_phone=False, skin="hyperos")
    verdict = record.verdict
    assert verdict is not None, f"{record.outcome} {record.error}"
    assert record.outcome == "success", [c for c in verdict.checks if not c.passed]
    assert verdict.clean and verdict.progress == 1.0, verdict.side_effects


SETTINGS_IDS = [task_id for task_id in TEMPLATE_IDS if task_id.startswith("settings/")]


@pytest.mark.parametrize("task_id", SETTINGS_IDS)
async def test_a_settings_wrong_plan_fails_in_the_hyperos_skin(
    sim: Simulator, task_id: str
) -> None:
    lang = ("en", "zh")[SETTINGS_IDS.index(task_id) % 2]
    task = sim.tasks.instantiate(task_id, 3, lang)
    with planning_for("hyperos"):
        plan = WRONG[task_id](task.params, task.lang, sim.tasks.world)
    record = await _play(sim, task, plan, on_phone=False, skin="hyperos")
    verdict = record.verdict
    assert verdict is not None and record.outcome != "infra_error", record.error
    assert getattr(record.final_action, "status", "success") == "success", "the plan ran out"
    assert not (verdict.success and verdict.clean), verdict.checks


def _sheet_plan(task_id: str, fields: Mapping[str, Any], lang: str) -> Plan:
    """Look the facts up, go home, open the AnswerSheet from the launcher, fill it, submit."""
    look = {
        "settings/QueryDeviceModel-v1": settings_plan("my_device"),
        "contacts/CountSurname-v1": [OpenAppStep(app="contacts")],
    }[task_id]
    icon = {"en": "AnswerSheet", "zh": "答题卡"}[lang]
    typed = [
        TypeStep(text=str(value), into=Selector(resource_id=f"answer_{name}"))
        for name, value in fields.items()
    ]
    return [
        *look,
        KeyStep(key="home"),
        TapStep(on=Selector(desc=icon)),
        *typed,
        TapStep(on=Selector(resource_id="submit")),
        _FINISH,
    ]


@pytest.mark.parametrize(
    ("task_id", "lang"),
    [("settings/QueryDeviceModel-v1", "en"), ("contacts/CountSurname-v1", "zh")],
)
async def test_query_answered_in_the_answer_sheet(sim: Simulator, task_id: str, lang: str) -> None:
    template = sim.tasks.get(task_id)
    task = sim.tasks.instantiate(task_id, 4, lang)
    answer = template.oracle_for(task)[-1]
    assert isinstance(answer, AnswerStep)
    record = await _play(sim, task, _sheet_plan(task_id, answer.fields, lang), answer_mode="sheet")
    verdict = record.verdict
    assert verdict is not None and record.termination == "finish"
    assert record.outcome == "success" and verdict.clean, verdict.checks
    assert {c.name for c in verdict.checks} == {f"answer.{s.name}" for s in template.answer_fields}
