"""Device variants of the questions Settings answers (model, Android version, Wi-Fi network,
paired Bluetooth devices) and of the hybrid that picks the longest screen timeout.

The questions are judged by the agent's answer against the truth the phone itself reports at
setup, root-free: ``getprop``, ``cmd wifi status``, ``dumpsys bluetooth_manager`` (formats in
:mod:`device.tasks.phone_facts`), never against the simulator's world data. The timeout hybrid
is judged from the episode's screens (:mod:`device.tasks.xpath_rules`): which options the
phone offered decides what "longest" means, then the setting and the answer must match it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from bridge.schema import Check, TaskInstance
from device.errors import DeviceError
from device.tasks.answer_checks import answer_check
from device.tasks.base import DeviceVariant, Judging, Shell, VariantContext
from device.tasks.phone_facts import (
    UNKNOWN_SSID,
    getprop,
    paired_devices,
    poll,
    wifi_status,
)
from device.tasks.settings_variants import read_setting, write_setting
from device.tasks.xpath_rules import CHOICE, CHOICE_LABEL, MIN_OPTIONS, longest_offered

__all__ = [
    "SETTINGS_QUERY_VARIANTS",
    "CountPairedDevicesVariant",
    "QueryAndroidVersionVariant",
    "QueryConnectedWifiVariant",
    "QueryDeviceModelVariant",
    "SetLongestTimeoutVariant",
]

_SETTINGS = ("com.android.settings",)


class _SettingsQuery(DeviceVariant):
    judged_by: ClassVar[Judging] = "answer"
    packages = _SETTINGS
    wait_s: ClassVar[float] = 15.0
    """How long setup waits for a radio to come up before the truth can be read."""


class QueryDeviceModelVariant(_SettingsQuery):
    """The phone's model: ``ro.product.model``, or its marketing name where the phone has
    one (Xiaomi's About page shows ``Redmi Note 12 Turbo``, the model code is 23049RAD8C)."""

    task_id = "settings/QueryDeviceModel-v1"
    note = "truth: getprop ro.product.model, or ro.product.marketname when set"

    async def pose(self, shell: Shell, task: TaskInstance) -> Mapping[str, Any] | None:
        model = await getprop(shell, "ro.product.model")
        if not model:
            raise DeviceError("the phone reports no ro.product.model; check `adb shell getprop`")
        marketname = await getprop(shell, "ro.product.marketname")
        return {"model": model, "names": [marketname] if marketname != model and marketname else []}

    async def judge(self, ctx: VariantContext) -> list[Check]:
        base = ctx.baseline
        return [answer_check(ctx, "model", base["model"], "text", accept=base["names"])]


class QueryAndroidVersionVariant(_SettingsQuery):
    """The Android version (``ro.build.version.release``: ``14``, ``8.1.0``)."""

    task_id = "settings/QueryAndroidVersion-v1"
    note = "truth: getprop ro.build.version.release (14 = 14.0; 8.1 = 8.1.0)"

    async def pose(self, shell: Shell, task: TaskInstance) -> Mapping[str, Any] | None:
        release = await getprop(shell, "ro.build.version.release")
        if not release:
            raise DeviceError("the phone reports no ro.build.version.release")
        return {"truth": release}

    async def judge(self, ctx: VariantContext) -> list[Check]:
        return [answer_check(ctx, "version", ctx.baseline["truth"], "version")]


class QueryConnectedWifiVariant(_SettingsQuery):
    """The network Wi-Fi is on. A phone cannot be joined to a network without its
    credentials, so nothing is posed beyond Wi-Fi on: the truth is whatever network the phone
    joins (``cmd wifi status``, Android 11+)."""

    task_id = "settings/QueryConnectedWifi-v1"
    note = "poses nothing but Wi-Fi on; truth: cmd wifi status (Android 11+)"

    async def pose(self, shell: Shell, task: TaskInstance) -> Mapping[str, Any] | None:
        status = await wifi_status(shell)
        if status is None:
            raise DeviceError(
                "`cmd wifi status` gives no Wi-Fi status on this phone (it needs Android 11+); "
                "this task cannot be judged here"
            )
        if not status.enabled:
            await write_setting(shell, "global", "wifi_on", 1)

        async def joined() -> str | None:
            now = await wifi_status(shell)
            return now.ssid if now is not None and now.enabled else None

        ssid = await poll(joined, self.wait_s)
        if ssid is None:
            raise DeviceError(
                "Wi-Fi is on but the phone joined no network within "
                f"{self.wait_s:.0f} s; connect it to a Wi-Fi network and run again"
            )
        if ssid == UNKNOWN_SSID:
            raise DeviceError(
                "the phone hides the Wi-Fi network's name from adb (`cmd wifi status` says "
                f"{UNKNOWN_SSID}); turn on Location and run again"
            )
        return {"truth": ssid}

    async def judge(self, ctx: VariantContext) -> list[Check]:
        return [answer_check(ctx, "network", ctx.baseline["truth"])]


class CountPairedDevicesVariant(_SettingsQuery):
    """How many Bluetooth devices are paired. The list is only dumped with Bluetooth on, so
    setup turns it on to read the truth, then off, as the simulator's task starts."""

    task_id = "settings/CountPairedDevices-v1"
    note = (
        "truth: `dumpsys bluetooth_manager` Bonded devices, read with Bluetooth on; "
        "Android 16 may omit the list (setup then fails with a message)"
    )

    async def pose(self, shell: Shell, task: TaskInstance) -> Mapping[str, Any] | None:
        devices = await paired_devices(shell)
        if devices is None:
            await write_setting(shell, "global", "bluetooth_on", 1)
            devices = await poll(lambda: paired_devices(shell), self.wait_s)
        if devices is None:
            raise DeviceError(
                "`dumpsys bluetooth_manager` lists no 'Bonded devices:' even with Bluetooth on "
                f"(waited {self.wait_s:.0f} s); this phone cannot judge the task"
            )
        await write_setting(shell, "global", "bluetooth_on", 0)
        return {"truth": len(devices), "devices": devices}

    async def judge(self, ctx: VariantContext) -> list[Check]:
        return [answer_check(ctx, "count", ctx.baseline["truth"], "number")]


class SetLongestTimeoutVariant(DeviceVariant):
    """Choose the longest screen timeout, then say how many minutes it is.

    The longest option is what the episode's screens offered (the chooser found by the
    XPath rules :data:`~device.tasks.xpath_rules.CHOICE` and
    :data:`~device.tasks.xpath_rules.CHOICE_LABEL`); the phone's
    ``system.screen_off_timeout`` and the answered minutes must both equal it.
    """

    task_id = "settings/SetLongestTimeout-v1"
    judged_by: ClassVar[Judging] = "xpath"
    packages = _SETTINGS
    note = (
        "the longest option is read from the episode's UI trees (ROMs differ: AOSP 30 min, "
        "MIUI 10 min; 'Never' is no duration); setting and answer are checked against it"
    )
    _SHORT: ClassVar[tuple[int, ...]] = (15_000, 30_000, 60_000, 120_000)
    """Starting timeouts every ROM offers and none offers as its longest."""

    async def pose(self, shell: Shell, task: TaskInstance) -> Mapping[str, Any] | None:
        start = task.params["start"] if task.params["start"] in self._SHORT else 30_000
        await write_setting(shell, "system", "screen_off_timeout", start)
        return None

    async def judge(self, ctx: VariantContext) -> list[Check]:
        offered = longest_offered(ctx.trees)
        raw = await read_setting(ctx.shell, "system", "screen_off_timeout")
        if offered is None:
            return self._unseen(ctx, raw)
        steps = ", ".join(map(str, offered.steps))
        where = f"the longest option, {offered.label!r}, offered at steps {steps}"
        minutes = offered.ms / 60_000
        answer = answer_check(ctx, "minutes", int(minutes) if minutes.is_integer() else minutes,
                              "number")  # fmt: skip
        return [
            Check(name="longest option offered", expected="a screen-timeout chooser",
                  actual=offered.label, passed=True,
                  evidence=f"steps {steps}: XPath options {CHOICE}, labels {CHOICE_LABEL}"),
            Check(name="system.screen_off_timeout", expected=offered.ms, actual=raw,
                  passed=raw.isdigit() and int(raw) == offered.ms,
                  evidence=f"settings get system screen_off_timeout against {where}"),
            answer.model_copy(update={"evidence": f"answer against {where}"}),
        ]  # fmt: skip

    @staticmethod
    def _unseen(ctx: VariantContext, raw: str) -> list[Check]:
        """Every check failed: without a chooser on screen, "longest" means nothing."""
        evidence = (
            f"none of the {len(ctx.trees)} saved screens showed a screen-timeout chooser "
            f"(XPath options {CHOICE}, labels {CHOICE_LABEL}, at least {MIN_OPTIONS} durations)"
        )
        return [
            Check(name="longest option offered", expected="a screen-timeout chooser",
                  actual=None, passed=False, evidence=evidence),
            Check(name="system.screen_off_timeout", expected="the longest option offered",
                  actual=raw, passed=False, evidence=evidence),
            Check(name="answer.minutes", expected="the longest option in minutes",
                  actual=(ctx.answer or {}).get("minutes"), passed=False, evidence=evidence),
        ]  # fmt: skip


SETTINGS_QUERY_VARIANTS: tuple[DeviceVariant, ...] = (
    QueryDeviceModelVariant(),
    QueryAndroidVersionVariant(),
    QueryConnectedWifiVariant(),
    CountPairedDevicesVariant(),
    SetLongestTimeoutVariant(),
)
"""Settings questions judged by answer, and the timeout hybrid judged from the UI trees."""
