"""Questions about the phone that Settings answers (model, Android version, Wi-Fi, Bluetooth),
and a hybrid that changes a setting and reports it.

World facts (the About page, the paired devices) reach the answer through :meth:`derive`;
what a setup poses (the network joined) is read back from the judged state at the start.
The oracles read their answers off the screen (:class:`~bridge.plans.NoteStep`), so on a
phone they answer with the phone's own model, version, network and devices; their literal
``fields`` stay the simulator's prediction.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bridge.plans import AnswerStep, KeyStep, NoteStep, Plan, Recall, Selector, TapStep
from bridge.schema import Check
from sim.apps.settings import model
from sim.tasks.base import AnswerSpec, SetupContext, TaskTemplate
from sim.tasks.judge import check
from sim.tasks.params import Choice, WorldChoice
from sim.tasks.settings_tasks import pick_radio, settings_plan, settings_text, timeout_text

__all__ = [
    "TEMPLATES",
    "CountPairedDevices",
    "QueryAndroidVersion",
    "QueryConnectedWifi",
    "QueryDeviceModel",
    "SetLongestTimeout",
    "note_summary",
]

World = Mapping[str, Mapping[str, Any]]


def note_summary(key: str, title: str) -> NoteStep:
    """Note the summary of the row titled ``title`` (``Model`` -> ``Redmi Note 12 Turbo``):
    the summaries after that title, up to the next row's title."""
    return NoteStep(
        key=key,
        rows=Selector(resource_id="summary"),
        after=Selector(resource_id="title", text=title),
        until=Selector(resource_id="title"),
    )


class QueryDeviceModel(TaskTemplate):
    """The phone's model name, from About phone (S19; ``getprop ro.product.model``)."""

    id = "settings/QueryDeviceModel-v1"
    apps = ("settings",)
    level = "L1"
    kind = "query"
    instructions = {"en": "What is this phone's model?", "zh": "这台手机的型号是什么？"}
    answer_fields = (AnswerSpec("model", "text", {"en": "Model", "zh": "型号"}),)

    def derive(self, p: dict[str, Any], world: World) -> dict[str, Any]:
        return {"model": world["settings"]["about"]["model"]}

    def expected_answers(self, initial: Mapping[str, Any], p: dict[str, Any]) -> dict[str, Any]:
        return {"model": p["model"]}

    def oracle(self, p: dict[str, Any], lang: str) -> Plan:
        return [
            *settings_plan("my_device"),
            note_summary("model", settings_text("model", lang)),
            AnswerStep(
                fields={"model": p["model"]}, read={"model": Recall(key="model", op="text")}
            ),
        ]


class QueryAndroidVersion(TaskTemplate):
    """The Android version number (S19; ``getprop ro.build.version.release``)."""

    id = "settings/QueryAndroidVersion-v1"
    apps = ("settings",)
    level = "L1"
    kind = "query"
    instructions = {
        "en": "Which Android version is this phone running?",
        "zh": "这台手机的 Android 版本是多少？",
    }
    answer_fields = (
        AnswerSpec("version", "number", {"en": "Android version", "zh": "Android 版本"}),
    )

    def derive(self, p: dict[str, Any], world: World) -> dict[str, Any]:
        return {"version": int(world["settings"]["about"]["android_version"])}

    def expected_answers(self, initial: Mapping[str, Any], p: dict[str, Any]) -> dict[str, Any]:
        return {"version": p["version"]}

    def oracle(self, p: dict[str, Any], lang: str) -> Plan:
        return [
            *settings_plan("my_device"),
            note_summary("version", settings_text("android_version", lang)),
            AnswerStep(
                fields={"version": p["version"]},
                read={"version": Recall(key="version", op="number")},
            ),
        ]


def _joinable(world: World) -> list[str]:
    """Networks the phone can be on without a password being typed (open or saved)."""
    networks = world["settings"]["wifi"]["networks"]
    return [n["ssid"] for n in networks if n["saved"] or not n["secured"]]


