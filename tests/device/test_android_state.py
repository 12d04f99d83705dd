"""``AdbAndroidState``: the phone's ``AndroidState`` over ``adb shell``.

* the parsers of :mod:`device.shell_output` on literal AOSP output (``content query`` rows
  whose values hold ``, `` and ``=``, ``NULL``, provider failures, ``settings list``,
  ``cmd wifi status``, ``dumpsys bluetooth_manager`` down to Android 16's anonymised
  addresses, ``dumpsys window``);
* the command lines it sends and how it reads their answers, over a scripted shell (quoting,
  binding types, service commands, polling a radio, restoring Bluetooth);
* reads and writes on the virtual phone's shell run in memory (no adb, no browser).
"""

from __future__ import annotations

import inspect
import re
import shlex
from collections.abc import Callable, Mapping

import pytest

from bridge.android_state import AndroidState
from bridge.errors import StateUnavailable
from device.android_state import SERVICE_COMMANDS, AdbAndroidState, bind_argument
from device.errors import DeviceError
from device.shell_output import (
    UNKNOWN_SSID,
    ContentFailure,
    WifiStatus,
    parse_bonded_devices,
    parse_content_failure,
    parse_focused_package,
    parse_java_exception,
    parse_resumed_package,
    parse_rows,
    parse_settings_list,
    parse_wifi_status,
)
from device.virtual.commands_radios import connected_ssid, paired
from device.virtual.phone import VirtualPhone
from sim.simulator import Simulator
from tests.device.parity import InMemoryShell

DATA = "content://com.android.contacts/data"
RAW = "content://com.android.contacts/raw_contacts"

# --------------------------------------------------------------------------- content query

ROWS = (
    "Row: 0 _id=7, display_name=Chen, Alice, note=a=b, c=d, starred=1\r\n"
    "Row: 1 _id=8, display_name=NULL, note=, starred=0\n"
)


def test_rows_keep_values_with_commas_and_equals_whole() -> None:
    assert parse_rows(ROWS, ["_id", "display_name", "note", "starred"]) == [
        {"_id": "7", "display_name": "Chen, Alice", "note": "a=b, c=d", "starred": "1"},
        {"_id": "8", "display_name": None, "note": "", "starred": "0"},
    ]


def test_no_result_found_is_no_rows() -> None:
    assert parse_rows("No result found.\n", ["_id"]) == []


def test_a_row_printing_other_columns_lacks_the_projected_ones() -> None:
    (row,) = parse_rows("Row: 0 _id=1, name=x\n", ["_id", "display_name"])
    assert "display_name" not in row


UNKNOWN_PROVIDER = """Error while accessing provider:com.example.notes
java.lang.IllegalStateException: Could not find provider: com.example.notes
\tat com.android.commands.content.Content$Command.execute(Content.java:521)
\tat com.android.commands.content.Content.main(Content.java:735)
\tat com.android.internal.os.RuntimeInit.nativeFinishInit(Native Method)
"""
PERMISSION = """Error while accessing provider:call_log
java.lang.SecurityException: Permission Denial: opening provider \
com.android.providers.contacts.CallLogProvider requires android.permission.READ_CALL_LOG
\tat android.os.Parcel.createExceptionOrNull(Parcel.java:3011)
"""
SQL = """Error while accessing provider:com.android.contacts
android.database.sqlite.SQLiteException: no such column: nosuch (code 1 SQLITE_ERROR): , \
while compiling: SELECT nosuch FROM view_contacts
\tat android.database.DatabaseUtils.readExceptionFromParcel(DatabaseUtils.java:181)
"""
USAGE = """usage: adb shell content [subcommand] [options]

[ERROR] Bindings not specified. Did you specify --bind argument(s)?
"""


