"""Device variants of the Settings questions, the longest-timeout hybrid and the Contacts
hybrids.

* AOSP's output formats (``cmd wifi status``, ``dumpsys bluetooth_manager``) and screen-timeout
  choosers (AOSP radio rows, MIUI checked lists) parsed from literal text;
* pose and judge over the virtual phone's shell run in memory (no browser, no adb), each with
  a passing and a failing outcome, and over tiny scripted shells for phones that cannot
  answer;
* every variant solved end to end by its task's scripted oracle through ``AndroidEnv`` on the
  virtual phone (``device_virtual``).
"""

from __future__ import annotations

import asyncio
import shlex
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import pytest

from bridge.runner import run_episode
from bridge.schema import TaskInstance, UINode
from bridge.uitree import to_xml
from device.adb import AdbTarget
from device.env import AndroidEnv, AndroidEnvConfig
from device.errors import DeviceError
from device.session import ReconnectPolicy
from device.tasks.answer_checks import answer_matches
from device.tasks.base import DeviceVariant, VariantContext
from device.tasks.contacts_probe import PHONE, contacts_named, data_rows, ensure_contact
from device.tasks.contacts_probe import set_starred as star
from device.tasks.phone_facts import (
    UNKNOWN_SSID,
    WifiStatus,
    parse_bonded_devices,
    parse_wifi_status,
)
from device.tasks.registry import default_variants
from device.tasks.settings_query_variants import (
    CountPairedDevicesVariant,
    QueryConnectedWifiVariant,
)
from device.tasks.xpath_rules import duration_ms, longest_offered, offered_durations
from device.virtual.attach import AttachedVirtualPhone, attach_virtual_phone
from device.virtual.phone import VirtualPhone
from device.virtual.shell import Shell as PhoneShell
from policies.scripted import PlanPolicy
from sim.simulator import Simulator, default_apps
from sim.tasks.registry import default_registry

NEW = (
    "settings/QueryDeviceModel-v1",
    "settings/QueryAndroidVersion-v1",
    "settings/QueryConnectedWifi-v1",
    "settings/CountPairedDevices-v1",
    "settings/SetLongestTimeout-v1",
    "contacts/CopyNumberToNewContact-v1",
    "contacts/StarSurname-v1",
)
KIND = {"probe": "state", "xpath": "ui", "answer": "answer"}
WORLD = {app.id: app.world for app in default_apps()}


def task(task_id: str, seed: int = 0, lang: str = "en") -> TaskInstance:
    return default_registry().instantiate(task_id, seed, WORLD, lang)


# --------------------------------------------------------------------------- formats

WIFI_CONNECTED = """Wifi is enabled
Wifi scanning is always available
==== Primary ClientModeManager instance ====
Wifi is connected to "Café, 5G"
WifiInfo: SSID: "Café, 5G", BSSID: 02:00:00:00:00:00, MAC: 9a:3c:11:22:33:44, IP: /10.0.0.7, \
Security type: 2, Supplicant state: COMPLETED, Wi-Fi standard: 11ac, RSSI: -61, Link speed: \
390Mbps
successfulTxPackets: 1841
"""
WIFI_ROOT = """Wifi is enabled
Wifi scanning is only available when wifi is enabled
==== ClientModeManager instance: ConcreteClientModeManager{id=12 iface=wlan0 role=\
ROLE_CLIENT_PRIMARY} ====
Wifi is connected to "HomeNet"
WifiInfo: SSID: "HomeNet", BSSID: 74:da:88:01:02:03, Supplicant state: COMPLETED
NetworkCapabilities: [ Transports: WIFI Capabilities: INTERNET&NOT_RESTRICTED ]
"""
WIFI_NOT_CONNECTED = (
    "Wifi is enabled\nWifi scanning is always available\n"
    "==== Primary ClientModeManager instance ====\nWifi is not connected\n"
)
WIFI_DISABLED = "Wifi is disabled\r\nWifi scanning is always available\r\n"
WIFI_HIDDEN = WIFI_NOT_CONNECTED.replace("not connected", f"connected to {UNKNOWN_SSID}")
WIFI_HEX = WIFI_NOT_CONNECTED.replace("not connected", "connected to e4bda0e5a5bd")
WIFI_ANDROID_10 = "Unknown command: status\nWi-Fi (wifi) commands:\n  help\n"


