"""The Calendar app without a browser: model, times, editor drafts, handler flows, renders."""

from __future__ import annotations

import json
from datetime import date, datetime, time
from html.parser import HTMLParser
from importlib import resources
from typing import Any

import pytest

from sim.app import AppContext, Event
from sim.apps.calendar import CalendarApp
from sim.apps.calendar import editor as ed
from sim.apps.calendar.model import (
    add_reminder,
    agenda,
    create_calendar,
    day_events,
    delete_calendar,
    delete_event,
    event_reminders,
    get_row,
    put_row,
    remove_reminder,
    save_event,
    search,
    table_rows,
    visible_events,
    world_tables,
)
from sim.apps.calendar.times import (
    DAY_MS,
    event_days,
    local_datetime,
    local_ms,
    parse_world_time,
    utc_midnight_ms,
)
from sim.render import TemplateRenderer
from sim.state import DEFAULT_CLOCK_MS, AppTask, InstanceState

MAY_12 = date(2026, 5, 12)

# ---------------------------------------------------------------- helpers


class _Nodes(HTMLParser):
    """``data-class`` elements of rendered HTML: their attributes and own text."""

    def __init__(self) -> None:
        super().__init__()
        self.nodes: list[dict[str, Any]] = []
        self._open: list[dict[str, Any] | None] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("path", "style"):
            return
        node = {"attrs": {k: v or "" for k, v in attrs}, "text": ""}
        if "data-class" in node["attrs"]:
            self.nodes.append(node)
        self._open.append(node if "data-class" in node["attrs"] else None)

    def handle_endtag(self, tag: str) -> None:
        if tag not in ("path", "style") and self._open:
            self._open.pop()

    def handle_data(self, data: str) -> None:
        node = next((n for n in reversed(self._open) if n is not None), None)
        if node is not None:
            node["text"] += data.strip()


def nodes(html: str, **attrs: str) -> list[dict[str, Any]]:
    """UI nodes whose ``data-*`` attributes match (``rid="title"`` → ``data-rid``)."""
    parser = _Nodes()
    parser.feed(html)
    wanted = {f"data-{k.replace('_', '-')}": v for k, v in attrs.items()}
    return [n for n in parser.nodes if all(n["attrs"].get(k) == v for k, v in wanted.items())]


def by_class(html: str, class_name: str) -> list[dict[str, Any]]:
    """UI nodes of one Android class."""
    return nodes(html, **{"class": class_name})


def texts(html: str, **attrs: str) -> list[str]:
    """Own texts of the matching nodes, in document order."""
    return [n["text"] for n in nodes(html, **attrs)]


@pytest.fixture(scope="module")
def app() -> CalendarApp:
    return CalendarApp()


@pytest.fixture(scope="module")
def renderer(app: CalendarApp) -> TemplateRenderer:
    return TemplateRenderer([app])


def make_ctx(app: CalendarApp, renderer: TemplateRenderer, lang: str = "en") -> AppContext:
    """A fresh instance with Calendar in front on its month view."""
    state = InstanceState()
    state.os.tasks = [AppTask(app="calendar")]
    state.os.foreground = "calendar"
    if lang == "zh":
        state.os.settings["system"]["system_locales"] = "zh-CN"
    return AppContext(app, state, renderer.render)


@pytest.fixture
def ctx(app: CalendarApp, renderer: TemplateRenderer) -> AppContext:
    return make_ctx(app, renderer)


def tap(ctx: AppContext, action: str, **args: object) -> None:
    ctx.app.handle(ctx, Event("tap", action, {k: str(v) for k, v in args.items()}))


def back(ctx: AppContext) -> None:
    """The back key as the OS applies it to the app."""
    if not ctx.app.on_back(ctx):
        ctx.back()


def render(ctx: AppContext) -> str:
    return ctx.app.render(ctx)


def events(ctx: AppContext) -> list[dict[str, Any]]:
    return table_rows(ctx.world, ctx.data, "events")