@pytest.mark.parametrize(
    ("output", "failure"),
    [
        (
            UNKNOWN_PROVIDER,
            ContentFailure(
                "provider",
                "java.lang.IllegalStateException: Could not find provider: com.example.notes",
            ),
        ),
        (PERMISSION, ContentFailure("provider", PERMISSION.splitlines()[1])),
        (SQL, ContentFailure("sql", SQL.splitlines()[1])),
        (
            USAGE,
            ContentFailure("usage", "Bindings not specified. Did you specify --bind argument(s)?"),
        ),
        (
            "/system/bin/sh: content: not found\n",
            ContentFailure("provider", "/system/bin/sh: content: not found"),
        ),
        (
            "Error while accessing provider:x\n",
            ContentFailure("provider", "Error while accessing provider:x"),
        ),
        (ROWS, None),
        ("No result found.\n", None),
        ("", None),
    ],
)
def test_content_failures(output: str, failure: ContentFailure | None) -> None:
    assert parse_content_failure(output) == failure


def test_a_row_mentioning_an_exception_is_no_failure() -> None:
    row = "Row: 0 note=java.lang.IllegalStateException: not really\n"
    assert parse_content_failure(row) is None
    assert parse_java_exception(row) is None


# --------------------------------------------------------------------------- settings list


def test_settings_list_keeps_equals_in_values_and_skips_junk() -> None:
    output = (
        "airplane_mode_on=0\r\n"
        "wifi_networks_available_notification_on=1\n"
        "boot_count=\n"
        "policy=a=1,b=2\n"
        "WARNING: linker: unused DT entry\n"
        "\n"
        "=orphan\n"
    )
    assert parse_settings_list(output) == {
        "airplane_mode_on": "0",
        "wifi_networks_available_notification_on": "1",
        "boot_count": "",
        "policy": "a=1,b=2",
    }


# --------------------------------------------------------------------------- cmd wifi status

WIFI_ENABLED = "Wifi is enabled\nWifi scanning is always available\n"
WIFI_PRIMARY = WIFI_ENABLED + "==== Primary ClientModeManager instance ====\n"
WIFI_CONNECTED = (
    WIFI_PRIMARY + 'Wifi is connected to "Café, 5G"\r\nWifiInfo: SSID: "Café, 5G", BSSID: '
    "02:00:00:00:00:00, Supplicant state: COMPLETED, RSSI: -61\n"
)
WIFI_NOT_CONNECTED = WIFI_PRIMARY + "Wifi is not connected\n"
WIFI_DISABLED = "Wifi is disabled\nWifi scanning is only available when wifi is enabled\n"
WIFI_HIDDEN = WIFI_PRIMARY + f"Wifi is connected to {UNKNOWN_SSID}\n"
WIFI_ANDROID_10 = "Unknown command: status\nWifi (wifi) commands:\n  help\n"


@pytest.mark.parametrize(
    ("output", "status"),
    [
        (WIFI_CONNECTED, WifiStatus(True, "Café, 5G")),
        (WIFI_NOT_CONNECTED, WifiStatus(True, None)),
        (WIFI_DISABLED, WifiStatus(False, None)),
        (WIFI_HIDDEN, WifiStatus(True, UNKNOWN_SSID)),
        (WIFI_PRIMARY + "Wifi is connected to e4bda0e5a5bd\n", WifiStatus(True, "e4bda0e5a5bd")),
        (WIFI_ANDROID_10, None),
        ("cmd: Can't find service: wifi\n", None),
    ],
)
def test_cmd_wifi_status(output: str, status: WifiStatus | None) -> None:
    assert parse_wifi_status(output) == status


# --------------------------------------------------------------------------- bluetooth

BT_OFF = "Bluetooth Status\n  enabled: false\n  state: OFF\n\nBluetooth Service not connected\n"
BT_ANDROID_14 = """Bluetooth Status
  enabled: true
  state: ON
AdapterProperties
  Name: Pixel 7
  Discovering: false
  Bonded devices:
    F4:4E:FD:12:34:56 [BR/EDR] WH-1000XM4
    C0:28:8D:AB:CD:EF [ DUAL ] Pixel Buds Pro, Case
    5D:11:22:33:44:55 => D8:3A:DD:00:11:22 [  LE  ] Galaxy Watch5 (7A2B)

mSnoopLogSettingAtEnable = empty
"""
BT_ANDROID_9 = """Bluetooth Status
  enabled: true
Bonded devices:
  00:11:22:33:44:55 [BR/EDR] Car Kit
Profile: A2dpService
"""
BT_ANDROID_16 = """AdapterProperties
  Name: Pixel 9
  Bonded devices:
    XX:XX:XX:XX:34:56 [BR/EDR][ 0x240404 ] \n    XX:XX:XX:XX:CD:EF [ DUAL ][ 0x240418 ] \n
"""
BT_NONE_PAIRED = "AdapterProperties\n  Bonded devices:\n\nmSnoopLogSettingAtEnable = empty\n"


