"""Task templates over the Settings app (and the shade, which reaches the same settings).

Every judged value is an Android settings key, so the phone's ``settings get`` reads the
same thing (see the device variants in issue 4).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bridge.plans import FinishStep, OpenAppStep, Plan, Selector, TapStep
from bridge.schema import Check
from sim.tasks.base import SetupContext, TaskTemplate
from sim.tasks.judge import check
from sim.tasks.params import Boolean

__all__ = ["TEMPLATES", "SetAirplaneMode", "SetWifi"]

_ON = {"en": {True: "on", False: "off"}, "zh": {True: "打开", False: "关闭"}}


def _g(state: Mapping[str, Any], key: str) -> Any:
    return state["settings"]["global"].get(key)


class SetWifi(TaskTemplate):
    """Switch Wi-Fi on or off."""

    id = "settings/SetWifi-v1"
    apps = ("settings",)
    level = "L1"
    kind = "operate"
    instructions = {"en": "Turn {state} Wi-Fi.", "zh": "{state} WLAN。"}
    params = {"on": Boolean()}
    expected_changes = ("settings.global.wifi_on",)

    def text_values(self, p: dict[str, Any], lang: str) -> dict[str, Any]:
        return {"state": _ON[lang][p["on"]]}

    def setup(self, s: SetupContext, p: dict[str, Any]) -> None:
        s.settings["global"]["wifi_on"] = 0 if p["on"] else 1

    def checks(self, state: Mapping[str, Any], p: dict[str, Any]) -> list[Check]:
        return [check("wifi_on", int(p["on"]), _g(state, "wifi_on"))]

    def oracle(self, p: dict[str, Any], lang: str) -> Plan:
        return [
            OpenAppStep(app="settings"),
            TapStep(on=Selector(resource_id="wifi_settings")),
            TapStep(on=Selector(resource_id="wifi_enable")),
            FinishStep(),
        ]


class SetAirplaneMode(TaskTemplate):
    """Switch airplane mode on or off (the radios follow, as on Android)."""

    id = "settings/SetAirplaneMode-v1"
    apps = ("settings",)
    level = "L1"
    kind = "operate"
    instructions = {"en": "Turn airplane mode {state}.", "zh": "{state}飞行模式。"}
    params = {"on": Boolean()}
    expected_changes = (
        "settings.global.airplane_mode_on",
        "settings.global.wifi_on",
        "settings.global.bluetooth_on",
        "settings.global.*_saved_state",
    )

    def text_values(self, p: dict[str, Any], lang: str) -> dict[str, Any]:
        return {"state": _ON[lang][p["on"]]}

    def setup(self, s: SetupContext, p: dict[str, Any]) -> None:
        if not p["on"]:
            s.phone.set_airplane(s.state, True)

    def checks(self, state: Mapping[str, Any], p: dict[str, Any]) -> list[Check]:
        return [check("airplane_mode_on", int(p["on"]), _g(state, "airplane_mode_on"))]

    def oracle(self, p: dict[str, Any], lang: str) -> Plan:
        return [
            OpenAppStep(app="settings"),
            TapStep(on=Selector(resource_id="toggle_airplane")),
            FinishStep(),
        ]


TEMPLATES: tuple[TaskTemplate, ...] = (SetWifi(), SetAirplaneMode())
