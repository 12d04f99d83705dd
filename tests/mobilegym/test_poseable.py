"""``mobilegym_refusal``: whether MobileGym can pose and judge a bound spec, computed from the
spec. Every template of the default registry is answered (seed 0, English; run with ``-s`` to
see the list and the counts by app), known cases go both ways, and each surface's rule is
checked on literal specs."""

from __future__ import annotations

from collections import Counter
from functools import cache

import pytest
from pydantic import BaseModel

from bridge.spec.clock import ZoneGapFact, ZoneTimeFact
from bridge.spec.props import PropFact
from bridge.spec.settings import PutSetting, SettingCheck
from bridge.taskspec import Requirement, TaskSpec, Truth
from mobilegym.android_state.settings import follower_globs
from mobilegym.poseable import HELD_ANYWAY, UI_REASON, mobilegym_refusal, node_refusals
from sim.tasks.registry import default_registry


class Foreign(BaseModel):
    """A node of no surface ``bridge.spec`` defines."""

    value: int = 0


@cache
def answers() -> dict[str, str | None]:
    """Every template's refusal (seed 0, English), by task id."""
    registry = default_registry()
    found: dict[str, str | None] = {}
    for task_id in registry.ids():
        spec = registry.instantiate(task_id, 0, "en").spec
        assert spec is not None, task_id
        found[task_id] = mobilegym_refusal(spec)
    return found


def test_every_template_is_answered() -> None:
    apps, refused = Counter[str](), Counter[str]()
    for task_id, reason in sorted(answers().items()):
        app = task_id.split("/")[0]
        apps[app] += 1
        refused[app] += reason is not None
        print(f"{'no ' if reason else 'yes'} {task_id}{f': {reason}' if reason else ''}")
        assert reason is None or (reason and task_id not in reason)
    for app in sorted(apps):
        print(f"{app}: {apps[app] - refused[app]} of {apps[app]} poseable")
    total, no = sum(apps.values()), sum(refused.values())
    print(f"all: {total - no} of {total} poseable")
    assert 0 < no < total


@pytest.mark.parametrize(
    "task_id",
    [
        "settings/SetWifi-v1",
        "settings/SetLanguage-v1",  # a retail phone's requirement: MobileGym holds the locale
        "settings/SetFontSize-v1",  # 0.85, 1.0: fontSizePct 0, 33
        "settings/QueryDeviceModel-v1",
        "settings/CountPairedDevices-v1",
        "clock/QueryNextAlarm-v1",  # time_12_24 24 is what MobileGym always shows
        "files/RenameFile-v1",
    ],
)
def test_poseable_templates(task_id: str) -> None:
    assert answers()[task_id] is None


@pytest.mark.parametrize(
    ("task_id", "named"),
    [
        ("settings/SetScreenTimeout-v1", "system.screen_off_timeout"),
        ("settings/RadiosOffThenAirplane-v1", "global.wifi_saved_state"),
        ("settings/SetLongestTimeout-v1", UI_REASON),
        ("settings/SetRingerMode-v1", "no vibrate mode"),  # seed 0 asks for vibrate
        ("clock/CityTimeGap-v1", "daylight saving"),  # London and New York
    ],
)
def test_refused_templates_say_why(task_id: str, named: str) -> None:
    reason = answers()[task_id]
    assert reason is not None and named in reason


def _spec(**parts: object) -> TaskSpec:
    return TaskSpec.model_validate({"checks": [], **parts})


@pytest.mark.parametrize(
    ("node", "why"),
    [
        (PutSetting(namespace="global", key="mode_ringer", value="1"), "no vibrate mode"),
        (PutSetting(namespace="system", key="time_12_24", value="12"), "24-hour time"),
        (PutSetting(namespace="system", key="system_locales", value="ja-JP"), "English"),
        (PutSetting(namespace="global", key="adb_enabled", value="1"), "key table"),
        (
            SettingCheck(namespace="system", key="screen_brightness", value=147),
            "holds it as 148",
        ),
        (SettingCheck(namespace="system", key="font_scale", value=1.0), "holds it as 0.9985"),
        (PropFact(key="ro.serialno"), "describes only"),
        (ZoneGapFact(ahead="Asia/Tokyo", behind="Europe/London"), "daylight saving"),
        (ZoneTimeFact(at="08:00", source_zone="Europe/Paris", to="America/New_York"), "fixed"),
        (Requirement(fact="root on the phone", reason="r"), "not been taught"),
        (Requirement(fact="global.wifi_saved_state", reason="r"), "remembers none"),
        (Foreign(), "does not know"),
    ],
)
def test_refused_nodes(node: BaseModel, why: str) -> None:
    assert any(why in reason for reason in node_refusals(node)), node_refusals(node)


@pytest.mark.parametrize(
    "node",
    [
        PutSetting(namespace="system", key="time_12_24", value="24"),
        PutSetting(namespace="system", key="screen_brightness", value="147"),  # posed: 148
        SettingCheck(namespace="system", key="font_scale", value=1.3, tolerance=0.05),
        SettingCheck(namespace="system", key="font_scale", value=1.0, tolerance=0.05),
        SettingCheck(namespace="system", key="screen_brightness", op="le", value=1),
        SettingCheck(namespace="system", key="system_locales", op="primary", value="zh-CN"),
        PropFact(key="ro.product.model"),
        ZoneGapFact(ahead="Asia/Tokyo", behind="Asia/Shanghai"),
        ZoneGapFact(ahead="Europe/Paris", behind="Europe/London"),  # they shift together
        Requirement(fact="system.system_locales", reason="r"),
        *(Requirement(fact=fact, reason="r") for fact in HELD_ANYWAY),
    ],
)
def test_held_nodes(node: BaseModel) -> None:
    assert node_refusals(node) == []


def test_every_reason_once() -> None:
    put = PutSetting(namespace="system", key="screen_off_timeout", value="15000")
    check = SettingCheck(namespace="system", key="screen_off_timeout", value=30000)
    spec = _spec(ensure=[put], checks=[check])
    reason = mobilegym_refusal(spec)
    assert reason is not None and reason.count("no screen timeout") == 1  # said once
    truth = Truth(name="model", fact=PropFact(key="ro.product.model"))
    assert mobilegym_refusal(_spec(truths=[truth], answers=[])) is None


def test_do_not_disturb_leads_the_ringer() -> None:
    assert follower_globs(["global.zen_mode"]) == ("global.mode_ringer",)
    assert follower_globs(["global.wifi_on"]) == ()
