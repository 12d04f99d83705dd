"""``dumpsys``: the sections drivers parse, in Android 14's shapes (protocols.md §1.7, §4).

* ``window [windows]``: ``mCurrentFocus=Window{hash u0 pkg/pkg.Activity}`` and
  ``mFocusedApp=ActivityRecord{hash u0 pkg/.Activity tN}`` (the notification shade, when
  open, holds the focus as ``Window{hash u0 NotificationShade}``).
* ``activity activities|top``: ``mResumedActivity: ActivityRecord{…}`` and
  ``ACTIVITY pkg/.Activity hash pid=N``.
* ``display`` (``orientation=0``, ``deviceWidth``/``deviceHeight``), ``power``
  (``mWakefulness``, ``mHoldingDisplaySuspendBlocker``), ``input_method`` (``mInputShown``),
  ``SurfaceFlinger --display-id``, ``battery``, ``package PKG``.
* ``bluetooth_manager``: the status and bonded devices (see :mod:`.commands_radios`).
* ``alarm``: the next alarm clock and its pending alarm (see :mod:`.commands_alarms`).
"""

from __future__ import annotations

import zlib

from device.virtual.commands_alarms import dumpsys_alarm
from device.virtual.commands_radios import dumpsys_bluetooth
from device.virtual.commands_system import DEFAULT_IME, pid_of
from device.virtual.packages import component, lookup, short_component
from device.virtual.phone import VirtualPhone
from device.virtual.shell_context import CommandContext, CommandFn

__all__ = ["COMMANDS", "focused_records"]


def _hash(text: str) -> str:
    return f"{zlib.crc32(text.encode()) & 0xFFFFFFF:07x}"


def focused_records(phone: VirtualPhone) -> list[tuple[str, str, int]]:
    """(package, activity, task id) of each task, the focused one first.

    The launcher (task 1) is listed last unless it is in front.
    """
    state = phone.instance.state
    records: list[tuple[str, str, int]] = []
    for index, task in enumerate(state.os.tasks):
        app = phone.sim.phone.apps[task.app]
        route = task.stack[-1] if task.stack else None
        skin = state.os.skin
        activity = app.launcher_activity(skin) if route is None else app.activity_for(route, skin)
        records.append((app.package_for(route, skin), activity, 100 + index))
    records.reverse()
    launcher = (*phone.home, 1)
    if state.os.foreground is None:
        return [launcher, *records]
    front = next((r for r in records if r[0] == phone.current_focus()[0]), None)
    others = [r for r in records if r is not front]
    return [r for r in (front, *others, launcher) if r is not None]


def _window(package: str, activity: str) -> str:
    name = component(package, activity)
    return f"Window{{{_hash(name)} u0 {name}}}"


def _record(package: str, activity: str, task: int) -> str:
    name = short_component(package, activity)
    return f"ActivityRecord{{{_hash('ar' + name)} u0 {name} t{task}}}"


async def _window_section(ctx: CommandContext) -> None:
    phone = ctx.phone
    ui = phone.instance.state.ui
    top = focused_records(phone)[0]
    focus = _window(top[0], top[1])
    if ui.shade_open:
        focus = f"Window{{{_hash('shade')} u0 NotificationShade}}"
    lines = ["WINDOW MANAGER WINDOWS (dumpsys window windows)"]
    windows = [
        f"Window{{{_hash('nav')} u0 NavigationBar0}}",
        f"Window{{{_hash('status')} u0 StatusBar}}",
        f"Window{{{_hash('shade')} u0 NotificationShade}}",
        f"Window{{{_hash('ime')} u0 InputMethod}}",
        _window(top[0], top[1]),
    ]
    shown = {"InputMethod}": ui.keyboard_visible, "NotificationShade}": ui.shade_open}
    for index, window in enumerate(windows):
        visible = next((on for end, on in shown.items() if window.endswith(end)), True)
        lines += [
            f"  Window #{index} {window}:",
            f"    mDisplayId=0 rootTaskId={top[2]} mSession=Session{{a1b2c3 12345:u0a10150}}",
            f"    mHasSurface={str(visible).lower()} isReadyForDisplay()="
            f"{str(visible).lower()} mWindowRemovalAllowed=false",
        ]
    lines += [
        "",
        f"  mGlobalConfiguration={{1.0 ?mcc?mnc [en_US] ldltr sw392dp w392dp "
        f"h817dp {phone.density}dpi nrml long port finger -keyb/v/h -nav/h}}",
        "  mTopFocusedDisplayId=0",
        f"  mInputMethodTarget in display# 0 {_window(top[0], top[1])}",
        f"  mCurrentFocus={focus}",
        f"  mFocusedApp={_record(*top)}",
    ]
    await ctx.println(*lines)


