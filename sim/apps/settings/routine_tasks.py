"""Routines over Settings: several settings in one instruction, some in a required order.

Each setting starts away from its target, so every one of them has to be changed; each is
its own check, so ``progress`` says how much of the routine was done.
"""

from __future__ import annotations

from typing import Annotated, Any

from bridge.plans import FinishStep, Plan
from bridge.taskspec import CheckRule, EnsureOp, Requirement
from sim.apps.settings import model
from sim.apps.settings.plans import SettingsWalk, settings_plan
from sim.apps.settings.tasks import after, is_setting, pick_radio, timeout_text
from sim.tasks.base import TaskTemplate, WrongPlan, put
from sim.tasks.params import Boolean, Choice, Integer, NoParams, TaskParams

__all__ = ["TEMPLATES", "BedtimeRoutine", "RadiosOffThenAirplane", "SetRadiosAndTimeout"]

_ON = {"en": {True: "on", False: "off"}, "zh": {True: "打开", False: "关闭"}}


class RadiosAndTimeout(TaskParams):
    """Wi-Fi and Bluetooth on or off, and a screen timeout."""

    wifi: Annotated[bool, Boolean()]
    bluetooth: Annotated[bool, Boolean()]
    timeout: Annotated[int, Choice(model.TIMEOUT_CHOICES_EVERY_SKIN)]


class RadiosOffThenAirplane(TaskTemplate[NoParams]):
    """S21: Wi-Fi and Bluetooth off by hand *before* airplane mode, so that they stay off
    when airplane mode ends: Android then remembers them as off (``*_saved_state`` 0).

    The order is judged from those saved states, which this simulator (and the virtual
    phone) keep in ``global`` settings; a retail phone keeps them in its radio services'
    own stores, which no shell user can read, so the template runs there only as far as a
    phone can tell — not at all (see :meth:`requires`)."""

    id = "settings/RadiosOffThenAirplane-v1"
    apps = ("settings",)
    level = "L3"
    kind = "operate"
    instructions = {
        "en": "Turn off Wi-Fi and Bluetooth first, then turn on airplane mode.",
        "zh": "先关闭 WLAN 和蓝牙，再打开飞行模式。",
    }
    expected_settings = (
        "global.airplane_mode_on",
        "global.wifi_on",
        "global.bluetooth_on",
        "global.*_saved_state",
    )

    def ensure(self, p: NoParams) -> list[EnsureOp]:
        return [
            put("global", "airplane_mode_on", 0),
            put("global", "wifi_on", 1),
            put("global", "bluetooth_on", 1),
        ]

    def goal(self, p: NoParams) -> list[CheckRule]:
        return [
            is_setting("global", "airplane_mode_on", 1),
            is_setting("global", "wifi_on", 0),
            is_setting("global", "bluetooth_on", 0),
            is_setting("global", "wifi_saved_state", 0),
            is_setting("global", "bluetooth_saved_state", 0),
        ]

    def requires(self, p: NoParams) -> list[Requirement]:
        return [
            Requirement(
                fact="global.wifi_saved_state, global.bluetooth_saved_state",
                reason="the order of the steps is judged from the radios' saved states, which "
                "a retail phone keeps in its services' own stores, unreadable from adb",
            )
        ]

    def oracle(self, p: NoParams, lang: str) -> Plan:
        return [*settings_plan("wifi_enable", "bluetooth_enable", "toggle_airplane"), FinishStep()]


