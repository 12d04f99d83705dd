"""Task templates over the Settings app (and the shade, which reaches the same settings).

Every judged value is an Android settings key, so the phone's ``settings get`` reads the
same thing in both worlds. Each task here changes one setting and starts with it the
other way (or at another value). Questions about the phone are in
:mod:`sim.apps.settings.query_tasks`, routines that change several settings in
:mod:`sim.apps.settings.routine_tasks`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Annotated, Any, ClassVar, Literal

from bridge.android_state import Namespace
from bridge.plans import FinishStep, Plan, PlanStep, Selector, SwitchStep, TapStep, TypeStep
from bridge.spec.base import Scalar, TruthRef
from bridge.spec.settings import Compare, SettingCheck
from bridge.taskspec import CheckRule, EnsureOp, Requirement
from sim.apps.settings import SettingsApp, model
from sim.apps.settings.plans import SettingsWalk, layout, settings_plan
from sim.skins import plan_skin
from sim.tasks.base import TaskTemplate, WrongPlan, option_before, put
from sim.tasks.params import Boolean, Choice, Integer, TaskParams

__all__ = [
    "RADIO_LISTS",
    "SWITCHES",
    "TEMPLATES",
    "MuteRingVolume",
    "RadioList",
    "RadioOption",
    "RenameDevice",
    "SetAirplaneMode",
    "SetBrightnessExtreme",
    "SetLanguage",
    "SetRingerMode",
    "SetWifi",
    "Switch",
    "after",
    "is_setting",
    "pick_radio",
    "ringer_steps",
    "settings_plan",
    "settings_text",
    "silent_mode_steps",
    "timeout_text",
]

_ON = {"en": {True: "on", False: "off"}, "zh": {True: "打开", False: "关闭"}}


def is_setting(
    namespace: Namespace,
    key: str,
    value: Scalar | TruthRef = None,
    op: Compare = "eq",
    tolerance: float = 0.0,
) -> CheckRule:
    """A goal check on one setting (``op``: eq, ne, zero, nonzero, ge, le)."""
    return SettingCheck(namespace=namespace, key=key, value=value, op=op, tolerance=tolerance)


@cache
def _strings(lang: str, skin: str) -> Mapping[str, str]:
    return SettingsApp().strings(lang, skin)


def settings_text(key: str, lang: str, **values: object) -> str:
    """A Settings UI string as the phone shows it in ``lang``, in the skin being planned for
    (what oracles tap and read by text)."""
    text = _strings(lang, plan_skin())[key]
    return text.format(**values) if values else text


def timeout_text(ms: int, lang: str) -> str:
    """How the screen-timeout list names ``ms`` (``2 minutes``, ``30 秒``)."""
    key, n = model.timeout_label(ms)
    return settings_text(key, lang, n=n)


def pick_radio(label: str) -> TapStep:
    """Tap the radio button named ``label`` (a page title may read the same, e.g. Sound)."""
    return TapStep(on=Selector(resource_id="radio", text=label))


def after(options: tuple[Any, ...], value: Any) -> Any:
    """The option after ``value`` (cyclic): a start that is surely not the target."""
    return options[(options.index(value) + 1) % len(options)]


class OnOff(TaskParams):
    """On or off."""

    on: Annotated[bool, Boolean()]


class RingStart(TaskParams):
    """Where the ring volume starts."""

    start: Annotated[int, Integer(3, model.RING_VOLUME_MAX)]


class BrightnessTarget(TaskParams):
    """Which end of the slider, and where brightness starts."""

    level: Annotated[Literal["max", "min"], Choice(("max", "min"))]
    start: Annotated[int, Integer(40, 215)]


class OptionChoice(TaskParams):
    """One option of a list (each template narrows ``value`` and gives its sampler)."""

    value: Any


class TimeoutChoice(OptionChoice):
    """A screen timeout in ms."""

    value: Annotated[int, Choice(model.TIMEOUT_CHOICES_EVERY_SKIN)]


class RingerChoice(OptionChoice):
    """A ringer mode."""

    value: Annotated[str, Choice(tuple(model.RINGER_MODES))]


class FontChoice(OptionChoice):
    """A font size by name, of those every skin offers with the same meaning."""

    value: Annotated[str, Choice(model.FONT_SIZES_EVERY_SKIN)]


class LocaleChoice(OptionChoice):
    """A system locale."""

    value: Annotated[str, Choice(model.LOCALES)]


class NewName(TaskParams):
    """The phone's new name."""

    name: Annotated[str, Choice(("Alex's Phone", "客厅的手机", "Redmi 工作机", "Travel Phone"))]


