"""SimAndroidState: the AndroidState protocol over a simulator instance, in memory.

Settings print as ``settings get`` prints them and are written as a user writes them;
provider reads run in SQLite (NOT, LIKE, IN, IS NULL, sort, projection); writes go through
the Contacts app's own model. No browser: the simulator is never started.
"""

from __future__ import annotations

import inspect
import re

import pytest

from bridge.android_state import AndroidState
from bridge.errors import StateUnavailable
from sim.android_state import SimAndroidState
from sim.device_props import DeviceIdentity
from sim.errors import SimError
from sim.providers import ProviderError
from sim.simulator import Simulator
from sim.state import DEFAULT_CLOCK_MS

CONTACTS = "content://com.android.contacts/contacts"
RAW = "content://com.android.contacts/raw_contacts"
DATA = "content://com.android.contacts/data"
MIME = "vnd.android.cursor.item/"


@pytest.fixture
def sim() -> Simulator:
    return Simulator()


@pytest.fixture
def state(sim: Simulator) -> SimAndroidState:
    return SimAndroidState(sim.phone, sim.create_instance(seed=0).state)


def test_every_protocol_method_is_implemented() -> None:
    wanted = {
        name
        for name, member in inspect.getmembers(AndroidState, inspect.isfunction)
        if not name.startswith("_")
    }
    for name in wanted:
        method = getattr(SimAndroidState, name)
        assert inspect.iscoroutinefunction(method), name
        assert inspect.signature(method).parameters.keys() == (
            inspect.signature(getattr(AndroidState, name)).parameters.keys()
        ), name


# ---- settings


@pytest.mark.asyncio
async def test_settings_print_as_settings_get(state: SimAndroidState) -> None:
    assert await state.get_setting("global", "wifi_on") == "1"
    assert await state.get_setting("system", "font_scale") == "1.0"
    assert await state.get_setting("global", "no_such_key") is None
    await state.put_setting("system", "font_scale", "0.85")
    await state.put_setting("system", "screen_brightness", "77")
    await state.put_setting("global", "device_name", "Ann's phone, 2")
    system = state.state.os.settings["system"]
    assert system["font_scale"] == 0.85 and system["screen_brightness"] == 77  # stored typed
    assert await state.get_setting("system", "font_scale") == "0.85"
    assert await state.get_setting("system", "screen_brightness") == "77"
    listed = await state.list_settings("global")
    assert listed["device_name"] == "Ann's phone, 2" and listed["airplane_mode_on"] == "0"
    assert list(listed) == sorted(listed)


@pytest.mark.asyncio
async def test_airplane_mode_cascades_to_the_radios(state: SimAndroidState) -> None:
    await state.put_setting("global", "bluetooth_on", "1")
    await state.put_setting("global", "airplane_mode_on", "1")
    assert await state.get_setting("global", "wifi_on") == "0"
    assert await state.get_setting("global", "bluetooth_on") == "0"
    assert await state.wifi_ssid() is None
    await state.put_setting("global", "wifi_on", "1")  # by hand in flight: this choice wins
    await state.put_setting("global", "airplane_mode_on", "0")
    assert await state.get_setting("global", "wifi_on") == "1"
    assert await state.get_setting("global", "bluetooth_on") == "1"
    with pytest.raises(SimError, match="0 or 1"):
        await state.put_setting("global", "wifi_on", "yes")


@pytest.mark.asyncio
async def test_writes_call_on_change(sim: Simulator) -> None:
    instance = sim.create_instance(seed=0)
    state = SimAndroidState(sim.phone, instance.state, on_change=instance.changed)
    await state.put_setting("system", "screen_brightness", "10")
    await state.update(CONTACTS, {"starred": 1}, "_id=2")
    assert instance.version == 2


# ---- provider reads


