"""``MobileGymAndroidState`` on a live MobileGym build: the settings key table (exact keys round
trip and show in ``getState()``, rescaled keys convert as documented, absent keys and values are
refused with their reason), airplane mode's cascade, props, the Wi-Fi network, the next alarm
following the Clock app, starting an app, files, and the judge end to end."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import pytest_asyncio

from bridge.errors import StateUnavailable
from bridge.judge import judge, pose
from mobilegym.android_state import MobileGymAndroidState
from mobilegym.android_state.base import read_json
from mobilegym.android_state.files import DIR_SIZE
from mobilegym.android_state.settings import KEYS, Absent, Held
from mobilegym.world import MobileGym
from sim.tasks.registry import default_registry

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]

TASK = "/sdcard/Download/mgb_state_test"


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def state(gym: MobileGym) -> AsyncIterator[MobileGymAndroidState]:
    """One MobileGym phone for the module, read and written through the adapter."""
    page = await gym.page()
    try:
        yield MobileGymAndroidState(page, timezone=gym.timezone)
    finally:
        await page.close()


async def os_at(state: MobileGymAndroidState, path: str) -> Any:
    """The value at ``path`` of ``__SIM__.getState().os``."""
    return await state.page.call(
        "(path) => path.split('.').reduce((n, k) => (n == null ? n : n[k]), "
        "window.__SIM__.getState().os)",
        path,
    )


EXACT = [
    ("global", "wifi_on", {"0": False, "1": True}),
    ("global", "bluetooth_on", {"0": False, "1": True}),
    ("global", "mobile_data", {"0": False, "1": True}),
    ("global", "zen_mode", {"1": True, "0": False}),
    ("global", "mode_ringer", {"0": True, "2": False}),
    ("global", "device_name", {"Travel Phone": "Travel Phone"}),
    ("secure", "ui_night_mode", {"2": True, "1": False}),
    ("system", "screen_brightness_mode", {"0": False, "1": True}),
]


@pytest.mark.parametrize(("namespace", "key", "values"), EXACT)
async def test_exact_keys_round_trip_and_show_in_state(
    state: MobileGymAndroidState, namespace: Any, key: str, values: dict[str, Any]
) -> None:
    held = KEYS[(namespace, key)]
    assert isinstance(held, Held) and held.kind == "exact"
    for android, mobilegym in values.items():
        await state.put_setting(namespace, key, android)
        assert await state.get_setting(namespace, key) == android
        assert await os_at(state, held.path) == mobilegym
        assert (await state.list_settings(namespace))[key] == android


RESCALED = [
    # (key, written, held by MobileGym, read back)
    ("screen_brightness", "147", 58, "148"),  # 147 × 100 / 255 = 57.6 → 58 → 147.9 → 148
    ("screen_brightness", "0", 0, "0"),
    ("screen_brightness", "255", 100, "255"),
    ("volume_ring", "9", 60, "9"),
    ("volume_ring", "0", 0, "0"),
    ("font_scale", "1.3", 100, "1.3"),
    ("font_scale", "1.0", 33, "0.9985"),  # 0.85 + 33 × 0.0045
    ("font_scale", "0.85", 0, "0.85"),
    ("system_locales", "zh-CN", "zh-Hans", "zh-CN"),
    ("system_locales", "en-US", "en", "en-US"),
]


@pytest.mark.parametrize(("key", "written", "held", "read"), RESCALED)
async def test_rescaled_keys_convert_as_documented(
    state: MobileGymAndroidState, key: str, written: str, held: Any, read: str
) -> None:
    entry = KEYS[("system", key)]
    assert isinstance(entry, Held) and entry.kind == "rescaled"
    await state.put_setting("system", key, written)
    assert await os_at(state, entry.path) == held
    assert await state.get_setting("system", key) == read


async def test_the_locale_follows_the_language(state: MobileGymAndroidState) -> None:
    await state.put_setting("system", "system_locales", "zh-CN")
    assert await os_at(state, "locale") == "zh-Hans"
    await state.put_setting("system", "system_locales", "en-US")
    assert await os_at(state, "locale") == "en"


@pytest.mark.parametrize(
    ("namespace", "key"), [k for k, v in KEYS.items() if isinstance(v, Absent)]
)
async def test_absent_keys_are_refused_with_the_reason(
    state: MobileGymAndroidState, namespace: Any, key: str
) -> None:
    entry = KEYS[(namespace, key)]
    assert isinstance(entry, Absent)
    with pytest.raises(StateUnavailable, match="MobileGym does not hold") as read:
        await state.get_setting(namespace, key)
    assert entry.reason in str(read.value)
    with pytest.raises(StateUnavailable, match=key):
        await state.put_setting(namespace, key, "1")
    assert key not in await state.list_settings(namespace)
    await state.delete_setting(namespace, key)  # absent already: no error


@pytest.mark.parametrize(
    ("namespace", "key", "value", "why"),
    [
        ("global", "mode_ringer", "1", "no vibrate mode"),
        ("global", "zen_mode", "2", "no total silence"),
        ("secure", "ui_night_mode", "0", "no automatic"),
        ("system", "system_locales", "fr-FR", "English or Simplified Chinese"),
        ("system", "system_locales", "en-US,zh-CN", "one at a time"),
        ("system", "font_scale", "2.0", "0.85 to 1.3"),
        ("system", "screen_brightness", "300", "outside Android's 0–255"),
        ("global", "device_name", "", "model's name"),
        ("global", "some_unknown_key", "1", "not in MobileGym's key table"),
    ],
)
async def test_values_mobilegym_cannot_hold_are_refused(
    state: MobileGymAndroidState, namespace: Any, key: str, value: str, why: str
) -> None:
    with pytest.raises(StateUnavailable, match=why):
        await state.put_setting(namespace, key, value)


async def test_the_clock_is_always_24_hour(state: MobileGymAndroidState) -> None:
    assert await state.get_setting("system", "time_12_24") == "24"
    await state.put_setting("system", "time_12_24", "24")  # nothing to change
    assert (await state.list_settings("system"))["time_12_24"] == "24"
    with pytest.raises(StateUnavailable, match="24-hour time"):
        await state.put_setting("system", "time_12_24", "12")


async def test_a_held_key_cannot_be_deleted(state: MobileGymAndroidState) -> None:
    with pytest.raises(StateUnavailable, match="always holds a value"):
        await state.delete_setting("global", "wifi_on")


async def test_airplane_mode_cascades_and_leaves_the_radios_off(
    state: MobileGymAndroidState,
) -> None:
    for key in ("wifi_on", "bluetooth_on", "mobile_data"):
        await state.put_setting("global", key, "1")
    await state.put_setting("global", "airplane_mode_on", "1")
    radios = ("wifi_on", "bluetooth_on", "mobile_data")
    assert [await state.get_setting("global", k) for k in radios] == ["0", "0", "0"]
    await state.put_setting("global", "airplane_mode_on", "0")  # MobileGym restores nothing
    assert [await state.get_setting("global", k) for k in radios] == ["0", "0", "0"]
    assert await state.get_setting("global", "airplane_mode_on") == "0"


async def test_do_not_disturb_holds_the_ringer_silent(state: MobileGymAndroidState) -> None:
    await state.put_setting("global", "zen_mode", "0")
    await state.put_setting("global", "mode_ringer", "2")
    await state.put_setting("global", "zen_mode", "1")
    assert await state.get_setting("global", "mode_ringer") == "0"
    with pytest.raises(StateUnavailable, match="kept 0"):
        await state.put_setting("global", "mode_ringer", "2")
    await state.put_setting("global", "zen_mode", "0")  # gives the remembered choice back
    assert await state.get_setting("global", "mode_ringer") == "2"


async def test_props_come_from_the_build(state: MobileGymAndroidState) -> None:
    build = await os_at(state, "build")
    assert await state.getprop("ro.product.model") == build["model"]
    assert await state.getprop("ro.build.version.release") == build["androidVersion"]
    with pytest.raises(StateUnavailable, match="describes only"):
        await state.getprop("ro.product.manufacturer")


async def test_radios(state: MobileGymAndroidState) -> None:
    await state.put_setting("global", "wifi_on", "1")
    assert await state.wifi_ssid() == await os_at(state, "hardware.wifi.connectedSsid")
    await state.put_setting("global", "wifi_on", "0")
    assert await state.wifi_ssid() is None
    nearby = await os_at(state, "hardware.nearbyBluetooth")
    paired = [d["name"] for d in nearby if d.get("paired")]
    assert paired and await state.bonded_devices() == paired


async def test_the_clock_is_mobilegyms(state: MobileGymAndroidState, gym: MobileGym) -> None:
    now, zone = await state.now()
    assert (now, zone) == (gym.clock_ms, gym.timezone)
    assert await os_at(state, "time.timestamp") == now


def _today_at(now_ms: int, zone: str, hour: int, minute: int) -> int:
    local = datetime.fromtimestamp(now_ms / 1000, ZoneInfo(zone))
    return int(local.replace(hour=hour, minute=minute, second=0, microsecond=0).timestamp() * 1000)


async def test_the_next_alarm_follows_the_clock_app(state: MobileGymAndroidState) -> None:
    manager = await os_at(state, "services.alarm_manager.alarms")
    assert await state.next_alarm() == min(a["triggerAtMs"] for a in manager.values())
    now, zone = await state.now()
    soon = {"id": "mgb_soon", "hour": 10, "minute": 15, "enabled": True, "repeat": "once",
            "vibrate": True, "autoDelete": False}  # fmt: skip
    await state.page.set_state({"apps": {"clock": {"alarms[]": soon}}})
    assert await state.next_alarm() == _today_at(now, zone, 10, 15)  # 09:30 now
    await state.page.set_state({"apps": {"clock": {"alarms[id=mgb_soon]": {"enabled": False}}}})
    assert await state.next_alarm() == min(a["triggerAtMs"] for a in manager.values())


async def test_start_an_app_and_read_the_foreground(state: MobileGymAndroidState) -> None:
    packages = await state.packages()
    assert packages["clock"] == "com.android.deskclock"
    assert packages["settings"] == "com.android.settings"
    await state.start_app("com.android.deskclock")
    assert await state.foreground_package() == "com.android.deskclock"
    assert (await state.page.route())[0] == "clock"
    with pytest.raises(StateUnavailable, match=re.escape("com.example.none")):
        await state.start_app("com.example.none")
    await state.page.call("() => window.__OS__.goHome()")
    assert await state.foreground_package() is None


async def test_files_round_trip(state: MobileGymAndroidState) -> None:
    await state.remove(TASK)
    await state.make_dir(f"{TASK}/sub")
    await state.write_file(f"{TASK}/sub/a.txt", "日本語abc", 1_778_500_000_789)
    found = await state.stat_path(f"{TASK}/sub/a.txt")
    assert found is not None
    assert (found.kind, found.size, found.mtime_ms) == ("file", 12, 1_778_500_000_000)
    assert [e.name for e in await state.list_files(TASK)] == ["sub"]
    folder = await state.stat_path(f"{TASK}/sub")
    assert folder is not None and (folder.kind, folder.size) == ("dir", DIR_SIZE)
    await state.page.call(
        "([a, b]) => window.__SIM_FS__.move(a, b)", [f"{TASK}/sub/a.txt", f"{TASK}/b.txt"]
    )
    moved = await state.stat_path(f"{TASK}/b.txt")
    assert moved is not None and moved.inode == found.inode  # a move keeps the node
    assert await state.stat_path(f"{TASK}/sub/a.txt") is None
    with pytest.raises(StateUnavailable, match="only inside a task folder"):
        await state.write_file("/sdcard/DCIM/x.txt", "no", 0)
    with pytest.raises(StateUnavailable, match="not a folder"):
        await state.make_dir(f"{TASK}/b.txt/inner")
    with pytest.raises(StateUnavailable, match="/none is not a folder"):
        await state.write_file(f"{TASK}/none/c.txt", "no folder", 0)
    with pytest.raises(StateUnavailable, match="it is a folder"):
        await state.write_file(f"{TASK}/sub", "a folder", 0)
    assert await state.list_files(f"{TASK}/b.txt") == []  # a file lists nothing
    await state.remove(TASK)
    assert await state.stat_path(TASK) is None
    assert await state.list_files(TASK) == []


async def test_json_reads_come_back_as_the_page_holds_them(
    state: MobileGymAndroidState,
) -> None:
    """A read sent as one JSON string parses to what Playwright's own values would be."""
    path = "(p) => p.reduce((o, k) => o[k], window.__SIM__.getState())"
    for where in (["os", "providers", "contacts"], ["os", "settings"], ["apps", "clock"]):
        assert await read_json(state.page, path, where) == await state.page.call(path, where)
    assert await read_json(state.page, "() => undefined") is None


async def test_the_judge_end_to_end(state: MobileGymAndroidState) -> None:
    spec = default_registry().instantiate("settings/SetWifi-v1", 0, "en").spec
    assert spec is not None
    start = await pose(spec, state)
    assert await state.get_setting("global", "wifi_on") == "1"
    await state.put_setting("global", "wifi_on", "0")  # the goal, applied as a user would
    verdict = await judge(spec, state, start)
    assert verdict.success and verdict.clean, verdict
    start = await pose(spec, state)
    idle = await judge(spec, state, start)  # nothing done
    assert not idle.success
