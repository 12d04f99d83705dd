"""Every app's overlay has a typed model (``sim/apps/<app>/state.py``, ``App.overlay_model``)
that fits what its code writes: oracle plans of a sample of templates per app run, and after
every step every overlay of the instance validates. A wrong overlay (a key no code writes, a
value of the wrong type) is refused where state enters or leaves an instance, naming the app
and the field."""

from __future__ import annotations

import asyncio
import json
from typing import Any, get_args

import pytest

from bridge.actions import Action
from bridge.plans import AnswerStep, FinishStep, KeyStep, Plan, Selector, TapStep, TypeStep
from bridge.runner import run_episode
from policies.scripted import PlanPolicy
from sim.app import App, check_overlays
from sim.apps.files.screens import SORTS
from sim.apps.files.state import SortOrder
from sim.env import SimEnv
from sim.errors import OverlayInvalid
from sim.simulator import SimConfig, Simulator, installed_apps
from sim.state import InstanceState, OverlayModel
from sim.tasks.registry import default_registry

APPS = {app.id: app for app in installed_apps()}
TEMPLATE_IDS = default_registry().ids()
PER_APP = 2
"""Templates per app whose oracle runs (the first and the last of the app's, by id)."""


def _sample() -> list[str]:
    chosen: list[str] = []
    for app_id in APPS:
        own = [task_id for task_id in TEMPLATE_IDS if task_id.startswith(f"{app_id}/")]
        chosen += sorted({own[0], own[-1]})[:PER_APP] if own else []
    crossing = [task_id for task_id in TEMPLATE_IDS if task_id.split("/")[0] not in APPS]
    return chosen + crossing[:1]


SAMPLE = _sample()

# ---- every app has a model, and its fresh overlay fits it


@pytest.mark.parametrize("app_id", list(APPS))
def test_every_app_has_an_overlay_model_that_forbids_extra_keys(app_id: str) -> None:
    app = APPS[app_id]
    model = app.overlay_model
    assert model is not None, f"{app_id}: set overlay_model (sim/apps/{app_id}/state.py)"
    assert issubclass(model, OverlayModel) and model.model_config.get("extra") == "forbid"
    assert model.__module__ == f"sim.apps.{app_id}.state"
    app.check_overlay(app.initial_overlay())


def test_the_sample_covers_every_app_with_templates() -> None:
    sampled = {task_id.split("/")[0] for task_id in SAMPLE}
    with_templates = {task_id.split("/")[0] for task_id in TEMPLATE_IDS}
    assert with_templates & set(APPS) <= sampled


def test_the_files_sort_orders_are_the_dialogs() -> None:
    assert set(get_args(SortOrder)) == set(SORTS)


# ---- a wrong overlay is refused, naming the app and the field

WRONG_TYPES: dict[str, tuple[dict[str, Any], str]] = {
    "settings": ({"dialog": "open"}, "dialog"),
    "contacts": ({"contacts": {}, "next_id": "n002"}, "next_id"),
    "answersheet": ({"submitted": "maybe"}, "submitted"),
    "messages": ({"threads": {"10086": "one"}}, "threads.10086"),
    "clock": ({"alarms": {"6": {"id": 6, "hour": 7}}}, "alarms.6.minute"),
    "calendar": ({"events": {}, "next_id": {"events": "x"}}, "next_id.events"),
    "files": ({"sort": "by_colour"}, "sort"),
}


def test_every_app_has_a_wrong_type_case() -> None:
    assert set(WRONG_TYPES) == set(APPS)


@pytest.mark.parametrize("app_id", list(APPS))
def test_an_unknown_key_is_refused_with_the_app_and_field(app_id: str) -> None:
    app = APPS[app_id]
    with pytest.raises(OverlayInvalid) as caught:
        app.check_overlay({**app.initial_overlay(), "alarm_typo": 1})
    assert (caught.value.app, caught.value.field, caught.value.value) == (app_id, "alarm_typo", 1)
    assert f"app {app_id!r}" in str(caught.value) and "'alarm_typo'" in str(caught.value)