class SetWifi(TaskTemplate[OnOff]):
    """Switch Wi-Fi on or off."""

    id = "settings/SetWifi-v1"
    apps = ("settings",)
    level = "L1"
    kind = "operate"
    instructions = {"en": "Turn {state} Wi-Fi.", "zh": "{state} WLAN。"}
    Params = OnOff
    expected_settings = ("global.wifi_on",)

    def text_values(self, p: OnOff, lang: str) -> dict[str, Any]:
        return {"state": _ON[lang][p.on]}

    def ensure(self, p: OnOff) -> list[EnsureOp]:
        return [put("global", "wifi_on", 0 if p.on else 1)]

    def goal(self, p: OnOff) -> list[CheckRule]:
        return [is_setting("global", "wifi_on", int(p.on))]

    def oracle(self, p: OnOff, lang: str) -> Plan:
        return [*settings_plan("wifi_enable"), FinishStep()]


class SetAirplaneMode(TaskTemplate[OnOff]):
    """Switch airplane mode on or off (the radios follow, as on Android)."""

    id = "settings/SetAirplaneMode-v1"
    apps = ("settings",)
    level = "L1"
    kind = "operate"
    instructions = {"en": "Turn airplane mode {state}.", "zh": "{state}飞行模式。"}
    Params = OnOff
    expected_settings = (
        "global.airplane_mode_on",
        "global.wifi_on",
        "global.bluetooth_on",
        "global.*_saved_state",
    )

    def text_values(self, p: OnOff, lang: str) -> dict[str, Any]:
        return {"state": _ON[lang][p.on]}

    def ensure(self, p: OnOff) -> list[EnsureOp]:
        return [put("global", "airplane_mode_on", int(not p.on))]

    def goal(self, p: OnOff) -> list[CheckRule]:
        return [is_setting("global", "airplane_mode_on", int(p.on))]

    def oracle(self, p: OnOff, lang: str) -> Plan:
        return [*settings_plan("toggle_airplane"), FinishStep()]


# ---------------------------------------------------------------- one switch (L1)


class Switch(TaskTemplate[OnOff]):
    """Turn one switch on or off; the task starts it the other way. One instance per switch
    (:data:`SWITCHES`): the switches differ in data only.

    ``values`` are the setting's (off, on) values (``any_on``: on is any non-zero value, as
    ``zen_mode``'s 1, 2, 3); ``switch`` the switch's resource id (the oracle finds its page in
    the skin, :class:`~sim.apps.settings.plans.SettingsWalk`).
    """

    apps = ("settings",)
    level = "L1"
    kind = "operate"
    Params = OnOff

    def __init__(
        self,
        id: str,
        summary: str,
        instructions: dict[str, str],
        key: str,
        switch: str,
        namespace: Namespace = "global",
        values: tuple[int, int] = (0, 1),
        any_on: bool = False,
    ) -> None:
        self.id, self.__doc__, self.instructions = id, summary, instructions
        self.namespace, self.key, self.switch, self.values = namespace, key, switch, values
        self.any_on = any_on
        self.expected_settings = (f"{namespace}.{key}",)

    def text_values(self, p: OnOff, lang: str) -> dict[str, Any]:
        return {"state": _ON[lang][p.on]}

    def ensure(self, p: OnOff) -> list[EnsureOp]:
        return [put(self.namespace, self.key, self.values[not p.on])]

    def goal(self, p: OnOff) -> list[CheckRule]:
        if self.any_on:
            return [is_setting(self.namespace, self.key, op="nonzero" if p.on else "zero")]
        return [is_setting(self.namespace, self.key, self.values[p.on])]

    def oracle(self, p: OnOff, lang: str) -> Plan:
        return [*SettingsWalk().switch(self.switch, p.on).steps, FinishStep()]


