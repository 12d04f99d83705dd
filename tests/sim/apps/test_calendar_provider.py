"""CalendarContract over the simulated calendar: reads, writes, refusals, sync adapters."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

import pytest

from sim.apps.calendar import CalendarApp
from sim.apps.calendar.times import DAY_MS, local_ms, utc_midnight_ms
from sim.phone import Phone
from sim.providers import ContentResolver, ProviderError, format_value
from sim.providers.errors import ILLEGAL_ARGUMENT, UNSUPPORTED_OPERATION
from sim.screen import render_screen
from sim.state import InstanceState

BASE = "content://com.android.calendar"
EVENTS, REMINDERS, CALENDARS = f"{BASE}/events", f"{BASE}/reminders", f"{BASE}/calendars"
SYNC = f"{CALENDARS}?caller_is_syncadapter=true&account_name=mobilegym&account_type=LOCAL"
START = local_ms(datetime(2026, 5, 21, 9, 0))


@pytest.fixture(scope="module")
def phone() -> Phone:
    return Phone([CalendarApp()])


@pytest.fixture
def resolver(phone: Phone) -> ContentResolver:
    return ContentResolver(phone)


@pytest.fixture
def state() -> InstanceState:
    return InstanceState()


def rows(
    resolver: ContentResolver, state: InstanceState, uri: str, columns: str, **kw: Any
) -> list[dict[str, Any]]:
    cursor = resolver.query(state, uri, columns.split(":"), **kw)
    return [dict(zip(cursor.columns, row, strict=True)) for row in cursor.rows]


def event(**values: Any) -> dict[str, Any]:
    """Binds of an ordinary event insert (one hour from START in the owner's calendar)."""
    base = {
        "calendar_id": 1,
        "title": "牙医复诊",
        "dtstart": START,
        "dtend": START + 3_600_000,
        "eventTimezone": "Asia/Shanghai",
    }
    return {**base, **values}


def test_query_where_sort_and_projection(resolver: ContentResolver, state: InstanceState) -> None:
    found = rows(
        resolver,
        state,
        EVENTS,
        "_id:title:dtstart",
        where="deleted=0 AND title='团队周会'",
        sort="dtstart DESC",
    )
    assert [r["_id"] for r in found] == [16, 13, 5, 1]
    assert found[-1]["dtstart"] == local_ms(datetime(2026, 5, 5, 10))
    like = rows(
        resolver,
        state,
        EVENTS,
        "title",
        where="title LIKE '%项目%' OR description LIKE '%项目%'",
        sort="dtstart",
    )
    assert like[0]["title"] == "团队周会" and len(like) == 6
    [flight] = rows(
        resolver,
        state,
        EVENTS,
        "hasAlarm:allDay:eventTimezone:duration:rrule:calendar_displayName",
        where="title='Flight to Shanghai'",
    )
    assert flight == {
        "hasAlarm": 1,
        "allDay": 0,
        "eventTimezone": "Asia/Shanghai",
        "duration": None,
        "rrule": None,
        "calendar_displayName": "My calendar",
    }
    assert rows(
        resolver, state, REMINDERS, "minutes:method", where="event_id=12", sort="minutes"
    ) == [{"minutes": 60, "method": 1}, {"minutes": 1440, "method": 1}]
    [calendar] = rows(
        resolver, state, CALENDARS, "_id:name:account_type:calendar_access_level:visible"
    )
    assert calendar == {
        "_id": 1,
        "name": "My calendar",
        "account_type": "LOCAL",
        "calendar_access_level": 700,
        "visible": 1,
    }
    assert rows(resolver, state, f"{EVENTS}/9", "title:allDay") == [
        {"title": "妈妈生日", "allDay": 1}
    ]
    cursor = resolver.query(state, EVENTS, None, "_id=1")
    assert cursor.columns[:4] == ("_id", "calendar_id", "title", "description")


def test_all_day_events_sit_at_utc_midnight(
    resolver: ContentResolver, state: InstanceState
) -> None:
    [birthday] = rows(resolver, state, EVENTS, "dtstart:dtend:eventTimezone", where="_id=9")
    assert birthday["dtstart"] == utc_midnight_ms(date(2026, 5, 16))
    assert birthday["dtend"] - birthday["dtstart"] == DAY_MS and birthday["eventTimezone"] == "UTC"
    new_id = resolver.insert(
        state, EVENTS, event(allDay=1, dtstart=START, dtend=START, eventTimezone="Asia/Shanghai")
    )
    [fixed] = rows(resolver, state, f"{EVENTS}/{new_id}", "dtstart:dtend:eventTimezone")
    assert fixed == {
        "dtstart": utc_midnight_ms(date(2026, 5, 21)),
        "dtend": utc_midnight_ms(date(2026, 5, 22)),
        "eventTimezone": "UTC",
    }


def test_insert_update_delete_events_and_reminders(
    phone: Phone, resolver: ContentResolver, state: InstanceState
) -> None:
    new_id = resolver.insert(state, EVENTS, event(description="带上病历"))
    assert new_id == 22
    assert rows(resolver, state, f"{EVENTS}/22", "title:hasAlarm:deleted") == [
        {"title": "牙医复诊", "hasAlarm": 0, "deleted": 0}
    ]
    reminder = resolver.insert(state, REMINDERS, {"event_id": 22, "minutes": 15, "method": 1})
    assert rows(resolver, state, f"{EVENTS}/22", "hasAlarm") == [{"hasAlarm": 1}]
    resolver.update(state, REMINDERS, {"minutes": 30}, f"_id={reminder}")
    assert rows(resolver, state, REMINDERS, "minutes", where="event_id=22") == [{"minutes": 30}]
    moved = START + 2 * 3_600_000
    assert (
        resolver.update(
            state, EVENTS, {"dtstart": moved, "dtend": moved + 5_400_000}, "title='牙医复诊'"
        )
        == 1
    )
    assert rows(resolver, state, f"{EVENTS}/22", "dtstart:dtend") == [
        {"dtstart": moved, "dtend": moved + 5_400_000}
    ]
    state.os.foreground, state.os.tasks = None, []
    phone.launch(state, "calendar")
    state.os.route.params.update(view="day", day="2026-05-21")  # type: ignore[union-attr]
    html = render_screen(phone, state)
    assert "牙医复诊" in html and "11:00 – 12:30" in html  # the app reads the same rows
    assert resolver.delete(state, EVENTS, "_id=22") == 1
    assert rows(resolver, state, EVENTS, "_id", where="_id=22") == []
    assert rows(resolver, state, REMINDERS, "_id", where="event_id=22") == []
    resolver.delete(state, REMINDERS, "event_id=12")
    assert rows(resolver, state, f"{EVENTS}/12", "hasAlarm") == [{"hasAlarm": 0}]
    assert format_value(rows(resolver, state, f"{EVENTS}/12", "rrule")[0]["rrule"]) == "NULL"


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"calendar_id": None}, "calendar_id is required"),
        ({"dtstart": None}, "dtstart is required"),
        ({"eventTimezone": None}, "eventTimezone is required"),
        ({"dtend": None}, "dtend is required for a non-recurring event"),
        ({"dtend": None, "duration": "PT1H", "rrule": "FREQ=WEEKLY"}, "recurring events"),
        ({"duration": "PT1H"}, "both dtend and duration"),
        ({"calendar_id": 7}, "calendar_id 7 is not a calendar"),
        ({"dtstart": "tomorrow"}, "dtstart must be an integer"),
        ({"organizer": "me"}, "column 'organizer' cannot be written"),
    ],
)
def test_event_inserts_are_refused_as_android_refuses_them(
    resolver: ContentResolver, state: InstanceState, values: dict[str, Any], message: str
) -> None:
    binds = {k: v for k, v in event(**values).items() if v is not None}
    with pytest.raises(ProviderError, match=message) as caught:
        resolver.insert(state, EVENTS, binds)
    assert caught.value.java_class == ILLEGAL_ARGUMENT
    assert rows(resolver, state, EVENTS, "count(*)") == [{"count(*)": 21}]