def titled(ctx: AppContext, title: str) -> list[dict[str, Any]]:
    return [e for e in events(ctx) if e["title"] == title]


def paths(ctx: AppContext) -> list[str]:
    task = ctx.os.task("calendar")
    assert task is not None
    return [route.path for route in task.stack]


# ---------------------------------------------------------------- times


def test_local_times_are_utc_plus_8() -> None:
    start = datetime(2026, 5, 12, 9, 30)
    assert local_ms(start) == DEFAULT_CLOCK_MS
    assert local_datetime(DEFAULT_CLOCK_MS) == start
    assert parse_world_time("2026-05-12T09:30") == (DEFAULT_CLOCK_MS, False)
    assert parse_world_time("2026-05-16") == (utc_midnight_ms(date(2026, 5, 16)), True)
    assert utc_midnight_ms(date(1970, 1, 2)) == DAY_MS


def test_event_days_for_timed_and_all_day_events() -> None:
    midnight = local_ms(datetime(2026, 5, 13))
    timed = {"dtstart": midnight - 3_600_000, "dtend": midnight, "allDay": 0}
    assert event_days(timed) == (MAY_12, MAY_12)  # ending at midnight stays on its day
    late = {**timed, "dtend": midnight + 60_000}
    assert event_days(late) == (MAY_12, date(2026, 5, 13))
    trip = {
        "dtstart": utc_midnight_ms(date(2026, 5, 18)),
        "dtend": utc_midnight_ms(date(2026, 5, 21)),
        "allDay": 1,
    }
    assert event_days(trip) == (date(2026, 5, 18), date(2026, 5, 20))


# ---------------------------------------------------------------- world data


def test_world_has_the_owner_calendar_and_realistic_events(app: CalendarApp) -> None:
    tables = world_tables(app.world)
    [calendar] = tables["calendars"]
    assert (
        calendar["calendar_displayName"] == "My calendar" and calendar["labels"]["zh"] == "我的日历"
    )
    assert (calendar["account_type"], calendar["calendar_access_level"]) == ("LOCAL", 700)
    rows = tables["events"]
    assert 18 <= len(rows) <= 24 and len({r["_id"] for r in rows}) == len(rows)
    titles = [r["title"] for r in rows]
    for title in (
        "团队周会",
        "客户拜访",
        "项目复盘",
        "项目汇报",
        "Dentist",
        "Yoga class",
        "Flight to Shanghai",
        "妈妈生日",
    ):
        assert title in titles
    assert titles.count("团队周会") >= 3 and titles.count("Yoga class") == 2
    days = [event_days(r) for r in rows]
    assert min(d[0] for d in days) >= date(2026, 5, 5) and max(d[1] for d in days) <= date(
        2026, 6, 20
    )
    assert any(first != last for first, last in days)  # a multi-day all-day trip
    assert len(day_events(rows, MAY_12)) == 3 and not day_events(rows, date(2026, 5, 13))
    for row in rows:
        if row["allDay"]:
            assert row["dtstart"] % DAY_MS == 0 and row["eventTimezone"] == "UTC"
        else:
            assert row["eventTimezone"] == "Asia/Shanghai"
        assert row["dtend"] > row["dtstart"]
        assert row["hasAlarm"] == (1 if event_reminders(app.world, {}, row["_id"]) else 0)
    assert any(r["description"] for r in rows) and any(r["eventLocation"] for r in rows)


def test_view_is_plain_json(app: CalendarApp) -> None:
    got = app.view(app.initial_overlay())
    assert list(got) == ["calendars", "events", "reminders"]
    assert json.loads(json.dumps(got)) == got


# ---------------------------------------------------------------- model


