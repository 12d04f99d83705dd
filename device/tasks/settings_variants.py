"""Device variants of the Settings tasks: posed with service commands, judged by
``settings get`` (no root needed; the keys are the ones the simulator judges).

Setup writes the setting and then asks the owning service to apply it, so a real phone's
radio or theme really changes (``settings put`` alone can be overwritten by the service);
on the virtual phone the service commands are accepted and the settings write does it.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from bridge.schema import Check, TaskInstance
from device.tasks.base import DeviceVariant, Judging, Shell, VariantContext

__all__ = ["SETTINGS_VARIANTS", "SettingProbe", "read_setting"]

_SERVICE: dict[tuple[str, str], tuple[str, str]] = {
    ("global", "wifi_on"): ("svc wifi enable", "svc wifi disable"),
    ("global", "bluetooth_on"): ("svc bluetooth enable", "svc bluetooth disable"),
    ("global", "airplane_mode_on"): (
        "cmd connectivity airplane-mode enable",
        "cmd connectivity airplane-mode disable",
    ),
    ("global", "zen_mode"): ("cmd notification set_dnd on", "cmd notification set_dnd off"),
    ("secure", "ui_night_mode"): ("cmd uimode night yes", "cmd uimode night no"),
}
"""Service commands that apply a setting for real: (turn on, turn off)."""


async def read_setting(shell: Shell, namespace: str, key: str) -> str:
    """``settings get`` of one key, stripped (``null`` when unset)."""
    return (await shell(f"settings get {namespace} {key}")).strip()


async def write_setting(shell: Shell, namespace: str, key: str, value: Any) -> None:
    """``settings put``, then the owning service's command when there is one."""
    text = str(int(value) if isinstance(value, bool) else value)
    await shell(f"settings put {namespace} {key} {shlex.quote(text)}")
    service = _SERVICE.get((namespace, key))
    if service is not None:
        on = text == "2" if key == "ui_night_mode" else text != "0"
        await shell(service[0] if on else service[1])


@dataclass(frozen=True)
class SettingProbe:
    """One judged setting: expected value and how to compare what the phone prints."""

    namespace: str
    key: str
    expected: Any
    compare: str = "equal"  # equal | nonzero | zero | at_least | at_most | close

    def check(self, raw: str) -> Check:
        """A check of the printed value ``raw``."""
        passed = _compare(self.compare, raw, self.expected)
        return Check(
            name=f"{self.namespace}.{self.key}",
            expected=f"{self.compare} {self.expected}"
            if self.compare != "equal"
            else self.expected,
            actual=raw,
            passed=passed,
            evidence=f"settings get {self.namespace} {self.key}",
        )


def _number(raw: str) -> float | None:
    try:
        return float(raw)
    except ValueError:
        return None


def _compare(how: str, raw: str, expected: Any) -> bool:
    if how == "equal":
        value = _number(raw)
        if (
            value is not None
            and isinstance(expected, int | float)
            and not isinstance(expected, bool)
        ):
            return value == float(expected)
        return raw == str(expected)
    value = _number(raw)
    if value is None:
        return False
    return {
        "nonzero": value != 0,
        "zero": value == 0,
        "at_least": value >= float(expected),
        "at_most": value <= float(expected),
        "close": abs(value - float(expected)) <= 0.05,
    }[how]


class _SettingsVariant(DeviceVariant):
    """Posed by writing settings, judged by reading them back."""

    judged_by: ClassVar[Judging] = "probe"
    packages = ("com.android.settings",)

    def start(self, p: Mapping[str, Any]) -> list[tuple[str, str, Any]]:
        """(namespace, key, value) to write before the episode."""
        return []

    def probes(self, p: Mapping[str, Any]) -> list[SettingProbe]:
        """What must hold at the end."""
        raise NotImplementedError

    async def pose(self, shell: Shell, task: TaskInstance) -> Mapping[str, Any] | None:
        for namespace, key, value in self.start(task.params):
            await write_setting(shell, namespace, key, value)
        return None

    async def judge(self, ctx: VariantContext) -> list[Check]:
        return [
            probe.check(await read_setting(ctx.shell, probe.namespace, probe.key))
            for probe in self.probes(ctx.params)
        ]


