"""The alarms surface: ``dumpsys alarm``, AlarmManagerService's dump, the parts a judge
reads (Android 14's shape).

The section that matters is the next alarm clock, which AOSP prints per user as::

    Current Alarm Manager state:
      ...
      Next alarm clock information:
        user:0 pendingSend:false time:1778596200000 = 2026-05-12 22:30:00.000 = +13h0m0s0ms

(the trigger time in epoch ms, then as local wall time ``yyyy-MM-dd HH:mm:ss.SSS``, then
how far from now in ``TimeUtils.formatDuration``'s form). With no alarm clock set the
section has no user line. The Clock app's pending alarm follows with its ``Alarm clock:``
block. The Clock app's value is :func:`sim.android_state.next_alarm_clock`, the very
computation the simulator's ``AndroidState.next_alarm`` returns. A phone whose profile has
OS apps that set alarm clocks (a Xiaomi's Security app) also holds one of each, at the next
full hour, so the phone's next alarm clock is often not the user's.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

from device.virtual.phone import VirtualPhone
from device.virtual.shell_context import CommandContext
from sim.android_state.alarms import alarm_clocks as sim_alarm_clocks
from sim.state import TIME_ZONE

__all__ = ["alarm_clocks", "alarm_lines", "dumpsys_alarm", "format_duration", "format_wall_time"]

_HOUR_MS = 3_600_000


def format_wall_time(epoch_ms: int, zone: str = TIME_ZONE) -> str:
    """``2026-05-13 22:30:00.000``: epoch ms as the phone's local wall time."""
    utc = datetime(1970, 1, 1, tzinfo=timezone.utc) + timedelta(milliseconds=epoch_ms)
    local = utc.astimezone(ZoneInfo(zone))
    return local.strftime("%Y-%m-%d %H:%M:%S.") + f"{epoch_ms % 1000:03d}"


def format_duration(ms: int) -> str:
    """A duration as Android's ``TimeUtils.formatDuration`` prints it: ``+13h0m0s0ms``,
    ``-5s20ms``, ``0`` (days, hours, minutes, seconds once a larger unit shows; ms always)."""
    if ms == 0:
        return "0"
    sign, rest = ("+" if ms > 0 else "-"), abs(ms)
    rest, millis = divmod(rest, 1000)
    rest, seconds = divmod(rest, 60)
    rest, minutes = divmod(rest, 60)
    days, hours = divmod(rest, 24)
    text, shown = sign, False
    for amount, unit in ((days, "d"), (hours, "h"), (minutes, "m"), (seconds, "s")):
        if amount or shown:
            text += f"{amount}{unit}"
            shown = True
    return f"{text}{millis}ms"


def _pending(index: int, package: str, next_ms: int, now_ms: int) -> list[str]:
    when = format_wall_time(next_ms)
    return [
        f"  RTC_WAKEUP #{index}: Alarm{{5b1e3a{index} type 0 origWhen {next_ms} window 0 "
        f"exactAllowReason=policy_permission {package}}}",
        f"    tag=*walarm*:{package}.ALARM_ALERT",
        f"    type=RTC_WAKEUP origWhen={when} window=0 repeatInterval=0 count=0 flags=0x3",
        f"    policyWhenElapsed: requester={format_duration(next_ms - now_ms)}",
        "    Alarm clock:",
        f"      triggerTime={when}",
        f"      showIntent=PendingIntent{{8c4d2f{index}: PendingIntentRecord{{3e9a0b{index} "
        f"{package} startActivity}}}}",
        f"    operation=PendingIntent{{a27f5c{index}: PendingIntentRecord{{71d3e0{index} "
        f"{package} broadcastIntent}}}}",
    ]


def alarm_clocks(phone: VirtualPhone) -> list[tuple[int, str]]:
    """(trigger time in epoch ms, package) of every alarm clock the phone holds, soonest
    first: the Clock app's next alarm, and one of each OS app of its profile that sets its
    own (at the next full hour)."""
    state = phone.instance.state
    found: list[tuple[int, str]] = []
    apps = phone.sim.phone.apps
    for app_id, ring in sim_alarm_clocks(phone.sim.phone, state).items():
        found.append((ring, apps[app_id].package_on(phone.skin)))
    next_hour = (state.os.clock_ms // _HOUR_MS + 1) * _HOUR_MS
    found += [(next_hour, package) for package in phone.plays.alarm_clock_apps]
    return sorted(found)


def alarm_lines(phone: VirtualPhone) -> list[str]:
    """The lines ``dumpsys alarm`` prints for the virtual phone."""
    state = phone.instance.state
    now_ms = state.os.clock_ms
    clocks = alarm_clocks(phone)
    lines = [
        "Current Alarm Manager state:",
        f"  nowRTC={now_ms}={format_wall_time(now_ms)} nowELAPSED=+1h2m3s456ms",
        "",
        "  Next alarm clock information: ",
    ]
    if clocks:
        next_ms = clocks[0][0]
        lines.append(
            f"    user:0 pendingSend:false time:{next_ms} = {format_wall_time(next_ms)} = "
            f"{format_duration(next_ms - now_ms)}"
        )
        lines += ["", "  Pending alarms:"]
        for index, (when, package) in enumerate(clocks):
            lines += _pending(index, package, when, now_ms)
    lines += ["", "  Pending user blocked background alarms: ", "    none"]
    return lines


async def dumpsys_alarm(ctx: CommandContext) -> None:
    """``dumpsys alarm``: see the module docstring."""
    await ctx.println(*alarm_lines(ctx.phone))