@pytest.mark.parametrize(
    ("output", "enabled", "ssid"),
    [
        (WIFI_CONNECTED, True, "Café, 5G"),
        (WIFI_ROOT, True, "HomeNet"),
        (WIFI_NOT_CONNECTED, True, None),
        (WIFI_DISABLED, False, None),
        (WIFI_HIDDEN, True, UNKNOWN_SSID),
        (WIFI_HEX, True, "e4bda0e5a5bd"),
    ],
)
def test_cmd_wifi_status(output: str, enabled: bool, ssid: str | None) -> None:
    status = parse_wifi_status(output)
    assert status is not None and (status.enabled, status.ssid) == (enabled, ssid)


def test_a_phone_without_cmd_wifi_status_gives_no_status() -> None:
    assert parse_wifi_status(WIFI_ANDROID_10) is None
    assert parse_wifi_status("cmd: Can't find service: wifi\n") is None


BT_STATUS = """Bluetooth Status
  enabled: true
  state: ON
  address: 22:22:96:10:A1:B2
  name: Pixel 7
  time since enabled: 00:12:31.502

Enable log:
  04-02 09:15:12.000 \tEnabled by com.android.systemui

Bluetooth crashed 0 times

0 BLE appsregistered

"""
BT_ANDROID_14 = (
    BT_STATUS
    + """AdapterProperties
  Name: Pixel 7
  Address: 22:22:96:10:A1:B2
  BluetoothClass: 5a020c
  ScanMode: SCAN_MODE_CONNECTABLE
  ConnectionState: STATE_DISCONNECTED
  State: ON
  MaxConnectedAudioDevices: 5
  A2dpOffloadEnabled: true
  Discovering: false
  DiscoveryEndMs: 0
  Bonded devices:
    F4:4E:FD:12:34:56 [BR/EDR] WH-1000XM4
    C0:28:8D:AB:CD:EF [ DUAL ] Pixel Buds Pro
    5D:11:22:33:44:55 => D8:3A:DD:00:11:22 [  LE  ] Galaxy Watch5 (7A2B)

mSnoopLogSettingAtEnable = empty
"""
)
BT_ANDROID_9 = (
    BT_STATUS.split("\nEnable log")[0]
    + """
Bonded devices:
  00:11:22:33:44:55 [BR/EDR] Car Kit
  66:77:88:99:AA:BB [ DUAL ] Mi Band 4
Profile: A2dpService
  mActiveDevice: null
"""
)
BT_ANDROID_16 = """AdapterProperties
  Name: Pixel 9
  Bonded devices:
    XX:XX:XX:XX:34:56 [BR/EDR][ 0x240404 ] \n    XX:XX:XX:XX:CD:EF [ DUAL ][ 0x240418 ] \n
"""
BT_OFF = BT_STATUS.replace("enabled: true", "enabled: false").replace("state: ON", "state: OFF")
BT_OFF += "Bluetooth Service not connected\n"


@pytest.mark.parametrize(
    ("output", "devices"),
    [
        (BT_ANDROID_14, ["WH-1000XM4", "Pixel Buds Pro", "Galaxy Watch5 (7A2B)"]),
        (BT_ANDROID_9, ["Car Kit", "Mi Band 4"]),
        (BT_ANDROID_16, ["XX:XX:XX:XX:34:56", "XX:XX:XX:XX:CD:EF"]),
        (BT_ANDROID_14.split("    F4")[0] + "\nmSnoopLogSettingAtEnable = empty\n", []),
        (BT_OFF, None),
    ],
)
def test_dumpsys_bluetooth_manager_bonded_devices(output: str, devices: list[str] | None) -> None:
    assert parse_bonded_devices(output) == devices