def _toggle(task: str, namespace: str, key: str, on_value: int = 1, off_value: int = 0) -> type:
    """A variant for a task whose only parameter is ``on``."""

    class Toggle(_SettingsVariant):
        task_id = task

        def start(self, p: Mapping[str, Any]) -> list[tuple[str, str, Any]]:
            return [(namespace, key, off_value if p["on"] else on_value)]

        def probes(self, p: Mapping[str, Any]) -> list[SettingProbe]:
            if key == "zen_mode":
                return [SettingProbe(namespace, key, 0, "nonzero" if p["on"] else "zero")]
            return [SettingProbe(namespace, key, on_value if p["on"] else off_value)]

    Toggle.__name__ = Toggle.__qualname__ = task.split("/")[1].split("-")[0] + "Variant"
    return Toggle


class SetBrightnessExtremeVariant(_SettingsVariant):
    """Brightness to the slider's end; OEM ranges differ (MIUI goes past 255)."""

    task_id = "settings/SetBrightnessExtreme-v1"
    note = "max: screen_brightness >= 255 (MIUI uses wider ranges); min: <= 1"

    def start(self, p: Mapping[str, Any]) -> list[tuple[str, str, Any]]:
        return [
            ("system", "screen_brightness_mode", 0),
            ("system", "screen_brightness", p["start"]),
        ]

    def probes(self, p: Mapping[str, Any]) -> list[SettingProbe]:
        if p["level"] == "max":
            return [SettingProbe("system", "screen_brightness", 255, "at_least")]
        return [SettingProbe("system", "screen_brightness", 1, "at_most")]


class SetScreenTimeoutVariant(_SettingsVariant):
    """Screen timeout to one of the listed durations (MIUI has no 30-minute choice)."""

    task_id = "settings/SetScreenTimeout-v1"

    def start(self, p: Mapping[str, Any]) -> list[tuple[str, str, Any]]:
        other = 60_000 if p["value"] != 60_000 else 30_000
        return [("system", "screen_off_timeout", other)]

    def probes(self, p: Mapping[str, Any]) -> list[SettingProbe]:
        return [SettingProbe("system", "screen_off_timeout", p["value"])]


class SetRingerModeVariant(_SettingsVariant):
    """Ringer mode: ``global.mode_ringer`` 2 sound, 1 vibrate, 0 silent."""

    task_id = "settings/SetRingerMode-v1"
    _MODES: ClassVar[dict[str, int]] = {"sound": 2, "vibrate": 1, "silent": 0}

    def start(self, p: Mapping[str, Any]) -> list[tuple[str, str, Any]]:
        return [("global", "mode_ringer", 2 if p["value"] != "sound" else 1)]

    def probes(self, p: Mapping[str, Any]) -> list[SettingProbe]:
        return [SettingProbe("global", "mode_ringer", self._MODES[p["value"]])]


class SetFontSizeVariant(_SettingsVariant):
    """Font size by name; phones use their own scales, so the probe allows 0.05 around ours."""

    task_id = "settings/SetFontSize-v1"
    note = "font_scale within 0.05 of the simulator's scale; OEM steps may differ"
    _SCALES: ClassVar[dict[str, float]] = {
        "small": 0.85,
        "default": 1.0,
        "large": 1.15,
        "largest": 1.3,
    }

    def start(self, p: Mapping[str, Any]) -> list[tuple[str, str, Any]]:
        return [("system", "font_scale", 1.0 if p["value"] != "default" else 1.15)]

    def probes(self, p: Mapping[str, Any]) -> list[SettingProbe]:
        return [SettingProbe("system", "font_scale", self._SCALES[p["value"]], "close")]


class SetLanguageVariant(_SettingsVariant):
    """System language (``system.system_locales``)."""

    task_id = "settings/SetLanguage-v1"

    def start(self, p: Mapping[str, Any]) -> list[tuple[str, str, Any]]:
        return [("system", "system_locales", "en-US" if p["value"] == "zh-CN" else "zh-CN")]

    def probes(self, p: Mapping[str, Any]) -> list[SettingProbe]:
        return [SettingProbe("system", "system_locales", p["value"])]


class RenameDeviceVariant(_SettingsVariant):
    """Device name (``global.device_name``; some OEMs keep the marketing name elsewhere)."""

    task_id = "settings/RenameDevice-v1"

    def start(self, p: Mapping[str, Any]) -> list[tuple[str, str, Any]]:
        return [("global", "device_name", "Redmi Note 12 Turbo")]

    def probes(self, p: Mapping[str, Any]) -> list[SettingProbe]:
        return [SettingProbe("global", "device_name", p["name"])]