@pytest.mark.asyncio
async def test_query_where_sort_and_projection(state: SimAndroidState) -> None:
    rows = await state.query(CONTACTS, ["display_name", "_id"], "display_name LIKE 'a%'", "_id")
    assert rows == [
        {"display_name": "Alice Chen", "_id": "7"},
        {"display_name": "Alice Johnson", "_id": "54"},
        {"display_name": "Acme Corp", "_id": "78"},
    ]
    starred = await state.query(CONTACTS, ["_id"], "starred=1 AND NOT _id IN (1, 46)", "_id DESC")
    assert starred == [{"_id": "9"}, {"_id": "5"}]
    names = await state.query(DATA, ["_id", "data3"], "contact_id IN (7, 8) AND data3 IS NULL")
    assert names == [
        {"_id": "710", "data3": None},
        {"_id": "740", "data3": None},
        {"_id": "800", "data3": None},
        {"_id": "810", "data3": None},
    ]
    grouped = "(display_name = 'Bob' OR display_name = 'Charlie') AND NOT starred = 1"
    assert await state.query(CONTACTS, ["_id"], grouped) == [{"_id": "8"}]
    every = await state.query(CONTACTS, [], "_id=1")
    assert every == [{"_id": "1", "display_name": "张三", "starred": "1", "has_phone_number": "1"}]


@pytest.mark.asyncio
async def test_uri_items_and_views(state: SimAndroidState) -> None:
    assert await state.query(f"{CONTACTS}/8", ["display_name"]) == [{"display_name": "Bob"}]
    phones = await state.query(f"{DATA}/phones", ["data1", "data2"], "contact_id=5")
    assert phones == [{"data1": "10086", "data2": "3"}]
    settings = await state.query("content://settings/global/wifi_on", ["name", "value"])
    assert settings == [{"name": "wifi_on", "value": "1"}]


@pytest.mark.asyncio
async def test_numbers_stay_text(state: SimAndroidState) -> None:
    await state.insert(RAW, {"account_type": None, "account_name": None})
    for number in ("0086 139 1234 5678", "13912345678", "007"):
        values = {"raw_contact_id": 1001, "mimetype": MIME + "phone_v2", "data1": number}
        await state.insert(DATA, values)
    rows = await state.query(f"{DATA}/phones", ["data1", "data2"], "contact_id=1001", "_id")
    assert [row["data1"] for row in rows] == ["0086 139 1234 5678", "13912345678", "007"]
    assert {row["data2"] for row in rows} == {"2"}  # mobile, the default type
    # data1 is TEXT, as on a phone: an integer literal compares as its digits
    assert await state.query(DATA, ["_id"], "data1 = 13912345678") == [{"_id": "100111"}]


# ---- provider writes


@pytest.mark.asyncio
async def test_insert_a_contact_then_read_it_back(state: SimAndroidState) -> None:
    await state.insert(RAW, {"account_type": None, "account_name": None, "starred": True})
    [raw] = await state.query(RAW, ["_id", "contact_id", "starred"], "_id > 1000")
    assert raw == {"_id": "1001", "contact_id": "1001", "starred": "1"}
    name = "Chen, Alice=A"
    await state.insert(DATA, {"raw_contact_id": 1001, "mimetype": MIME + "name", "data1": name})
    await state.insert(
        DATA,
        {"raw_contact_id": "1001", "mimetype": MIME + "email_v2", "data1": "a@b.cn", "data2": 2},
    )
    rows = await state.query(DATA, ["mimetype", "data1", "data2"], "raw_contact_id=1001", "_id")
    assert rows == [
        {"mimetype": MIME + "name", "data1": name, "data2": "Chen,"},  # given, family
        {"mimetype": MIME + "email_v2", "data1": "a@b.cn", "data2": "2"},
    ]
    contact = state.state.apps["contacts"]["contacts"]["n001"]
    assert contact["name"] == name and contact["emails"] == [{"type": "work", "address": "a@b.cn"}]
    assert await state.query(CONTACTS, ["display_name"], f"display_name = '{name}'") == [
        {"display_name": name}
    ]