def test_overlay_replaces_tombstones_and_never_reuses_ids(app: CalendarApp) -> None:
    world, overlay = app.world, app.initial_overlay()
    last = max(e["_id"] for e in world_tables(world)["events"])
    event = {"calendar_id": 1, "title": "A", "dtstart": 0, "dtend": 1, "eventTimezone": "UTC"}
    new_id = put_row(world, overlay, "events", event)
    assert new_id == last + 1
    delete_event(world, overlay, new_id)
    assert str(new_id) not in overlay["events"]  # created here: forgotten
    assert put_row(world, overlay, "events", event) == last + 2  # …but its id is not reused
    delete_event(world, overlay, 5)
    assert overlay["events"]["5"] is None and get_row(world, overlay, "events", 5) is None
    assert not [r for r in table_rows(world, overlay, "reminders") if r["event_id"] == 5]


def test_reminders_drive_has_alarm(app: CalendarApp) -> None:
    world, overlay = app.world, app.initial_overlay()
    row = {"calendar_id": 1, "title": "B", "dtstart": 0, "dtend": 1}
    event_id = save_event(world, overlay, row, [30, 5])
    assert get_row(world, overlay, "events", event_id)["hasAlarm"] == 1
    assert [r["minutes"] for r in event_reminders(world, overlay, event_id)] == [5, 30]
    save_event(world, overlay, {**get_row(world, overlay, "events", event_id), "title": "C"})
    assert len(event_reminders(world, overlay, event_id)) == 2  # None: reminders untouched
    for reminder in event_reminders(world, overlay, event_id):
        remove_reminder(world, overlay, reminder["_id"])
    assert get_row(world, overlay, "events", event_id)["hasAlarm"] == 0
    add_reminder(world, overlay, {"event_id": event_id, "minutes": 0, "method": 1})
    assert get_row(world, overlay, "events", event_id)["hasAlarm"] == 1


def test_hidden_and_deleted_calendars_hide_their_events(app: CalendarApp) -> None:
    world, overlay = app.world, app.initial_overlay()
    calendar = create_calendar(
        world, overlay, {"account_name": "mobilegym", "account_type": "LOCAL"}
    )
    assert get_row(world, overlay, "calendars", calendar)["calendar_displayName"] == "mobilegym"
    row = {"calendar_id": calendar, "title": "Seeded", "dtstart": 0, "dtend": 1}
    seeded = save_event(world, overlay, row, [10])
    assert seeded in [e["_id"] for e in visible_events(world, overlay)]
    put_row(world, overlay, "calendars", {**get_row(world, overlay, "calendars", 1), "visible": 0})
    assert [e["_id"] for e in visible_events(world, overlay)] == [seeded]
    delete_calendar(world, overlay, calendar)
    assert get_row(world, overlay, "events", seeded) is None and not visible_events(world, overlay)
    assert not [r for r in table_rows(world, overlay, "reminders") if r["event_id"] == seeded]


def test_day_agenda_and_search_order(app: CalendarApp) -> None:
    rows = visible_events(app.world, {})
    on_16 = [e["title"] for e in day_events(rows, date(2026, 5, 16))]
    assert on_16 == ["妈妈生日", "Yoga class"]  # all-day first
    days = dict(agenda(rows, date(2026, 5, 18), days=3))
    assert sorted(days) == [date(2026, 5, 18), date(2026, 5, 19), date(2026, 5, 20)]
    assert all(any(e["title"] == "上海出差" for e in found) for found in days.values())
    found = search(rows, "PROJECT") + search(rows, "  ")
    assert found == []
    hits = [(e["title"], event_days(e)[0].day) for e in search(rows, "项目")]
    assert hits[0] == ("团队周会", 5)  # description matches too, earliest first
    assert [t for t, _ in search_titles(rows, "lotus")] == ["Yoga class", "Yoga class"]
    assert [t for t, _ in search_titles(rows, "seat 32a")] == ["Flight to Shanghai"]


def search_titles(rows: list[dict[str, Any]], query: str) -> list[tuple[str, int]]:
    return [(e["title"], e["_id"]) for e in search(rows, query)]


# ---------------------------------------------------------------- editor drafts


