"""Settings in the HyperOS skin where it differs from AOSP in what can be chosen: MIUI's six
font sizes (``font_scale`` with ``ui_mode_scale``) and MIUI's silent mode (two switches over
``mode_ringer``), browser-free; then the ringer task's plans in Chromium from every start of
``vibrate_in_silent``, which a plan must read off the screen."""

from __future__ import annotations

import re

import pytest

from bridge.runner import run_episode
from policies.scripted import PlanPolicy
from sim.apps.settings import model
from sim.discovery import scan_wrong_plans
from sim.errors import SimError
from sim.simulator import Simulator
from sim.skins import planning_for
from sim.state import InstanceState
from sim.tasks.registry import default_registry
from tests.sim.apps.settings_phone import Phone

REGISTRY = default_registry()
HYPEROS_SIZES = {
    "en": ["Small", "Standard", "Medium", "Large", "Extra large", "Huge"],
    "zh": ["小", "标准", "中", "大", "超大", "巨无霸"],
}
HYPEROS_FONT = {  # name: (font_scale, ui_mode_scale), MIUI's framework defaults at 440 dpi
    "small": (0.86, 12),
    "default": (1.0, 1),
    "medium": (1.15, 13),
    "large": (1.32, 14),
    "huge": (1.1, 15),
    "godzilla": (1.14, 11),
}


def radios(html: str) -> list[tuple[str, bool]]:
    """Every radio's label and whether it is checked, in screen order."""
    found = re.findall(
        r'data-rid="radio"[^>]*data-checked="(true|false)" data-text="([^"]*)"', html
    )
    return [(label, checked == "true") for checked, label in found]


def switch(html: str, rid: str) -> bool:
    """Whether the switch of the row ``rid`` is checked."""
    match = re.search(
        rf'data-rid="{rid}".*?data-class="android.widget.Switch"[^>]*data-checked="(true|false)"',
        html,
        re.S,
    )
    assert match, f"no switch row {rid!r}"
    return match.group(1) == "true"


# ---------------------------------------------------------------- font sizes


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_hyperos_font_page_lists_miuis_six_sizes(lang: str) -> None:
    phone = Phone("hyperos")
    shown = radios(phone.show("/display/font", lang))
    assert [label for label, _ in shown] == HYPEROS_SIZES[lang]
    assert [label for label, checked in shown if checked] == [HYPEROS_SIZES[lang][1]]
    assert list(model.FONT_SCALES_BY_SKIN["hyperos"]) == list(HYPEROS_FONT)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_choosing_each_hyperos_size_writes_font_scale_and_ui_mode_scale(lang: str) -> None:
    phone = Phone("hyperos")
    for index, (name, (scale, code)) in enumerate(HYPEROS_FONT.items()):
        phone.tap("set_font_scale", size=name)
        assert (phone.s["font_scale"], phone.s["ui_mode_scale"]) == (scale, code), name
        label = HYPEROS_SIZES[lang][index]
        assert [lbl for lbl, on in radios(phone.show("/display/font", lang)) if on] == [label]
        assert f">{label}<" in phone.show("/display", lang)  # the summary, in HyperOS's words


def test_hyperos_checks_by_ui_mode_scale_when_set_else_by_font_scale() -> None:
    phone = Phone("hyperos")
    phone.s["ui_mode_scale"] = 15  # huge, whatever font_scale says
    assert [lbl for lbl, on in radios(phone.show("/display/font")) if on] == ["Extra large"]
    del phone.s["ui_mode_scale"]
    phone.s["font_scale"] = 1.1500000357627869  # a phone's medium
    assert [lbl for lbl, on in radios(phone.show("/display/font")) if on] == ["Medium"]
    phone.s["ui_mode_scale"] = 99  # no size of MIUI's: font_scale decides
    assert [lbl for lbl, on in radios(phone.show("/display/font")) if on] == ["Medium"]
    phone.s.pop("ui_mode_scale")
    phone.s["font_scale"] = 0.85  # AOSP's small is not HyperOS's (0.86): none checked
    assert not any(on for _, on in radios(phone.show("/display/font")))
    assert ">0.85<" in phone.show("/display")


def test_a_size_hyperos_lacks_is_refused_by_the_handler() -> None:
    phone = Phone("hyperos")
    with pytest.raises(SimError, match=r"size='largest' is not one of \['small', 'default'"):
        phone.tap("set_font_scale", size="largest")
    assert phone.s["font_scale"] == 1.0 and "ui_mode_scale" not in phone.s
    aosp = Phone("aosp")
    with pytest.raises(SimError, match="size='godzilla'"):
        aosp.tap("set_font_scale", size="godzilla")


def test_aosp_font_page_keeps_its_four_sizes_and_writes_no_ui_mode_scale() -> None:
    phone = Phone("aosp")
    shown = radios(phone.show("/display/font"))
    assert shown == [("Small", False), ("Default", True), ("Large", False), ("Largest", False)]
    phone.tap("set_font_scale", size="largest")
    assert phone.s["font_scale"] == 1.3 and "ui_mode_scale" not in phone.s
    phone.s["ui_mode_scale"] = 12  # MIUI's code means nothing to AOSP's page
    assert [lbl for lbl, on in radios(phone.show("/display/font")) if on] == ["Largest"]


def test_the_sizes_every_skin_offers_are_those_that_mean_the_same() -> None:
    assert model.FONT_SIZES_EVERY_SKIN == ("small", "default")
    by_skin = model.FONT_SCALES_BY_SKIN
    # large is in both skins but means 1.15 in one and 1.32 in the other
    assert abs(by_skin["aosp"]["large"] - by_skin["hyperos"]["large"]) > 0.05
    assert "largest" not in by_skin["hyperos"]
    asked = set()
    for seed in range(40):
        task = REGISTRY.instantiate("settings/SetFontSize-v1", seed, ("en", "zh")[seed % 2])
        asked.add(task.params["value"])
    assert asked == {"small", "default"}
    template = REGISTRY.get("settings/SetFontSize-v1")
    assert "system.ui_mode_scale" in template.expected_settings