@pytest.mark.asyncio
async def test_update_starred_and_a_detail(state: SimAndroidState) -> None:
    await state.update(CONTACTS, {"starred": 1}, "display_name IN ('Bob', 'David')")
    starred = await state.query(CONTACTS, ["_id"], "starred=1 AND _id IN (8, 10)")
    assert starred == [{"_id": "8"}, {"_id": "10"}]
    await state.update(f"{DATA}/phones", {"data1": "+86 100 0000 0000", "data2": 3}, "contact_id=8")
    assert state.state.apps["contacts"]["contacts"]["c008"]["phones"] == [
        {"type": "work", "number": "+86 100 0000 0000"}
    ]
    await state.update(CONTACTS, {"starred": "0"}, "_id = 8")  # INTEGER: '0' is 0
    assert await state.query(f"{CONTACTS}/8", ["starred"]) == [{"starred": "0"}]


@pytest.mark.asyncio
async def test_delete_contacts_and_details(state: SimAndroidState) -> None:
    await state.delete(DATA, f"contact_id = 1 AND mimetype = '{MIME}email_v2'")
    assert await state.query(DATA, ["_id"], "contact_id=1 AND mimetype LIKE '%email%'") == []
    await state.delete(CONTACTS, "display_name = 'Bob' OR _id = 1")
    assert await state.query(CONTACTS, ["_id"], "_id IN (1, 8)") == []
    overlay = state.state.apps["contacts"]["contacts"]
    assert overlay["c001"] is None and overlay["c008"] is None


@pytest.mark.asyncio
async def test_provider_errors(state: SimAndroidState) -> None:
    with pytest.raises(ProviderError, match="no such column: nope") as caught:
        await state.query(CONTACTS, ["_id"], "nope = 1")
    assert caught.value.java_class == "android.database.sqlite.SQLiteException"
    with pytest.raises(ProviderError) as caught:
        await state.query(CONTACTS, ["_id"], "_id = 1 1")
    assert caught.value.java_class == "android.database.sqlite.SQLiteException"
    with pytest.raises(ProviderError, match="Expected 1 bind arguments") as caught:
        await state.delete(CONTACTS, "_id = ?")
    assert caught.value.java_class.endswith("SQLiteBindOrColumnIndexOutOfRangeException")
    with pytest.raises(ProviderError, match="Unknown URI") as caught:
        await state.query("content://com.android.contacts/groups", ["_id"])
    assert caught.value.java_class == "java.lang.IllegalArgumentException"
    with pytest.raises(ProviderError, match="created automatically") as caught:
        await state.insert(CONTACTS, {"display_name": "x"})
    assert caught.value.java_class == "java.lang.UnsupportedOperationException"
    with pytest.raises(StateUnavailable, match=re.escape("com.example.notes")):
        await state.query("content://com.example.notes/notes", ["_id"])


# ---- device facts and apps


@pytest.mark.asyncio
async def test_device_facts(sim: Simulator) -> None:
    instance = sim.create_instance(seed=0)
    state = SimAndroidState(sim.phone, instance.state, identity=DeviceIdentity(serial="S1"))
    assert await state.getprop("ro.product.model") == "23049RAD8C"
    assert await state.getprop("ro.serialno") == "S1"
    assert await state.getprop("persist.sys.timezone") == "Asia/Shanghai"
    assert await state.getprop("ro.not.set") == ""
    assert await state.now() == (DEFAULT_CLOCK_MS, "Asia/Shanghai")
    world = sim.phone.app("settings").world
    assert await state.wifi_ssid() == world["wifi"]["connected"]
    paired = [device["name"] for device in world["bluetooth"]["paired"]]
    assert await state.get_setting("global", "bluetooth_on") == "0"
    assert await state.bonded_devices() == paired and paired


@pytest.mark.asyncio
async def test_start_app_and_foreground(state: SimAndroidState) -> None:
    assert await state.foreground_package() == "com.android.launcher3"
    await state.start_app("com.android.contacts")
    assert await state.foreground_package() == "com.android.contacts"
    with pytest.raises(StateUnavailable, match=re.escape("com.example.absent")):
        await state.start_app("com.example.absent")
