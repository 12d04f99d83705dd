"""DeskClock's alarms as AOSP's ``ClockProvider`` keeps them: ``content://com.android.deskclock/alarms``.

Columns as ``ClockContract.AlarmsColumns``: ``_id, hour, minutes, daysofweek, enabled,
vibrate, label, ringtone, delete_after_use``. ``daysofweek`` is DeskClock's ``Weekdays``
bit set: Monday ``0x01``, Tuesday ``0x02`` … Sunday ``0x40`` (0: rings once). The rows are
the Clock app's own alarms (:mod:`sim.apps.clock.alarms`), so the app and ``content``
always agree; writes go through the same functions.

On a retail phone this provider is not exported (``android:exported="false"``): the shell
cannot read it, so a task judged through it runs in the simulator and on the virtual phone
only (its spec says so in ``requires``). Failures are ``IllegalArgumentException`` (a
missing or bad value, with its name).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bridge.android_contract import DESKCLOCK_AUTHORITY, alarm_days
from sim.apps.clock.alarms import alarm_rows, delete_alarm, get_alarm, put_alarm
from sim.providers.errors import ProviderError
from sim.providers.table import Column, Provider, ProviderContext, ProviderTable, Values

__all__ = ["clock_provider", "days_of"]

_APP = "clock"
_RINGTONE = "content://settings/system/alarm_alert"
_COLUMNS = ("_id", "hour", "minutes", "daysofweek", "enabled", "vibrate", "label", "ringtone",
            "delete_after_use")  # fmt: skip
_WRITABLE = _COLUMNS[1:]
_INTEGERS = {"hour", "minutes", "daysofweek", "enabled", "vibrate", "delete_after_use"}


def days_of(bits: int) -> list[int]:
    """DeskClock's ``daysofweek`` bits as weekdays (0 Monday … 6 Sunday)."""
    if not 0 <= bits <= 0x7F:
        raise ProviderError(f"daysofweek {bits} is not a set of weekdays (0 to 127)")
    return [day for day in range(7) if bits & (1 << day)]


def _row(alarm: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "_id": alarm["id"],
        "hour": alarm["hour"],
        "minutes": alarm["minute"],
        "daysofweek": alarm_days(alarm["days"]),
        "enabled": int(alarm["enabled"]),
        "vibrate": 1,
        "label": alarm["label"],
        "ringtone": _RINGTONE,
        "delete_after_use": 0,
    }


def _rows(ctx: ProviderContext) -> list[dict[str, Any]]:
    return [_row(alarm) for alarm in alarm_rows(ctx.world(_APP), ctx.overlay(_APP))]


def _checked(values: Values) -> Values:
    unknown = sorted(set(values) - set(_WRITABLE))
    if unknown:
        raise ProviderError(f"no column '{unknown[0]}' in alarms (columns: {', '.join(_WRITABLE)})")
    for column in sorted(_INTEGERS & set(values)):
        if values[column] is not None and not isinstance(values[column], int):
            raise ProviderError(f"{column} must be an integer, got {values[column]!r}")
    return values


def _alarm(values: Values, current: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The app's alarm row for provider ``values`` over ``current`` (None: a new alarm)."""
    base = dict(current or {"id": None, "days": [], "label": "", "enabled": True})
    if "hour" in values:
        base["hour"] = values["hour"]
    if "minutes" in values:
        base["minute"] = values["minutes"]
    if values.get("daysofweek") is not None:
        base["days"] = days_of(int(values["daysofweek"]))
    if "enabled" in values:
        base["enabled"] = bool(values["enabled"])
    if "label" in values:
        base["label"] = values["label"] or ""
    for column, key, top in (("hour", "hour", 23), ("minutes", "minute", 59)):
        if base.get(key) is None:
            raise ProviderError(f"{column} is required for an alarm")
        if not 0 <= int(base[key]) <= top:
            raise ProviderError(f"{column} {base[key]} is out of range (0 to {top})")
    return base


def _insert(ctx: ProviderContext, values: Values) -> int:
    alarm = _alarm(_checked(values))
    return int(put_alarm(ctx.world(_APP), ctx.writable_overlay(_APP), alarm)["id"])


def _update(ctx: ProviderContext, rows: list[Mapping[str, Any]], values: Values) -> None:
    _checked(values)
    world, overlay = ctx.world(_APP), ctx.writable_overlay(_APP)
    for row in rows:
        current = get_alarm(world, overlay, int(row["_id"]))
        if current is not None:
            put_alarm(world, overlay, _alarm(values, current))


def _delete(ctx: ProviderContext, rows: list[Mapping[str, Any]]) -> None:
    overlay = ctx.writable_overlay(_APP)
    for row in rows:
        delete_alarm(overlay, int(row["_id"]))


def clock_provider() -> Provider:
    """The ``com.android.deskclock`` provider's ``alarms`` table (module docstring)."""
    integer = {"_id", *_INTEGERS}
    alarms = ProviderTable(
        name="alarms",
        columns=tuple(Column(name, "INTEGER" if name in integer else "TEXT") for name in _COLUMNS),
        rows=_rows,
        insert=_insert,
        update=_update,
        delete=_delete,
    )
    return Provider(DESKCLOCK_AUTHORITY, (alarms,))