@pytest.mark.parametrize(
    ("output", "devices"),
    [
        (BT_ANDROID_14, ["WH-1000XM4", "Pixel Buds Pro, Case", "Galaxy Watch5 (7A2B)"]),
        (BT_ANDROID_9, ["Car Kit"]),
        (BT_ANDROID_16, ["XX:XX:XX:XX:34:56", "XX:XX:XX:XX:CD:EF"]),
        (BT_NONE_PAIRED, []),
        (BT_OFF, None),
    ],
)
def test_bonded_devices(output: str, devices: list[str] | None) -> None:
    assert parse_bonded_devices(output) == devices


# --------------------------------------------------------------------------- focus

WINDOWS = (
    "  mCurrentFocus=Window{1664650 u0 com.android.settings/com.android.settings.Settings}\n"
    "  mFocusedApp=ActivityRecord{b84f36b u0 com.android.settings/.Settings t12}\n"
)
SHADE = (
    "  mCurrentFocus=Window{9a1 u0 NotificationShade}\n"
    "  mFocusedApp=ActivityRecord{b84f36b u0 com.android.contacts/.People t13}\n"
)


def test_focused_package() -> None:
    assert parse_focused_package(WINDOWS) == "com.android.settings"
    assert parse_focused_package(SHADE) == "com.android.contacts"
    assert parse_focused_package("  mCurrentFocus=null\n  mFocusedApp=null\n") is None
    resumed = "  mResumedActivity: ActivityRecord{5e u0 com.tencent.mm/.ui.LauncherUI t9}\n"
    assert parse_resumed_package(resumed) == "com.tencent.mm"
    assert parse_resumed_package("") is None


# --------------------------------------------------------------------------- scripted phone


class ScriptedShell:
    """A phone that answers commands by their first words; ``settings`` kept in memory."""

    def __init__(self, replies: Mapping[str, str | Callable[[], str]] | None = None) -> None:
        self.replies = dict(replies or {})
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


def test_adb_state_has_every_method_of_the_protocol() -> None:
    wanted = {
        name: inspect.signature(member)
        for name, member in inspect.getmembers(AndroidState)
        if inspect.iscoroutinefunction(member)
    }
    assert len(wanted) == 22
    for name, signature in wanted.items():
        method = getattr(AdbAndroidState, name)
        assert inspect.iscoroutinefunction(method), name
        assert inspect.signature(method).parameters.keys() == signature.parameters.keys(), name


def test_construction() -> None:
    state = AdbAndroidState(ScriptedShell(), volatile_settings=frozenset({"screen_brightness"}))
    assert (state.wait_s, state.volatile_settings) == (15.0, frozenset({"screen_brightness"}))
    with pytest.raises(ValueError, match="wait_s"):
        AdbAndroidState(ScriptedShell(), wait_s=-1)


@pytest.mark.asyncio
async def test_get_setting_strips_and_reads_null_as_none() -> None:
    shell = ScriptedShell()
    shell.settings[("system", "font_scale")] = "1.15"
    state = AdbAndroidState(shell)
    assert await state.get_setting("system", "font_scale") == "1.15"
    assert await state.get_setting("system", "unset_key") is None


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("namespace", "key", "value", "service"),
    [
        ("global", "wifi_on", "0", "svc wifi disable"),
        ("global", "wifi_on", "1", "svc wifi enable"),
        ("global", "bluetooth_on", "1", "svc bluetooth enable"),
        ("global", "airplane_mode_on", "1", "cmd connectivity airplane-mode enable"),
        ("global", "airplane_mode_on", "0", "cmd connectivity airplane-mode disable"),
        ("global", "zen_mode", "2", "cmd notification set_dnd on"),
        ("global", "zen_mode", "0", "cmd notification set_dnd off"),
        ("secure", "ui_night_mode", "2", "cmd uimode night yes"),
        ("secure", "ui_night_mode", "1", "cmd uimode night no"),
        ("global", "mobile_data", "0", "svc data disable"),
    ],
)
async def test_put_setting_applies_it_through_the_owning_service(
    namespace: str, key: str, value: str, service: str
) -> None:
    shell = ScriptedShell()
    await AdbAndroidState(shell).put_setting(namespace, key, value)  # type: ignore[arg-type]
    assert shell.commands == [service, f"settings put {namespace} {key} {value}"]