class MuteRingVolumeVariant(_SettingsVariant):
    """Ring volume to zero (``system.volume_ring``, as the virtual phone stores it)."""

    task_id = "settings/MuteRingVolume-v1"
    note = "hardware keeps stream volumes in AudioService; read `dumpsys audio` there"

    def start(self, p: Mapping[str, Any]) -> list[tuple[str, str, Any]]:
        return [("system", "volume_ring", p["start"])]

    def probes(self, p: Mapping[str, Any]) -> list[SettingProbe]:
        return [SettingProbe("system", "volume_ring", 0)]


class SetRadiosAndTimeoutVariant(_SettingsVariant):
    """Wi-Fi, Bluetooth and the screen timeout in one task."""

    task_id = "settings/SetRadiosAndTimeout-v1"

    def start(self, p: Mapping[str, Any]) -> list[tuple[str, str, Any]]:
        return [
            ("global", "wifi_on", 0 if p["wifi"] else 1),
            ("global", "bluetooth_on", 0 if p["bluetooth"] else 1),
            ("system", "screen_off_timeout", 30_000 if p["timeout"] != 30_000 else 60_000),
        ]

    def probes(self, p: Mapping[str, Any]) -> list[SettingProbe]:
        return [
            SettingProbe("global", "wifi_on", int(p["wifi"])),
            SettingProbe("global", "bluetooth_on", int(p["bluetooth"])),
            SettingProbe("system", "screen_off_timeout", p["timeout"]),
        ]


class BedtimeRoutineVariant(_SettingsVariant):
    """Dark theme, Do not disturb, lowest brightness and ring volume, 30-second timeout."""

    task_id = "settings/BedtimeRoutine-v1"

    def start(self, p: Mapping[str, Any]) -> list[tuple[str, str, Any]]:
        return [
            ("secure", "ui_night_mode", 1),
            ("global", "zen_mode", 0),
            ("system", "screen_brightness_mode", 0),
            ("system", "screen_brightness", p["brightness"]),
            ("system", "volume_ring", p["volume"]),
            ("system", "screen_off_timeout", p["timeout"]),
        ]

    def probes(self, p: Mapping[str, Any]) -> list[SettingProbe]:
        return [
            SettingProbe("secure", "ui_night_mode", 2),
            SettingProbe("global", "zen_mode", 0, "nonzero"),
            SettingProbe("system", "screen_brightness", 1, "at_most"),
            SettingProbe("system", "volume_ring", 0),
            SettingProbe("system", "screen_off_timeout", 30_000),
        ]


class RadiosOffThenAirplaneVariant(_SettingsVariant):
    """Radios off, then airplane mode on; the order itself is not visible to a probe."""

    task_id = "settings/RadiosOffThenAirplane-v1"
    note = "judges the end state only: a phone keeps no record of the order"

    def start(self, p: Mapping[str, Any]) -> list[tuple[str, str, Any]]:
        return [
            ("global", "airplane_mode_on", 0),
            ("global", "wifi_on", 1),
            ("global", "bluetooth_on", 1),
        ]

    def probes(self, p: Mapping[str, Any]) -> list[SettingProbe]:
        return [
            SettingProbe("global", "airplane_mode_on", 1),
            SettingProbe("global", "wifi_on", 0),
            SettingProbe("global", "bluetooth_on", 0),
        ]


SETTINGS_VARIANTS: tuple[DeviceVariant, ...] = (
    _toggle("settings/SetWifi-v1", "global", "wifi_on")(),
    _toggle("settings/SetBluetooth-v1", "global", "bluetooth_on")(),
    _toggle("settings/SetAirplaneMode-v1", "global", "airplane_mode_on")(),
    _toggle("settings/SetMobileData-v1", "global", "mobile_data")(),
    _toggle("settings/SetDarkTheme-v1", "secure", "ui_night_mode", on_value=2, off_value=1)(),
    _toggle("settings/SetDoNotDisturb-v1", "global", "zen_mode")(),
    SetBrightnessExtremeVariant(),
    SetScreenTimeoutVariant(),
    SetRingerModeVariant(),
    SetFontSizeVariant(),
    SetLanguageVariant(),
    RenameDeviceVariant(),
    MuteRingVolumeVariant(),
    SetRadiosAndTimeoutVariant(),
    BedtimeRoutineVariant(),
    RadiosOffThenAirplaneVariant(),
)
"""Settings tasks a phone can pose and judge by ``settings get``."""
