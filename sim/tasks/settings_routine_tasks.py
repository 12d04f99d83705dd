"""Routines over Settings: several settings in one instruction, some in a required order.

Each setting starts away from its target, so every one of them has to be changed; each is
its own check, so ``progress`` says how much of the routine was done.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bridge.plans import FinishStep, KeyStep, Plan, Selector, TapStep
from bridge.schema import Check
from sim.apps.settings import model
from sim.tasks.base import SetupContext, TaskTemplate
from sim.tasks.judge import check
from sim.tasks.params import Boolean, Choice, Integer
from sim.tasks.settings_tasks import after, pick_radio, settings_plan, timeout_text

__all__ = ["TEMPLATES", "BedtimeRoutine", "RadiosOffThenAirplane", "SetRadiosAndTimeout"]

_ON = {"en": {True: "on", False: "off"}, "zh": {True: "打开", False: "关闭"}}
_BACK = KeyStep(key="back")


def _g(state: Mapping[str, Any], key: str, default: Any = None) -> Any:
    return state["settings"]["global"].get(key, default)


def _sys(state: Mapping[str, Any], key: str) -> Any:
    return state["settings"]["system"].get(key)


class RadiosOffThenAirplane(TaskTemplate):
    """S21: Wi-Fi and Bluetooth off by hand *before* airplane mode, so that they stay off
    when airplane mode ends: Android then remembers them as off (``*_saved_state`` 0)."""

    id = "settings/RadiosOffThenAirplane-v1"
    apps = ("settings",)
    level = "L3"
    kind = "operate"
    instructions = {
        "en": "Turn off Wi-Fi and Bluetooth first, then turn on airplane mode.",
        "zh": "先关闭 WLAN 和蓝牙，再打开飞行模式。",
    }
    expected_changes = (
        "settings.global.airplane_mode_on",
        "settings.global.wifi_on",
        "settings.global.bluetooth_on",
        "settings.global.*_saved_state",
    )

    def setup(self, s: SetupContext, p: dict[str, Any]) -> None:
        s.phone.set_airplane(s.state, False)
        s.settings["global"].update(wifi_on=1, bluetooth_on=1)

    def checks(self, state: Mapping[str, Any], p: dict[str, Any]) -> list[Check]:
        return [
            check("airplane_mode_on", 1, _g(state, "airplane_mode_on")),
            check("wifi_on", 0, _g(state, "wifi_on")),
            check("bluetooth_on", 0, _g(state, "bluetooth_on")),
            check("wifi_saved_state", 0, _g(state, "wifi_saved_state", 0)),
            check("bluetooth_saved_state", 0, _g(state, "bluetooth_saved_state", 0)),
        ]

    def oracle(self, p: dict[str, Any], lang: str) -> Plan:
        return [
            *settings_plan("wifi_settings", "wifi_enable"),
            _BACK,
            TapStep(on=Selector(resource_id="bluetooth_settings")),
            TapStep(on=Selector(resource_id="bluetooth_enable")),
            _BACK,
            TapStep(on=Selector(resource_id="toggle_airplane")),
            FinishStep(),
        ]


class SetRadiosAndTimeout(TaskTemplate):
    """Wi-Fi and Bluetooth each on or off, and a screen timeout: three pages."""

    id = "settings/SetRadiosAndTimeout-v1"
    apps = ("settings",)
    level = "L3"
    kind = "operate"
    instructions = {
        "en": "Turn Wi-Fi {wifi} and Bluetooth {bluetooth}, and make the screen turn off after "
        "{timeout}.",
        "zh": "{wifi} WLAN，{bluetooth}蓝牙，并把自动锁屏时间设为 {timeout}。",
    }
    params = {
        "wifi": Boolean(),
        "bluetooth": Boolean(),
        "timeout": Choice(model.TIMEOUT_CHOICES_MS),
    }
    expected_changes = (
        "settings.global.wifi_on",
        "settings.global.bluetooth_on",
        "settings.system.screen_off_timeout",
    )

    def text_values(self, p: dict[str, Any], lang: str) -> dict[str, Any]:
        return {
            "wifi": _ON[lang][p["wifi"]],
            "bluetooth": _ON[lang][p["bluetooth"]],
            "timeout": timeout_text(p["timeout"], lang),
        }

    def setup(self, s: SetupContext, p: dict[str, Any]) -> None:
        s.settings["global"].update(
            wifi_on=int(not p["wifi"]), bluetooth_on=int(not p["bluetooth"])
        )
        start = after(model.TIMEOUT_CHOICES_MS, p["timeout"])
        s.settings["system"]["screen_off_timeout"] = start

    def checks(self, state: Mapping[str, Any], p: dict[str, Any]) -> list[Check]:
        return [
            check("wifi_on", int(p["wifi"]), _g(state, "wifi_on")),
            check("bluetooth_on", int(p["bluetooth"]), _g(state, "bluetooth_on")),
            check("screen_off_timeout", p["timeout"], _sys(state, "screen_off_timeout")),
        ]

    def oracle(self, p: dict[str, Any], lang: str) -> Plan:
        return [
            *settings_plan("wifi_settings", "wifi_enable"),
            _BACK,
            TapStep(on=Selector(resource_id="bluetooth_settings")),
            TapStep(on=Selector(resource_id="bluetooth_enable")),
            _BACK,
            TapStep(on=Selector(resource_id="display_settings")),
            TapStep(on=Selector(resource_id="screen_timeout")),
            pick_radio(timeout_text(p["timeout"], lang)),
            FinishStep(),
        ]


_BEDTIME_TIMEOUT = 30_000


class BedtimeRoutine(TaskTemplate):
    """Five settings on two pages: dark theme, DND, brightness and ring volume at their
    minimum, screen timeout 30 s (each probed with ``settings get`` on a phone)."""

    id = "settings/BedtimeRoutine-v1"
    apps = ("settings",)
    level = "L4"
    kind = "operate"
    instructions = {
        "en": "Get the phone ready for bed: turn on dark theme and Do not disturb, turn the "
        "brightness and the ring volume all the way down, and make the screen turn off after "
        "{timeout}.",
        "zh": "帮我把手机设成睡前状态：打开深色模式和勿扰模式，把屏幕亮度和铃声音量都调到最低，"
        "并把自动锁屏时间设为 {timeout}。",
    }
    params = {
        "brightness": Integer(60, 220),
        "volume": Integer(4, model.RING_VOLUME_MAX),
        "timeout": Choice(tuple(ms for ms in model.TIMEOUT_CHOICES_MS if ms != _BEDTIME_TIMEOUT)),
    }
    expected_changes = (
        "settings.secure.ui_night_mode",
        "settings.global.zen_mode",
        "settings.system.screen_brightness",
        "settings.system.volume_ring",
        "settings.system.screen_off_timeout",
    )

    def text_values(self, p: dict[str, Any], lang: str) -> dict[str, Any]:
        return {"timeout": timeout_text(_BEDTIME_TIMEOUT, lang)}

    def setup(self, s: SetupContext, p: dict[str, Any]) -> None:
        s.settings["secure"]["ui_night_mode"] = model.NIGHT_MODE_OFF
        s.settings["global"]["zen_mode"] = 0
        s.settings["system"].update(
            screen_brightness=p["brightness"],
            volume_ring=p["volume"],
            screen_off_timeout=p["timeout"],
        )

    def checks(self, state: Mapping[str, Any], p: dict[str, Any]) -> list[Check]:
        night = state["settings"]["secure"].get("ui_night_mode")
        return [
            check("ui_night_mode", model.NIGHT_MODE_ON, night),
            check("zen_mode", 1, int(model.is_on(_g(state, "zen_mode")))),
            check("screen_brightness", 0, _sys(state, "screen_brightness")),
            check("volume_ring", 0, _sys(state, "volume_ring")),
            check("screen_off_timeout", _BEDTIME_TIMEOUT, _sys(state, "screen_off_timeout")),
        ]

    def oracle(self, p: dict[str, Any], lang: str) -> Plan:
        return [
            *settings_plan("display_settings"),
            TapStep(on=Selector(resource_id="brightness"), at=(0.0, 0.5)),
            TapStep(on=Selector(resource_id="dark_mode_display_enable")),
            TapStep(on=Selector(resource_id="screen_timeout")),
            pick_radio(timeout_text(_BEDTIME_TIMEOUT, lang)),
            _BACK,
            _BACK,
            TapStep(on=Selector(resource_id="sound_settings")),
            TapStep(on=Selector(resource_id="ring_volume"), at=(0.0, 0.5)),
            TapStep(on=Selector(resource_id="zen_mode")),
            FinishStep(),
        ]


TEMPLATES: tuple[TaskTemplate, ...] = (
    RadiosOffThenAirplane(),
    SetRadiosAndTimeout(),
    BedtimeRoutine(),
)
