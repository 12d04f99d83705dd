"""Alarms: rows over world data and an overlay, their order, repeat summaries, and when the
next one rings.

An alarm is ``{"id", "hour", "minute", "days", "label", "enabled"}``: ``days`` lists the
weekdays it repeats on (0 Monday … 6 Sunday, as :meth:`datetime.date.weekday`), empty for a
one-time alarm. The overlay of an instance is ``{"alarms": {"<id>": row | None},
"next_id": n}``, None a tombstone of a world alarm; ids are never reused. Readers take it
typed (:class:`sim.apps.clock.state.ClockState`); writers store plain JSON.

When an alarm rings is local wall time in the phone's zone: the first ``HH:MM:00`` strictly
after now on one of its days (any day for a one-time alarm). :func:`next_alarm_ms` is the
soonest of the enabled alarms as epoch ms: what Android's AlarmManager reports as the next
alarm clock (``dumpsys alarm``). Pure functions: "now" is always passed in.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from sim.apps.clock.state import clock_state

__all__ = [
    "EVERY_DAY",
    "WEEKDAYS",
    "WEEKEND",
    "alarm_rows",
    "delete_alarm",
    "get_alarm",
    "next_alarm_ms",
    "next_trigger",
    "normalize_alarm",
    "put_alarm",
    "restore_alarm",
    "trigger_ms",
]

EVERY_DAY = (0, 1, 2, 3, 4, 5, 6)
WEEKDAYS = (0, 1, 2, 3, 4)
WEEKEND = (5, 6)

Alarm = dict[str, Any]


def normalize_alarm(row: Mapping[str, Any]) -> Alarm:
    """An alarm with every field, typed; days sorted and unique."""
    hour, minute = int(row["hour"]), int(row["minute"])
    if not (0 <= hour <= 23 and 0 <= minute <= 59):
        raise ValueError(f"alarm {row.get('id')}: {hour}:{minute} is not a time of day")
    days = sorted({int(d) for d in row.get("days", [])})
    if any(not 0 <= d <= 6 for d in days):
        raise ValueError(f"alarm {row.get('id')}: days are 0 (Monday) to 6 (Sunday), not {days}")
    return {
        "id": int(row["id"]),
        "hour": hour,
        "minute": minute,
        "days": days,
        "label": str(row.get("label") or ""),
        "enabled": bool(row.get("enabled", True)),
    }


def alarm_rows(world: Mapping[str, Any], overlay: Mapping[str, Any]) -> list[Alarm]:
    """The effective alarms, sorted by time of day (then id), as the Alarm tab lists them."""
    by_id = {int(a["id"]): normalize_alarm(a) for a in world.get("alarms", [])}
    for key, row in clock_state(overlay).alarms.items():
        if row is None:
            by_id.pop(int(key), None)
        else:
            by_id[int(key)] = normalize_alarm(row.model_dump())
    return sorted(by_id.values(), key=lambda a: (a["hour"], a["minute"], a["id"]))


def get_alarm(world: Mapping[str, Any], overlay: Mapping[str, Any], alarm_id: int) -> Alarm | None:
    """One alarm by id (None when it does not exist)."""
    return next((a for a in alarm_rows(world, overlay) if a["id"] == alarm_id), None)


def put_alarm(world: Mapping[str, Any], overlay: dict[str, Any], row: Mapping[str, Any]) -> Alarm:
    """Create (``id`` None or absent) or replace an alarm; the stored row."""
    data = dict(row)
    if data.get("id") is None:
        state = clock_state(overlay)
        taken = [int(a["id"]) for a in world.get("alarms", [])]
        taken += [int(k) for k in state.alarms]
        data["id"] = max([(state.next_id or 0) - 1, *taken], default=0) + 1
        overlay["next_id"] = data["id"] + 1
    alarm = normalize_alarm(data)
    overlay.setdefault("alarms", {})[str(alarm["id"])] = alarm
    return alarm


def delete_alarm(overlay: dict[str, Any], alarm_id: int) -> None:
    """Remove an alarm (a tombstone hides a world alarm)."""
    overlay.setdefault("alarms", {})[str(alarm_id)] = None


def restore_alarm(overlay: dict[str, Any], alarm: Mapping[str, Any]) -> None:
    """Put a deleted alarm back as it was (the snackbar's Undo)."""
    row = normalize_alarm(alarm)
    overlay.setdefault("alarms", {})[str(row["id"])] = row


def next_trigger(alarm: Mapping[str, Any], now: datetime) -> datetime:
    """The local wall time the alarm rings next: the first ``HH:MM:00`` strictly after
    ``now`` (naive local time) on one of its days, any day when it does not repeat."""
    days = alarm.get("days") or EVERY_DAY
    start = now.replace(
        hour=int(alarm["hour"]), minute=int(alarm["minute"]), second=0, microsecond=0
    )
    for offset in range(8):
        moment = start + timedelta(days=offset)
        if moment > now and moment.weekday() in days:
            return moment
    raise AssertionError("a week always holds one of the alarm's days")


def trigger_ms(alarm: Mapping[str, Any], now_ms: int, zone: str) -> int:
    """:func:`next_trigger` as epoch ms, ``now_ms`` and the ring time read in ``zone``."""
    tz = ZoneInfo(zone)
    now = datetime.fromtimestamp(now_ms / 1000, tz).replace(tzinfo=None)
    moment = next_trigger(alarm, now).replace(tzinfo=tz)
    return int(moment.timestamp()) * 1000


def next_alarm_ms(alarms: Iterable[Mapping[str, Any]], now_ms: int, zone: str) -> int | None:
    """Epoch ms of the soonest ring among the enabled alarms (None when none is on)."""
    times = [trigger_ms(a, now_ms, zone) for a in alarms if a.get("enabled")]
    return min(times, default=None)
