"""The task catalog without a browser: checks on literal judged states, expected answers,
seeded parameters, instructions, setups that never pre-satisfy, and catalog coverage."""

from __future__ import annotations

import copy
import re
from collections import Counter
from collections.abc import Mapping
from typing import Any

import pytest

from bridge.plans import AnswerStep, FinishStep
from sim.phone import Phone
from sim.simulator import default_apps
from sim.state import InstanceState
from sim.tasks.base import TaskTemplate
from sim.tasks.contacts_query_tasks import has_surname
from sim.tasks.episode import TaskEpisode
from sim.tasks.judge import judged_state, match_answer, unexpected_changes
from sim.tasks.params import sample_params
from sim.tasks.registry import TaskRegistry, default_registry

REGISTRY = default_registry()
TEMPLATE_IDS = REGISTRY.ids()
SEEDS = range(8)


@pytest.fixture(scope="module")
def phone() -> Phone:
    return Phone(default_apps())


@pytest.fixture(scope="module")
def world(phone: Phone) -> dict[str, Mapping[str, Any]]:
    return {app_id: app.world for app_id, app in phone.apps.items()}


@pytest.fixture(scope="module")
def base_state(phone: Phone) -> dict[str, Any]:
    """The judged state of a factory-fresh phone (literal data, no browser)."""
    return judged_state(phone, InstanceState())


def _tpl(task_id: str) -> TaskTemplate:
    return REGISTRY.get(task_id)


def _params(task_id: str, world: Mapping[str, Any], **fixed: Any) -> dict[str, Any]:
    template = _tpl(task_id)
    params = {**sample_params(template.params, 0, world), **fixed}
    params.update(template.derive(params, world))
    return params