@pytest.mark.asyncio
async def test_put_setting_quotes_the_value_and_has_no_service_for_other_keys() -> None:
    shell = ScriptedShell()
    await AdbAndroidState(shell).put_setting("global", "device_name", "Ann's phone; reboot")
    assert shell.commands == ["settings put global device_name 'Ann'\"'\"'s phone; reboot'"]
    assert shell.settings[("global", "device_name")] == "Ann's phone; reboot"
    assert ("global", "device_name") not in SERVICE_COMMANDS


@pytest.mark.asyncio
async def test_a_refused_settings_write_is_unavailable() -> None:
    async def refusing(command: str) -> str:
        return (
            "Exception occurred while executing 'put':\njava.lang.SecurityException: Permission "
            "denial: writing to settings requires:android.permission.WRITE_SECURE_SETTINGS\n"
        )

    with pytest.raises(StateUnavailable, match="WRITE_SECURE_SETTINGS"):
        await AdbAndroidState(refusing).put_setting("secure", "ui_night_mode", "2")


@pytest.mark.asyncio
async def test_list_settings() -> None:
    shell = ScriptedShell({"settings list global": "wifi_on=1\npolicy=a=b\n"})
    assert await AdbAndroidState(shell).list_settings("global") == {"wifi_on": "1", "policy": "a=b"}
    assert shell.commands == ["settings list global"]


@pytest.mark.asyncio
async def test_query_quotes_where_and_sort_and_parses_rows() -> None:
    shell = ScriptedShell({"content query": ROWS})
    rows = await AdbAndroidState(shell).query(
        DATA, ["_id", "display_name", "note", "starred"], "display_name LIKE 'Chen%'", "_id DESC"
    )
    assert [row["display_name"] for row in rows] == ["Chen, Alice", None]
    assert shlex.split(shell.commands[0]) == [
        "content", "query", "--uri", DATA, "--projection", "_id:display_name:note:starred",
        "--where", "display_name LIKE 'Chen%'", "--sort", "_id DESC",
    ]  # fmt: skip


@pytest.mark.asyncio
async def test_query_without_where_and_no_rows() -> None:
    shell = ScriptedShell({"content query": "No result found.\n"})
    assert await AdbAndroidState(shell).query(RAW, ["_id"]) == []
    assert shell.commands == [f"content query --uri {RAW} --projection _id"]


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("output", "error", "match"),
    [
        (UNKNOWN_PROVIDER, StateUnavailable, "cannot query content://com.example.notes/n"),
        (PERMISSION, StateUnavailable, "Permission Denial"),
        (SQL, DeviceError, "no such column: nosuch"),
        ("/system/bin/sh: content: not found\n", StateUnavailable, "not found"),
        ("Segmentation fault\n", StateUnavailable, "printed no rows but: Segmentation fault"),
        ("Row: 0 _id=1, name=x\n", StateUnavailable, "without the columns display_name"),
    ],
)
async def test_query_failures(output: str, error: type[Exception], match: str) -> None:
    state = AdbAndroidState(ScriptedShell({"content query": output}))
    with pytest.raises(error, match=match) as raised:
        await state.query("content://com.example.notes/n", ["_id", "display_name"])
    assert "\n" not in str(raised.value)
    assert not (error is StateUnavailable and isinstance(raised.value, DeviceError))


@pytest.mark.asyncio
async def test_query_needs_a_projection() -> None:
    with pytest.raises(ValueError, match="projected column"):
        await AdbAndroidState(ScriptedShell()).query(RAW, [])


