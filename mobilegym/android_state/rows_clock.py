"""DeskClock's alarms (``content://com.android.deskclock/alarms``) over MobileGym's Clock
(``apps.clock.alarms``).

MobileGym keeps an alarm as ``{id, hour, minute, enabled, repeat, note, vibrate,
autoDelete}``; its ``repeat`` is one of five day sets, which this build rings as
``Qb`` computes them: ``once`` and ``daily``; ``weekday`` and ``workday`` Monday to Friday
(it has no holiday calendar: a "workday" is a weekday); ``holiday`` Saturday and Sunday.
The rows, as ``ClockContract.AlarmsColumns``: ``_id, hour, minutes, daysofweek, enabled,
vibrate, label, delete_after_use``, ``daysofweek`` in DeskClock's bits (Monday ``0x01`` …
Sunday ``0x40``; 0 rings once): ``once`` 0, ``daily`` 127, ``weekday``/``workday`` 31,
``holiday`` 96. A ``repeat`` outside those five is a cell MobileGym cannot give, refused when
read. ``ringtone`` is not held (MobileGym's alarms ring the Clock's one alarm sound).

Writes go through ``__SIM__.setState`` on the Clock's overlay (``alarms[]`` appends,
``alarms[id=X]`` updates or, with null, deletes); MobileGym's alarm manager follows the Clock's
alarms by itself (what the next alarm clock reads). ``daysofweek`` is written as the repeat
that rings those days (31 as ``weekday``); any other set of days is refused with the reason.
"""

from __future__ import annotations

from typing import Any

from bridge.android_state import BindValue
from mobilegym.android_state.base import unavailable
from mobilegym.android_state.rows_table import (
    Seen,
    Table,
    Values,
    flag,
    next_id,
    numbered,
    own_id,
    whole,
)
from mobilegym.android_state.sql_rows import SqlTable, SqlValue, SynthRow, columns
from mobilegym.page import MobileGymPage

__all__ = ["ALARMS_PATH", "REPEAT_DAYS", "alarms_table", "days_refusal"]

ALARMS_PATH = ("apps", "clock", "alarms")
"""Where MobileGym keeps its alarms in ``__SIM__.getState()``."""
REPEAT_DAYS = {"once": 0, "daily": 0x7F, "weekday": 0x1F, "workday": 0x1F, "holiday": 0x60}
"""MobileGym's ``repeat`` -> DeskClock's ``daysofweek`` bits (module docstring)."""
_WRITTEN = {0: "once", 0x7F: "daily", 0x1F: "weekday", 0x60: "holiday"}
_COLUMNS = ("hour", "minutes", "daysofweek", "enabled", "vibrate", "label", "delete_after_use")


def days_refusal(days: BindValue) -> str | None:
    """Why MobileGym's alarms cannot repeat on DeskClock's ``daysofweek`` bits (None: they
    can, as one of its repeats)."""
    if str(days).strip().isdigit() and int(str(days)) in _WRITTEN:
        return None
    return "MobileGym's alarms ring once, daily, Monday to Friday or on Saturday and Sunday"


def _row(number: int, alarm: dict[str, Any]) -> SynthRow:
    days = REPEAT_DAYS.get(str(alarm.get("repeat")))
    values: dict[str, SqlValue] = {
        "_id": number,
        "hour": alarm.get("hour"),
        "minutes": alarm.get("minute"),
        "daysofweek": days,
        "enabled": int(bool(alarm.get("enabled"))),
        "vibrate": int(bool(alarm.get("vibrate", True))),
        "label": str(alarm.get("note") or ""),
        "delete_after_use": int(bool(alarm.get("autoDelete"))),
    }
    unknown = {}
    if days is None:
        why = f"MobileGym's alarm repeats {alarm.get('repeat')!r}, a day set it does not define"
        unknown["daysofweek"] = why
    return SynthRow(values, (alarm["id"],), unknown)


def _rows(seen: Seen) -> list[SynthRow]:
    return [_row(number, alarm) for number, alarm in numbered(seen)]


def _fields(values: Values) -> dict[str, Any]:
    """MobileGym's alarm fields for the written Android columns."""
    unknown = sorted(set(values) - set(_COLUMNS))
    if unknown:
        unavailable(f"column {unknown[0]} of an alarm", f"alarms take {', '.join(_COLUMNS)}")
    fields: dict[str, Any] = {}
    for column, key, top in (("hour", "hour", 23), ("minutes", "minute", 59)):
        if column in values:
            fields[key] = whole(values[column], f"an alarm's {column}")
            if not 0 <= fields[key] <= top:
                unavailable(f"an alarm at {column} {fields[key]}", f"{column} runs 0 to {top}")
    if values.get("daysofweek") is not None:
        days = whole(values["daysofweek"], "an alarm's daysofweek")
        refusal = days_refusal(days)
        if refusal is not None:
            unavailable(f"an alarm repeating on the days {days:#04x}", refusal)
        fields["repeat"] = _WRITTEN[days]
    for column, key in (("enabled", "enabled"), ("vibrate", "vibrate")):
        if column in values:
            fields[key] = flag(values[column])
    if "delete_after_use" in values:
        fields["autoDelete"] = flag(values["delete_after_use"])
    if "label" in values:
        fields["note"] = str(values["label"] or "")
    return fields


async def _insert(page: MobileGymPage, seen: Seen, values: Values) -> None:
    fields = _fields(values)
    for key in ("hour", "minute"):
        if key not in fields:
            unavailable("an alarm without its hour and minutes", f"{key} is required")
    number = next_id(number for number, _ in numbered(seen))
    alarm = {"id": own_id("a", number), "enabled": True, "repeat": "once", "vibrate": True,
             "autoDelete": False, **fields}  # fmt: skip
    if not alarm.get("note"):
        alarm.pop("note", None)  # as MobileGym keeps an alarm without a label
    await page.set_state({"apps": {"clock": {"alarms[]": alarm}}})


async def _update(page: MobileGymPage, seen: Seen, rows: list[SynthRow], values: Values) -> None:
    fields = _fields(values)
    for row in rows:
        await page.set_state({"apps": {"clock": {f"alarms[id={row.ref[0]}]": fields}}})


async def _delete(page: MobileGymPage, seen: Seen, rows: list[SynthRow]) -> None:
    for row in rows:
        await page.set_state({"apps": {"clock": {f"alarms[id={row.ref[0]}]": None}}})


def alarms_table() -> Table:
    """The ``com.android.deskclock`` ``alarms`` table (module docstring)."""
    integers = [name for name in _COLUMNS if name != "label"]
    missing = {"ringtone": "MobileGym's alarms ring the Clock's one alarm sound"}
    sql = SqlTable("alarms", columns("_id", *_COLUMNS, integers=integers), missing)
    return Table(
        sql, ALARMS_PATH, _rows, insert=_insert, update=_update, delete=_delete,
        holds={"daysofweek": days_refusal},
    )  # fmt: skip
