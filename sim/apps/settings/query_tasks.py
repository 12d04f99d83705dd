"""Questions about the phone that Settings answers (model, Android version, Wi-Fi, Bluetooth),
and a hybrid that changes a setting and reports it.

The truths are what the phone reports right after posing, root-free and the same way in
both worlds: ``getprop`` (model, marketing name, Android version), ``cmd wifi status`` (the
network), ``dumpsys bluetooth_manager`` (the paired devices); :meth:`derive` computes the
simulator's prediction from world data for the oracle only. The oracles read their answers
off the screen (:class:`~bridge.plans.NoteStep`), so on a phone they answer with the phone's
own model, version, network and devices.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from bridge.plans import AnswerStep, KeyStep, NoteStep, Plan, Recall, Selector, TapStep
from bridge.spec.answers import AnswerRule
from bridge.spec.props import PropFact
from bridge.spec.radios import BondedFact, WifiFact
from bridge.spec.ui import LongestOfferedCheck
from bridge.taskspec import CheckRule, EnsureOp, Truth
from sim.apps.settings import model
from sim.apps.settings.plans import SettingsWalk, settings_plan
from sim.apps.settings.tasks import pick_radio, settings_text, timeout_text
from sim.skins import plan_skin
from sim.tasks.base import AnswerSpec, TaskTemplate, WrongPlan, put
from sim.tasks.params import Choice, TaskParams

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


class ModelName(TaskParams):
    """The model name About phone shows (the simulator's prediction, for the oracle)."""

    model: str


class AndroidVersion(TaskParams):
    """The Android version (prediction)."""

    version: int


class HomeNetwork(TaskParams):
    """The network the phone joins (prediction)."""

    ssid: str


class PairedCount(TaskParams):
    """How many devices are paired (prediction)."""

    count: int


class LongestTimeout(TaskParams):
    """Where the timeout starts (the longest option is the skin's: its screens say)."""

    start: Annotated[int, Choice((15_000, 30_000, 60_000, 120_000))]


class QueryDeviceModel(TaskTemplate[ModelName]):
    """The phone's model name, from About phone (S19; ``getprop ro.product.model``)."""

    id = "settings/QueryDeviceModel-v1"
    apps = ("settings",)
    level = "L1"
    kind = "query"
    instructions = {"en": "What is this phone's model?", "zh": "这台手机的型号是什么？"}
    Params = ModelName
    answer_fields = (AnswerSpec("model", "text", {"en": "Model", "zh": "型号"}),)

    def derive(self, sampled: Mapping[str, Any], world: World) -> dict[str, Any]:
        return {"model": world["settings"]["about"]["model"]}

    def truths(self, p: ModelName) -> list[Truth]:
        # Xiaomi's About page shows the marketing name; the model code is 23049RAD8C.
        model_code = PropFact(key="ro.product.model")
        return [Truth(name="model", fact=model_code, also=[PropFact(key="ro.product.marketname")])]

    def oracle(self, p: ModelName, lang: str) -> Plan:
        return [
            *SettingsWalk().visit("model").steps,
            note_summary("model", settings_text("model", lang)),
            AnswerStep(fields={"model": p.model}, read={"model": Recall(key="model", op="text")}),
        ]


class QueryAndroidVersion(TaskTemplate[AndroidVersion]):
    """The Android version number (S19; ``getprop ro.build.version.release``)."""

    id = "settings/QueryAndroidVersion-v1"
    apps = ("settings",)
    level = "L1"
    kind = "query"
    instructions = {
        "en": "Which Android version is this phone running?",
        "zh": "这台手机的 Android 版本是多少？",
    }
    Params = AndroidVersion
    answer_fields = (
        AnswerSpec(
            "version", "number", {"en": "Android version", "zh": "Android 版本"}, match="version"
        ),
    )

    def derive(self, sampled: Mapping[str, Any], world: World) -> dict[str, Any]:
        return {"version": int(world["settings"]["about"]["android_version"])}

    def truths(self, p: AndroidVersion) -> list[Truth]:
        return [Truth(name="version", fact=PropFact(key="ro.build.version.release"))]

    def oracle(self, p: AndroidVersion, lang: str) -> Plan:
        return [
            *SettingsWalk().visit("android_version").steps,
            note_summary("version", settings_text("android_version", lang)),
            AnswerStep(
                fields={"version": p.version},
                read={"version": Recall(key="version", op="number")},
            ),
        ]


class QueryConnectedWifi(TaskTemplate[HomeNetwork]):
    """Which Wi-Fi network the phone is on. A phone joins no network without its
    credentials, so the task poses only Wi-Fi on: the truth is whatever network the phone
    joins (``cmd wifi status``), in the simulator the world's home network."""

    id = "settings/QueryConnectedWifi-v1"
    apps = ("settings",)
    level = "L2"
    kind = "query"
    instructions = {
        "en": "Which Wi-Fi network is the phone connected to?",
        "zh": "手机当前连接的是哪个 WLAN？",
    }
    Params = HomeNetwork
    answer_fields = (AnswerSpec("network", "text", {"en": "Network name", "zh": "网络名称"}),)

    def derive(self, sampled: Mapping[str, Any], world: World) -> dict[str, Any]:
        return {"ssid": world["settings"]["wifi"]["connected"]}

    def ensure(self, p: HomeNetwork) -> list[EnsureOp]:
        return [put("global", "wifi_on", 1)]

    def truths(self, p: HomeNetwork) -> list[Truth]:
        return [Truth(name="network", fact=WifiFact())]

    def oracle(self, p: HomeNetwork, lang: str) -> Plan:
        # The main list's Wi-Fi row summarises the network joined (as Settings on phones do).
        return [
            *settings_plan(),
            note_summary("network", settings_text("wifi", lang)),
            TapStep(on=Selector(resource_id="wifi_settings")),
            AnswerStep(
                fields={"network": p.ssid}, read={"network": Recall(key="network", op="text")}
            ),
        ]


class CountPairedDevices(TaskTemplate[PairedCount]):
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
    Params = PairedCount
    expected_settings = ("global.bluetooth_on",)
    answer_fields = (AnswerSpec("count", "number", {"en": "Paired devices", "zh": "已配对设备数"}),)

    def derive(self, sampled: Mapping[str, Any], world: World) -> dict[str, Any]:
        return {"count": len(world["settings"]["bluetooth"]["paired"])}

    def ensure(self, p: PairedCount) -> list[EnsureOp]:
        return [put("global", "bluetooth_on", 0)]

    def truths(self, p: PairedCount) -> list[Truth]:
        return [Truth(name="count", fact=BondedFact(), reduce="count")]

    def oracle(self, p: PairedCount, lang: str) -> Plan:
        paired = NoteStep(
            key="paired",
            rows=Selector(resource_id="title"),
            after=Selector(resource_id="section_title", text=settings_text("paired_devices", lang)),
            until=Selector(resource_id="section_title"),
        )
        return [
            *settings_plan("bluetooth_enable"),
            paired,
            AnswerStep(fields={"count": p.count}, read={"count": Recall(key="paired")}),
        ]


class SetLongestTimeout(TaskTemplate[LongestTimeout]):
    """Hybrid: find the longest screen timeout on offer, choose it and say how long it is.

    What "longest" means is what the episode's own screens offered (XPath over the saved
    UI trees: ROMs differ, AOSP goes to 30 minutes, MIUI to 10); the setting and the answer
    must both be that option. It starts at a short timeout every ROM offers.
    """

    id = "settings/SetLongestTimeout-v1"
    apps = ("settings",)
    level = "L2"
    kind = "hybrid"
    instructions = {
        "en": "Set the screen timeout to the longest option available, then tell me how many "
        "minutes it is.",
        "zh": "把自动锁屏时间设为可选的最长时间，并告诉我是多少分钟。",
    }
    Params = LongestTimeout
    expected_settings = ("system.screen_off_timeout",)
    answer_fields = (AnswerSpec("minutes", "number", {"en": "Minutes", "zh": "分钟数"}),)

    def ensure(self, p: LongestTimeout) -> list[EnsureOp]:
        return [put("system", "screen_off_timeout", p.start)]

    def goal(self, p: LongestTimeout) -> list[CheckRule]:
        return [
            LongestOfferedCheck(
                namespace="system", key="screen_off_timeout", answer_field="minutes"
            )
        ]

    def answer_rules(self) -> list[AnswerRule]:
        return []  # the answer is judged against the longest option offered, in the goal

    def oracle(self, p: LongestTimeout, lang: str) -> Plan:
        longest = model.longest_timeout(plan_skin())  # what this skin's own list offers
        return [
            *settings_plan("screen_timeout"),
            pick_radio(timeout_text(longest, lang)),
            KeyStep(key="back"),  # the page before summarises the timeout chosen
            note_summary("timeout", settings_text("screen_timeout", lang)),
            AnswerStep(
                fields={"minutes": longest // 60_000},
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


def _second_longest() -> int:
    """The timeout just below the longest the skin being planned for offers."""
    offered = model.TIMEOUT_CHOICES_BY_SKIN[plan_skin()]
    return sorted(ms for ms in offered if ms < model.longest_timeout(plan_skin()))[-1]


# ---- wrong plans, which must not pass (tests/sim/test_tasks_e2e.py runs them):
# An answer off, counted too early.

WRONG: dict[str, WrongPlan] = {
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
        *settings_plan("screen_timeout"),
        pick_radio(timeout_text(_second_longest(), lang)),
        AnswerStep(fields={"minutes": _second_longest() // 60_000}),
    ],
}
