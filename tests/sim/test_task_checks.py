"""The task catalog without a browser: every bound spec posed and judged by ``bridge.judge``
over an in-memory ``SimAndroidState``, changed through the protocol a phone also speaks."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import pytest

from bridge.android_contract import (
    CONTACTS,
    DATA,
    EMAIL,
    NAME,
    ORGANIZATION,
    PHONE,
    RAW_CONTACTS,
    sql_text,
)
from bridge.judge import StartRecord, apply_op, judge, pose, read_checks
from bridge.plans import AnswerStep, FinishStep
from bridge.schema import AnswerValue, UINode, Verdict
from bridge.spec.answers import answer_matches
from bridge.spec.contacts import EnsureContact
from bridge.spec.settings import PutSetting
from bridge.spec.ui import LongestOfferedCheck
from bridge.taskspec import TaskSpec
from bridge.uitree import to_xml
from sim.android_state import SimAndroidState
from sim.apps.contacts.query_tasks import has_surname
from sim.phone import Phone
from sim.simulator import installed_apps
from sim.state import InstanceState
from sim.sync_call import complete
from sim.tasks.base import UI_LOCALES
from sim.tasks.params import sample_params, sampled_fields
from sim.tasks.registry import TaskRegistry, default_registry

REGISTRY = default_registry()
TEMPLATE_IDS = REGISTRY.ids()
SEEDS = range(8)
HAN = re.compile(r"[\u4e00-\u9fff]")
World = Mapping[str, Mapping[str, Any]]
Answer = dict[str, AnswerValue]


@dataclass
class Posed:
    """A spec posed on a fresh simulated phone: its parameters and the start it recorded."""

    params: dict[str, Any]
    spec: TaskSpec
    android: SimAndroidState
    start: StartRecord

    def verdict(self, answer: Answer | None = None, trees: tuple[str, ...] = ()) -> Verdict:
        return complete(judge(self.spec, self.android, self.start, answer=answer, trees=trees))

    def passed(self, answer: Answer | None = None) -> list[bool]:
        return [check.passed for check in self.verdict(answer).checks]

    def failed(self, answer: Answer | None = None) -> list[str]:
        return [check.name for check in self.verdict(answer).checks if not check.passed]

    def put(self, namespace: str, key: str, value: object) -> Posed:
        """A setting changed as a user changes it (``SimAndroidState.put_setting``)."""
        complete(self.android.put_setting(namespace, key, str(value)))  # type: ignore[arg-type]
        return self

    def add(self, name: str, *details: dict[str, object]) -> Posed:
        """A new raw contact named ``name`` with these data rows (always a new person)."""
        complete(self.android.insert(RAW_CONTACTS, {"account_type": None, "account_name": None}))
        raws = complete(self.android.query(RAW_CONTACTS, ["_id"]))
        raw_id = max(int(str(row["_id"])) for row in raws)
        for detail in ({"mimetype": NAME, "data1": name}, *details):
            complete(self.android.insert(DATA, {"raw_contact_id": raw_id, **detail}))  # type: ignore[dict-item]
        return self

    def star(self, name: str, starred: bool = True) -> Posed:
        where = f"display_name={sql_text(name)}"
        complete(self.android.update(CONTACTS, {"starred": int(starred)}, where))
        return self

    def locale(self) -> str | None:
        return complete(self.android.get_setting("system", "system_locales"))


Posing = Callable[..., Posed]


@pytest.fixture(scope="module")
def posing(phone: Phone, world: World) -> Posing:
    """Pose ``task_id`` (parameters of seed 0 but ``fixed``) on a fresh phone."""

    def posed(task_id: str, lang: str = "en", **fixed: Any) -> Posed:
        template = REGISTRY.get(task_id)
        typed = template.bind({**sample_params(template.Params, 0, world), **fixed}, world)
        params = typed.model_dump(mode="json")
        spec = template.spec(typed, lang)
        android = SimAndroidState(phone, InstanceState(seed=0))
        return Posed(params, spec, android, complete(pose(spec, android)))

    return posed


# ---------------------------------------------------------------- the catalog


SIMULATED = {app.id for app in installed_apps()}


def test_catalog_covers_levels_and_kinds() -> None:
    templates = list(REGISTRY)
    assert len(templates) >= 26
    assert len(TEMPLATE_IDS) == len(set(TEMPLATE_IDS)) == len(templates)
    for template in templates:
        app, _ = template.id.split("/", 1)
        assert re.fullmatch(r"[a-z]+/[A-Z][A-Za-z]+-v\d+", template.id)
        assert app in SIMULATED or (app == "crossapp" and len(template.apps) >= 2), template.id
        assert set(template.apps) <= SIMULATED and template.apps, template.id
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
def test_instructions_format_in_both_languages(task_id: str, world: World) -> None:
    template = REGISTRY.get(task_id)
    assert not HAN.search(template.instructions["en"])
    for seed in SEEDS:
        en = REGISTRY.instantiate(task_id, seed, "en")
        zh = REGISTRY.instantiate(task_id, seed, "zh")
        assert "{" not in en.instruction and "{" not in zh.instruction
        assert HAN.search(zh.instruction), zh.instruction
        assert (en.lang, zh.lang) == ("en", "zh") and en.params == zh.params
        assert [f.name for f in zh.answer_fields] == [s.name for s in template.answer_fields]
        assert all(HAN.search(f.label) for f in zh.answer_fields)


@pytest.mark.parametrize("task_id", TEMPLATE_IDS)
def test_params_are_deterministic_per_seed_and_vary_across_seeds(
    task_id: str, world: World
) -> None:
    first = [REGISTRY.instantiate(task_id, seed).params for seed in range(20)]
    again = [REGISTRY.instantiate(task_id, seed).params for seed in range(20)]
    assert first == again
    if sampled_fields(REGISTRY.get(task_id).Params):
        assert len({repr(sorted(p.items())) for p in first}) > 1


@pytest.mark.parametrize("task_id", TEMPLATE_IDS)
def test_posing_never_presatisfies_and_the_oracle_answers_the_truth(
    task_id: str, phone: Phone, world: World
) -> None:
    template = REGISTRY.get(task_id)
    for seed in SEEDS:
        for lang in ("en", "zh"):
            task = REGISTRY.instantiate(task_id, seed, lang)
            assert task.spec is not None
            assert TaskSpec.model_validate_json(task.spec.model_dump_json()) == task.spec
            android = SimAndroidState(phone, InstanceState(seed=seed))
            start = complete(pose(task.spec, android))  # raises TaskNotPosed
            locale = complete(android.get_setting("system", "system_locales"))
            assert task.spec.ensure[:2] == [
                PutSetting(namespace="system", key="system_locales", value=UI_LOCALES[lang]),
                PutSetting(namespace="system", key="font_scale", value="1.0"),
            ]  # the UI follows the task's language (SetLanguage then moves it away)
            assert locale == UI_LOCALES[lang] or task_id == "settings/SetLanguage-v1"
            checks = complete(read_checks(task.spec, android, start, trees=()))
            assert not checks or not all(c.passed for c in checks)
            last = template.oracle_for(task)[-1]
            if not template.answer_fields:
                assert isinstance(last, FinishStep) and checks
                continue
            assert isinstance(last, AnswerStep)
            if any(isinstance(c, LongestOfferedCheck) for c in task.spec.checks):
                continue  # judged against the screens' longest option (below)
            assert [r.field for r in task.spec.answers] == [f.name for f in task.answer_fields]
            for rule in task.spec.answers:
                given = last.fields[rule.field]
                truths = start.truths[rule.truth]
                assert any(answer_matches(rule.match, given, t) for t in truths), (given, truths)


def test_set_language_starts_away_from_its_target_in_either_language(posing: Posing) -> None:
    for lang, value, start in (("en", "en-US", "zh-CN"), ("zh", "zh-CN", "en-US")):
        posed = posing("settings/SetLanguage-v1", lang, value=value)
        assert posed.locale() == start and posed.passed() == [False]
        assert posed.put("system", "system_locales", value).passed() == [True]


# ---------------------------------------------------------------- settings checks


def test_switches_pass_only_at_the_target_in_android_encodings(posing: Posing) -> None:
    posed = posing("settings/SetBluetooth-v1", on=True)
    [check] = posed.verdict().checks
    assert (check.name, check.expected, check.actual, check.passed) == (
        "global.bluetooth_on", "1", "0", False,
    )  # fmt: skip
    assert posed.put("global", "bluetooth_on", 1).passed() == [True]
    assert posed.verdict().clean is True
    assert posed.put("global", "bluetooth_on", 0).passed() == [False]
    dark = posing("settings/SetDarkTheme-v1", on=True)
    assert dark.put("secure", "ui_night_mode", 1).passed() == [False]
    assert dark.put("secure", "ui_night_mode", 2).passed() == [True]
    # any non-zero zen_mode is on, as on a phone (1 priority, 2 none, 3 alarms)
    dnd_on = posing("settings/SetDoNotDisturb-v1", on=True)
    assert dnd_on.put("global", "zen_mode", 3).passed() == [True]
    dnd_off = posing("settings/SetDoNotDisturb-v1", on=False)
    assert dnd_off.put("global", "zen_mode", 2).passed() == [False]
    assert dnd_off.put("global", "zen_mode", 0).passed() == [True]


def test_choice_tasks_compare_options_not_raw_values(posing: Posing) -> None:
    small = posing("settings/SetFontSize-v1", value="small")  # starts at default
    # a phone's 0.85 (AOSP's small) and HyperOS's small (0.86) are small; 1.0 is not
    printed = {"0.8500000238418579": True, "0.8600000143051147": True, "1.0": False}
    for as_printed, passed in printed.items():
        assert small.put("system", "font_scale", as_printed).passed() == [passed], as_printed
    ringer = posing("settings/SetRingerMode-v1", value="vibrate")
    assert ringer.passed() == [False] and ringer.put("global", "mode_ringer", 1).passed() == [True]


def test_set_language_reads_the_primary_locale_of_a_list(posing: Posing) -> None:
    chinese = posing("settings/SetLanguage-v1", value="zh-CN")
    # Chinese first, English kept: the sim's own Settings page shows Chinese as chosen
    assert chinese.put("system", "system_locales", "zh-CN,en-US").passed() == [True]


def test_brightness_extremes(posing: Posing) -> None:
    brightest = posing("settings/SetBrightnessExtreme-v1", level="max", start=90)
    for value, passed in ((254, False), (255, True), (4095, True)):  # MIUI goes past 255
        assert brightest.put("system", "screen_brightness", value).passed() == [passed], value
    darkest = posing("settings/SetBrightnessExtreme-v1", level="min", start=90)
    for value, passed in ((2, False), (1, True), (0, True)):
        assert darkest.put("system", "screen_brightness", value).passed() == [passed], value


def test_radios_must_be_off_before_airplane_mode(posing: Posing) -> None:
    right = posing("settings/RadiosOffThenAirplane-v1")
    assert right.passed() == [False] * 5  # radios on, no saved state yet
    right.put("global", "wifi_on", 0).put("global", "bluetooth_on", 0)
    verdict = right.put("global", "airplane_mode_on", 1).verdict()
    assert verdict.success and verdict.clean is True
    airplane_only = posing("settings/RadiosOffThenAirplane-v1")
    airplane_only.put("global", "airplane_mode_on", 1)  # the radios go off, remembered on
    assert airplane_only.passed() == [True, True, True, False, False]


def test_bedtime_routine_reports_partial_progress(posing: Posing) -> None:
    posed = posing("settings/BedtimeRoutine-v1", brightness=120, volume=9, timeout=60_000)
    assert posed.verdict().progress == 0.0
    posed.put("secure", "ui_night_mode", 2).put("global", "zen_mode", 1)
    posed.put("system", "screen_brightness", 0).put("system", "volume_ring", 3)
    half = posed.verdict()
    assert [c.passed for c in half.checks] == [True, True, True, False, False]
    assert half.progress == pytest.approx(0.6) and not half.success
    posed.put("system", "volume_ring", 0).put("system", "screen_off_timeout", 30_000)
    done = posed.verdict()
    assert done.success and done.progress == 1.0 and done.clean is True


def test_rename_device_and_multi_setting(posing: Posing) -> None:
    rename = posing("settings/RenameDevice-v1", name="客厅的手机")
    assert rename.put("global", "device_name", "客厅的手机").passed() == [True]
    travel = posing("settings/RenameDevice-v1", name="Travel Phone")
    travel.put("global", "device_name", "客厅的手机").put("global", "mobile_data", 0)
    verdict = travel.verdict()
    assert [c.passed for c in verdict.checks] == [False]
    assert verdict.clean is False and verdict.side_effects == ["global.mobile_data"]
    multi = posing("settings/SetRadiosAndTimeout-v1", wifi=False, bluetooth=True, timeout=120_000)
    multi.put("global", "wifi_on", 0).put("global", "bluetooth_on", 1)
    assert multi.put("system", "screen_off_timeout", 120_000).passed() == [True, True, True]
    assert multi.put("system", "screen_off_timeout", 60_000).passed() == [True, True, False]


def _chooser(*labels: str) -> str:
    """A screen-timeout chooser as a saved UI tree: one checkable row per option."""
    root = UINode(id=0, class_name="android.widget.FrameLayout", bounds_px=(0, 0, 1080, 2400))
    rows = [
        UINode(id=i + 1, parent=0, index=i, class_name="android.widget.CheckedTextView",
               text=label, checkable=True, bounds_px=(0, 300 + 150 * i, 1080, 450 + 150 * i))
        for i, label in enumerate(labels)
    ]  # fmt: skip
    return to_xml([root, *rows])


def test_longest_timeout_is_what_the_screens_offered(posing: Posing) -> None:
    longest = posing("settings/SetLongestTimeout-v1", start=15_000)
    longest.put("system", "screen_off_timeout", 1_800_000)
    assert longest.passed({"minutes": 30}) == [False] * 3  # no screen showed a chooser
    trees = (_chooser("15 seconds", "1 minute", "10 minutes", "30 minutes"),)
    assert longest.verdict({"minutes": 30}, trees).success
    checks = longest.verdict({"minutes": 10}, trees).checks
    assert [c.passed for c in checks] == [True, True, False]


# ---------------------------------------------------------------- answers


@pytest.mark.parametrize(
    ("task_id", "fixed", "truths", "right", "wrong"),
    [
        ("settings/QueryDeviceModel-v1", {}, ["23049RAD8C", "Redmi Note 12 Turbo"],
         ["Redmi Note 12 Turbo", "23049RAD8C"], ["Redmi Note 12"]),
        ("settings/CountPairedDevices-v1", {}, [3], ["3 devices", 3], [2]),
        ("settings/QueryAndroidVersion-v1", {}, ["14"], ["Android 14.0", 14], ["13"]),
        ("settings/QueryConnectedWifi-v1", {}, ["HomeNet-5G"], ["homenet 5g"], ["HomeNet"]),
        ("contacts/QueryPhoneNumber-v1", {"contact": "c001"}, ["+86 138 0013 8000"],
         ["0086 138 0013 8000", "13800138000", "+86 138-0013-8000"], ["13800138001"]),
        ("contacts/CountFavorites-v1", {"extra": 0, "offset": 0}, [4], ["4", "four"], [5]),
        ("contacts/QueryCompany-v1", {"contact": "c054"}, ["Acme Corp"], ["acme corp"], ["Acme"]),
        ("contacts/WhoseNumber-v1", {"contact": "c013"}, ["张伟"], ["张伟"], ["张"]),
    ],
)  # fmt: skip
def test_answers_match_the_truth_read_at_the_start(
    posing: Posing, task_id: str, fixed: dict[str, Any], truths: list[Any], right: list[Any],
    wrong: list[Any],
) -> None:  # fmt: skip
    posed = posing(task_id, **fixed)
    [rule] = posed.spec.answers
    assert posed.start.truths == {rule.truth: truths}
    for given in right:
        assert posed.verdict({rule.field: given}).success, given
    for given in wrong:
        assert posed.failed({rule.field: given}) == [f"answer.{rule.field}"], given


def test_whose_number_asks_the_number_as_dialled(posing: Posing) -> None:
    assert posing("contacts/WhoseNumber-v1", contact="c013").params["number"] == "13812345678"


# ---------------------------------------------------------------- contacts checks


def _phone(number: str) -> dict[str, object]:
    return {"mimetype": PHONE, "data1": number, "data2": 2}


def test_create_contact_finds_the_one_new_contact(posing: Posing) -> None:
    fixed = {"name": "周雨桐", "prefix": "139", "line": 12345678}
    posed = posing("contacts/CreateContact-v1", **fixed)
    assert posed.params["phone"] == "139 1234 5678" and posed.passed() == [False, False]
    verdict = posed.add("周雨桐", _phone("+86 13912345678")).verdict()
    assert verdict.success and verdict.clean is True
    assert posed.add("周雨桐").passed() == [False, True]  # two of that name
    wrong = posing("contacts/CreateContact-v1", **fixed)
    assert wrong.add("周雨桐", _phone("139 1234 5679")).passed() == [True, False]


def test_work_email_needs_the_work_label(posing: Posing) -> None:
    for label, passed in ((1, [True, True, False]), (2, [True, True, True])):  # 1 home, 2 work
        email = {"mimetype": EMAIL, "data1": "Lucas.Meyer@example.com", "data2": label}
        posed = posing("contacts/CreateContactWorkEmail-v1", name="Lucas Meyer")
        assert posed.add("Lucas Meyer", email).passed() == passed


def test_company_and_title(posing: Posing) -> None:
    fixed = {"name": "Daniel Park", "company": "Globex", "title": "Designer"}
    for company, title, passed in (("Globex", "Designer", True), ("Designer", "Globex", False)):
        made = posing("contacts/CreateContactWithCompany-v1", **fixed)
        organization = {"mimetype": ORGANIZATION, "data1": company, "data4": title}
        made.add("Daniel Park", _phone(made.params["phone"]), organization)
        assert made.passed() == [True, True, passed, passed]


def test_star_unstar_and_their_side_effects(posing: Posing) -> None:
    star = posing("contacts/StarContact-v1", contact="c012")
    assert star.params["name"] == "Fiona" and star.passed() == [False]
    verdict = star.star("Fiona").verdict()
    assert verdict.success and verdict.clean is True and verdict.side_effects == []
    verdict = star.star("张伟").verdict()  # c013: a second star is a side effect
    assert verdict.success and verdict.clean is False
    assert verdict.side_effects == ["content://com.android.contacts/contacts/13"]
    unstar = posing("contacts/UnstarContact-v1", contact="c001")
    assert unstar.passed() == [False] and unstar.star("张三", starred=False).passed() == [True]


def test_delete_and_edit(posing: Posing) -> None:
    bob = posing("contacts/DeleteContact-v1", contact="c008")
    assert bob.passed() == [False]
    complete(bob.android.delete(CONTACTS, "display_name='Bob'"))
    verdict = bob.verdict()
    assert verdict.success and verdict.clean is True
    other = posing("contacts/DeleteContact-v1", contact="c009")
    complete(other.android.delete(CONTACTS, "display_name='Bob'"))
    verdict = other.verdict()
    assert not verdict.success and verdict.clean is False
    assert "content://com.android.contacts/contacts/8" in verdict.side_effects
    edit = posing("contacts/EditContactPhone-v1", contact="c003", prefix="186", line=55554444)
    phones = f"display_name={sql_text(edit.params['name'])} AND mimetype={sql_text(PHONE)}"
    assert edit.passed() == [False]
    complete(edit.android.update(DATA, {"data1": "18655554444"}, phones))
    assert edit.passed() == [True] and edit.verdict().clean is True
    [raw] = complete(edit.android.query(DATA, ["raw_contact_id"], phones))
    row = {"raw_contact_id": raw["raw_contact_id"], **_phone("+86 139 1234 5678")}
    complete(edit.android.insert(DATA, row))  # type: ignore[arg-type]
    assert edit.passed() == [False]  # added, not replaced


def test_count_surname_counts_people_added_at_posing(posing: Posing, world: World) -> None:
    assert has_surname("王秀英", "王") and not has_surname("欧阳明", "王")
    assert has_surname("Bob Smith", "Smith") and not has_surname("Smithers Lee", "Smith")
    assert sum(has_surname(c["name"], "王") for c in world["contacts"]["contacts"]) == 4
    posed = posing("contacts/CountSurname-v1", surname="王", extra=1, favorites=2)
    assert (posed.params["count"], posed.params["starred"]) == (5, 2)
    assert posed.start.truths == {"count": [5], "favorites": [2]}
    added = complete(posed.android.query(CONTACTS, ["_id"], "display_name='王建国'"))
    assert len(added) == 1
    assert posed.verdict({"count": 5, "favorites": 2}).success
    assert posed.failed({"count": 4, "favorites": 2}) == ["answer.count"]


def test_hybrids_judge_state_and_answer_separately(posing: Posing) -> None:
    fixed = {"contact": "c002", "new": "林可欣"}
    copied = posing("contacts/CopyNumberToNewContact-v1", **fixed)
    assert copied.start.truths["number"] == ["+86 156 0000 1111"]
    copied.add("林可欣", _phone("15600001111"))
    assert copied.verdict({"number": "156 0000 1111"}).success
    assert copied.failed({"number": "156"}) == ["answer.number"]
    wrong = posing("contacts/CopyNumberToNewContact-v1", **fixed)
    assert wrong.add("林可欣", _phone("15600001112")).failed({"number": "15600001111"}) == ["phone"]
    starred = posing("contacts/StarSurname-v1", surname="刘")
    assert starred.params["names"] == ["刘婷", "刘洋"] and starred.start.truths == {"count": [2]}
    assert starred.star("刘洋").failed({"count": 2}) == ["not starred yet"]
    verdict = starred.star("刘婷").verdict({"count": "2"})
    assert verdict.success and verdict.clean is True
    complete(apply_op(starred.android, EnsureContact(name="刘备", starred=True)))
    assert starred.failed({"count": 2}) == ["everyone with the surname kept"]  # one 刘 more