async def _activity_section(ctx: CommandContext, which: str) -> None:
    records = focused_records(ctx.phone)
    top = records[0]
    if which == "top":
        await ctx.println(
            "TASK dumpsys activity top",
            f"TASK {top[0]} id={top[2]} userId=0",
            f"  ACTIVITY {short_component(top[0], top[1])} "
            f"{_hash('a' + top[0])} pid={pid_of(top[0])}",
        )
        return
    lines = [
        "ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)",
        "Display #0 (activities from top to bottom):",
    ]
    for index, (package, activity, task) in enumerate(records):
        kind = "home" if package == ctx.phone.home.package else "standard"
        lines.append(
            f"  * Task{{{_hash('t' + package)} #{task} type={kind} "
            f"A=10150:{package} U=0 visible={str(index == 0).lower()} "
            "mode=fullscreen translucent=false sz=1}"
        )
        if index == 0:
            lines.append(f"    mResumedActivity: {_record(package, activity, task)}")
        lines.append(f"    * Hist  #0: {_record(package, activity, task)}")
    lines += [
        "",
        f"  ResumedActivity: {_record(*top)}",
        "Resumed activities in task display areas (from top to bottom):",
        f"    ResumedActivity: {_record(*top)}",
    ]
    await ctx.println(*lines)


async def _display_section(ctx: CommandContext) -> None:
    phone = ctx.phone
    w, h, dpi = phone.width_px, phone.height_px, phone.density
    await ctx.println(
        "DISPLAY MANAGER (dumpsys display)",
        "  mOnlyCore=false",
        "  mSafeMode=false",
        f'  DisplayDeviceInfo{{"Built-in Screen": uniqueId="local:4630946545580055170", '
        f"{w} x {h}, modeId 1, defaultModeId 1, density {dpi}, {dpi}.0 x {dpi}.0 dpi, "
        "rotation 0, type INTERNAL, state ON}",
        f"  mViewports=[DisplayViewport{{type=INTERNAL, valid=true, isActive=true, "
        f"displayId=0, uniqueId='local:4630946545580055170', physicalPort=130, "
        f"orientation=0, logicalFrame=Rect(0, 0 - {w}, {h}), physicalFrame=Rect(0, 0 - "
        f"{w}, {h}), deviceWidth={w}, deviceHeight={h}}}]",
    )


async def _power_section(ctx: CommandContext) -> None:
    on = ctx.phone.instance.state.os.screen_on
    await ctx.println(
        "POWER MANAGER (dumpsys power)",
        "",
        "Power Manager State:",
        "  mDirty=0x0",
        f"  mWakefulness={'Awake' if on else 'Asleep'}",
        "  mWakefulnessChanging=false",
        "  mIsPowered=true",
        "  mBatteryLevel=85",
        "  mHoldingWakeLockSuspendBlocker=false",
        f"  mHoldingDisplaySuspendBlocker={str(on).lower()}",
        f"Display Power: state={'ON' if on else 'OFF'}",
    )


