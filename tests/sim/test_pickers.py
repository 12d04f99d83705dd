"""The shared date and time pickers and date formats, on literal inputs (no page)."""

from __future__ import annotations

from datetime import date, datetime, time

import pytest

from sim.pickers.date_picker import (
    date_state,
    date_view,
    month_grid,
    select_day,
    selected_date,
    shift_month,
)
from sim.pickers.formats import (
    date_header,
    date_long,
    date_medium,
    day_description,
    is_24_hour,
    month_title,
    picker_strings,
    time_text,
    weekday_initials,
)
from sim.pickers.time_picker import hour_key, parse_time, time_state, time_texts, time_view

MAY_12 = date(2026, 5, 12)


def test_dates_in_english_and_chinese() -> None:
    assert date_long(MAY_12, "en") == "Tuesday, May 12, 2026"
    assert date_long(MAY_12, "zh") == "2026年5月12日星期二"
    assert date_medium(MAY_12, "en") == "Tue, May 12, 2026"
    assert date_medium(MAY_12, "zh") == "2026年5月12日 周二"
    assert date_header(MAY_12, "en") == "Tue, May 12"
    assert day_description(MAY_12, "en") == "12 May 2026"
    assert day_description(MAY_12, "zh") == "2026年5月12日"
    assert month_title(2026, 12, "en") == "December 2026"
    assert month_title(2026, 12, "zh") == "2026年12月"
    assert weekday_initials("en") == ["S", "M", "T", "W", "T", "F", "S"]
    assert weekday_initials("zh")[0] == "日"


@pytest.mark.parametrize(
    ("moment", "lang", "twenty_four", "text"),
    [
        (time(9, 5), "en", True, "09:05"),
        (time(0, 0), "en", False, "12:00 AM"),
        (time(12, 30), "en", False, "12:30 PM"),
        (time(18, 0), "zh", False, "下午6:00"),
        (datetime(2026, 5, 12, 7, 45), "zh", False, "上午7:45"),
        (time(23, 59), "zh", True, "23:59"),
    ],
)
def test_time_text_follows_the_clock_format(
    moment: time, lang: str, twenty_four: bool, text: str
) -> None:
    assert time_text(moment, lang, twenty_four) == text


def test_time_12_24_setting() -> None:
    assert is_24_hour({"system": {"time_12_24": "24"}})
    assert is_24_hour({"system": {}})
    assert not is_24_hour({"system": {"time_12_24": 12}})  # `settings put` stores an int
    assert not is_24_hour({"system": {"time_12_24": "12"}})


def test_strings_have_identical_keys() -> None:
    assert set(picker_strings("en")) == set(picker_strings("zh"))
    assert picker_strings("fr") == picker_strings("en")


def test_month_grid_starts_on_sunday() -> None:
    weeks = month_grid(2026, 5)
    assert weeks[0][:5] == [None] * 5 and weeks[0][5] == date(2026, 5, 1)
    assert [d for week in weeks for d in week if d] == [date(2026, 5, d) for d in range(1, 32)]
    february = month_grid(2026, 2)  # starts on a Sunday: four full weeks
    assert february[0][0] == date(2026, 2, 1) and not any(february[4])


def test_date_picker_state_moves_months_and_selects() -> None:
    state = date_state("start", MAY_12)
    shift_month(state, -5)
    assert (state["year"], state["month"]) == (2025, 12)
    shift_month(state, 14)
    assert (state["year"], state["month"]) == (2027, 2)
    assert selected_date(state) == MAY_12  # the arrows only move the page
    select_day(state, date(2027, 2, 3))
    assert selected_date(state) == date(2027, 2, 3) and state["month"] == 2


def test_date_view_marks_selection_and_today() -> None:
    view = date_view(date_state("end", MAY_12), "en", today=date(2026, 5, 13))
    cells = [cell for week in view["weeks"] for cell in week if cell]
    assert view["header"] == "Tue, May 12" and view["month_title"] == "May 2026"
    assert [c["desc"] for c in cells if c["selected"]] == ["12 May 2026"]
    assert [c["day"] for c in cells if c["today"]] == [13]
    assert (view["prev_desc"], view["next_desc"], view["ok"]) == (
        "Previous month",
        "Next month",
        "OK",
    )
    assert len(view["weeks"]) == 6  # May 2026 spans six Sunday-first weeks


@pytest.mark.parametrize(
    ("hour", "minute", "pm", "twenty_four", "expected"),
    [
        ("9", "05", False, True, time(9, 5)),
        ("23", "59", False, True, time(23, 59)),
        ("24", "00", False, True, None),
        ("12", "00", False, False, time(0, 0)),
        ("12", "15", True, False, time(12, 15)),
        ("7", "30", True, False, time(19, 30)),
        ("0", "30", False, False, None),
        ("13", "00", True, False, None),
        ("10", "60", False, True, None),
        ("109", "00", False, True, None),
        ("", "00", False, True, None),
        ("1a", "00", False, True, None),
        (" 8 ", "0", False, True, time(8, 0)),
    ],
)
def test_parse_time(
    hour: str, minute: str, pm: bool, twenty_four: bool, expected: time | None
) -> None:
    assert parse_time(hour, minute, pm, twenty_four) == expected


def test_time_fields_and_view() -> None:
    assert time_texts(time(9, 5), True) == ("09", "05")
    assert time_texts(time(21, 5), False) == ("9", "05")
    assert time_texts(time(0, 0), False) == ("12", "00")
    state = time_state("start", time(21, 0))
    assert state["pm"] is True
    fields = {hour_key("clock"): "9", "clock.picker.minute": "00"}
    view = time_view({**state, "error": True}, "zh", False, fields, hour_key("clock"), "clock")
    assert view["hour"] == {
        "key": "clock.picker.hour",
        "value": "9",
        "focused": True,
        "label": "时",
    }
    assert [(h["text"], h["checked"]) for h in view["halves"]] == [("上午", False), ("下午", True)]
    assert view["error"] == "请输入有效的时间" and view["ok"] == "确定"