class QueryConnectedWifi(TaskTemplate):
    """Which Wi-Fi network the phone is on (set up to one of the joinable ones)."""

    id = "settings/QueryConnectedWifi-v1"
    apps = ("settings",)
    level = "L2"
    kind = "query"
    instructions = {
        "en": "Which Wi-Fi network is the phone connected to?",
        "zh": "手机当前连接的是哪个 WLAN？",
    }
    params = {"ssid": WorldChoice(_joinable)}
    answer_fields = (AnswerSpec("network", "text", {"en": "Network name", "zh": "网络名称"}),)

    def setup(self, s: SetupContext, p: dict[str, Any]) -> None:
        s.settings["global"]["wifi_on"] = 1
        s.overlay("settings")["wifi_ssid"] = p["ssid"]

    def expected_answers(self, initial: Mapping[str, Any], p: dict[str, Any]) -> dict[str, Any]:
        return {"network": initial["apps"]["settings"]["wifi_ssid"]}

    def oracle(self, p: dict[str, Any], lang: str) -> Plan:
        # The main list's Wi-Fi row summarises the network joined (as Settings on phones do).
        return [
            *settings_plan(),
            note_summary("network", settings_text("wifi", lang)),
            TapStep(on=Selector(resource_id="wifi_settings")),
            AnswerStep(
                fields={"network": p["ssid"]}, read={"network": Recall(key="network", op="text")}
            ),
        ]


class CountPairedDevices(TaskTemplate):
    """How many Bluetooth devices are paired; the list shows only with Bluetooth on, which
    starts off, so turning it on is allowed (not required)."""

    id = "settings/CountPairedDevices-v1"
    apps = ("settings",)
    level = "L2"
    kind = "query"
    instructions = {
        "en": "How many Bluetooth devices are paired with this phone?",
        "zh": "这台手机配对了几个蓝牙设备？",
    }
    expected_changes = ("settings.global.bluetooth_on",)
    answer_fields = (AnswerSpec("count", "number", {"en": "Paired devices", "zh": "已配对设备数"}),)

    def derive(self, p: dict[str, Any], world: World) -> dict[str, Any]:
        return {"count": len(world["settings"]["bluetooth"]["paired"])}

    def setup(self, s: SetupContext, p: dict[str, Any]) -> None:
        s.settings["global"]["bluetooth_on"] = 0

    def expected_answers(self, initial: Mapping[str, Any], p: dict[str, Any]) -> dict[str, Any]:
        return {"count": p["count"]}

    def oracle(self, p: dict[str, Any], lang: str) -> Plan:
        paired = NoteStep(
            key="paired",
            rows=Selector(resource_id="title"),
            after=Selector(resource_id="section_title", text=settings_text("paired_devices", lang)),
            until=Selector(resource_id="section_title"),
        )
        return [
            *settings_plan("bluetooth_settings", "bluetooth_enable"),
            paired,
            AnswerStep(fields={"count": p["count"]}, read={"count": Recall(key="paired")}),
        ]


class SetLongestTimeout(TaskTemplate):
    """Hybrid: find the longest screen timeout on offer, choose it and say how long it is."""

    id = "settings/SetLongestTimeout-v1"
    apps = ("settings",)
    level = "L2"
    kind = "hybrid"
    instructions = {
        "en": "Set the screen timeout to the longest option available, then tell me how many "
        "minutes it is.",
        "zh": "把自动锁屏时间设为可选的最长时间，并告诉我是多少分钟。",
    }
    params = {"start": Choice(model.TIMEOUT_CHOICES_MS[:-1])}
    expected_changes = ("settings.system.screen_off_timeout",)
    answer_fields = (AnswerSpec("minutes", "number", {"en": "Minutes", "zh": "分钟数"}),)

    def derive(self, p: dict[str, Any], world: World) -> dict[str, Any]:
        return {"longest": max(model.TIMEOUT_CHOICES_MS)}

    def setup(self, s: SetupContext, p: dict[str, Any]) -> None:
        s.settings["system"]["screen_off_timeout"] = p["start"]

    def checks(self, state: Mapping[str, Any], p: dict[str, Any]) -> list[Check]:
        actual = state["settings"]["system"].get("screen_off_timeout")
        return [check("screen_off_timeout", p["longest"], actual)]

    def expected_answers(self, initial: Mapping[str, Any], p: dict[str, Any]) -> dict[str, Any]:
        return {"minutes": p["longest"] // 60_000}

    def oracle(self, p: dict[str, Any], lang: str) -> Plan:
        return [
            *settings_plan("display_settings", "screen_timeout"),
            pick_radio(timeout_text(p["longest"], lang)),
            KeyStep(key="back"),  # the Display page summarises the timeout chosen
            note_summary("timeout", settings_text("screen_timeout", lang)),
            AnswerStep(
                fields={"minutes": p["longest"] // 60_000},
                read={"minutes": Recall(key="timeout", op="number")},
            ),
        ]


TEMPLATES: tuple[TaskTemplate, ...] = (
    QueryDeviceModel(),
    QueryAndroidVersion(),
    QueryConnectedWifi(),
    CountPairedDevices(),
    SetLongestTimeout(),
)