# ---------------------------------------------------------------- silent mode

STARTS = [(mode, vibrate) for mode in (2, 1, 0) for vibrate in (None, 1, 0)]
"""Every start: the ringer (normal, vibrate, silent) × ``vibrate_in_silent`` (unset, 1, 0)."""


def _phone_at(mode: int, vibrate: int | None) -> Phone:
    phone = Phone("hyperos")
    phone.g["mode_ringer"] = mode
    phone.s.pop("vibrate_in_silent", None)
    if vibrate is not None:
        phone.s["vibrate_in_silent"] = vibrate
    return phone


@pytest.mark.parametrize(("mode", "vibrate"), STARTS)
def test_the_silent_mode_switch_follows_miuis_rule(mode: int, vibrate: int | None) -> None:
    phone = _phone_at(mode, vibrate)
    phone.tap("toggle_silent_mode")
    vibrates = vibrate != 0  # unset is on
    expected = 2 if mode != 2 else (1 if vibrates else 0)  # off is normal; on: vibrate or not
    assert phone.g["mode_ringer"] == expected
    assert phone.s.get("vibrate_in_silent") == vibrate  # the silent switch writes no more


@pytest.mark.parametrize(("mode", "vibrate"), STARTS)
def test_the_vibrate_switch_reapplies_silent_mode(mode: int, vibrate: int | None) -> None:
    phone = _phone_at(mode, vibrate)
    phone.tap("toggle_vibrate_in_silent")
    now = 0 if vibrate != 0 else 1
    assert phone.s["vibrate_in_silent"] == now
    assert phone.g["mode_ringer"] == (2 if mode == 2 else now)


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize(("mode", "vibrate"), STARTS)
def test_the_switches_show_the_state(lang: str, mode: int, vibrate: int | None) -> None:
    html = _phone_at(mode, vibrate).show("/sound", lang)
    assert switch(html, "silent_mode") == (mode != 2)
    assert switch(html, "vibrate_in_silent") == (vibrate != 0)
    titles = {"en": ("Silent mode", "Vibrate in silent mode"), "zh": ("静音", "静音时振动")}
    assert all(f">{title}<" in html for title in titles[lang])
    assert 'data-rid="radio"' not in html  # no ringer-mode list on HyperOS


def test_aosp_keeps_its_ringer_mode_list() -> None:
    html = Phone("aosp").show("/sound")
    assert [label for label, _ in radios(html)] == ["Sound", "Vibrate", "Silent"]
    assert "silent_mode" not in html and "vibrate_in_silent" not in html


def test_the_ringer_task_expects_vibrate_in_silent_to_change() -> None:
    template = REGISTRY.get("settings/SetRingerMode-v1")
    assert template.expected_settings == ("global.mode_ringer", "system.vibrate_in_silent")
    task = REGISTRY.instantiate("settings/SetRingerMode-v1", 0, "en")
    for skin in ("aosp", "hyperos"):  # the spec is the same in every skin; plans are not
        plan = template.oracle_for(task, skin)
        assert any(step.type == "switch" for step in plan) == (skin == "hyperos")


# ---------------------------------------------------------------- in Chromium

WRONG = scan_wrong_plans()


async def _run(
    sim: Simulator, mode: str, vibrate: int | None, wrong: bool
) -> tuple[bool, int, int | None]:
    """Pose SetRingerMode for ``mode`` on a HyperOS phone with ``vibrate_in_silent`` at
    ``vibrate``, play its oracle (or wrong plan): whether it succeeded cleanly, the ringer and
    ``vibrate_in_silent`` at the end."""
    tasks = (REGISTRY.instantiate("settings/SetRingerMode-v1", seed, "en") for seed in range(40))
    task = next(task for task in tasks if task.params["value"] == mode)
    base = InstanceState(seed=0)
    if vibrate is not None:
        base.os.settings["system"]["vibrate_in_silent"] = vibrate
    if wrong:
        with planning_for("hyperos"):
            plan = WRONG[task.task_id](task.params, task.lang, sim.tasks.world)
    else:
        plan = REGISTRY.get(task.task_id).oracle_for(task, "hyperos")
    env = await sim.env(screenshot=False, skin="hyperos", base=base)
    try:
        record = await run_episode(PlanPolicy(plan), env, task, episode_id=task.task_id)
        assert record.verdict is not None, record.error
        assert getattr(record.final_action, "status", "success") == "success", "plan ran out"
        settings = env.instance.state.os.settings
        ringer, after = (
            settings["global"]["mode_ringer"],
            settings["system"].get("vibrate_in_silent"),
        )
        return record.verdict.success and bool(record.verdict.clean), int(ringer), after
    finally:
        await env.close()


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.browser
@pytest.mark.parametrize("vibrate", [None, 1, 0])
@pytest.mark.parametrize("mode", list(model.RINGER_MODES))
async def test_the_ringer_oracle_reads_the_switches_from_any_start(
    sim: Simulator, mode: str, vibrate: int | None
) -> None:
    solved, ringer, after = await _run(sim, mode, vibrate, wrong=False)
    assert solved and ringer == model.RINGER_MODES[mode]
    # the vibrate switch is tapped only when it was not already right
    assert after == {"sound": vibrate, "vibrate": vibrate if vibrate != 0 else 1, "silent": 0}[mode]
    failed, _, _ = await _run(sim, mode, vibrate, wrong=True)
    assert not failed