SWITCHES: tuple[Switch, ...] = (
    Switch(
        "settings/SetBluetooth-v1",
        "Switch Bluetooth on or off (S2; probe ``settings get global bluetooth_on``).",
        {"en": "Turn Bluetooth {state}.", "zh": "{state}蓝牙。"},
        key="bluetooth_on",
        switch="bluetooth_enable",
    ),
    Switch(
        "settings/SetMobileData-v1",
        "Switch mobile data on or off (S12; probe ``settings get global mobile_data``).",
        {"en": "Turn mobile data {state}.", "zh": "{state}移动数据。"},
        key="mobile_data",
        switch="mobile_data_enable",
    ),
    Switch(
        "settings/SetDarkTheme-v1",
        "Dark theme on or off (S4; probe ``settings get secure ui_night_mode``: 2 on, 1 off).",
        {"en": "Turn dark theme {state}.", "zh": "{state}深色模式。"},
        key="ui_night_mode",
        switch="dark_mode_display_enable",
        namespace="secure",
        values=(model.NIGHT_MODE_OFF, model.NIGHT_MODE_ON),
    ),
    Switch(
        "settings/SetDoNotDisturb-v1",
        "Do not disturb on or off (S7; probe ``settings get global zen_mode``, any non-zero on).",
        {"en": "Turn Do not disturb {state}.", "zh": "{state}勿扰模式。"},
        key="zen_mode",
        switch="zen_mode",
        any_on=True,
    ),
)
"""The one-switch tasks of Settings, as data."""


# ---------------------------------------------------------------- sliders


class MuteRingVolume(TaskTemplate[RingStart]):
    """Ring volume to zero from wherever it is (probe ``settings get system volume_ring``)."""

    id = "settings/MuteRingVolume-v1"
    apps = ("settings",)
    level = "L1"
    kind = "operate"
    instructions = {"en": "Turn the ring volume all the way down.", "zh": "把铃声音量调到最低。"}
    Params = RingStart
    expected_settings = ("system.volume_ring",)

    def ensure(self, p: RingStart) -> list[EnsureOp]:
        return [put("system", "volume_ring", p.start)]

    def goal(self, p: RingStart) -> list[CheckRule]:
        return [is_setting("system", "volume_ring", 0)]

    def oracle(self, p: RingStart, lang: str) -> Plan:
        slider = TapStep(on=Selector(resource_id="ring_volume"), at=(0.0, 0.5))
        return [*settings_plan("sound_settings"), slider, FinishStep()]


class SetBrightnessExtreme(TaskTemplate[BrightnessTarget]):
    """Brightness to its maximum or minimum (S6: extremes only, mid values differ per device)."""

    id = "settings/SetBrightnessExtreme-v1"
    apps = ("settings",)
    level = "L2"
    kind = "operate"
    instructions = {
        "en": "Set the screen brightness to the {level}.",
        "zh": "把屏幕亮度调到{level}。",
    }
    Params = BrightnessTarget
    expected_settings = ("system.screen_brightness",)
    _WORDS: ClassVar[dict[str, dict[str, str]]] = {
        "en": {"max": "maximum", "min": "minimum"},
        "zh": {"max": "最亮", "min": "最暗"},
    }

    def text_values(self, p: BrightnessTarget, lang: str) -> dict[str, Any]:
        return {"level": self._WORDS[lang][p.level]}

    def ensure(self, p: BrightnessTarget) -> list[EnsureOp]:
        return [
            put("system", "screen_brightness_mode", 0),
            put("system", "screen_brightness", p.start),
        ]

    def goal(self, p: BrightnessTarget) -> list[CheckRule]:
        # The slider's end, whatever the ROM's range (MIUI goes past 255): >= 255 or <= 1.
        if p.level == "max":
            return [is_setting("system", "screen_brightness", 255, op="ge")]
        return [is_setting("system", "screen_brightness", 1, op="le")]

    def oracle(self, p: BrightnessTarget, lang: str) -> Plan:
        end = (1.0, 0.5) if p.level == "max" else (0.0, 0.5)
        slider = TapStep(on=Selector(resource_id="brightness"), at=end)
        return [*settings_plan("display_settings"), slider, FinishStep()]


# ---------------------------------------------------------------- one choice of a list (L2)


@dataclass(frozen=True)
class RadioOption:
    """One option of a radio list: its value (the parameter), the setting's value for it,
    and the string key (and count) the phone labels it with."""

    value: Any
    stored: Any
    label: str
    n: int | None = None