@pytest.mark.parametrize(
    ("label", "ms"),
    [
        ("15 seconds", 15_000), ("1 minute", 60_000), ("30 minutes", 1_800_000),
        ("After 10 minutes of inactivity", 600_000), ("1 hour", 3_600_000),
        ("30 秒", 30_000), ("10 分钟", 600_000), ("1 小时", 3_600_000), ("2 Min", 120_000),
        ("Never", None), ("永不", None), ("Adaptive brightness", None), ("5 GHz", None),
    ],
)  # fmt: skip
def test_duration_labels(label: str, ms: int | None) -> None:
    assert duration_ms(label) == ms


def _aosp_row(index: int, label: str, checked: bool) -> str:
    top = 300 + 180 * index
    return f"""
      <node index="{index}" text="" resource-id="" class="android.widget.LinearLayout" \
package="com.android.settings" content-desc="" checkable="false" checked="false" \
clickable="true" enabled="true" focusable="true" focused="false" scrollable="false" \
long-clickable="false" password="false" selected="false" bounds="[0,{top}][1080,{top + 180}]">
        <node index="0" text="" resource-id="android:id/widget_frame" \
class="android.widget.LinearLayout" package="com.android.settings" content-desc="" \
checkable="false" checked="false" clickable="false" enabled="true" focusable="false" \
focused="false" scrollable="false" long-clickable="false" password="false" selected="false" \
bounds="[42,{top}][150,{top + 180}]">
          <node index="0" text="" resource-id="android:id/checkbox" \
class="android.widget.RadioButton" package="com.android.settings" content-desc="" \
checkable="true" checked="{str(checked).lower()}" clickable="false" enabled="true" \
focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" \
selected="false" bounds="[63,{top + 57}][129,{top + 123}]" />
        </node>
        <node index="1" text="{label}" resource-id="android:id/title" \
class="android.widget.TextView" package="com.android.settings" content-desc="" \
checkable="false" checked="false" clickable="false" enabled="true" focusable="false" \
focused="false" scrollable="false" long-clickable="false" password="false" selected="false" \
bounds="[192,{top + 60}][1038,{top + 120}]" />
      </node>"""


def aosp_chooser(labels: tuple[str, ...], checked: int = 0) -> str:
    """A Pixel's Screen timeout page as ``uiautomator dump`` writes it (title beside a
    text-less RadioButton), with the dump's trailer."""
    rows = "".join(_aosp_row(i, label, i == checked) for i, label in enumerate(labels))
    return f"""<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0">
  <node index="0" text="" resource-id="" class="android.widget.FrameLayout" \
package="com.android.settings" content-desc="" checkable="false" checked="false" \
clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" \
long-clickable="false" password="false" selected="false" bounds="[0,0][1080,2400]">
    <node index="0" text="" resource-id="com.android.settings:id/recycler_view" \
class="androidx.recyclerview.widget.RecyclerView" package="com.android.settings" \
content-desc="" checkable="false" checked="false" clickable="false" enabled="true" \
focusable="true" focused="false" scrollable="true" long-clickable="false" password="false" \
selected="false" bounds="[0,300][1080,2400]">{rows}
    </node>
  </node>
</hierarchy>
UI hierchary dumped to: /dev/tty"""


AOSP = ("15 seconds", "30 seconds", "1 minute", "2 minutes", "5 minutes", "10 minutes",
        "30 minutes")  # fmt: skip
MIUI_ZH = ("15 秒", "30 秒", "1 分钟", "2 分钟", "5 分钟", "10 分钟", "永不")


def miui_chooser(labels: tuple[str, ...] = MIUI_ZH) -> str:
    """A MIUI-like chooser: a list of CheckedTextViews carrying their labels, beside a
    switch (not an option)."""
    nodes = [
        UINode(id=0, class_name="android.widget.FrameLayout", bounds_px=(0, 0, 1080, 2400)),
        UINode(id=1, parent=0, class_name="android.widget.Switch", checkable=True,
               text="自适应", bounds_px=(900, 200, 1032, 280)),
    ]  # fmt: skip
    nodes += [
        UINode(id=i + 2, parent=0, index=i + 1, class_name="android.widget.CheckedTextView",
               text=label, checkable=True, checked=i == 0,
               bounds_px=(0, 300 + 150 * i, 1080, 450 + 150 * i))
        for i, label in enumerate(labels)
    ]  # fmt: skip
    return to_xml(nodes)