def _with(state: Mapping[str, Any], **settings: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``state`` with some settings replaced (``global={"wifi_on": 0}``)."""
    out = copy.deepcopy(dict(state))
    for namespace, values in settings.items():
        out["settings"][namespace].update(values)
    return out


def _contact(state: dict[str, Any], contact_id: str) -> dict[str, Any]:
    return next(c for c in state["apps"]["contacts"]["contacts"] if c["id"] == contact_id)


def _add(state: Mapping[str, Any], *contacts: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(dict(state))
    for extra in contacts:
        base = {"phones": [], "emails": [], "company": "", "title": "", "starred": False}
        out["apps"]["contacts"]["contacts"].append({**base, "note": "", **extra})
    return out


def _passed(template: TaskTemplate, state: Mapping[str, Any], p: dict[str, Any]) -> list[bool]:
    return [c.passed for c in template.checks(state, p)]


# ---------------------------------------------------------------- the catalog


def test_catalog_covers_levels_and_kinds() -> None:
    templates = list(REGISTRY)
    assert len(templates) >= 26
    assert len(TEMPLATE_IDS) == len(set(TEMPLATE_IDS)) == len(templates)
    for template in templates:
        assert re.fullmatch(r"(settings|contacts)/[A-Z][A-Za-z]+-v\d+", template.id)
        assert set(template.apps) <= {"settings", "contacts"}
        assert template.__doc__, f"{template.id} needs a docstring saying what it asks"
    levels = Counter(t.level for t in templates)
    kinds = Counter(t.kind for t in templates)
    assert set(levels) == {"L1", "L2", "L3", "L4"} and set(kinds) == {"operate", "query", "hybrid"}
    assert min(levels.values()) >= 3 and kinds["query"] >= 8 and kinds["hybrid"] >= 3


def test_a_fresh_registry_holds_every_template_once() -> None:
    fresh = TaskRegistry(list(REGISTRY))
    assert fresh.ids() == TEMPLATE_IDS
    with pytest.raises(KeyError, match="StarContact-v1"):
        fresh.get("contacts/StarContacts-v1")


@pytest.mark.parametrize("task_id", TEMPLATE_IDS)
def test_instructions_format_in_both_languages(task_id: str, world: Any) -> None:
    template = _tpl(task_id)
    assert not re.search(r"[\u4e00-\u9fff]", template.instructions["en"])
    for seed in SEEDS:
        en = REGISTRY.instantiate(task_id, seed, world, "en")
        zh = REGISTRY.instantiate(task_id, seed, world, "zh")
        assert "{" not in en.instruction and "{" not in zh.instruction
        assert re.search(r"[\u4e00-\u9fff]", zh.instruction), zh.instruction
        assert (en.lang, zh.lang) == ("en", "zh") and en.params == zh.params
        assert [f.name for f in zh.answer_fields] == [s.name for s in _tpl(task_id).answer_fields]
        assert all(re.search(r"[\u4e00-\u9fff]", f.label) for f in zh.answer_fields)


@pytest.mark.parametrize("task_id", TEMPLATE_IDS)
def test_params_are_deterministic_per_seed_and_vary_across_seeds(task_id: str, world: Any) -> None:
    first = [REGISTRY.instantiate(task_id, seed, world).params for seed in range(20)]
    again = [REGISTRY.instantiate(task_id, seed, world).params for seed in range(20)]
    assert first == again
    if _tpl(task_id).params:
        assert len({repr(sorted(p.items())) for p in first}) > 1


@pytest.mark.parametrize("task_id", TEMPLATE_IDS)
def test_setup_never_presatisfies_and_the_oracle_answers_the_truth(
    task_id: str, phone: Phone, world: Any
) -> None:
    template = _tpl(task_id)
    for seed in SEEDS:
        for lang in ("en", "zh"):
            task = REGISTRY.instantiate(task_id, seed, world, lang)
            episode = TaskEpisode(template, task)
            episode.setup(phone, InstanceState(seed=seed))  # raises PreSatisfiedTask
            start = template.checks(episode.initial, task.params)
            assert not start or not all(c.passed for c in start)
            plan = template.oracle(task.params, lang)
            if template.answer_fields:
                assert isinstance(plan[-1], AnswerStep)
                truth = template.expected_answers(episode.initial, task.params)
                for spec in template.answer_fields:
                    given = plan[-1].fields[spec.name]
                    assert match_answer(spec.kind, truth[spec.name], given, spec.tolerance)
            else:
                assert isinstance(plan[-1], FinishStep) and start


def test_the_ui_follows_the_task_language_unless_the_setup_changes_it(
    phone: Phone, world: Any
) -> None:
    def locale(task_id: str, seed: int, lang: str) -> str:
        task = REGISTRY.instantiate(task_id, seed, world, lang)
        episode = TaskEpisode(_tpl(task_id), task)
        episode.setup(phone, InstanceState(seed=seed))
        return episode.initial["settings"]["system"]["system_locales"]

    assert locale("settings/SetWifi-v1", 0, "zh") == "zh-CN"
    assert locale("settings/SetWifi-v1", 0, "en") == "en-US"
    seed = next(
        s
        for s in range(20)
        if REGISTRY.instantiate("settings/SetLanguage-v1", s, world).params["value"] == "en-US"
    )
    assert locale("settings/SetLanguage-v1", seed, "en") == "zh-CN"  # the goal is English


# ---------------------------------------------------------------- settings checks


def test_switch_task_passes_only_at_the_target(base_state: Any) -> None:
    template = _tpl("settings/SetBluetooth-v1")
    on = {"on": True}
    assert _passed(template, _with(base_state, **{"global": {"bluetooth_on": 1}}), on) == [True]
    assert _passed(template, _with(base_state, **{"global": {"bluetooth_on": 0}}), on) == [False]
    check = template.checks(base_state, on)[0]
    assert (check.name, check.expected, check.actual) == ("bluetooth_on", 1, 0)


def test_dark_theme_and_dnd_use_android_encodings(base_state: Any) -> None:
    dark = _tpl("settings/SetDarkTheme-v1")
    assert _passed(dark, _with(base_state, secure={"ui_night_mode": 2}), {"on": True}) == [True]
    assert _passed(dark, _with(base_state, secure={"ui_night_mode": 1}), {"on": True}) == [False]
    dnd = _tpl("settings/SetDoNotDisturb-v1")
    # any non-zero zen_mode is on, as on a phone (1 priority, 2 none, 3 alarms)
    assert _passed(dnd, _with(base_state, **{"global": {"zen_mode": 3}}), {"on": True}) == [True]
    assert _passed(dnd, _with(base_state, **{"global": {"zen_mode": 0}}), {"on": False}) == [True]


def test_choice_tasks_compare_options_not_raw_values(base_state: Any) -> None:
    font = _tpl("settings/SetFontSize-v1")
    phone_noise = _with(base_state, system={"font_scale": 1.1500000357627869})
    assert _passed(font, phone_noise, {"value": "large"}) == [True]
    assert _passed(font, phone_noise, {"value": "largest"}) == [False]
    ringer = _tpl("settings/SetRingerMode-v1")
    assert _passed(
        ringer, _with(base_state, **{"global": {"mode_ringer": 1}}), {"value": "vibrate"}
    ) == [True]
    language = _tpl("settings/SetLanguage-v1")
    assert _passed(
        language, _with(base_state, system={"system_locales": "zh-CN,en-US"}), {"value": "zh-CN"}
    ) == [True]


def test_brightness_extremes(base_state: Any) -> None:
    template = _tpl("settings/SetBrightnessExtreme-v1")
    assert _passed(
        template,
        _with(base_state, system={"screen_brightness": 255}),
        {"level": "max", "start": 90},
    ) == [True]
    assert _passed(
        template,
        _with(base_state, system={"screen_brightness": 254}),
        {"level": "max", "start": 90},
    ) == [False]
    assert _passed(
        template, _with(base_state, system={"screen_brightness": 0}), {"level": "min", "start": 90}
    ) == [True]


def test_radios_must_be_off_before_airplane_mode(base_state: Any) -> None:
    template = _tpl("settings/RadiosOffThenAirplane-v1")
    done_right = {
        "airplane_mode_on": 1,
        "wifi_on": 0,
        "bluetooth_on": 0,
        "wifi_saved_state": 0,
        "bluetooth_saved_state": 0,
    }
    assert all(_passed(template, _with(base_state, **{"global": done_right}), {}))
    airplane_only = {**done_right, "wifi_saved_state": 1, "bluetooth_saved_state": 1}
    verdict = _passed(template, _with(base_state, **{"global": airplane_only}), {})
    assert verdict == [True, True, True, False, False]


def test_bedtime_routine_reports_partial_progress(base_state: Any) -> None:
    template = _tpl("settings/BedtimeRoutine-v1")
    p = {"brightness": 120, "volume": 9, "timeout": 60_000}
    half = _with(
        base_state,
        secure={"ui_night_mode": 2},
        **{"global": {"zen_mode": 1}},
        system={"screen_brightness": 0, "volume_ring": 3, "screen_off_timeout": 60_000},
    )
    assert _passed(template, half, p) == [True, True, True, False, False]
    done = _with(half, system={"volume_ring": 0, "screen_off_timeout": 30_000})
    assert all(_passed(template, done, p))


def test_rename_device_and_multi_setting(base_state: Any) -> None:
    rename = _tpl("settings/RenameDevice-v1")
    renamed = _with(base_state, **{"global": {"device_name": "客厅的手机"}})
    assert _passed(rename, renamed, {"name": "客厅的手机"}) == [True]
    assert _passed(rename, renamed, {"name": "Travel Phone"}) == [False]
    multi = _tpl("settings/SetRadiosAndTimeout-v1")
    p = {"wifi": False, "bluetooth": True, "timeout": 120_000}
    state = _with(
        base_state,
        **{"global": {"wifi_on": 0, "bluetooth_on": 1}},
        system={"screen_off_timeout": 120_000},
    )
    assert all(_passed(multi, state, p))
    assert _passed(multi, _with(state, system={"screen_off_timeout": 60_000}), p)[2] is False


def test_settings_answers(base_state: Any, world: Any) -> None:
    model = _tpl("settings/QueryDeviceModel-v1")
    p = _params(model.id, world)
    assert model.expected_answers(base_state, p) == {"model": "Redmi Note 12 Turbo"}
    assert _tpl("settings/CountPairedDevices-v1").expected_answers(
        base_state, _params("settings/CountPairedDevices-v1", world)
    ) == {"count": 3}
    assert _tpl("settings/QueryAndroidVersion-v1").expected_answers(
        base_state, _params("settings/QueryAndroidVersion-v1", world)
    ) == {"version": 14}
    wifi = _tpl("settings/QueryConnectedWifi-v1")
    joined = copy.deepcopy(base_state)
    joined["apps"]["settings"] = {"wifi_ssid": "CMCC-Free"}
    assert wifi.expected_answers(joined, {"ssid": "CMCC-Free"}) == {"network": "CMCC-Free"}
    longest = _tpl("settings/SetLongestTimeout-v1")
    lp = _params(longest.id, world)
    assert longest.expected_answers(base_state, lp) == {"minutes": 30}
    assert _passed(longest, _with(base_state, system={"screen_off_timeout": 1_800_000}), lp)


# ---------------------------------------------------------------- contacts checks


def test_create_contact_finds_the_one_new_contact(base_state: Any, world: Any) -> None:
    template = _tpl("contacts/CreateContact-v1")
    p = _params(template.id, world, name="周雨桐", prefix="139", line=12345678)
    assert p["phone"] == "139 1234 5678"
    made = _add(
        base_state,
        {
            "id": "n001",
            "name": "周雨桐",
            "phones": [{"type": "mobile", "number": "+86 13912345678"}],
        },
    )
    assert all(_passed(template, made, p))
    twice = _add(made, {"id": "n002", "name": "周雨桐 2"})
    assert _passed(template, twice, p) == [False, True, True]
    wrong = _add(
        base_state,
        {"id": "n001", "name": "周雨桐", "phones": [{"type": "mobile", "number": "139 1234 5679"}]},
    )
    assert _passed(template, wrong, p) == [True, True, False]
    assert _passed(template, base_state, p) == [False, False, False]


def test_work_email_needs_the_work_label(base_state: Any, world: Any) -> None:
    template = _tpl("contacts/CreateContactWorkEmail-v1")
    p = _params(template.id, world, name="Lucas Meyer")
    email = {"type": "home", "address": "Lucas.Meyer@example.com"}
    home = _add(base_state, {"id": "n001", "name": "Lucas Meyer", "emails": [email]})
    assert _passed(template, home, p) == [True, True, True, False]
    work = _add(
        base_state, {"id": "n001", "name": "Lucas Meyer", "emails": [{**email, "type": "work"}]}
    )
    assert all(_passed(template, work, p))


def test_company_and_title(base_state: Any, world: Any) -> None:
    template = _tpl("contacts/CreateContactWithCompany-v1")
    p = _params(template.id, world, name="Daniel Park", company="Globex", title="Designer")
    made = {
        "id": "n001",
        "name": "Daniel Park",
        "phones": [{"type": "mobile", "number": p["phone"]}],
        "company": "Globex",
        "title": "Designer",
    }
    assert all(_passed(template, _add(base_state, made), p))
    swapped = {**made, "company": "Designer", "title": "Globex"}
    assert _passed(template, _add(base_state, swapped), p)[-2:] == [False, False]


def test_star_unstar_and_their_allowed_changes(base_state: Any, world: Any) -> None:
    star = _tpl("contacts/StarContact-v1")
    p = _params(star.id, world, contact="c012")
    assert p["name"] == "Fiona" and star.allowed_changes(p) == (
        "apps.contacts.contacts.c012.starred",
    )
    after = copy.deepcopy(base_state)
    _contact(after, "c012")["starred"] = True
    assert _passed(star, after, p) == [True] and _passed(star, base_state, p) == [False]
    assert unexpected_changes(base_state, after, star.allowed_changes(p)) == []
    _contact(after, "c013")["starred"] = True  # a second star is a side effect
    assert unexpected_changes(base_state, after, star.allowed_changes(p)) == [
        "apps.contacts.contacts.c013.starred"
    ]
    unstar = _tpl("contacts/UnstarContact-v1")
    assert _passed(unstar, base_state, {"contact": "c001"}) == [False]


def test_delete_and_edit(base_state: Any, world: Any) -> None:
    delete = _tpl("contacts/DeleteContact-v1")
    gone = copy.deepcopy(base_state)
    gone["apps"]["contacts"]["contacts"] = [
        c for c in gone["apps"]["contacts"]["contacts"] if c["id"] != "c008"
    ]
    assert _passed(delete, gone, {"contact": "c008"}) == [True]
    assert _passed(delete, gone, {"contact": "c009"}) == [False]
    assert unexpected_changes(base_state, gone, delete.allowed_changes({"contact": "c008"})) == []
    edit = _tpl("contacts/EditContactPhone-v1")
    p = _params(edit.id, world, contact="c003", prefix="186", line=55554444)
    changed = copy.deepcopy(base_state)
    _contact(changed, "c003")["phones"] = [{"type": "mobile", "number": "18655554444"}]
    assert _passed(edit, changed, p) == [True, True]
    _contact(changed, "c003")["phones"].insert(0, {"type": "mobile", "number": "+86 139 1234 5678"})
    assert _passed(edit, changed, p) == [False, True]  # added, not replaced


def test_contact_answers(base_state: Any, world: Any) -> None:
    number = _tpl("contacts/QueryPhoneNumber-v1")
    p = _params(number.id, world, contact="c001")
    truth = number.expected_answers(base_state, p)["number"]
    assert truth == "+86 138 0013 8000"
    # text matcher over the digits as shown: punctuation and spacing are free, digits are not
    assert match_answer("text", truth, "86 138-0013-8000")
    assert not match_answer("text", truth, "13800138000")
    favorites = _tpl("contacts/CountFavorites-v1")
    assert favorites.expected_answers(base_state, {"extra": 0, "offset": 0}) == {"count": 4}
    company = _tpl("contacts/QueryCompany-v1")
    assert company.expected_answers(base_state, {"contact": "c054"}) == {"company": "Acme Corp"}
    whose = _tpl("contacts/WhoseNumber-v1")
    wp = _params(whose.id, world, contact="c013")
    assert wp["number"] == "13812345678"
    assert whose.expected_answers(base_state, wp) == {"name": "张伟"}


def test_count_surname_counts_people_added_at_setup(base_state: Any, world: Any) -> None:
    assert has_surname("王秀英", "王") and not has_surname("欧阳明", "王")
    assert has_surname("Bob Smith", "Smith") and not has_surname("Smithers Lee", "Smith")
    template = _tpl("contacts/CountSurname-v1")
    p = {"surname": "王", "extra": 1, "favorites": 2}
    assert template.expected_answers(base_state, p) == {"count": 4, "favorites": 0}
    state = _add(base_state, {"id": "s01", "name": "王建国", "starred": True})
    assert template.expected_answers(state, p) == {"count": 5, "favorites": 1}
    assert template.derive(p, world) == {"count": 5, "starred": 2}


def test_hybrids_judge_state_and_answer_separately(base_state: Any, world: Any) -> None:
    copy_number = _tpl("contacts/CopyNumberToNewContact-v1")
    p = _params(copy_number.id, world, contact="c002", new="林可欣")
    made = _add(
        base_state,
        {"id": "n001", "name": "林可欣", "phones": [{"type": "mobile", "number": "15600001111"}]},
    )
    assert all(_passed(copy_number, made, p))
    assert copy_number.expected_answers(base_state, p) == {"number": "+86 156 0000 1111"}
    star_all = _tpl("contacts/StarSurname-v1")
    sp = _params(star_all.id, world, surname="刘")
    assert sp["names"] == ["刘婷", "刘洋"] and star_all.allowed_changes(sp) == (
        "apps.contacts.contacts.c023.starred",
        "apps.contacts.contacts.c022.starred",
    )
    starred = copy.deepcopy(base_state)
    _contact(starred, "c022")["starred"] = True
    assert _passed(star_all, starred, sp) == [False, True]
    assert star_all.expected_answers(base_state, sp) == {"count": 2}