async def _input_method_section(ctx: CommandContext) -> None:
    shown = str(ctx.phone.instance.state.ui.keyboard_visible).lower()
    await ctx.println(
        "Current Input Method Manager state:",
        f"  mCurMethodId={DEFAULT_IME}",
        f"  mCurFocusedWindowClient={_window(*focused_records(ctx.phone)[0][:2])}",
        f"  mInputShown={shown}",
        f"  mShowRequested={shown} mShowExplicitlyRequested=false mShowForced=false",
        f"  mIsInputViewShown={shown}",
    )


async def _battery_section(ctx: CommandContext) -> None:
    await ctx.println(
        "Current Battery Service state:",
        "  AC powered: false",
        "  USB powered: true",
        "  Wireless powered: false",
        "  Max charging current: 500000",
        "  Max charging voltage: 5000000",
        "  Charge counter: 4200000",
        "  status: 2",
        "  health: 2",
        "  present: true",
        "  level: 85",
        "  scale: 100",
        "  voltage: 4200",
        "  temperature: 300",
        "  technology: Li-poly",
    )


async def _package_section(ctx: CommandContext, package: str) -> None:
    info = lookup(ctx.phone, package)
    if info is None:
        return
    flags = (
        "[ SYSTEM HAS_CODE ALLOW_CLEAR_USER_DATA ]"
        if info.system
        else ("[ HAS_CODE ALLOW_CLEAR_USER_DATA ALLOW_BACKUP ]")
    )
    identity, apk = ctx.phone.identity, info.installed
    sdk_levels = (apk.facts.min_sdk, apk.facts.target_sdk) if apk else (28, identity.sdk)
    os_state = ctx.phone.instance.state.os
    first, last = ("2009-01-01 08:00:00",) * 2
    if apk is not None:  # PackageManager prints install times as local "yyyy-MM-dd HH:mm:ss"
        first, last = (
            os_state.local_time(ms).strftime("%Y-%m-%d %H:%M:%S")
            for ms in (apk.first_install_ms, apk.last_update_ms)
        )
    await ctx.println(
        "Packages:",
        f"  Package [{package}] ({_hash('p' + package)}):",
        f"    userId={info.uid}",
        f"    codePath={info.path.rsplit('/', 1)[0]}",
        f"    versionCode={info.version_code(identity.sdk)} minSdk={sdk_levels[0]} "
        f"targetSdk={sdk_levels[1]}",
        f"    versionName={info.version_name(identity.android_version)}",
        f"    signatures=PackageSignatures{{{_hash('s' + package)} version:3, "
        f"signatures:[{_hash('k' + package)}], past signatures:[]}}",
        f"    flags={flags}",
        f"    pkgFlags={flags}",
        f"    firstInstallTime={first}",
        f"    lastUpdateTime={last}",
    )


async def dumpsys(ctx: CommandContext) -> int:
    """``dumpsys SERVICE [ARGS]`` for the services above; others print a short notice."""
    service, rest = (ctx.args[0], ctx.args[1:]) if ctx.args else ("", [])
    if service == "window":
        await _window_section(ctx)
    elif service == "activity":
        await _activity_section(ctx, rest[0] if rest else "activities")
    elif service == "display":
        await _display_section(ctx)
    elif service == "power":
        await _power_section(ctx)
    elif service == "input_method":
        await _input_method_section(ctx)
    elif service == "battery":
        await _battery_section(ctx)
    elif service == "package" and rest:
        await _package_section(ctx, rest[-1])
    elif service == "bluetooth_manager":
        await dumpsys_bluetooth(ctx)
    elif service == "alarm":
        await dumpsys_alarm(ctx)
    elif service == "SurfaceFlinger" and "--display-id" in rest:
        await ctx.println(
            'Display 0 (HWC display 0): port=0 pnpId=QCM displayName="Built-in Screen"'
        )
    elif service == "SurfaceFlinger":
        await ctx.println("SurfaceFlinger: the virtual phone has one display (id 0)")
    elif not service:
        return await ctx.usage("usage: dumpsys [SERVICE [ARGS]]")
    else:
        await ctx.eprintln(f"Can't find service: {service}")
    return 0


COMMANDS: dict[str, CommandFn] = {"dumpsys": dumpsys}
"""The dumpsys command."""