def test_other_refusals(resolver: ContentResolver, state: InstanceState) -> None:
    with pytest.raises(ProviderError, match="minutes is required"):
        resolver.insert(state, REMINDERS, {"event_id": 1})
    with pytest.raises(ProviderError, match="event_id 99 is not an event"):
        resolver.insert(state, REMINDERS, {"event_id": 99, "minutes": 5})
    with pytest.raises(ProviderError, match="calendar_id 3 is not a calendar"):
        resolver.update(state, EVENTS, {"calendar_id": 3}, "_id=1")
    with pytest.raises(ProviderError, match="dtstart cannot be NULL"):
        resolver.update(state, EVENTS, {"dtstart": None}, "_id=1")
    with pytest.raises(ProviderError, match="only a sync adapter may create a calendar") as caught:
        resolver.insert(state, CALENDARS, {"account_name": "mobilegym", "account_type": "LOCAL"})
    assert caught.value.java_class == UNSUPPORTED_OPERATION
    assert "caller_is_syncadapter=true&account_name=NAME" in str(caught.value)
    with pytest.raises(ProviderError, match="must name its account"):
        resolver.insert(state, f"{CALENDARS}?caller_is_syncadapter=true", {"name": "x"})
    with pytest.raises(ProviderError, match="is not the URI's account"):
        resolver.insert(state, SYNC, {"account_name": "someone-else"})
    with pytest.raises(ProviderError, match="cannot be written into calendars by this caller"):
        resolver.update(state, CALENDARS, {"account_name": "x"}, "_id=1")
    with pytest.raises(ProviderError, match="only a sync adapter may delete a calendar"):
        resolver.delete(state, CALENDARS, "_id=1")
    assert rows(resolver, state, CALENDARS, "_id") == [{"_id": 1}]