def test_new_event_drafts_default_to_the_next_full_hour() -> None:
    fields = ed.fields_for_new(date(2026, 5, 20), datetime(2026, 5, 12, 9, 30), 1, 10)
    assert fields[ed.key("start_date")] == "2026-05-20" and fields[ed.key("start_time")] == "10:00"
    assert fields[ed.key("end_time")] == "11:00" and fields[ed.key("reminder")] == "10"
    late = ed.fields_for_new(MAY_12, datetime(2026, 5, 12, 23, 10), 1, -1)
    assert late[ed.key("start_date")] == "2026-05-13" and late[ed.key("start_time")] == "00:00"
    assert ed.reminder_minutes(late) == []


def test_drafts_round_trip_an_all_day_event(app: CalendarApp) -> None:
    trip = get_row(app.world, {}, "events", 11)
    fields = ed.fields_for_event(trip, [])
    assert (fields[ed.key("start_date")], fields[ed.key("end_date")]) == (
        "2026-05-18",
        "2026-05-20",
    )
    row, error = ed.event_from_fields(fields)
    assert error is None
    assert {k: row[k] for k in ("dtstart", "dtend", "allDay", "eventTimezone")} == {
        k: trip[k] for k in ("dtstart", "dtend", "allDay", "eventTimezone")
    }


def test_start_moves_the_end_and_an_early_end_is_refused(app: CalendarApp) -> None:
    fields = ed.fields_for_event(get_row(app.world, {}, "events", 7), [60])  # 16:30–17:30
    fields.update(ed.shift_bounds(fields, "start", at=time(9, 0)))
    assert (fields[ed.key("start_time")], fields[ed.key("end_time")]) == ("09:00", "10:00")
    fields.update(ed.shift_bounds(fields, "start", day=date(2026, 5, 31)))
    assert fields[ed.key("end_date")] == "2026-05-31"
    fields.update(ed.shift_bounds(fields, "end", at=time(8, 0)))
    assert fields[ed.key("start_time")] == "09:00"  # a new end leaves the start alone
    row, error = ed.event_from_fields(fields)
    assert error == "err_end_before_start" and row["dtend"] < row["dtstart"]


# ---------------------------------------------------------------- screens and flows


def test_activities_per_route(ctx: AppContext, app: CalendarApp) -> None:
    assert app.package_on("aosp") == "com.android.calendar"
    assert app.launcher_activity("aosp") == ".AllInOneActivity"
    assert app.launcher_activity("hyperos") == ".homepage.AllInOneActivity"
    tap(ctx, "open_event", id=7)
    assert app.activity_for(ctx.route) == ".EventInfoActivity"
    tap(ctx, "edit", id=7)
    assert app.activity_for(ctx.route) == ".event.EditEventActivity"
    back(ctx)
    back(ctx)
    tap(ctx, "open_search")
    assert app.activity_for(ctx.route) == ".SearchActivity"


def test_month_view_marks_today_and_event_days(ctx: AppContext) -> None:
    html = render(ctx)
    assert texts(html, rid="title") == ["May 2026"]
    cells = nodes(html, rid="month_day")
    today = [c for c in cells if "today" in c["attrs"]["class"]]
    assert [c["attrs"]["data-desc"] for c in today] == ["12 May 2026, 3 events"]
    assert today[0]["attrs"].get("data-selected") == "true"
    assert "13 May 2026" in [c["attrs"]["data-desc"] for c in cells]  # no events: no count
    assert [n["attrs"]["data-desc"] for n in nodes(html, rid="prev")] == ["Previous month"]
    assert (
        nodes(html, desc="New event") and nodes(html, desc="Today") and nodes(html, desc="Search")
    )


