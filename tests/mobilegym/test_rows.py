"""Provider rows and SMS over MobileGym: the Android tables synthesized from its JSON (pure,
over literal synthetic JSON), then on a live build — each table queried against
``getState()``, written and read back (a contact down to the Contacts app's list), updated
and deleted by ``_id``, SMS delivered into conversations, refusals with their reason — and
templates of the registry posed and judged end to end."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from datetime import datetime, timezone
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import pytest_asyncio

from bridge.android_contract import (
    ALARMS,
    CALENDARS,
    CONTACTS,
    DATA,
    EMAIL,
    EVENTS,
    NAME,
    ORGANIZATION,
    PHONE,
    RAW_CONTACTS,
    REMINDERS,
    SMS,
    SMS_CONVERSATIONS,
    SMS_INBOX,
    as_sync_adapter,
)
from bridge.android_state import BindValue
from bridge.errors import StateUnavailable
from bridge.judge import judge, pose
from bridge.spec.rows import RowsCheck
from bridge.spec.settings import PutSetting
from bridge.taskspec import TaskSpec
from mobilegym.android_state import MobileGymAndroidState
from mobilegym.android_state.rows import rows_refusal, rows_value_refusal
from mobilegym.android_state.rows_calendar import CALENDAR_ACCOUNT, calendar_tables
from mobilegym.android_state.rows_clock import alarms_table
from mobilegym.android_state.rows_contacts import contacts_tables
from mobilegym.android_state.rows_sms import said_at, shown_ms, sms_table, threads_table
from mobilegym.android_state.rows_table import Seen, own_id, stable_ids
from mobilegym.android_state.settings import settings_refusal
from mobilegym.android_state.sql_rows import select
from mobilegym.world import MobileGym
from sim.tasks.registry import default_registry

ZONE = "Asia/Shanghai"
TZ = ZoneInfo(ZONE)
NOW = int(datetime(2026, 5, 12, 9, 30, tzinfo=TZ).timestamp() * 1000)
BROWSER = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]


def at(year: int, month: int, day: int, hour: int = 0, minute: int = 0, second: int = 0) -> int:
    """Epoch ms of a local date-time in :data:`ZONE`."""
    return int(datetime(year, month, day, hour, minute, second, tzinfo=TZ).timestamp() * 1000)


def seen(data: Any) -> Seen:
    return Seen(data=data, now_ms=NOW, zone_name=ZONE)


# ---- pure: ids and tables over literal JSON


def test_stable_ids_are_derived_from_the_ids_alone() -> None:
    ids = stable_ids(["c_ada", own_id("c", 5), "c_bob"])
    assert ids[own_id("c", 5)] == 5
    assert all(1_000_000 <= ids[key] < 2**31 for key in ("c_ada", "c_bob"))
    assert stable_ids(["c_bob", "c_new", "c_ada"])["c_ada"] == ids["c_ada"]  # order, others
    assert len(set(stable_ids(f"c_{n}" for n in range(500)).values())) == 500


CONTACT_JSON: list[dict[str, Any]] = [
    {"id": "c_ada", "displayName": "Ada Lovelace", "starred": True, "company": "Engines",
     "title": "Analyst", "phones": [{"id": "p1", "label": "手机", "number": "+44 20 7946 0001"},
                                    {"id": "p2", "label": "客服", "number": "10000"}],
     "emails": [{"id": "e1", "label": "Work", "email": "ada@example.org"}]},
    {"id": "c_lin", "displayName": "林小雨", "phones": []},
]  # fmt: skip


def test_contacts_become_androids_three_tables() -> None:
    tables, data = contacts_tables(), seen(CONTACT_JSON)
    ada = stable_ids(c["id"] for c in CONTACT_JSON)["c_ada"]
    rows = select(
        tables["contacts"].sql, tables["contacts"].rows(data), [], None, "_id", uri=CONTACTS
    )
    assert {row["display_name"]: (row["starred"], row["has_phone_number"]) for row in rows} == {
        "Ada Lovelace": ("1", "1"), "林小雨": ("0", "0")
    }  # fmt: skip
    columns = ["_id", "mimetype", "data1", "data2", "data3", "data4"]
    data_rows = tables["data"].rows(data)
    details = select(tables["data"].sql, data_rows, columns, f"contact_id={ada}", "_id", uri=DATA)
    assert [(r["mimetype"], r["data1"], r["data2"], r["data3"], r["data4"]) for r in details] == [
        (NAME, "Ada Lovelace", "Ada", "Lovelace", None),
        (PHONE, "+44 20 7946 0001", "2", None, None),  # 手机: mobile
        (PHONE, "10000", "0", "客服", None),  # a custom label
        (EMAIL, "ada@example.org", "2", None, None),  # Work
        (ORGANIZATION, "Engines", "1", None, "Analyst"),
    ]
    assert [int(str(r["_id"])) - ada * 100 for r in details] == [0, 10, 11, 40, 80]
    lin = select(tables["data"].sql, tables["data"].rows(data), ["data2", "data3"],
                 f"mimetype='{NAME}' AND display_name='林小雨'", uri=DATA)  # fmt: skip
    assert lin == [{"data2": "小雨", "data3": "林"}]


EVENT_JSON: list[dict[str, Any]] = [
    {"id": "evt_trip", "type": "event", "title": "Trip", "allDay": True,
     "startTs": at(2026, 5, 14), "endTs": at(2026, 5, 16), "reminderMinutesBefore": None},
    {"id": "evt_call", "type": "event", "title": "Call", "allDay": False, "location": "Desk",
     "startTs": at(2026, 5, 13, 10), "endTs": at(2026, 5, 13, 11), "reminderMinutesBefore": 15,
     "alarmEnabled": True},
]  # fmt: skip


def test_events_are_androids_all_day_at_utc_midnight_one_reminder_each() -> None:
    tables, data = calendar_tables(), seen(EVENT_JSON)
    columns = ["title", "dtstart", "dtend", "allDay", "eventTimezone", "eventLocation", "hasAlarm"]
    rows = select(
        tables["events"].sql, tables["events"].rows(data), columns, None, "title", uri=EVENTS
    )
    utc = timezone.utc
    assert rows == [
        {"title": "Call", "dtstart": str(at(2026, 5, 13, 10)), "dtend": str(at(2026, 5, 13, 11)),
         "allDay": "0", "eventTimezone": ZONE, "eventLocation": "Desk", "hasAlarm": "1"},
        {"title": "Trip", "dtstart": str(int(datetime(2026, 5, 14, tzinfo=utc).timestamp() * 1000)),
         "dtend": str(int(datetime(2026, 5, 16, tzinfo=utc).timestamp() * 1000)), "allDay": "1",
         "eventTimezone": "UTC", "eventLocation": None, "hasAlarm": "0"},
    ]  # fmt: skip
    reminders = tables["reminders"]
    found = select(reminders.sql, reminders.rows(data), ["minutes", "method"], uri=REMINDERS)
    assert found == [{"minutes": "15", "method": "4"}]  # the event's alarm: METHOD_ALARM
    calendars = tables["calendars"]
    found = select(calendars.sql, calendars.rows(data), ["_id", "account_name"], uri=CALENDARS)
    assert found == [{"_id": "1", "account_name": CALENDAR_ACCOUNT}]


def test_alarm_repeats_become_daysofweek_and_an_unknown_one_is_refused() -> None:
    table = alarms_table()
    repeats = ["once", "daily", "weekday", "workday", "holiday"]
    alarms = [{"id": f"a{i}", "hour": 7, "minute": i, "enabled": True, "repeat": repeat}
              for i, repeat in enumerate(repeats)]  # fmt: skip
    rows = select(
        table.sql, table.rows(seen(alarms)), ["minutes", "daysofweek"], None, "minutes", uri=ALARMS
    )
    assert [row["daysofweek"] for row in rows] == ["0", "127", "31", "31", "96"]
    odd = seen([*alarms, {"id": "a9", "hour": 8, "minute": 0, "repeat": "lunar"}])
    assert select(table.sql, table.rows(odd), ["label"], "hour=8", uri=ALARMS) == [{"label": ""}]
    with pytest.raises(StateUnavailable, match="'lunar'"):
        select(table.sql, table.rows(odd), ["_id"], "daysofweek=0", uri=ALARMS)
    assert rows_value_refusal(ALARMS, "daysofweek", 127) is None
    assert "Monday to Friday" in str(rows_value_refusal(ALARMS, "daysofweek", 21))


def test_display_times_name_the_latest_such_moment_not_after_the_clock() -> None:
    assert shown_ms("09:05", NOW, TZ) == at(2026, 5, 12, 9, 5) + 59_999
    assert shown_ms("9:30", NOW, TZ) == NOW  # this minute: never after the clock
    assert shown_ms("15:17", NOW, TZ) == at(2026, 5, 11, 15, 17) + 59_999  # later: yesterday's
    assert shown_ms("昨天 7:34", NOW, TZ) == at(2026, 5, 11, 7, 34) + 59_999
    assert shown_ms("5月3日 08:00", NOW, TZ) == at(2026, 5, 3, 8, 0) + 59_999
    assert shown_ms("12月3日", NOW, TZ) == at(2025, 12, 4) - 1  # no year, later: last year's
    assert shown_ms("soon", NOW, TZ) is None
    for moment in (at(2026, 5, 12, 9, 5), at(2026, 5, 11, 23, 59), at(2026, 2, 1, 7, 0)):
        assert shown_ms(said_at(moment, NOW, TZ), NOW, TZ) == moment + 59_999


SMS_JSON: dict[str, Any] = {
    "conversations": [
        {"id": "bank", "sender": "Bank", "phoneNumber": "95500", "isUnread": True},
        {"id": "amy", "sender": "Amy", "isUnread": False},
    ],
    "messagesByConversationId": {
        "bank": [{"id": "b1", "content": "hi", "timestamp": "9:20", "isOutgoing": False},
                 {"id": "b2", "content": "TD", "timestamp": "9:20", "isOutgoing": True,
                  "status": "sent"},
                 {"id": own_id("msg", 7, str(at(2026, 5, 12, 9, 25, 30))), "content": "ok",
                  "timestamp": "09:25", "isOutgoing": False}],
        "amy": [{"id": "a1", "content": "yo", "timestamp": "someday", "isOutgoing": False}],
    },
}  # fmt: skip


def test_sms_rows_dates_and_read_state_follow_the_documented_rules() -> None:
    table, data = sms_table(), seen(SMS_JSON)
    columns = ["_id", "address", "type", "read", "body", "date"]
    rows = select(table.sql, table.rows(data), columns, "address='95500'", uri=SMS)
    assert [(r["type"], r["read"], r["body"]) for r in rows] == [
        ("1", "1", "hi"), ("2", "1", "TD"), ("1", "0", "ok")  # unread: after the last sent
    ]  # fmt: skip
    minute_end = at(2026, 5, 12, 9, 20) + 59_999
    assert [r["date"] for r in rows] == [
        str(minute_end - 1), str(minute_end), str(at(2026, 5, 12, 9, 25, 30))  # exact: ours
    ]  # fmt: skip
    assert rows[2]["_id"] == "7"
    inbox = select(
        table.sql, table.rows(data), ["body"], None, uri=SMS_INBOX, filters=["\"type\" = '1'"]
    )
    assert [r["body"] for r in inbox] == ["hi", "ok", "yo"]
    with pytest.raises(StateUnavailable, match="'someday'"):
        select(table.sql, table.rows(data), ["date"], "address='Amy'", uri=SMS)
    threads = threads_table()
    found = select(
        threads.sql,
        threads.rows(data),
        ["read", "message_count", "snippet"],
        "read=0",
        uri=SMS_CONVERSATIONS,
    )
    assert found == [{"read": "0", "message_count": "3", "snippet": "ok"}]


def test_rows_refusal_says_what_mobilegym_cannot_serve() -> None:
    for uri in (CONTACTS, RAW_CONTACTS, DATA, f"{DATA}/phones", EVENTS, REMINDERS, CALENDARS,
                ALARMS, SMS, SMS_INBOX, f"{SMS_CONVERSATIONS}?simple=true", f"{CONTACTS}/12",
                as_sync_adapter(CALENDARS, CALENDAR_ACCOUNT)):  # fmt: skip
        assert rows_refusal(uri) is None, uri
    assert "no provider 'media'" in str(rows_refusal("content://media/external/images"))
    assert "one calendar" in str(rows_refusal(as_sync_adapter(CALENDARS, "work")))
    assert "no table" in str(rows_refusal("content://com.android.contacts/groups"))
    assert "no rows" in str(rows_refusal(f"{CONTACTS}/abc"))


# ---- live: one MobileGym phone for the module


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def state(gym: MobileGym) -> AsyncIterator[MobileGymAndroidState]:
    """One MobileGym phone, read and written through the adapter."""
    page = await gym.page()
    try:
        yield MobileGymAndroidState(page, timezone=gym.timezone)
    finally:
        await page.close()


async def json_at(state: MobileGymAndroidState, *path: str) -> Any:
    """The JSON at ``path`` of ``__SIM__.getState()``."""
    node: Any = await state.page.state()
    for part in path:
        node = node[part]
    return node


@pytest.mark.browser
@pytest.mark.asyncio(loop_scope="module")
async def test_each_table_answers_as_its_json_says(state: MobileGymAndroidState) -> None:
    contacts = await json_at(state, "os", "providers", "contacts", "contacts")
    starred = await state.query(CONTACTS, ["display_name"], "starred=1", "display_name")
    assert [r["display_name"] for r in starred] == sorted(
        c["displayName"] for c in contacts if c.get("starred")
    )
    person = contacts[0]
    phones = await state.query(
        DATA, ["data1"], f"display_name='{person['displayName']}' AND mimetype='{PHONE}'", "_id"
    )
    assert [r["data1"] for r in phones] == [p["number"] for p in person["phones"]]
    alarms = await json_at(state, "apps", "clock", "alarms")
    on = await state.query(ALARMS, ["hour", "minutes", "label"], "enabled=1", "hour, minutes")
    assert on == [
        {"hour": str(a["hour"]), "minutes": str(a["minute"]), "label": a.get("note", "")}
        for a in sorted(alarms, key=lambda a: (a["hour"], a["minute"]))
        if a["enabled"]
    ]
    sms = await json_at(state, "os", "providers", "sms")
    unread = await state.query(f"{SMS_CONVERSATIONS}?simple=true", ["_id"], "read=0")
    assert len(unread) == sum(1 for c in sms["conversations"] if c["isUnread"])
    bodies = await state.query(SMS, ["body"], None, "date")
    assert sorted(str(r["body"]) for r in bodies) == sorted(
        m["content"] for items in sms["messagesByConversationId"].values() for m in items
    )


@pytest.mark.browser
@pytest.mark.asyncio(loop_scope="module")
async def test_a_contact_round_trips_and_shows_in_the_contacts_app(
    state: MobileGymAndroidState,
) -> None:
    await state.insert(RAW_CONTACTS, {"account_type": None, "account_name": None})
    raw = max(int(str(r["_id"])) for r in await state.query(RAW_CONTACTS, ["_id"]))
    details: list[dict[str, str | int]] = [
        {"mimetype": NAME, "data1": "Zelda Quarry"},
        {"mimetype": PHONE, "data1": "+1 415 555 0199", "data2": 2},
        {"mimetype": EMAIL, "data1": "zelda@example.org", "data2": 2},
        {"mimetype": ORGANIZATION, "data1": "Quarry Ltd", "data4": "Owner"},
    ]
    for detail in details:
        await state.insert(DATA, {"raw_contact_id": raw, **detail})
    where = "display_name='Zelda Quarry'"
    found = await state.query(DATA, ["mimetype", "data1", "data2"], where, "_id")
    assert [(r["mimetype"], r["data1"]) for r in found] == [
        (NAME, "Zelda Quarry"), (PHONE, "+1 415 555 0199"), (EMAIL, "zelda@example.org"),
        (ORGANIZATION, "Quarry Ltd"),
    ]  # fmt: skip
    held = next(c for c in await json_at(state, "os", "providers", "contacts", "contacts")
                if c["displayName"] == "Zelda Quarry")  # fmt: skip
    assert held["id"] == own_id("c", raw) and held["company"] == "Quarry Ltd"
    assert [(p["label"], p["number"]) for p in held["phones"]] == [("手机", "+1 415 555 0199")]
    assert [(e["label"], e["email"]) for e in held["emails"]] == [("工作", "zelda@example.org")]
    await state.page.call("() => window.__OS__.openApp('contacts')")
    await state.page.page.get_by_text("联系人", exact=True).last.click()
    await state.page.page.wait_for_function(
        "(name) => document.body.innerText.includes(name)", arg="Zelda Quarry", timeout=15_000
    )
    await state.page.call("() => window.__OS__.goHome()")

    phone_id = (await state.query(DATA, ["_id"], f"{where} AND mimetype='{PHONE}'"))[0]["_id"]
    await state.update(DATA, {"data1": "+1 415 555 0100"}, f"_id={phone_id}")
    await state.update(CONTACTS, {"starred": 1}, f"_id={raw}")
    await state.delete(DATA, f"{where} AND mimetype='{EMAIL}'")
    assert await state.query(DATA, ["_id", "data1"], f"_id={phone_id}") == [
        {"_id": phone_id, "data1": "+1 415 555 0100"}  # the same row, by its stable _id
    ]
    assert await state.query(CONTACTS, ["starred"], f"_id={raw}") == [{"starred": "1"}]
    assert await state.query(DATA, ["_id"], f"{where} AND mimetype='{EMAIL}'") == []
    await state.delete(RAW_CONTACTS, f"_id={raw}")
    assert await state.query(CONTACTS, ["_id"], where) == []


@pytest.mark.browser
@pytest.mark.asyncio(loop_scope="module")
async def test_events_and_their_one_reminder_round_trip(state: MobileGymAndroidState) -> None:
    start, end = at(2026, 5, 14, 15, 0), at(2026, 5, 14, 16, 30)
    event: dict[str, BindValue] = {"calendar_id": 1, "title": "Kiln firing", "dtstart": start,
                                   "dtend": end, "eventTimezone": ZONE,
                                   "eventLocation": "Studio 4"}  # fmt: skip
    await state.insert(EVENTS, event)
    day = int(datetime(2026, 5, 20, tzinfo=timezone.utc).timestamp() * 1000)
    holiday: dict[str, BindValue] = {"calendar_id": 1, "title": "Kiln holiday", "dtstart": day,
               "dtend": day + 86_400_000, "allDay": 1, "eventTimezone": "UTC"}  # fmt: skip
    await state.insert(EVENTS, holiday)
    rows = await state.query(EVENTS, ["_id", "title", "dtstart", "dtend", "allDay"],
                             "title LIKE 'kiln%'", "dtstart")  # fmt: skip
    assert [(r["title"], r["dtstart"], r["dtend"], r["allDay"]) for r in rows] == [
        ("Kiln firing", str(start), str(end), "0"),
        ("Kiln holiday", str(day), str(day + 86_400_000), "1"),
    ]
    events = {e["title"]: e for e in await json_at(state, "apps", "calendar", "events")}
    assert events["Kiln firing"]["location"] == "Studio 4"
    assert events["Kiln holiday"]["startTs"] == at(2026, 5, 20)  # MobileGym's local midnight
    assert events["Kiln holiday"]["endTs"] == at(2026, 5, 21)
    firing = rows[0]["_id"]
    await state.insert(REMINDERS, {"event_id": int(str(firing)), "minutes": 30, "method": 1})
    with pytest.raises(StateUnavailable, match="one reminder per event"):
        await state.insert(REMINDERS, {"event_id": int(str(firing)), "minutes": 10})
    assert await state.query(REMINDERS, ["event_id", "minutes"], f"event_id={firing}") == [
        {"event_id": firing, "minutes": "30"}
    ]
    await state.update(EVENTS, {"eventLocation": "Yard"}, f"_id={firing}")
    events = {e["title"]: e for e in await json_at(state, "apps", "calendar", "events")}
    assert events["Kiln firing"]["location"] == "Yard"
    assert events["Kiln firing"]["reminderMinutesBefore"] == 30
    await state.delete(REMINDERS, f"event_id={firing}")
    await state.delete(EVENTS, "title LIKE 'kiln%'")
    assert await state.query(EVENTS, ["_id"], "title LIKE 'kiln%'") == []
    with pytest.raises(StateUnavailable, match="one calendar"):
        await state.insert(EVENTS, {**event, "calendar_id": 2})


@pytest.mark.browser
@pytest.mark.asyncio(loop_scope="module")
async def test_alarms_round_trip_and_the_alarm_manager_follows(
    state: MobileGymAndroidState,
) -> None:
    values: dict[str, BindValue] = {
        "hour": 5, "minutes": 55, "label": "Bake", "enabled": 1, "daysofweek": 127
    }  # fmt: skip
    await state.insert(ALARMS, values)
    [row] = await state.query(ALARMS, ["_id", "daysofweek", "label"], "hour=5 AND minutes=55")
    alarm = next(a for a in await json_at(state, "apps", "clock", "alarms") if a["minute"] == 55)
    assert (alarm["id"], alarm["repeat"], alarm["note"]) == (own_id("a", int(str(row["_id"]))),
                                                             "daily", "Bake")  # fmt: skip
    managed = await json_at(state, "os", "services", "alarm_manager", "alarms")
    assert any(entry["id"] == alarm["id"] for entry in managed.values())
    await state.update(ALARMS, {"daysofweek": 31, "enabled": 0}, f"_id={row['_id']}")
    assert await state.query(ALARMS, ["daysofweek", "enabled"], f"_id={row['_id']}") == [
        {"daysofweek": "31", "enabled": "0"}
    ]
    with pytest.raises(StateUnavailable, match="Monday to Friday"):
        await state.update(ALARMS, {"daysofweek": 21}, f"_id={row['_id']}")
    await state.delete(ALARMS, f"_id={row['_id']}")
    assert await state.query(ALARMS, ["_id"], "hour=5 AND minutes=55") == []


@pytest.mark.browser
@pytest.mark.asyncio(loop_scope="module")
async def test_delivered_sms_land_in_their_conversation(state: MobileGymAndroidState) -> None:
    now, _ = await state.now()
    await state.deliver_sms("+86 177 1234 5699", "first", now - 600_000, read=False)
    await state.deliver_sms("+8617712345699", "second", now - 60_000, read=False)
    where = "address LIKE '%5699'"
    rows = await state.query(SMS_INBOX, ["thread_id", "date", "read", "body"], where, "date")
    assert [(r["date"], r["read"], r["body"]) for r in rows] == [
        (str(now - 600_000), "0", "first"), (str(now - 60_000), "0", "second")
    ]  # fmt: skip
    assert rows[0]["thread_id"] == rows[1]["thread_id"]  # one conversation per number
    sms = await json_at(state, "os", "providers", "sms")
    opened = sms["conversations"][0]
    assert opened["phoneNumber"] == "+86 177 1234 5699" and opened["isUnread"]
    shown = [m["content"] for m in sms["messagesByConversationId"][opened["id"]]]
    assert shown == ["first", "second"]
    await state.insert(SMS, {"address": "+8617712345699", "body": "forged"})  # the shell's: dropped
    await state.deliver_sms("+8617712345699", "third", now, read=True)
    assert {r["read"] for r in await state.query(SMS_INBOX, ["read"], where)} == {"1"}
    await state.delete_sms(f"{where} AND body='first'")
    assert [r["body"] for r in await state.query(SMS, ["body"], where, "date")] == [
        "second", "third"
    ]  # fmt: skip
    await state.delete_sms(where)
    sms = await json_at(state, "os", "providers", "sms")
    assert opened["id"] not in {c["id"] for c in sms["conversations"]}


@pytest.mark.browser
@pytest.mark.asyncio(loop_scope="module")
async def test_what_mobilegym_cannot_hold_is_refused_with_why(
    state: MobileGymAndroidState,
) -> None:
    with pytest.raises(StateUnavailable, match="colours events"):
        await state.query(CALENDARS, ["calendar_color"])
    with pytest.raises(StateUnavailable, match="one alarm sound"):
        await state.query(ALARMS, ["_id", "ringtone"])
    with pytest.raises(StateUnavailable, match="no provider 'media'"):
        await state.query("content://media/external/images", ["_id"])
    with pytest.raises(StateUnavailable, match="one calendar"):
        await state.insert(as_sync_adapter(CALENDARS, "work"), {"name": "Work"})
    with pytest.raises(StateUnavailable, match="made by the provider"):
        await state.insert(CONTACTS, {"display_name": "x"})
    with pytest.raises(StateUnavailable, match="belong to no account"):
        await state.insert(RAW_CONTACTS, {"account_type": "com.google", "account_name": "a"})


# ---- live: templates posed and judged end to end


def rows_spec(task_id: str, seed: int = 0) -> TaskSpec:
    """The template's spec without the settings MobileGym's settings surface refuses (the
    24-hour clock of Calendar's and Clock's templates): these tests judge the rows."""
    spec = default_registry().instantiate(task_id, seed, "en").spec
    assert spec is not None
    ensure = [
        op
        for op in spec.ensure
        if not (isinstance(op, PutSetting) and settings_refusal(op.namespace, op.key, op.value))
    ]
    return spec.model_copy(update={"ensure": ensure})


def checks(spec: TaskSpec) -> list[RowsCheck]:
    return [check for check in spec.checks if isinstance(check, RowsCheck)]


def quoted(where: str | None, column: str) -> str:
    found = re.search(rf"{column}='([^']*)'", where or "")
    assert found is not None, where
    return found.group(1)


async def judged(spec: TaskSpec, state: MobileGymAndroidState, goal: Any) -> None:
    """Pose ``spec``; nothing done fails; ``goal(start)`` makes it succeed, cleanly."""
    start = await pose(spec, state)
    assert not (await judge(spec, state, start)).success
    await goal(start)
    verdict = await judge(spec, state, start)
    assert verdict.success, verdict.checks
    assert verdict.side_effects == []


@pytest.mark.browser
@pytest.mark.asyncio(loop_scope="module")
async def test_a_contacts_template_end_to_end(state: MobileGymAndroidState) -> None:
    spec = rows_spec("contacts/CreateContactWorkEmail-v1")
    name = quoted(checks(spec)[0].where, "display_name")
    email = str(next(c.value for c in checks(spec) if c.column == "data1"))

    async def goal(_: Any) -> None:
        await state.insert(RAW_CONTACTS, {"account_type": None, "account_name": None})
        raw = max(int(str(r["_id"])) for r in await state.query(RAW_CONTACTS, ["_id"]))
        await state.insert(DATA, {"raw_contact_id": raw, "mimetype": NAME, "data1": name})
        await state.insert(
            DATA, {"raw_contact_id": raw, "mimetype": EMAIL, "data1": email, "data2": 2}
        )

    await judged(spec, state, goal)


@pytest.mark.browser
@pytest.mark.asyncio(loop_scope="module")
async def test_a_calendar_template_end_to_end(state: MobileGymAndroidState) -> None:
    spec = rows_spec("calendar/CreateEventWithReminder-v1")
    title = quoted(checks(spec)[0].where, "title")
    minutes = next(c.value for c in checks(spec) if c.column == "minutes")
    assert isinstance(minutes, int)

    async def goal(start: Any) -> None:
        dtstart, dtend = start.truths["start"][0], start.truths["end"][0]
        await state.insert(EVENTS, {"calendar_id": 1, "title": title, "dtstart": dtstart,
                                    "dtend": dtend, "eventTimezone": ZONE})  # fmt: skip
        [event] = await state.query(EVENTS, ["_id"], f"title='{title}'")
        await state.insert(REMINDERS, {"event_id": int(str(event["_id"])), "minutes": minutes})

    await judged(spec, state, goal)


@pytest.mark.browser
@pytest.mark.asyncio(loop_scope="module")
async def test_a_clock_alarm_rows_template_end_to_end(state: MobileGymAndroidState) -> None:
    spec = rows_spec("clock/SetAlarmRepeat-v1")
    days = next(c for c in checks(spec) if c.column == "daysofweek")
    assert isinstance(days.value, int)
    value = days.value

    async def goal(_: Any) -> None:
        await state.update(ALARMS, {"daysofweek": value}, days.where)

    await judged(spec, state, goal)


@pytest.mark.browser
@pytest.mark.asyncio(loop_scope="module")
async def test_messages_templates_end_to_end(state: MobileGymAndroidState) -> None:
    spec = rows_spec("messages/DeleteConversations-v1")

    async def delete(_: Any) -> None:
        for check in checks(spec):
            if check.value == 0:
                await state.delete_sms(str(check.where))

    await judged(spec, state, delete)
    spec = rows_spec("messages/ReplyToLatestUnread-v1")
    body = quoted(checks(spec)[1].where, "body")

    async def reply(start: Any) -> None:
        """Send as MobileGym's Messages app sends: its provider, the clock's minute shown."""
        latest = str(start.truths["latest"][0])
        await state.page.call(
            """([address, body]) => {
              const c = window.__SIM__.getState().os.providers.sms.conversations
                .find((c) => c.phoneNumber === address);
              const now = new Date(window.__SIM_TIME__.now());
              const shown = [now.getHours(), now.getMinutes()]
                .map((n) => String(n).padStart(2, "0")).join(":");
              const message = {
                id: "msg_reply", content: body, timestamp: shown, isOutgoing: true, status: "sent",
              };
              window.__OS__.content.insert(
                `content://sms/messages?conversationId=${c.id}`, message);
            }""",
            [latest, body],
        )

    await judged(spec, state, reply)