class RadioList(TaskTemplate[OptionChoice]):
    """Pick one option of a radio list; the task starts at the option after it. One instance
    per list (:data:`RADIO_LISTS`): the lists differ in data only.

    ``options`` are the list's options in screen order; ``rids`` the rows to tap to see the
    list (each found where the skin puts it);
    ``tolerance`` how far a phone's printed value may sit from ours (font scales);
    ``also_changes`` the settings a skin's way of choosing writes besides (MIUI's
    ``ui_mode_scale``).
    """

    apps = ("settings",)
    level = "L2"
    kind = "operate"

    def __init__(
        self,
        id: str,
        summary: str,
        instructions: dict[str, str],
        params: type[OptionChoice],
        key: str,
        options: tuple[RadioOption, ...],
        rids: tuple[str, ...],
        namespace: Namespace = "system",
        tolerance: float = 0.0,
        also_changes: tuple[str, ...] = (),
    ) -> None:
        self.id, self.__doc__, self.instructions, self.Params = id, summary, instructions, params
        self.namespace, self.key, self.rids, self.tolerance = namespace, key, rids, tolerance
        self.options = {option.value: option for option in options}
        self.expected_settings = (f"{namespace}.{key}", *also_changes)

    def label(self, value: Any, lang: str) -> str:
        """The option's text on screen in ``lang``."""
        option = self.options[value]
        return settings_text(option.label, lang, **({"n": option.n} if option.n else {}))

    def text_values(self, p: OptionChoice, lang: str) -> dict[str, Any]:
        return {"label": self.label(p.value, lang)}

    def ensure(self, p: OptionChoice) -> list[EnsureOp]:
        start = after(tuple(self.options), p.value)
        return [put(self.namespace, self.key, self.options[start].stored)]

    def goal(self, p: OptionChoice) -> list[CheckRule]:
        stored = self.options[p.value].stored
        return [is_setting(self.namespace, self.key, stored, tolerance=self.tolerance)]

    def oracle(self, p: OptionChoice, lang: str) -> Plan:
        return [*settings_plan(*self.rids), pick_radio(self.label(p.value, lang)), FinishStep()]


SILENT_MODE = "silent_mode"
"""The resource id of MIUI's *Silent mode* switch (HyperOS's Sound & vibration)."""

VIBRATE_IN_SILENT = "vibrate_in_silent"
"""The resource id of MIUI's *Vibrate in silent mode* switch."""


def has_silent_mode() -> bool:
    """Whether Settings in the skin being planned for sets the ringer through MIUI's silent
    mode switches rather than a ringer-mode list (read off its pages, as ways are)."""
    return any(SILENT_MODE in rids for rids in layout(plan_skin()).rows.values())


def silent_mode_steps(mode: str) -> list[PlanStep]:
    """Open Settings and set the ringer to ``mode`` (``sound``, ``vibrate`` or ``silent``)
    with MIUI's two switches, each read as the tree shows it (the task starts at another
    mode, and ``vibrate_in_silent`` may hold anything): silent mode off for sound; else
    silent mode off, *Vibrate in silent mode* as the mode wants, and silent mode on, which
    is when MIUI reads that switch (a ringer put straight into 0 or 1 shows silent mode on
    whatever the vibrate switch says)."""
    walk = SettingsWalk().visit(SILENT_MODE)
    walk.then(SwitchStep(on=Selector(resource_id=SILENT_MODE), to=False))
    if mode != "sound":
        walk.then(
            SwitchStep(on=Selector(resource_id=VIBRATE_IN_SILENT), to=mode == "vibrate"),
            SwitchStep(on=Selector(resource_id=SILENT_MODE), to=True),
        )
    return walk.steps


def ringer_steps(mode: str, lang: str) -> list[PlanStep]:
    """Open Settings and set the ringer to ``mode`` as the skin being planned for offers it:
    AOSP's ringer-mode list, or MIUI's switches (:func:`silent_mode_steps`)."""
    if has_silent_mode():
        return silent_mode_steps(mode)
    return [*settings_plan("sound_settings"), pick_radio(settings_text(f"ringer_{mode}", lang))]