@pytest.mark.parametrize(
    ("value", "argument"),
    [
        (True, "starred:b:true"),
        (False, "starred:b:false"),
        (7, "starred:i:7"),
        (1_700_000_000_000, "starred:i:1700000000000"),
        (0.85, "starred:f:0.85"),
        (None, "starred:n:"),
        ("Chen, Alice 'A=1'", "starred:s:Chen, Alice 'A=1'"),
        ("", "starred:s:"),
    ],
)
def test_bind_types_follow_the_python_type(value: object, argument: str) -> None:
    assert shlex.split(bind_argument("starred", value)) == ["--bind", argument]  # type: ignore[arg-type]


def test_a_non_finite_number_cannot_be_bound() -> None:
    with pytest.raises(ValueError, match="non-finite"):
        bind_argument("x", float("nan"))


@pytest.mark.asyncio
async def test_writes_send_binds_and_where() -> None:
    shell = ScriptedShell()
    state = AdbAndroidState(shell)
    await state.insert(DATA, {"raw_contact_id": 3, "data1": "Chen, Alice", "data4": None})
    await state.update(DATA, {"data1": "Bo"}, "_id=3 AND data1='x y'")
    await state.delete(RAW, "_id=3")
    await state.delete(RAW, None)
    assert [shlex.split(command) for command in shell.commands] == [
        ["content", "insert", "--uri", DATA, "--bind", "raw_contact_id:i:3",
         "--bind", "data1:s:Chen, Alice", "--bind", "data4:n:"],
        ["content", "update", "--uri", DATA, "--bind", "data1:s:Bo",
         "--where", "_id=3 AND data1='x y'"],
        ["content", "delete", "--uri", RAW, "--where", "_id=3"],
        ["content", "delete", "--uri", RAW],
    ]  # fmt: skip


@pytest.mark.asyncio
async def test_write_failures() -> None:
    state = AdbAndroidState(ScriptedShell({"content insert": USAGE, "content delete": SQL}))
    with pytest.raises(DeviceError, match="Bindings not specified"):
        await state.insert(RAW, {})
    with pytest.raises(DeviceError, match="SQL"):
        await state.delete(RAW, "bad ===")
    state = AdbAndroidState(ScriptedShell({"content update": UNKNOWN_PROVIDER}))
    with pytest.raises(
        StateUnavailable, match=re.escape("cannot update content://com.example.notes")
    ):
        await state.update("content://com.example.notes", {"a": 1}, None)


@pytest.mark.asyncio
async def test_getprop() -> None:
    shell = ScriptedShell({"getprop ro.product.model": "Pixel 7\r\n", "getprop": "\n"})
    state = AdbAndroidState(shell)
    assert await state.getprop("ro.product.model") == "Pixel 7"
    assert await state.getprop("ro.unset") == ""


def _sequence(*outputs: str) -> Callable[[], str]:
    """Replies that advance on each call and then repeat the last one."""
    left = list(outputs)
    return lambda: left.pop(0) if len(left) > 1 else left[0]


@pytest.mark.asyncio
async def test_wifi_ssid_waits_for_a_network_being_joined() -> None:
    shell = ScriptedShell(
        {"cmd wifi status": _sequence(WIFI_NOT_CONNECTED, WIFI_NOT_CONNECTED, WIFI_CONNECTED)}
    )
    assert await AdbAndroidState(shell, wait_s=5).wifi_ssid() == "Café, 5G"
    assert shell.commands == ["cmd wifi status"] * 3


@pytest.mark.asyncio
async def test_wifi_ssid_off_or_never_connected_is_none() -> None:
    off = ScriptedShell({"cmd wifi status": WIFI_DISABLED})
    assert await AdbAndroidState(off, wait_s=5).wifi_ssid() is None
    assert off.commands == ["cmd wifi status"]
    never = ScriptedShell({"cmd wifi status": WIFI_NOT_CONNECTED})
    assert await AdbAndroidState(never, wait_s=0.3).wifi_ssid() is None
    assert 2 <= len(never.commands) <= 4


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("output", "match"), [(WIFI_HIDDEN, "turn on Location"), (WIFI_ANDROID_10, "Android 11")]
)
async def test_wifi_ssid_unavailable(output: str, match: str) -> None:
    with pytest.raises(StateUnavailable, match=match):
        await AdbAndroidState(ScriptedShell({"cmd wifi status": output})).wifi_ssid()