def test_a_sync_adapter_calendar_and_its_events_show_in_the_app(
    phone: Phone, resolver: ContentResolver, state: InstanceState
) -> None:
    calendar_id = resolver.insert(
        state,
        SYNC,
        {"name": "mobilegym", "calendar_displayName": "MobileGym", "calendar_color": -16711936},
    )
    assert calendar_id == 2
    [row] = rows(
        resolver,
        state,
        CALENDARS,
        "account_name:account_type:ownerAccount:visible:"
        "sync_events:calendar_access_level:calendar_timezone",
        where="_id=2",
    )
    assert row == {
        "account_name": "mobilegym",
        "account_type": "LOCAL",
        "ownerAccount": "mobilegym",
        "visible": 1,
        "sync_events": 1,
        "calendar_access_level": 700,
        "calendar_timezone": "Asia/Shanghai",
    }
    seeded = resolver.insert(state, EVENTS, event(calendar_id=2, title="Seeded meeting"))
    [joined] = rows(
        resolver, state, EVENTS, "account_name:calendar_displayName", where=f"_id={seeded}"
    )
    assert joined == {"account_name": "mobilegym", "calendar_displayName": "MobileGym"}
    phone.launch(state, "calendar")
    state.os.route.params.update(view="agenda", day="2026-05-21")  # type: ignore[union-attr]
    assert "Seeded meeting" in render_screen(phone, state)
    resolver.update(state, CALENDARS, {"visible": 0}, "_id=2")  # anyone may hide a calendar
    assert "Seeded meeting" not in render_screen(phone, state)
    resolver.update(state, CALENDARS, {"visible": 1}, "_id=2")
    state.os.route.params["view"] = "month"  # type: ignore[union-attr]
    assert "21 May 2026, 1 event" in render_screen(phone, state)
    assert resolver.delete(state, SYNC, "_id=2") == 1
    assert rows(resolver, state, EVENTS, "_id", where=f"_id={seeded}") == []
    assert "21 May 2026, 1 event" not in render_screen(phone, state)