def not_a_chooser() -> str:
    """The Display page: a switch, and the timeout as a row's summary (no options)."""
    nodes = [
        UINode(id=0, class_name="android.widget.FrameLayout", bounds_px=(0, 0, 1080, 2400)),
        UINode(id=1, parent=0, class_name="android.widget.Switch", checkable=True,
               text="Dark theme", bounds_px=(900, 200, 1032, 280)),
        UINode(id=2, parent=0, index=1, class_name="android.widget.TextView",
               text="Screen timeout", bounds_px=(40, 300, 1040, 360)),
        UINode(id=3, parent=0, index=2, class_name="android.widget.TextView",
               text="After 30 minutes of inactivity", bounds_px=(40, 360, 1040, 420)),
    ]  # fmt: skip
    return to_xml(nodes)


def test_the_xpath_rules_read_the_options_a_chooser_offers() -> None:
    assert offered_durations(aosp_chooser(AOSP)) == {duration_ms(label): label for label in AOSP}
    miui = offered_durations(miui_chooser())
    assert sorted(miui.values(), key=lambda label: duration_ms(label) or 0) == list(MIUI_ZH[:-1])
    assert offered_durations(not_a_chooser()) == {}
    assert offered_durations(aosp_chooser(AOSP[:2])) == {}  # two options: not a chooser
    assert offered_durations("<hierarchy rotation='0'></hierarchy>") == {}  # idle-timeout dump


def test_the_longest_option_is_taken_over_every_chooser_seen() -> None:
    trees = [not_a_chooser(), aosp_chooser(AOSP[:5]), not_a_chooser(), aosp_chooser(AOSP[2:])]
    offered = longest_offered(trees)
    assert offered is not None and offered.ms == duration_ms(AOSP[-1]) and offered.steps == (1, 3)
    assert longest_offered([not_a_chooser()]) is None and longest_offered([]) is None


@pytest.mark.parametrize(
    ("kind", "given", "truth", "passed"),
    [
        ("text", "redmi note 12-TURBO", "Redmi Note 12 Turbo", True),
        ("text", "Redmi Note 12", "Redmi Note 12 Turbo", False),
        ("text", "", "", False),
        ("number", "3", 3, True), ("number", 30.0, 30, True), ("number", True, 1, False),
        ("number", "three", 3, False),
        ("version", 14, "14", True), ("version", 14.0, "14", True),
        ("version", "8.1", "8.1.0", True), ("version", 8, "8.1.0", False),
        ("version", "Android 14", "14", False),
        ("phone", "86 138-0013-8000", "+86 138 0013 8000", True), ("phone", None, "1", False),
    ],
)  # fmt: skip
def test_answer_matching(kind: Any, given: Any, truth: Any, passed: bool) -> None:
    assert answer_matches(kind, given, truth) is passed


# --------------------------------------------------------------------------- in memory


class _Captured:
    def __init__(self) -> None:
        self.data = bytearray()

    async def stdout(self, data: bytes) -> None:
        self.data += data

    async def stderr(self, data: bytes) -> None:
        self.data += data


class VirtualShell:
    """A variant's ``Shell`` over the virtual phone's shell, in memory (no adb, no browser)."""

    def __init__(self, phone: VirtualPhone) -> None:
        self.phone = phone
        self.commands: list[str] = []

    async def __call__(self, command: str) -> str:
        self.commands.append(command)
        io = _Captured()
        await PhoneShell(self.phone).run(command, io)
        return io.data.decode()


@pytest.fixture
def shell() -> VirtualShell:
    sim = Simulator()
    return VirtualShell(VirtualPhone(sim, sim.create_instance(seed=0), serial="VP00000000"))