class SetRingerMode(RadioList):
    """Ringer mode sound / vibrate / silent (S8; ``global.mode_ringer`` 2 / 1 / 0). HyperOS
    has no ringer-mode list: MIUI's *Silent mode* and *Vibrate in silent mode* switches set
    it (:func:`silent_mode_steps`), which may write ``system.vibrate_in_silent``."""

    def __init__(self) -> None:
        super().__init__(
            "settings/SetRingerMode-v1",
            type(self).__doc__ or "",
            {"en": "Set the ringer mode to {label}.", "zh": "把铃声模式设为“{label}”。"},
            RingerChoice,
            key="mode_ringer",
            options=tuple(RadioOption(k, v, f"ringer_{k}") for k, v in model.RINGER_MODES.items()),
            rids=("sound_settings",),
            namespace="global",
            also_changes=("system.vibrate_in_silent",),
        )

    def oracle(self, p: OptionChoice, lang: str) -> Plan:
        return [*ringer_steps(p.value, lang), FinishStep()]


RADIO_LISTS: tuple[RadioList, ...] = (
    RadioList(
        "settings/SetScreenTimeout-v1",
        "Screen timeout to one of the values every skin lists (S22; "
        "``system.screen_off_timeout`` ms).",
        {
            "en": "Make the screen turn off after {label} of inactivity.",
            "zh": "把自动锁屏时间设为 {label}。",
        },
        TimeoutChoice,
        key="screen_off_timeout",
        options=tuple(
            RadioOption(ms, ms, *model.timeout_label(ms)) for ms in model.TIMEOUT_CHOICES_EVERY_SKIN
        ),
        rids=("screen_timeout",),
    ),
    SetRingerMode(),
    RadioList(
        "settings/SetFontSize-v1",
        "Font size by name, of the sizes every skin offers with the same meaning (S10; "
        "``system.font_scale`` small 0.85 / default 1.0, HyperOS's small 0.86; phones print "
        "scales like 0.8500000238, so within 0.05). HyperOS also writes ``ui_mode_scale``.",
        {"en": "Change the font size to {label}.", "zh": "把字体大小改为“{label}”。"},
        FontChoice,
        key="font_scale",
        options=tuple(
            RadioOption(k, model.FONT_SCALES[k], f"font_{k}") for k in model.FONT_SIZES_EVERY_SKIN
        ),
        rids=("font_size",),
        tolerance=model.FONT_SCALE_TOLERANCE,
        also_changes=("system.ui_mode_scale",),
    ),
)
"""The one-list tasks of Settings, as data."""


class SetLanguage(RadioList):
    """The system language (``system.system_locales``); the UI switches with it, so the
    oracle taps rows by resource id and the languages by their own names, which read the
    same in every language."""

    _NAMES: ClassVar[dict[str, dict[str, str]]] = {
        "en": {"en-US": "English", "zh-CN": "Simplified Chinese"},
        "zh": {"en-US": "英语", "zh-CN": "简体中文"},
    }

    def __init__(self) -> None:
        super().__init__(
            "settings/SetLanguage-v1",
            type(self).__doc__ or "",
            {
                "en": "Change the phone's language to {name}.",
                "zh": "把手机的系统语言切换为{name}。",
            },
            LocaleChoice,
            key="system_locales",
            options=tuple(
                RadioOption(code, code, f"locale_{code.lower().replace('-', '_')}")
                for code in model.LOCALES
            ),
            rids=("language_settings",),
        )

    def text_values(self, p: OptionChoice, lang: str) -> dict[str, Any]:
        return {"name": self._NAMES[lang][p.value]}

    def goal(self, p: OptionChoice) -> list[CheckRule]:
        return [is_setting("system", "system_locales", p.value, op="primary")]

    def requires(self, p: OptionChoice) -> list[Requirement]:
        return [
            Requirement(
                fact="system.system_locales",
                reason="most retail phones switch their UI language only through Settings or at "
                "the next boot, so `settings put` cannot pose this task there",
            )
        ]


# ---------------------------------------------------------------- device name