@pytest.mark.parametrize("app_id", list(APPS))
def test_a_wrong_type_is_refused_with_the_app_and_field(app_id: str) -> None:
    overlay, field = WRONG_TYPES[app_id]
    with pytest.raises(OverlayInvalid) as caught:
        APPS[app_id].check_overlay(overlay)
    assert (caught.value.app, caught.value.field) == (app_id, field)
    assert repr(field) in str(caught.value)


def _broken(state: InstanceState) -> InstanceState:
    state.apps["clock"] = {"alarms": {}, "nxt_id": 7}
    return state


def test_the_boundaries_refuse_a_wrong_overlay() -> None:
    """Taking a snapshot, restoring one and forking all check; a step does not."""
    sim = Simulator(SimConfig(pages=1))
    env = SimEnv(sim, sim.create_instance(0))
    good = env.instance.snapshot()
    env.instance.state = _broken(InstanceState.model_validate_json(good))
    with pytest.raises(OverlayInvalid, match="'nxt_id'"):
        env.instance.snapshot()
    with pytest.raises(OverlayInvalid, match="'nxt_id'"):
        asyncio.run(env.fork(2))
    document = {"state": json.loads(env.instance.state.model_dump_json()), "episode": None}
    env.instance.state = InstanceState.model_validate_json(good)
    with pytest.raises(OverlayInvalid, match="'nxt_id'"):
        env._load(json.dumps(document).encode())
    assert env.instance.snapshot() == good  # the refused state never entered


def test_a_task_start_state_is_checked() -> None:
    sim = Simulator(SimConfig(pages=1))
    task = sim.tasks.instantiate(SAMPLE[0], 0, "en")
    env = SimEnv(sim, sim.create_instance(0), base=_broken(InstanceState()))
    with pytest.raises(OverlayInvalid, match="app 'clock'"):
        env.pose(task)


def test_an_overlay_of_an_app_without_a_model_is_left_alone() -> None:
    class Bare(App):
        id = "bare"

    state = InstanceState()
    state.apps["bare"] = {"anything": object()}
    state.apps["not_installed"] = {"anything": 1}
    check_overlays({"bare": Bare()}, state)


# ---- oracle plans: every overlay fits its model after every step


class _CheckedEnv(SimEnv):
    """A simulated phone that checks every overlay after each step."""

    checked = 0

    async def step(self, action: Action) -> Any:
        result = await super().step(action)
        check_overlays(self.sim.phone.apps, self.instance.state)
        self.checked += 1
        return result


async def _play(
    sim: Simulator, task_id: str, lang: str, plan: Plan | None = None, **kw: Any
) -> None:
    task = sim.tasks.instantiate(task_id, 0, lang)
    env = _CheckedEnv(sim, sim.create_instance(0), screenshot=False, **kw)
    try:
        plan = plan if plan is not None else sim.tasks.get(task_id).oracle_for(task)
        record = await run_episode(PlanPolicy(plan), env, task, episode_id=task_id)
        assert record.outcome == "success", (task_id, record.outcome, record.error)
        assert env.checked == record.steps > 0
        await env.snapshot()  # the state leaves through the checked boundary too
    finally:
        await env.close()


@pytest.mark.browser
@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize("task_id", SAMPLE)
async def test_oracle_overlays_fit_their_models_after_every_step(
    sim: Simulator, task_id: str
) -> None:
    await asyncio.gather(*(_play(sim, task_id, lang) for lang in ("en", "zh")))


@pytest.mark.browser
@pytest.mark.asyncio(loop_scope="module")
async def test_an_answer_sheet_overlay_fits_its_model_after_every_step(sim: Simulator) -> None:
    """A query answered in the AnswerSheet app: posed, typed into, submitted, judged."""
    task_id = "settings/QueryDeviceModel-v1"
    answer = sim.tasks.get(task_id).oracle_for(sim.tasks.instantiate(task_id, 0, "en"))[-1]
    assert isinstance(answer, AnswerStep)
    typed = [
        TypeStep(text=str(value), into=Selector(resource_id=f"answer_{name}"))
        for name, value in answer.fields.items()
    ]
    plan: Plan = [
        KeyStep(key="home"),
        TapStep(on=Selector(desc="AnswerSheet")),
        *typed,
        TapStep(on=Selector(resource_id="submit")),
        FinishStep(),
    ]
    await _play(sim, task_id, "en", plan, answer_mode="sheet")