class ScriptedShell:
    """Answers commands by their first words from a table; settings get/put kept in memory."""

    def __init__(self, replies: Mapping[str, str | Callable[[], str]]) -> None:
        self.replies = replies
        self.settings: dict[tuple[str, str], str] = {}
        self.commands: list[str] = []

    async def __call__(self, command: str) -> str:
        self.commands.append(command)
        words = shlex.split(command)
        if words[:2] == ["settings", "put"]:
            self.settings[(words[2], words[3])] = words[4]
            return ""
        if words[:2] == ["settings", "get"]:
            return self.settings.get((words[2], words[3]), "null") + "\n"
        reply = next((r for key, r in self.replies.items() if command.startswith(key)), "")
        return reply() if callable(reply) else reply


async def judged(
    variant: DeviceVariant, shell: Any, instance: TaskInstance, **context: Any
) -> tuple[bool, list[Any]]:
    baseline = context.pop("baseline")
    verdict = await variant.verdict(VariantContext(shell, instance, baseline=baseline, **context))
    assert verdict.deterministic and verdict.kind == KIND[variant.judged_by]
    return verdict.success, verdict.checks


VARIANTS = default_variants()


@pytest.mark.asyncio
async def test_the_virtual_phone_reports_what_its_settings_app_shows(shell: VirtualShell) -> None:
    """getprop, cmd wifi status and dumpsys bluetooth_manager agree with Settings' pages."""
    settings = WORLD["settings"]
    assert (await shell("getprop ro.product.marketname")).strip() == settings["about"]["model"]
    release = (await shell("getprop ro.build.version.release")).strip()
    assert release == settings["about"]["android_version"]
    connected = WifiStatus(enabled=True, ssid=settings["wifi"]["connected"])
    assert parse_wifi_status(await shell("cmd wifi status")) == connected
    joined = settings["wifi"]["networks"][-1]["ssid"]  # tapped in Settings: the overlay's
    shell.phone.instance.state.apps.setdefault("settings", {})["wifi_ssid"] = joined
    assert parse_wifi_status(await shell("cmd wifi status")) == WifiStatus(True, joined)
    await shell("cmd wifi set-wifi-enabled disabled")
    assert parse_wifi_status(await shell("cmd wifi status")) == WifiStatus(False, None)
    assert (await shell("settings get global bluetooth_on")).strip() == "0"
    assert parse_bonded_devices(await shell("dumpsys bluetooth_manager")) is None
    await shell("cmd bluetooth_manager enable")
    names = [device["name"] for device in settings["bluetooth"]["paired"]]
    assert parse_bonded_devices(await shell("dumpsys bluetooth_manager")) == names


@pytest.mark.asyncio
@pytest.mark.parametrize("task_id", NEW)
async def test_every_new_variant_poses_an_unmet_goal(shell: VirtualShell, task_id: str) -> None:
    variant = VARIANTS[task_id]
    for seed, lang in ((0, "en"), (1, "zh")):
        instance = task(task_id, seed, lang)
        baseline = await variant.setup(shell, instance) or {}
        success, _ = await judged(variant, shell, instance, baseline=baseline)
        assert not success, f"{task_id} is met right after setup"


@pytest.mark.asyncio
async def test_model_and_version_answers(shell: VirtualShell) -> None:
    about = WORLD["settings"]["about"]
    model_variant = VARIANTS["settings/QueryDeviceModel-v1"]
    instance = task("settings/QueryDeviceModel-v1")
    base = await model_variant.setup(shell, instance) or {}
    assert about["model"] in base["names"] and base["model"] == shell.phone.model
    for answer, passed in ((about["model"], True), (shell.phone.model.lower(), True),
                           ("Redmi Note 12 Pro", False)):  # fmt: skip
        ok, _ = await judged(
            model_variant, shell, instance, baseline=base, answer={"model": answer}
        )
        assert ok is passed, answer
    version_variant = VARIANTS["settings/QueryAndroidVersion-v1"]
    instance = task("settings/QueryAndroidVersion-v1")
    base = await version_variant.setup(shell, instance) or {}
    assert base["truth"] == about["android_version"]  # what the About page shows
    release = int(about["android_version"])
    for answer, passed in ((release, True), (f"{release}.0", True), (release - 1, False)):
        ok, _ = await judged(
            version_variant, shell, instance, baseline=base, answer={"version": answer}
        )
        assert ok is passed, answer