class BluetoothShell(ScriptedShell):
    """Lists the bonded devices only while ``bluetooth_on`` reads 1 (``listing`` allowing)."""

    def __init__(self, on: bool, listing: bool = True) -> None:
        super().__init__({"dumpsys bluetooth_manager": self._dump})
        self.settings[("global", "bluetooth_on")] = str(int(on))
        self.listing = listing

    def _dump(self) -> str:
        on = self.settings[("global", "bluetooth_on")] == "1"
        return BT_ANDROID_14 if on and self.listing else BT_OFF


@pytest.mark.asyncio
async def test_bonded_devices_with_bluetooth_on_change_nothing() -> None:
    shell = BluetoothShell(on=True)
    assert await AdbAndroidState(shell).bonded_devices() == [
        "WH-1000XM4", "Pixel Buds Pro, Case", "Galaxy Watch5 (7A2B)",
    ]  # fmt: skip
    assert shell.commands == ["dumpsys bluetooth_manager"]


@pytest.mark.asyncio
async def test_bonded_devices_turn_bluetooth_on_for_the_read_and_off_again() -> None:
    shell = BluetoothShell(on=False)
    assert len(await AdbAndroidState(shell).bonded_devices()) == 3
    assert shell.settings[("global", "bluetooth_on")] == "0"
    assert [c for c in shell.commands if c.startswith("svc")] == [
        "svc bluetooth enable", "svc bluetooth disable",
    ]  # fmt: skip


@pytest.mark.asyncio
async def test_bonded_devices_never_listed_are_unavailable_and_bluetooth_is_restored() -> None:
    shell = BluetoothShell(on=False, listing=False)
    with pytest.raises(StateUnavailable, match="Bonded devices"):
        await AdbAndroidState(shell, wait_s=0.3).bonded_devices()
    assert shell.settings[("global", "bluetooth_on")] == "0"
    assert shell.commands[-2:] == ["svc bluetooth disable", "settings put global bluetooth_on 0"]


@pytest.mark.asyncio
async def test_now() -> None:
    shell = ScriptedShell(
        {"date +%s": "1700000000\n", "getprop persist.sys.timezone": "Asia/Shanghai\n"}
    )
    assert await AdbAndroidState(shell).now() == (1_700_000_000_000, "Asia/Shanghai")
    with pytest.raises(DeviceError, match="epoch seconds"):
        await AdbAndroidState(ScriptedShell({"date": "Tue Nov 14 2023\n"})).now()
    with pytest.raises(StateUnavailable, match=re.escape("persist.sys.timezone")):
        await AdbAndroidState(ScriptedShell({"date": "1700000000\n"})).now()


@pytest.mark.asyncio
async def test_start_app() -> None:
    shell = ScriptedShell({"monkey": "Events injected: 1\n"})
    await AdbAndroidState(shell).start_app("com.android.settings")
    assert shell.commands == [
        "monkey -p com.android.settings -c android.intent.category.LAUNCHER 1"
    ]
    missing = ScriptedShell({"monkey": "** No activities found to run, monkey aborted.\n"})
    with pytest.raises(StateUnavailable, match=re.escape("pm path com.nope")):
        await AdbAndroidState(missing).start_app("com.nope")


@pytest.mark.asyncio
async def test_foreground_package_falls_back_to_the_resumed_activity() -> None:
    assert await AdbAndroidState(
        ScriptedShell({"dumpsys window": WINDOWS})
    ).foreground_package() == ("com.android.settings")
    resumed = "  mResumedActivity: ActivityRecord{5e u0 com.tencent.mm/.ui.LauncherUI t9}\n"
    shell = ScriptedShell({"dumpsys window": "  mCurrentFocus=null\n", "dumpsys activity": resumed})
    assert await AdbAndroidState(shell).foreground_package() == "com.tencent.mm"
    assert await AdbAndroidState(ScriptedShell()).foreground_package() is None


# --------------------------------------------------------------------------- virtual phone


@pytest.fixture
def phone() -> VirtualPhone:
    sim = Simulator()
    return VirtualPhone(sim, sim.create_instance(seed=0), serial="VP00000000")


@pytest.fixture
def state(phone: VirtualPhone) -> AdbAndroidState:
    return AdbAndroidState(InMemoryShell(phone), wait_s=0.5)