def test_navigation_between_views_and_days(ctx: AppContext) -> None:
    tap(ctx, "next")
    assert ctx.route.params["day"] == "2026-06-01" and "June 2026" in texts(
        render(ctx), rid="title"
    )
    tap(ctx, "prev")
    assert ctx.route.params["day"] == "2026-05-12"  # back in today's month: today
    tap(ctx, "open_day", date="2026-05-13")
    html = render(ctx)
    assert ctx.route.params["view"] == "day" and texts(html, rid="empty") == ["No events"]
    assert texts(html, rid="date_label") == ["Wednesday, May 13, 2026"]
    tap(ctx, "prev")
    assert texts(render(ctx), rid="event_title") == ["团队周会", "Lunch with Alice", "Dentist"]
    assert texts(render(ctx), rid="event_time")[0] == "10:00 – 11:00"
    tap(ctx, "set_view", tab="agenda")
    html = render(ctx)
    assert texts(html, rid="section_title")[0] == "Today · Tue, May 12"
    assert "Tomorrow" not in " ".join(texts(html, rid="section_title"))
    tap(ctx, "open_day", date="2026-05-16")
    tap(ctx, "set_view", tab="day")
    html = render(ctx)
    assert texts(html, rid="section_title") == ["All day"]
    assert texts(html, rid="event_title") == ["妈妈生日", "Yoga class"]
    tap(ctx, "today")
    assert ctx.route.params["day"] == "2026-05-12"


def test_agenda_empty_state(ctx: AppContext) -> None:
    ctx.route.params.update(view="agenda", day="2027-01-01")
    assert texts(render(ctx), rid="empty") == ["No events"]


def test_event_card_and_delete_confirmation(ctx: AppContext) -> None:
    tap(ctx, "open_event", id=12)
    html = render(ctx)
    assert texts(html, rid="title") == ["", "Flight to Shanghai"]  # the toolbar's, the card's
    assert texts(html, rid="when_datetime") == ["Monday, May 18, 2026"]
    assert texts(html, rid="when_datetime_sub") == ["07:45 – 10:05"]
    assert texts(html, rid="where") == ["Beijing Capital Airport T3"]
    assert texts(html, rid="reminder") == ["1 day before", "1 hour before"]
    assert texts(html, rid="calendar_name") == ["My calendar"]
    tap(ctx, "delete", id=12)
    assert texts(render(ctx), rid="message") == ["This event will be deleted."]
    back(ctx)  # back closes the dialog only
    assert paths(ctx) == ["/", "/event"] and titled(ctx, "Flight to Shanghai")
    tap(ctx, "delete", id=12)
    tap(ctx, "delete_confirm", id=12)
    assert paths(ctx) == ["/"] and not titled(ctx, "Flight to Shanghai")
    assert ctx.state.ui.toast == "Event deleted"
    ctx.navigate("/event", id=12)
    assert texts(render(ctx), rid="empty") == ["This event no longer exists"]


def test_create_through_the_editor_and_pickers(ctx: AppContext) -> None:
    tap(ctx, "open_day", date="2026-05-20")
    tap(ctx, "create")
    html = render(ctx)
    assert texts(html, rid="toolbar_title") == ["New event"]
    assert texts(html, rid="start_date") == ["Wed, May 20, 2026"]
    assert texts(html, rid="start_time") == ["10:00"] and texts(html, rid="end_time") == ["11:00"]
    ctx.set_field(ed.key("title"), "面试")
    tap(ctx, "pick_date", target="start")
    tap(ctx, "picker_next")
    html = render(ctx)
    assert texts(html, rid="month_name") == ["June 2026"]
    tap(ctx, "picker_day", date="2026-06-02")
    tap(ctx, "picker_ok")
    tap(ctx, "pick_time", target="start")
    assert ctx.state.ui.focus == "calendar.picker.hour" and ctx.state.ui.keyboard_visible
    ctx.set_field("calendar.picker.hour", "18")
    ctx.set_field("calendar.picker.minute", "30")
    tap(ctx, "picker_ok")
    tap(ctx, "pick_time", target="end")
    ctx.set_field("calendar.picker.hour", "20")
    ctx.set_field("calendar.picker.minute", "00")
    tap(ctx, "picker_ok")
    tap(ctx, "pick_reminder")
    assert "30 minutes before" in texts(render(ctx), rid="title")
    tap(ctx, "set_reminder", minutes=30)
    tap(ctx, "save")
    [event] = titled(ctx, "面试")
    assert local_datetime(event["dtstart"]) == datetime(2026, 6, 2, 18, 30)
    assert local_datetime(event["dtend"]) == datetime(2026, 6, 2, 20, 0)
    assert [r["minutes"] for r in event_reminders(ctx.world, ctx.data, event["_id"])] == [30]
    assert paths(ctx) == ["/"] and ctx.route.params["day"] == "2026-06-02"
    assert not [k for k in ctx.state.ui.fields if k.startswith("calendar.")]