@pytest.mark.asyncio
async def test_the_wifi_network_is_read_with_wifi_turned_on(shell: VirtualShell) -> None:
    variant = VARIANTS["settings/QueryConnectedWifi-v1"]
    instance = task("settings/QueryConnectedWifi-v1")
    await shell("svc wifi disable")
    base = await variant.setup(shell, instance) or {}
    assert base["truth"] == WORLD["settings"]["wifi"]["connected"]
    assert (await shell("settings get global wifi_on")).strip() == "1"
    others = [
        n["ssid"] for n in WORLD["settings"]["wifi"]["networks"] if n["ssid"] != base["truth"]
    ]
    for answer, passed in ((base["truth"], True), (others[0], False)):
        ok, checks = await judged(
            variant, shell, instance, baseline=base, answer={"network": answer}
        )
        assert ok is passed and checks[0].expected == base["truth"]


class _QuickWifi(QueryConnectedWifiVariant):
    wait_s = 0.05


class _QuickBluetooth(CountPairedDevicesVariant):
    wait_s = 0.05


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("status", "message"),
    [
        (WIFI_NOT_CONNECTED, "joined no network"),
        (WIFI_HIDDEN, "turn on Location"),
        (WIFI_ANDROID_10, "Android 11"),
    ],
)
async def test_a_phone_that_cannot_tell_its_network_fails_setup(status: str, message: str) -> None:
    shell = ScriptedShell({"cmd wifi status": status})
    with pytest.raises(DeviceError, match=message):
        await _QuickWifi().setup(shell, task("settings/QueryConnectedWifi-v1"))


@pytest.mark.asyncio
async def test_paired_devices_are_read_with_bluetooth_on_then_it_is_off(
    shell: VirtualShell,
) -> None:
    variant = VARIANTS["settings/CountPairedDevices-v1"]
    instance = task("settings/CountPairedDevices-v1")
    base = await variant.setup(shell, instance) or {}
    paired = [device["name"] for device in WORLD["settings"]["bluetooth"]["paired"]]
    assert base["devices"] == paired and base["truth"] == len(paired)
    assert (await shell("settings get global bluetooth_on")).strip() == "0"
    assert any(c.startswith("svc bluetooth enable") for c in shell.commands)
    for answer, passed in ((len(paired), True), (0, False)):
        ok, _ = await judged(variant, shell, instance, baseline=base, answer={"count": answer})
        assert ok is passed


@pytest.mark.asyncio
async def test_bluetooth_that_comes_up_late_is_waited_for_and_a_list_never_shown_fails() -> None:
    dumps = iter([BT_OFF, BT_OFF, BT_ANDROID_14])
    shell = ScriptedShell({"dumpsys bluetooth_manager": lambda: next(dumps, BT_ANDROID_14)})
    variant = VARIANTS["settings/CountPairedDevices-v1"]
    base = await variant.setup(shell, task("settings/CountPairedDevices-v1")) or {}
    assert base["truth"] == len(parse_bonded_devices(BT_ANDROID_14) or [])
    with pytest.raises(DeviceError, match="Bonded devices"):
        await _QuickBluetooth().setup(ScriptedShell({"dumpsys bluetooth_manager": BT_OFF}),
                                      task("settings/CountPairedDevices-v1"))  # fmt: skip