class SetRadiosAndTimeout(TaskTemplate[RadiosAndTimeout]):
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
    Params = RadiosAndTimeout
    expected_settings = ("global.wifi_on", "global.bluetooth_on", "system.screen_off_timeout")

    def text_values(self, p: RadiosAndTimeout, lang: str) -> dict[str, Any]:
        return {
            "wifi": _ON[lang][p.wifi],
            "bluetooth": _ON[lang][p.bluetooth],
            "timeout": timeout_text(p.timeout, lang),
        }

    def ensure(self, p: RadiosAndTimeout) -> list[EnsureOp]:
        return [
            put("global", "wifi_on", int(not p.wifi)),
            put("global", "bluetooth_on", int(not p.bluetooth)),
            put("system", "screen_off_timeout", after(model.TIMEOUT_CHOICES_EVERY_SKIN, p.timeout)),
        ]

    def goal(self, p: RadiosAndTimeout) -> list[CheckRule]:
        return [
            is_setting("global", "wifi_on", int(p.wifi)),
            is_setting("global", "bluetooth_on", int(p.bluetooth)),
            is_setting("system", "screen_off_timeout", p.timeout),
        ]

    def oracle(self, p: RadiosAndTimeout, lang: str) -> Plan:
        walk = SettingsWalk().tap("wifi_enable").tap("bluetooth_enable").tap("screen_timeout")
        return [*walk.then(pick_radio(timeout_text(p.timeout, lang))).steps, FinishStep()]


_BEDTIME_TIMEOUT = 30_000


class Bedtime(TaskParams):
    """Where brightness, ring volume and the timeout start."""

    brightness: Annotated[int, Integer(60, 220)]
    volume: Annotated[int, Integer(4, model.RING_VOLUME_MAX)]
    timeout: Annotated[
        int,
        Choice(tuple(ms for ms in model.TIMEOUT_CHOICES_EVERY_SKIN if ms != _BEDTIME_TIMEOUT)),
    ]


class BedtimeRoutine(TaskTemplate[Bedtime]):
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
    Params = Bedtime
    expected_settings = (
        "secure.ui_night_mode",
        "global.zen_mode",
        "system.screen_brightness",
        "system.volume_ring",
        "system.screen_off_timeout",
    )

    def text_values(self, p: Bedtime, lang: str) -> dict[str, Any]:
        return {"timeout": timeout_text(_BEDTIME_TIMEOUT, lang)}

    def ensure(self, p: Bedtime) -> list[EnsureOp]:
        return [
            put("secure", "ui_night_mode", model.NIGHT_MODE_OFF),
            put("global", "zen_mode", 0),
            put("system", "screen_brightness_mode", 0),
            put("system", "screen_brightness", p.brightness),
            put("system", "volume_ring", p.volume),
            put("system", "screen_off_timeout", p.timeout),
        ]

    def goal(self, p: Bedtime) -> list[CheckRule]:
        return [
            is_setting("secure", "ui_night_mode", model.NIGHT_MODE_ON),
            is_setting("global", "zen_mode", op="nonzero"),
            is_setting("system", "screen_brightness", 1, op="le"),
            is_setting("system", "volume_ring", 0),
            is_setting("system", "screen_off_timeout", _BEDTIME_TIMEOUT),
        ]

    def oracle(self, p: Bedtime, lang: str) -> Plan:
        walk = SettingsWalk().tap("brightness", at=(0.0, 0.5)).tap("dark_mode_display_enable")
        walk.tap("screen_timeout").then(pick_radio(timeout_text(_BEDTIME_TIMEOUT, lang)))
        walk.tap("ring_volume", at=(0.0, 0.5)).switch("zen_mode", True)
        return [*walk.steps, FinishStep()]


TEMPLATES: tuple[TaskTemplate, ...] = (
    RadiosOffThenAirplane(),
    SetRadiosAndTimeout(),
    BedtimeRoutine(),
)


# ---- wrong plans, which must not pass (tests/sim/test_tasks_e2e.py runs them):
# The wrong order, half a routine.

WRONG: dict[str, WrongPlan] = {
    "settings/RadiosOffThenAirplane-v1": lambda p, lang, w: [
        *settings_plan("toggle_airplane"),  # the radios go off, but come back later
        FinishStep(),
    ],
    "settings/SetRadiosAndTimeout-v1": lambda p, lang, w: [
        *settings_plan("wifi_enable", "bluetooth_enable"),
        FinishStep(),
    ],
    "settings/BedtimeRoutine-v1": lambda p, lang, w: [
        *SettingsWalk()
        .tap("dark_mode_display_enable")
        .tap("brightness", at=(1.0, 0.5))
        .switch("zen_mode", True)
        .steps,
        FinishStep(),
    ],
}
