"""Every task template end to end in Chromium: its oracle solves it in English and Chinese,
doing nothing never passes, and a plausible wrong plan fails or leaves side effects. Each
end state is judged a second time through the virtual phone's shell (the phone's judge
path): the verdicts must be the same.

Episodes run without screenshots (the scripted policy reads the UI tree; screenshots are
covered by test_env_e2e). The English and Chinese oracles of a template run concurrently,
one per pooled page.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
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
from bridge.runner import run_episode
from bridge.schema import EpisodeRecord, TaskInstance
from policies.scripted import PlanPolicy
from sim.apps.settings import model
from sim.simulator import Simulator
from sim.tasks.calendar_query_tasks import PROJECTS, search_event, simulated_date
from sim.tasks.calendar_tasks import (
    WEEK,
    later,
    new_event_plan,
    open_day,
    open_event,
    reminder_text,
    set_time,
)
from sim.tasks.contacts_tasks import editor_plan, named, open_contact, single_phone
from sim.tasks.registry import default_registry
from sim.tasks.settings_tasks import pick_radio, settings_plan, settings_text, timeout_text
from tests.device.parity import phone_verdict

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.browser]

TEMPLATE_IDS = default_registry().ids()
P = dict[str, Any]
World = Mapping[str, Mapping[str, Any]]
WrongPlan = Callable[[P, str, World], Plan]

_FINISH = FinishStep()
_BACK = KeyStep(key="back")
_SAVE = TapStep(on=Selector(resource_id="editor_menu_save_button"))
_FAB = TapStep(on=Selector(resource_id="floating_action_button"))


def _world(sim: Simulator) -> dict[str, Mapping[str, Any]]:
    return {app_id: app.world for app_id, app in sim.phone.apps.items()}


async def _play(sim: Simulator, task: TaskInstance, plan: Plan, **options: Any) -> EpisodeRecord:
    """Run ``plan``; the end state is then judged through the phone's path too, and the two
    verdicts must agree."""
    env = await sim.env(screenshot=False, **options)
    try:
        record = await run_episode(PlanPolicy(plan), env, task, episode_id=task.task_id)
        episode = env.instance.episode
        if record.verdict is not None and episode is not None:
            answer = episode.answer if episode.answer is not None else None
            answer = answer or episode.sheet_answer(env.instance.state)
            on_phone = await phone_verdict(
                sim, env.instance.episode.task, env.instance.state, answer, list(env._trees)
            )
            in_sim = record.verdict.model_dump(mode="json", exclude={"sim_side_effects"})
            assert on_phone == in_sim, (task.task_id, task.lang, in_sim, on_phone)
        return record
    finally:
        await env.close()


def _other(options: tuple[Any, ...], value: Any) -> Any:
    """The option before ``value``: never the target, never where the setup started."""
    return options[(options.index(value) - 1) % len(options)]


def _star_other(p: P, lang: str, world: World) -> Plan:
    """Star (or unstar) the first other contact in the same state as the target."""
    target = next(c for c in named(world) if c["id"] == p["contact"])
    other = next(
        c for c in named(world) if c["starred"] == target["starred"] and c["id"] != p["contact"]
    )
    return [*open_contact(other["name"]), TapStep(on=Selector(resource_id="menu_star")), _FINISH]


def _typo(number: str) -> str:
    """``number`` with its last digit changed."""
    return number[:-1] + str((int(number[-1]) + 1) % 10)


def _locale_label(code: str, lang: str) -> str:
    return settings_text("locale_" + code.lower().replace("-", "_"), lang)


def _other_number(p: P, world: World) -> str:
    return next(c for c in single_phone(world) if c["name"] != p["name"])["phones"][0]["number"]


def _other_name(p: P, world: World) -> str:
    return next(c["name"] for c in named(world) if c["name"] != p["name"])


_CAL_SAVE = TapStep(on=Selector(resource_id="action_done"))
_CAL_DELETE = [
    TapStep(on=Selector(resource_id="info_action_delete")),
    TapStep(on=Selector(resource_id="button1")),
]
_CAL_EDIT = TapStep(on=Selector(resource_id="info_action_edit"))


def _new_event(p: P, lang: str, end: str | None = None) -> Plan:
    """The editor on the task's new event, its end ``end`` (default: the task's)."""
    return new_event_plan(p["days"], p["title"], lang, p["start"], end or p["end"])


def _other_seeded(p: P, *, editable: bool = False) -> dict[str, Any]:
    """Another event of the seeded week (one without reminders when ``editable``)."""
    pool = [e for e in WEEK if e.title != p["target"] and not (editable and e.reminders)]
    return pool[0].model_dump()


WRONG: dict[str, WrongPlan] = {
    # settings: the neighbouring control, the wrong value, the wrong order, half a routine
    "settings/SetWifi-v1": lambda p, lang, w: [
        *settings_plan("bluetooth_settings", "bluetooth_enable"),
        _FINISH,
    ],
    "settings/SetAirplaneMode-v1": lambda p, lang, w: [
        *settings_plan("wifi_settings", "wifi_enable"),
        _FINISH,
    ],
    "settings/SetBluetooth-v1": lambda p, lang, w: [
        *settings_plan("wifi_settings", "wifi_enable"),
        _FINISH,
    ],
    "settings/SetMobileData-v1": lambda p, lang, w: [*settings_plan("toggle_airplane"), _FINISH],
    "settings/SetDarkTheme-v1": lambda p, lang, w: [
        *settings_plan("display_settings", "dark_mode_display_enable", "dark_mode_display_enable"),
        _FINISH,
    ],
    "settings/SetDoNotDisturb-v1": lambda p, lang, w: [
        *settings_plan("sound_settings"),
        pick_radio(settings_text("ringer_silent", lang)),
        _FINISH,
    ],
    "settings/MuteRingVolume-v1": lambda p, lang, w: [
        *settings_plan("sound_settings"),
        TapStep(on=Selector(resource_id="ring_volume"), at=(1.0, 0.5)),
        _FINISH,
    ],
    "settings/SetBrightnessExtreme-v1": lambda p, lang, w: [
        *settings_plan("display_settings"),
        TapStep(
            on=Selector(resource_id="brightness"),
            at=(0.0, 0.5) if p["level"] == "max" else (1.0, 0.5),
        ),
        _FINISH,
    ],
    "settings/SetScreenTimeout-v1": lambda p, lang, w: [
        *settings_plan("display_settings", "screen_timeout"),
        pick_radio(timeout_text(_other(model.TIMEOUT_CHOICES_MS, p["value"]), lang)),
        _FINISH,
    ],
    "settings/SetRingerMode-v1": lambda p, lang, w: [
        *settings_plan("sound_settings"),
        pick_radio(settings_text(f"ringer_{_other(tuple(model.RINGER_MODES), p['value'])}", lang)),
        _FINISH,
    ],
    "settings/SetFontSize-v1": lambda p, lang, w: [
        *settings_plan("display_settings", "font_size"),
        pick_radio(settings_text(f"font_{_other(tuple(model.FONT_SCALES), p['value'])}", lang)),
        _FINISH,
    ],
    "settings/SetLanguage-v1": lambda p, lang, w: [
        *settings_plan("language_settings"),
        pick_radio(_locale_label(_other(model.LOCALES, p["value"]), lang)),
        _FINISH,
    ],
    "settings/RenameDevice-v1": lambda p, lang, w: [
        *settings_plan("my_device", "device_name"),
        TypeStep(text=p["name"], into=Selector(resource_id="edit_text")),
        TapStep(on=Selector(resource_id="button2")),  # Cancel
        _FINISH,
    ],
    "settings/QueryDeviceModel-v1": lambda p, lang, w: [
        *settings_plan("my_device"),
        AnswerStep(fields={"model": "Redmi Note 12 Pro"}),
    ],
    "settings/QueryAndroidVersion-v1": lambda p, lang, w: [
        *settings_plan("my_device"),
        AnswerStep(fields={"version": p["version"] - 1}),
    ],
    "settings/QueryConnectedWifi-v1": lambda p, lang, w: [
        *settings_plan("wifi_settings"),
        AnswerStep(fields={"network": "HomeNet" if p["ssid"] != "HomeNet" else "HomeNet-5G"}),
    ],
    "settings/CountPairedDevices-v1": lambda p, lang, w: [
        *settings_plan("bluetooth_settings"),
        AnswerStep(fields={"count": 0}),  # counted with Bluetooth still off
    ],
    "settings/SetLongestTimeout-v1": lambda p, lang, w: [
        *settings_plan("display_settings", "screen_timeout"),
        pick_radio(timeout_text(600_000, lang)),
        AnswerStep(fields={"minutes": 10}),
    ],
    "settings/RadiosOffThenAirplane-v1": lambda p, lang, w: [
        *settings_plan("toggle_airplane"),  # the radios go off, but come back later
        _FINISH,
    ],
    "settings/SetRadiosAndTimeout-v1": lambda p, lang, w: [
        *settings_plan("wifi_settings", "wifi_enable"),
        _BACK,
        *settings_plan("bluetooth_settings", "bluetooth_enable"),
        _FINISH,
    ],
    "settings/BedtimeRoutine-v1": lambda p, lang, w: [
        *settings_plan("display_settings", "dark_mode_display_enable"),
        TapStep(on=Selector(resource_id="brightness"), at=(1.0, 0.5)),
        _BACK,
        *settings_plan("sound_settings", "zen_mode"),
        _FINISH,
    ],
    # calendar: half an hour off, a timed event, the next reminder, another place or event
    "calendar/CreateEvent-v1": lambda p, lang, w: [
        *_new_event(p, lang, end=later(p["end"], 30)),
        _CAL_SAVE,
        _FINISH,
    ],
    "calendar/CreateAllDayEvent-v1": lambda p, lang, w: [
        *new_event_plan(p["days"], p["title"], lang, None, None),  # left a timed event
        _CAL_SAVE,
        _FINISH,
    ],
    "calendar/CreateEventWithReminder-v1": lambda p, lang, w: [
        *_new_event(p, lang),
        TapStep(on=Selector(resource_id="reminder")),
        pick_radio(reminder_text(_other((5, 15, 30, 60, 1440), p["reminder"]), lang)),
        _CAL_SAVE,
        _FINISH,
    ],
    "calendar/CreateEventWithLocation-v1": lambda p, lang, w: [
        *_new_event(p, lang),
        TypeStep(text=p["place"], into=Selector(resource_id="description")),
        _CAL_SAVE,
        _FINISH,
    ],
    "calendar/DeleteEvent-v1": lambda p, lang, w: [
        *open_event(_other_seeded(p, editable=True)["title"]),
        *_CAL_DELETE,
        _FINISH,
    ],
    "calendar/RescheduleEvent-v1": lambda p, lang, w: [
        *open_event(p["target"]),
        _CAL_EDIT,
        *set_time("start", later(p["start"], 60)),
        _CAL_SAVE,
        _FINISH,
    ],
    "calendar/EditEventLocation-v1": lambda p, lang, w: [
        *open_event(p["target"]),
        _CAL_EDIT,
        TypeStep(text=p["place"], into=Selector(resource_id="description")),
        _CAL_SAVE,
        _FINISH,
    ],
    "calendar/QueryEventDate-v1": lambda p, lang, w: [
        *search_event(p["target"]),
        AnswerStep(fields={"date": simulated_date(p["event"]["days"] + 1)}),
    ],
    "calendar/QueryEventTime-v1": lambda p, lang, w: [
        *open_event(p["target"]),
        AnswerStep(fields={"time": p["event"]["end"]}),
    ],
    "calendar/QueryEventLocation-v1": lambda p, lang, w: [
        *open_event(p["target"]),
        AnswerStep(fields={"location": _other_seeded(p)["location"]}),
    ],
    "calendar/QueryFirstProjectEvent-v1": lambda p, lang, w: [
        *open_day(p["days"], lang),  # the project's first event of the week, not of that day
        AnswerStep(fields={"title": PROJECTS[p["project"]][3], "time": "08:00"}),
    ],
    "calendar/DeleteProjectEvents-v1": lambda p, lang, w: [
        *search_event(p["project"]),
        *[
            step
            for title in PROJECTS[p["project"]][: p["count"] - 1]  # one left behind
            for step in (TapStep(on=Selector(resource_id="title", text=title)), *_CAL_DELETE)
        ],
        AnswerStep(fields={"count": p["count"]}),
    ],
    # contacts: a wrong digit, swapped fields, the default label, the wrong contact
    "contacts/CreateContact-v1": lambda p, lang, w: [
        OpenAppStep(app="contacts"),
        _FAB,
        *editor_plan(("name_edit", p["name"]), ("phone_edit", _typo(p["phone"]))),
        _SAVE,
        _FINISH,
    ],
    "contacts/CreateContactWithCompany-v1": lambda p, lang, w: [
        OpenAppStep(app="contacts"),
        _FAB,
        *editor_plan(
            ("name_edit", p["name"]),
            ("phone_edit", p["phone"]),
            ("company_edit", p["title"]),
            ("title_edit", p["company"]),
        ),
        _SAVE,
        _FINISH,
    ],
    "contacts/CreateContactWorkEmail-v1": lambda p, lang, w: [
        OpenAppStep(app="contacts"),
        _FAB,
        *editor_plan(("name_edit", p["name"]), ("email_edit", p["email"])),
        _SAVE,  # still labelled Home
        _FINISH,
    ],
    "contacts/StarContact-v1": _star_other,
    "contacts/UnstarContact-v1": _star_other,
    "contacts/DeleteContact-v1": lambda p, lang, w: [
        *open_contact(_other_name(p, w)),
        TapStep(on=Selector(resource_id="menu_delete")),
        TapStep(on=Selector(resource_id="button1")),
        _FINISH,
    ],
    "contacts/EditContactPhone-v1": lambda p, lang, w: [
        *open_contact(p["name"]),
        TapStep(on=Selector(resource_id="menu_edit")),
        TapStep(on=Selector(resource_id="add_phone")),
        TypeStep(text=p["phone"], into=Selector(resource_id="phone_edit", nth=1)),
        _SAVE,
        _FINISH,
    ],
    "contacts/QueryPhoneNumber-v1": lambda p, lang, w: [
        *open_contact(p["name"]),
        AnswerStep(fields={"number": _other_number(p, w)}),
    ],
    "contacts/CountFavorites-v1": lambda p, lang, w: [
        OpenAppStep(app="contacts"),
        AnswerStep(fields={"count": p["count"] + 1}),
    ],
    "contacts/QueryCompany-v1": lambda p, lang, w: [
        *open_contact(p["name"]),
        AnswerStep(fields={"company": "Globex" if p["company"] != "Globex" else "Acme Corp"}),
    ],
    "contacts/WhoseNumber-v1": lambda p, lang, w: [
        OpenAppStep(app="contacts"),
        AnswerStep(fields={"name": _other_name(p, w)}),
    ],
    "contacts/CountSurname-v1": lambda p, lang, w: [
        OpenAppStep(app="contacts"),
        AnswerStep(fields={"count": p["count"] - p["extra"], "favorites": p["starred"]}),
    ],
    "contacts/CopyNumberToNewContact-v1": lambda p, lang, w: [
        *open_contact(p["name"]),  # renames the contact instead of creating one
        TapStep(on=Selector(resource_id="menu_edit")),
        *editor_plan(("name_edit", p["new"])),
        _SAVE,
        AnswerStep(fields={"number": p["number"]}),
    ],
    "contacts/StarSurname-v1": lambda p, lang, w: [
        *open_contact(p["names"][0]),
        TapStep(on=Selector(resource_id="menu_star")),
        AnswerStep(fields={"count": len(p["ids"])}),
    ],
}


async def test_every_template_has_a_wrong_plan() -> None:
    assert sorted(WRONG) == TEMPLATE_IDS


@pytest.mark.parametrize("task_id", TEMPLATE_IDS)
async def test_oracle_solves_in_english_and_chinese(sim: Simulator, task_id: str) -> None:
    template = sim.tasks.get(task_id)
    tasks = [
        sim.tasks.instantiate(task_id, seed, _world(sim), lang)
        for seed, lang in ((0, "en"), (1, "zh"))
    ]
    records = await asyncio.gather(*(_play(sim, task, template.oracle_for(task)) for task in tasks))
    for task, record in zip(tasks, records, strict=True):
        verdict = record.verdict
        assert verdict is not None, f"{task.lang}: {record.outcome} {record.error}"
        failed = [c for c in verdict.checks if not c.passed]
        assert record.outcome == "success", f"{task.lang}: {failed} ({record.final_action})"
        assert verdict.clean, f"{task.lang}: side effects {verdict.side_effects}"
        assert verdict.progress == 1.0 and record.steps <= task.max_steps


@pytest.mark.parametrize("task_id", TEMPLATE_IDS)
async def test_doing_nothing_fails(sim: Simulator, task_id: str) -> None:
    task = sim.tasks.instantiate(task_id, 2, _world(sim))
    env = await sim.env(screenshot=False)
    try:
        await env.reset(task)
        verdict = await env.verdict()
    finally:
        await env.close()
    assert not verdict.success and verdict.progress < 1.0 and verdict.clean


@pytest.mark.parametrize("task_id", TEMPLATE_IDS)
async def test_a_wrong_plan_fails_or_is_unclean(sim: Simulator, task_id: str) -> None:
    world = _world(sim)
    lang = ("en", "zh")[TEMPLATE_IDS.index(task_id) % 2]
    task = sim.tasks.instantiate(task_id, 3, world, lang)
    record = await _play(sim, task, WRONG[task_id](task.params, task.lang, world))
    verdict = record.verdict
    assert verdict is not None and record.outcome != "infra_error", record.error
    assert record.final_action is not None and record.final_action.type in ("finish", "answer")
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
    task = sim.tasks.instantiate(task_id, 4, _world(sim), lang)
    answer = template.oracle_for(task)[-1]
    assert isinstance(answer, AnswerStep)
    record = await _play(sim, task, _sheet_plan(task_id, answer.fields, lang), answer_mode="sheet")
    verdict = record.verdict
    assert verdict is not None and record.termination == "finish"
    assert record.outcome == "success" and verdict.clean, verdict.checks
    assert {c.name for c in verdict.checks} == {f"answer.{s.name}" for s in template.answer_fields}