@pytest.mark.asyncio
async def test_the_longest_timeout_is_judged_from_the_screens(shell: VirtualShell) -> None:
    variant = VARIANTS["settings/SetLongestTimeout-v1"]
    instance = task("settings/SetLongestTimeout-v1")
    base = await variant.setup(shell, instance) or {}
    trees = [not_a_chooser(), aosp_chooser(AOSP)]
    longest = duration_ms(AOSP[-1]) or 0
    cases = [(longest, longest // 60_000, True), (duration_ms(AOSP[-2]), longest // 60_000, False),
             (longest, 10, False)]  # fmt: skip
    for timeout, minutes, passed in cases:
        await shell(f"settings put system screen_off_timeout {timeout}")
        ok, checks = await judged(
            variant, shell, instance, baseline=base, trees=trees, answer={"minutes": minutes}
        )
        assert ok is passed, checks
    # MIUI offers 10 minutes at most: that is the longest there, "Never" is no duration.
    await shell("settings put system screen_off_timeout 600000")
    ok, _ = await judged(variant, shell, instance, baseline=base, trees=[miui_chooser()],
                         answer={"minutes": 10})  # fmt: skip
    assert ok
    ok, checks = await judged(variant, shell, instance, baseline=base, trees=[not_a_chooser()],
                              answer={"minutes": 10})  # fmt: skip
    assert not ok and not any(c.passed for c in checks)
    assert "showed a screen-timeout chooser" in (checks[0].evidence or "")


@pytest.mark.asyncio
async def test_copy_number_to_a_new_contact(shell: VirtualShell) -> None:
    variant = VARIANTS["contacts/CopyNumberToNewContact-v1"]
    instance = task("contacts/CopyNumberToNewContact-v1")
    p = instance.params
    await ensure_contact(shell, p["new"], phone="+86 100 0000 0000")  # left by an earlier run
    base = await variant.setup(shell, instance) or {}
    assert base["numbers"] == [p["number"]] and not await contacts_named(shell, p["new"])
    success, _ = await judged(
        variant, shell, instance, baseline=base, answer={"number": p["number"]}
    )
    assert not success  # answered, but nothing created
    await ensure_contact(shell, p["new"], phone=p["number"])
    assert [r["data1"] for r in await data_rows(shell, p["new"], PHONE)] == [p["number"]]
    for answer, passed in ((p["number"], True), ("+86 100 0000 0000", False)):
        ok, _ = await judged(variant, shell, instance, baseline=base, answer={"number": answer})
        assert ok is passed


@pytest.mark.asyncio
async def test_star_everyone_with_a_surname(shell: VirtualShell) -> None:
    variant = VARIANTS["contacts/StarSurname-v1"]
    instance = task("contacts/StarSurname-v1")
    p = instance.params
    await star(shell, p["names"][0], True)
    base = await variant.setup(shell, instance) or {}
    assert sorted(base["people"].values()) == sorted(p["names"])
    for name in p["names"][:-1]:
        await star(shell, name, True)
    ok, checks = await judged(
        variant, shell, instance, baseline=base, answer={"count": len(p["names"])}
    )
    assert not ok and [c.passed for c in checks].count(False) == 1
    await star(shell, p["names"][-1], True)
    for count, passed in ((len(p["names"]), True), (len(p["names"]) + 1, False)):
        ok, _ = await judged(variant, shell, instance, baseline=base, answer={"count": count})
        assert ok is passed


# --------------------------------------------------------------------------- virtual phone


@pytest.fixture(scope="module")
def attached(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AttachedVirtualPhone]:
    home = tmp_path_factory.mktemp("android-home")
    with attach_virtual_phone(seed=0, android_user_home=home) as phone:
        yield phone


@pytest.mark.device_virtual
@pytest.mark.asyncio
@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("task_id", NEW)
async def test_the_oracle_solves_each_new_variant_on_the_virtual_phone(
    attached: AttachedVirtualPhone, task_id: str, lang: str
) -> None:
    instance = task(task_id, 0, lang)
    oracle = default_registry().get(task_id).oracle(instance.params, lang)
    config = AndroidEnvConfig(
        target=AdbTarget(port=attached.adb_port, serial=attached.serial),
        reconnect=ReconnectPolicy(attempts=2, backoff_s=0.05, wait_s=3.0),
        step_timeout_s=30.0,
    )
    async with AndroidEnv(config, VARIANTS) as env:
        record = await asyncio.wait_for(
            run_episode(PlanPolicy(oracle, name="scripted"), env, instance, episode_id=task_id),
            180,
        )
    verdict = record.verdict
    assert verdict is not None, record.error
    failed = [check for check in verdict.checks if not check.passed]
    assert record.outcome == "success", (record.termination, failed, record.error)
    assert verdict.deterministic and verdict.kind == KIND[VARIANTS[task_id].judged_by]