@pytest.mark.asyncio
async def test_virtual_airplane_mode_turns_wifi_off_and_back(state: AdbAndroidState) -> None:
    assert await state.get_setting("global", "wifi_on") == "1"
    await state.put_setting("global", "airplane_mode_on", "1")
    assert await state.get_setting("global", "airplane_mode_on") == "1"
    assert await state.get_setting("global", "wifi_on") == "0"
    assert await state.wifi_ssid() is None
    await state.put_setting("global", "airplane_mode_on", "0")
    assert await state.get_setting("global", "wifi_on") == "1"


@pytest.mark.asyncio
async def test_virtual_settings_list(state: AdbAndroidState) -> None:
    await state.put_setting("global", "device_name", "Ann's phone")
    listed = await state.list_settings("global")
    assert listed["device_name"] == "Ann's phone"
    assert listed["wifi_on"] == "1"


@pytest.mark.asyncio
async def test_virtual_contact_inserted_then_read_back(state: AdbAndroidState) -> None:
    await state.insert(RAW, {"account_type": None, "account_name": None})
    raw_id = max(int(row["_id"] or 0) for row in await state.query(RAW, ["_id"]))
    name = "Chen, Alice=A"
    await state.insert(
        DATA,
        {"raw_contact_id": raw_id, "mimetype": "vnd.android.cursor.item/name", "data1": name},
    )
    await state.insert(
        DATA,
        {
            "raw_contact_id": raw_id,
            "mimetype": "vnd.android.cursor.item/phone_v2",
            "data1": "138 0013 8000",
            "data2": 2,
        },
    )
    rows = await state.query(
        DATA,
        ["raw_contact_id", "mimetype", "data1", "data4"],
        f"raw_contact_id={raw_id}",
        "mimetype",
    )
    assert [(row["mimetype"], row["data1"], row["data4"]) for row in rows] == [
        ("vnd.android.cursor.item/name", name, None),
        ("vnd.android.cursor.item/phone_v2", "138 0013 8000", None),
    ]
    contacts = await state.query(
        "content://com.android.contacts/contacts",
        ["_id", "display_name"],
        "display_name='Chen, Alice=A'",
    )
    assert [row["display_name"] for row in contacts] == [name]


@pytest.mark.asyncio
async def test_virtual_provider_errors(state: AdbAndroidState) -> None:
    with pytest.raises(StateUnavailable, match=re.escape("content://com.example.notes/notes")):
        await state.query("content://com.example.notes/notes", ["_id"])
    with pytest.raises(DeviceError, match="no such column"):
        await state.query(RAW, ["no_such_column"])


@pytest.mark.asyncio
async def test_virtual_bonded_devices_leave_bluetooth_off(
    state: AdbAndroidState, phone: VirtualPhone
) -> None:
    assert await state.get_setting("global", "bluetooth_on") == "0"
    names = await state.bonded_devices()
    assert names == [str(device["name"]) for device in paired(phone)]
    assert names
    assert await state.get_setting("global", "bluetooth_on") == "0"


@pytest.mark.asyncio
async def test_virtual_wifi_ssid(state: AdbAndroidState, phone: VirtualPhone) -> None:
    expected = connected_ssid(phone)
    assert expected
    assert await state.wifi_ssid() == expected
    await state.put_setting("global", "wifi_on", "0")
    assert await state.wifi_ssid() is None


@pytest.mark.asyncio
async def test_virtual_start_app_and_foreground(state: AdbAndroidState) -> None:
    assert await state.foreground_package() == "com.android.launcher3"
    await state.start_app("com.android.contacts")
    assert await state.foreground_package() == "com.android.contacts"
    with pytest.raises(StateUnavailable, match="no launcher activity"):
        await state.start_app("com.example.absent")


@pytest.mark.asyncio
async def test_virtual_getprop(state: AdbAndroidState, phone: VirtualPhone) -> None:
    assert await state.getprop("ro.product.model") == phone.model
    assert await state.getprop("ro.not.set") == ""


@pytest.mark.asyncio
async def test_virtual_now(state: AdbAndroidState, phone: VirtualPhone) -> None:
    clock_ms = phone.instance.state.os.clock_ms
    assert await state.now() == (clock_ms // 1000 * 1000, "Asia/Shanghai")