def test_invalid_time_keeps_the_picker_open(ctx: AppContext) -> None:
    tap(ctx, "create")
    tap(ctx, "pick_time", target="start")
    ctx.set_field("calendar.picker.hour", "1030")
    tap(ctx, "picker_ok")
    assert texts(render(ctx), rid="label_error") == ["Enter a valid time"]
    back(ctx)  # back closes the picker, not the editor
    assert paths(ctx) == ["/", "/edit"] and "picker" not in ctx.route.params
    assert ctx.field(ed.key("start_time")) == "10:00" and ctx.state.ui.keyboard_mode == "abc"


def test_twelve_hour_picker_and_labels(ctx: AppContext) -> None:
    ctx.settings["system"]["time_12_24"] = "12"
    tap(ctx, "create")
    assert texts(render(ctx), rid="start_time") == ["10:00 AM"]
    tap(ctx, "pick_time", target="end")
    html = render(ctx)
    assert [n["text"] for n in by_class(html, "android.widget.RadioButton")] == ["AM", "PM"]
    assert ctx.field("calendar.picker.hour") == "11"
    tap(ctx, "picker_am_pm", half="pm")
    tap(ctx, "picker_ok")
    assert ctx.field(ed.key("end_time")) == "23:00"


def test_save_refuses_an_end_before_the_start(ctx: AppContext) -> None:
    tap(ctx, "create")
    tap(ctx, "pick_time", target="end")
    ctx.set_field("calendar.picker.hour", "08")
    tap(ctx, "picker_ok")
    before = len(events(ctx))
    tap(ctx, "save")
    assert texts(render(ctx), rid="error") == ["The end time can't be before the start time"]
    assert paths(ctx) == ["/", "/edit"] and len(events(ctx)) == before


def test_empty_title_is_shown_as_no_title(ctx: AppContext) -> None:
    tap(ctx, "create")
    tap(ctx, "save")
    [event] = [e for e in events(ctx) if e["_id"] > 21]
    assert event["title"] == ""
    tap(ctx, "set_view", tab="day")
    assert "(No title)" in texts(render(ctx), rid="event_title")


def test_unsaved_changes_ask_before_leaving(ctx: AppContext) -> None:
    tap(ctx, "create")
    back(ctx)  # nothing changed: leaves at once
    assert paths(ctx) == ["/"]
    tap(ctx, "create")
    ctx.set_field(ed.key("title"), "Draft")
    back(ctx)
    assert ctx.route.params["dialog"] == "discard"
    assert texts(render(ctx), rid="alertTitle") == ["Discard changes?"]
    tap(ctx, "keep_editing")
    tap(ctx, "editor_cancel")
    tap(ctx, "discard")
    assert paths(ctx) == ["/"] and not titled(ctx, "Draft")


