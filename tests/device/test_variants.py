"""Device variants on literal shell output and on a tiny in-memory settings shell."""

from __future__ import annotations

import shlex

import pytest

from bridge.schema import TaskInstance
from device.errors import DeviceError
from device.tasks.base import VariantContext
from device.tasks.contacts_probe import digits, parse_rows
from device.tasks.registry import default_variants
from device.tasks.settings_variants import SettingProbe
from sim.simulator import default_apps
from sim.tasks.registry import default_registry


def test_every_variant_mirrors_a_simulator_task_and_says_how_it_is_judged() -> None:
    variants = default_variants()
    sim_ids = set(default_registry().ids())
    assert set(variants) <= sim_ids and len(variants) >= 25
    assert {v.judged_by for v in variants.values()} <= {"probe", "xpath", "answer", "none"}
    assert {"probe", "xpath", "answer"} <= {v.judged_by for v in variants.values()}


def test_parse_rows_keeps_values_with_commas_whole() -> None:
    output = (
        "Row: 0 _id=3, display_name=Smith, John, Jr., starred=1\n"
        "Row: 1 _id=12, display_name=张伟, starred=0\r\n"
        "noise line\n"
    )
    rows = parse_rows(output, ["_id", "display_name", "starred"])
    assert rows == [
        {"_id": "3", "display_name": "Smith, John, Jr.", "starred": "1"},
        {"_id": "12", "display_name": "张伟", "starred": "0"},
    ]
    assert parse_rows("No result found.\n", ["_id"]) == []


def test_digits_drops_formatting_and_the_china_code() -> None:
    assert digits("+86 138-0013 8000") == "13800138000" == digits("13800138000")
    assert digits("+1 415-555-0132") == "14155550132"


@pytest.mark.parametrize(
    ("probe", "raw", "passed"),
    [
        (SettingProbe("global", "wifi_on", 1), "1", True),
        (SettingProbe("global", "wifi_on", 1), "0", False),
        (SettingProbe("global", "zen_mode", 0, "nonzero"), "3", True),
        (SettingProbe("system", "screen_brightness", 255, "at_least"), "2047", True),
        (SettingProbe("system", "screen_brightness", 1, "at_most"), "null", False),
        (SettingProbe("system", "font_scale", 1.3, "close"), "1.2999999523", True),
        (SettingProbe("system", "system_locales", "zh-CN"), "zh-CN", True),
    ],
)
def test_setting_probes(probe: SettingProbe, raw: str, passed: bool) -> None:
    check = probe.check(raw)
    assert check.passed is passed and check.actual == raw


class SettingsShell:
    """Just enough of `adb shell` for settings variants: settings get/put and no-op services."""

    def __init__(self) -> None:
        self.values: dict[tuple[str, str], str] = {}
        self.commands: list[str] = []

    async def __call__(self, command: str) -> str:
        self.commands.append(command)
        words = shlex.split(command)
        if words[:2] == ["settings", "put"]:
            self.values[(words[2], words[3])] = words[4]
        elif words[:2] == ["settings", "get"]:
            return self.values.get((words[2], words[3]), "null") + "\n"
        return ""


PROBED_SETTINGS = sorted(
    task_id
    for task_id, variant in default_variants().items()
    if task_id.startswith("settings/") and variant.judged_by == "probe"
)


@pytest.mark.asyncio
@pytest.mark.parametrize("task_id", PROBED_SETTINGS)
async def test_settings_variants_pose_an_unmet_goal(task_id: str) -> None:
    world = {app.id: app.world for app in default_apps()}
    variant = default_variants()[task_id]
    for seed in range(4):
        task: TaskInstance = default_registry().instantiate(task_id, seed, world)
        shell = SettingsShell()
        baseline = await variant.setup(shell, task) or {}
        verdict = await variant.verdict(VariantContext(shell, task, baseline=baseline))
        assert not verdict.success, f"{task_id} seed {seed} is met right after setup"
        assert verdict.deterministic and verdict.kind == "state"
    assert any(c.startswith("settings put") for c in shell.commands)


class FixedLocaleShell(SettingsShell):
    """A phone whose UI language does not follow ``settings put`` (as most real ones)."""

    def __init__(self, locale: str) -> None:
        super().__init__()
        self.locale = locale

    async def __call__(self, command: str) -> str:
        if command == "getprop persist.sys.locale":
            return self.locale + "\n"
        return await super().__call__(command)


@pytest.mark.asyncio
async def test_prepare_refuses_a_task_in_another_language_than_the_phones_ui() -> None:
    variant = default_variants()["settings/SetWifi-v1"]
    world = {app.id: app.world for app in default_apps()}
    zh = default_registry().instantiate("settings/SetWifi-v1", 0, world, "zh")
    with pytest.raises(DeviceError, match=r"UI language is en-US but .* is posed in zh"):
        await variant.prepare(FixedLocaleShell("en-US"), zh)
    await variant.prepare(FixedLocaleShell("zh-Hans-CN"), zh)  # the phone's own language
    en = default_registry().instantiate("settings/SetWifi-v1", 0, world, "en")
    await variant.prepare(FixedLocaleShell("en-GB"), en)