class RenameDevice(TaskTemplate[NewName]):
    """Rename the phone (S18; ``global.device_name``), Latin or Chinese names."""

    id = "settings/RenameDevice-v1"
    apps = ("settings",)
    level = "L2"
    kind = "operate"
    instructions = {"en": 'Rename this phone to "{name}".', "zh": "把设备名称改为“{name}”。"}
    Params = NewName
    expected_settings = ("global.device_name",)

    def ensure(self, p: NewName) -> list[EnsureOp]:
        return [put("global", "device_name", "Redmi Note 12 Turbo")]

    def goal(self, p: NewName) -> list[CheckRule]:
        return [is_setting("global", "device_name", p.name)]

    def oracle(self, p: NewName, lang: str) -> Plan:
        return [
            *settings_plan("my_device", "device_name"),
            TypeStep(text=p.name, into=Selector(resource_id="edit_text")),
            TapStep(on=Selector(resource_id="button1")),
            FinishStep(),
        ]


TEMPLATES: tuple[TaskTemplate, ...] = (
    SetWifi(),
    SetAirplaneMode(),
    *SWITCHES,
    MuteRingVolume(),
    SetBrightnessExtreme(),
    *RADIO_LISTS,
    SetLanguage(),
    RenameDevice(),
)


# ---- wrong plans, which must not pass (tests/sim/test_tasks_e2e.py runs them):
# The neighbouring control, the wrong value.


def _locale_label(code: str, lang: str) -> str:
    return settings_text("locale_" + code.lower().replace("-", "_"), lang)


WRONG: dict[str, WrongPlan] = {
    "settings/SetWifi-v1": lambda p, lang, w: [
        *settings_plan("bluetooth_settings", "bluetooth_enable"),
        FinishStep(),
    ],
    "settings/SetAirplaneMode-v1": lambda p, lang, w: [
        *settings_plan("wifi_settings", "wifi_enable"),
        FinishStep(),
    ],
    "settings/SetBluetooth-v1": lambda p, lang, w: [
        *settings_plan("wifi_settings", "wifi_enable"),
        FinishStep(),
    ],
    "settings/SetMobileData-v1": lambda p, lang, w: [
        *settings_plan("toggle_airplane"),
        FinishStep(),
    ],
    "settings/SetDarkTheme-v1": lambda p, lang, w: [
        *settings_plan("display_settings", "dark_mode_display_enable", "dark_mode_display_enable"),
        FinishStep(),
    ],
    "settings/SetDoNotDisturb-v1": lambda p, lang, w: [
        *ringer_steps("silent", lang),  # the ringer, not Do not disturb
        FinishStep(),
    ],
    "settings/MuteRingVolume-v1": lambda p, lang, w: [
        *settings_plan("sound_settings"),
        TapStep(on=Selector(resource_id="ring_volume"), at=(1.0, 0.5)),
        FinishStep(),
    ],
    "settings/SetBrightnessExtreme-v1": lambda p, lang, w: [
        *settings_plan("display_settings"),
        TapStep(
            on=Selector(resource_id="brightness"),
            at=(0.0, 0.5) if p["level"] == "max" else (1.0, 0.5),
        ),
        FinishStep(),
    ],
    "settings/SetScreenTimeout-v1": lambda p, lang, w: [
        *settings_plan("display_settings", "screen_timeout"),
        pick_radio(timeout_text(option_before(model.TIMEOUT_CHOICES_EVERY_SKIN, p["value"]), lang)),
        FinishStep(),
    ],
    "settings/SetRingerMode-v1": lambda p, lang, w: [
        *ringer_steps(option_before(tuple(model.RINGER_MODES), p["value"]), lang),
        FinishStep(),
    ],
    "settings/SetFontSize-v1": lambda p, lang, w: [
        *settings_plan("display_settings", "font_size"),
        pick_radio(
            settings_text(f"font_{option_before(model.FONT_SIZES_EVERY_SKIN, p['value'])}", lang)
        ),
        FinishStep(),
    ],
    "settings/SetLanguage-v1": lambda p, lang, w: [
        *settings_plan("language_settings"),
        pick_radio(_locale_label(option_before(model.LOCALES, p["value"]), lang)),
        FinishStep(),
    ],
    "settings/RenameDevice-v1": lambda p, lang, w: [
        *settings_plan("my_device", "device_name"),
        TypeStep(text=p["name"], into=Selector(resource_id="edit_text")),
        TapStep(on=Selector(resource_id="button2")),  # Cancel
        FinishStep(),
    ],
}