def test_edit_keeps_what_was_not_touched(ctx: AppContext) -> None:
    tap(ctx, "open_event", id=12)
    tap(ctx, "edit", id=12)
    tap(ctx, "save")  # unchanged: nothing written
    assert "12" not in (ctx.data.get("events") or {}) and paths(ctx) == ["/", "/event"]
    tap(ctx, "edit", id=12)
    ctx.set_field(ed.key("title"), "Flight to Shanghai (CA1501)")
    tap(ctx, "save")
    event = get_row(ctx.world, ctx.data, "events", 12)
    assert event["title"] == "Flight to Shanghai (CA1501)"
    minutes = [r["minutes"] for r in event_reminders(ctx.world, ctx.data, 12)]
    assert minutes == [60, 1440]  # both reminders kept: the editor shows one, changed none
    assert texts(render(ctx), rid="title")[-1] == "Flight to Shanghai (CA1501)"


def test_search_lists_matches_with_dates(ctx: AppContext) -> None:
    tap(ctx, "open_search")
    assert ctx.state.ui.focus == "calendar.search"
    ctx.set_field("calendar.search", "dentist")
    html = render(ctx)
    assert texts(html, rid="title") == ["Search", "Dentist"]
    assert texts(html, rid="summary") == ["Tue, May 12, 2026 · 16:30 – 17:30"]
    ctx.set_field("calendar.search", "zzz")
    assert texts(render(ctx), rid="empty") == ["No results"]
    tap(ctx, "search")
    assert not ctx.state.ui.keyboard_visible


def test_every_screen_renders_in_chinese(app: CalendarApp, renderer: TemplateRenderer) -> None:
    zh = make_ctx(app, renderer, "zh")
    html = render(zh)
    assert texts(html, rid="title") == ["2026年5月"]
    tabs = [n["text"] for n in nodes(html, action="set_view")]
    assert tabs == ["日", "月", "日程"]
    assert "2026年5月12日，3 个日程" in [
        n["attrs"]["data-desc"] for n in nodes(html, rid="month_day")
    ]
    tap(zh, "set_view", tab="agenda")
    assert texts(render(zh), rid="section_title")[0] == "今天 · 5月12日 周二"
    tap(zh, "open_event", id=9)
    html = render(zh)
    assert texts(html, rid="when_datetime_sub") == ["全天"] and texts(
        html, rid="calendar_name"
    ) == ["我的日历"]
    tap(zh, "delete", id=9)
    assert texts(render(zh), rid="alertTitle") == ["要删除日程吗？"]
    tap(zh, "dialog_cancel")
    tap(zh, "edit", id=9)
    html = render(zh)
    assert texts(html, rid="toolbar_title") == ["编辑日程"] and texts(html, rid="start_date") == [
        "2026年5月16日 周六"
    ]
    tap(zh, "pick_date", target="end")
    days = by_class(render(zh), "android.view.View")
    assert "2026年5月16日" in [n["attrs"].get("data-desc") for n in days]
    tap(zh, "picker_cancel")
    tap(zh, "toggle_all_day")
    tap(zh, "pick_reminder")
    assert "提前 1 小时" in texts(render(zh), rid="title")
    tap(zh, "dialog_cancel")
    tap(zh, "editor_cancel")
    assert texts(render(zh), rid="message") == ["对此日程所做的更改将不会保存。"]


def test_strings_have_identical_keys(app: CalendarApp) -> None:
    assert set(app.strings("en")) == set(app.strings("zh"))
    assert app.label("en") == "Calendar" and app.label("zh") == "日历"


def test_same_actions_give_identical_states(app: CalendarApp, renderer: TemplateRenderer) -> None:
    dumps = []
    for _ in range(2):
        c = make_ctx(app, renderer)
        tap(c, "create")
        c.set_field(ed.key("title"), "Same")
        tap(c, "save")
        render(c)
        dumps.append(c.state.model_dump_json())
    assert dumps[0] == dumps[1]


def test_package_ships_its_resources() -> None:
    package = resources.files("sim.apps.calendar")
    for name in (
        "world.json",
        "strings.json",
        "icon.svg",
        "templates/main.html",
        "templates/event.html",
        "templates/edit.html",
        "templates/search.html",
    ):
        assert package.joinpath(name).is_file(), name
    assert resources.files("sim").joinpath("templates/pickers.html").is_file()
