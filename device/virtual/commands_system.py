"""System commands: ``getprop``, ``wm``, ``settings``, ``ime``, ``ps``, ``svc``, ``cmd`` …

Output follows AOSP (protocols.md §1.7/§4): ``getprop KEY`` prints the value or an empty
line, ``wm size`` prints ``Physical size: 1080x2400``, ``settings get`` prints ``null`` for
an unset key, ``ime list -s`` lists only the default Latin IME (never uiautomator2's
AdbKeyboard, so u2 types through the clipboard), ``ps -A`` has toybox's 9 columns.
"""

from __future__ import annotations

import asyncio
import re
import zlib

from device.virtual.commands_radios import bluetooth_command, wifi_command
from device.virtual.phone import VirtualPhone
from device.virtual.shell_context import CommandContext, CommandFn
from sim.device_props import system_properties
from sim.radios import airplane_changed, set_radio
from sim.settings_store import delete_setting, list_settings
from sim.state import SIM_UTC_OFFSET_HOURS, TIME_ZONE_ABBREVIATION

__all__ = ["COMMANDS", "DEFAULT_IME", "pid_of", "props"]

DEFAULT_IME = "com.android.inputmethod.latin/.LatinIME"
"""The one input method the virtual phone has."""
_NAMESPACES = ("system", "secure", "global")
_SYSTEM_PROCESSES = (
    ("root", 1, 0, "init"),
    ("root", 2, 0, "[kthreadd]"),
    ("system", 1151, 1, "system_server"),
    ("u0_a150", 1502, 1, "com.android.systemui"),
    ("u0_a160", 2210, 1, "com.android.launcher3"),
    ("u0_a170", 2315, 1, DEFAULT_IME.split("/")[0]),
)


def props(phone: VirtualPhone) -> dict[str, str]:
    """System properties of the virtual phone (``getprop``): the simulator's table."""
    state = phone.instance.state
    return system_properties(phone.identity, phone.sim.phone, state, density_dpi=phone.density)


def pid_of(package: str) -> int:
    """A stable process id for a package (same every run)."""
    return 3000 + zlib.crc32(package.encode()) % 27000


async def getprop(ctx: CommandContext) -> int:
    """``getprop [KEY [DEFAULT]]``."""
    values = props(ctx.phone)
    if not ctx.args:
        await ctx.println(*(f"[{key}]: [{values[key]}]" for key in sorted(values)))
        return 0
    default = ctx.args[1] if len(ctx.args) > 1 else ""
    await ctx.println(values.get(ctx.args[0]) or default)
    return 0


async def wm(ctx: CommandContext) -> int:
    """``wm size`` / ``wm density`` (the virtual display cannot be resized)."""
    sub, rest = (ctx.args[0], ctx.args[1:]) if ctx.args else ("", [])
    phone = ctx.phone
    if sub not in ("size", "density"):
        return await ctx.usage(
            f"Error: unknown command '{sub}'"
            if sub
            else "Window manager (window) commands:\n  size [reset|WxH|WdpxHdp]\n  density"
        )
    if rest and rest[0] != "reset":
        return await ctx.usage(f"Error: the virtual phone cannot change its display {sub}")
    if not rest:
        if sub == "size":
            await ctx.println(f"Physical size: {phone.width_px}x{phone.height_px}")
        else:
            await ctx.println(f"Physical density: {phone.density}")
    return 0


async def settings(ctx: CommandContext) -> int:
    """``settings [--user U] get|put|delete|list NAMESPACE [KEY [VALUE]]``."""
    args = list(ctx.args)
    while args and args[0] in ("--user", "--lineage"):
        args = args[2:] if args[0] == "--user" else args[1:]
    if len(args) < 2 or args[1] not in _NAMESPACES:
        return await ctx.usage("Invalid command: settings " + " ".join(ctx.args))
    verb, namespace, rest = args[0], args[1], args[2:]
    state = ctx.phone.instance.state
    if verb == "get" and rest:
        await ctx.println(ctx.phone.settings_get(namespace, rest[0]))
    elif verb == "put" and len(rest) >= 2:
        ctx.phone.settings_put(namespace, rest[0], rest[1])
    elif verb == "delete" and rest:
        deleted = delete_setting(state, namespace, rest[0])
        ctx.changed()
        await ctx.println(f"Deleted {int(deleted)} rows")
    elif verb == "list":
        listed = list_settings(state, namespace)
        await ctx.println(*(f"{key}={value}" for key, value in listed.items()))
    elif verb == "reset":
        return 0
    else:
        return await ctx.usage("Invalid command: settings " + " ".join(ctx.args))
    return 0


async def ime(ctx: CommandContext) -> int:
    """``ime list [-s] [-a]``, ``ime enable|set ID`` (only the Latin IME exists)."""
    sub, rest = (ctx.args[0], ctx.args[1:]) if ctx.args else ("", [])
    if sub == "list":
        if "-s" in rest:
            await ctx.println(DEFAULT_IME)
        else:
            await ctx.println(
                f"{DEFAULT_IME}:",
                f"  mId={DEFAULT_IME} mSettingsActivityName="
                "com.android.inputmethod.latin.settings.SettingsActivity",
            )
        return 0
    replies = {
        "enable": f"Input method {DEFAULT_IME}: already enabled for user #0",
        "disable": f"Input method {DEFAULT_IME}: now disabled for user #0",
        "set": f"Input method {DEFAULT_IME} selected for user #0",
    }
    if sub in replies and rest:
        if rest[-1] != DEFAULT_IME:
            verb = {"enable": "enabled", "set": "selected", "disable": "disabled"}[sub]
            await ctx.eprintln(f"Unknown input method {rest[-1]} cannot be {verb} for user #0")
            return 0
        await ctx.println(replies[sub])
        return 0
    if sub == "reset":
        await ctx.println("Reset current and enabled IMEs for user #0")
        return 0
    return await ctx.usage("ime <command>:\n  list [-a] [-s]\n  enable ID\n  set ID")


def _process_rows(phone: VirtualPhone) -> list[tuple[str, int, int, str]]:
    rows = list(_SYSTEM_PROCESSES)
    running = {task.app for task in phone.instance.state.os.tasks}
    for app_id in sorted(running):
        package = phone.sim.phone.apps[app_id].package
        rows.append(
            (f"u0_a{100 + zlib.crc32(package.encode()) % 200}", pid_of(package), 1, package)
        )
    return rows


def _ps_line(user: str, pid: int, ppid: int, name: str, state: str = "S") -> str:
    return f"{user:<10} {pid:>5} {ppid:>5} {14_000_000:>8} {120_000:>6} 0 {0:>16} {state} {name}"


async def ps(ctx: CommandContext) -> int:
    """``ps [-A]``: toybox's columns; with ``-A`` the system and the running apps."""
    header = f"{'USER':<10} {'PID':>5} {'PPID':>5} {'VSZ':>8} {'RSS':>6} WCHAN {'ADDR':>16} S NAME"
    if any(arg in ("-A", "-e", "-ef") for arg in ctx.args):
        rows = [_ps_line(*row) for row in _process_rows(ctx.phone)]
    else:
        rows = [_ps_line("shell", 12345, 1, "sh"), _ps_line("shell", 12346, 12345, "ps", "R")]
    await ctx.println(header, *rows)
    return 0


async def pidof(ctx: CommandContext) -> int:
    """``pidof NAME…``: pids of running processes; exit 1 when none."""
    rows = _process_rows(ctx.phone)
    pids = [str(pid) for _, pid, _, name in rows if name in ctx.args]
    if not pids:
        return 1
    await ctx.println(" ".join(pids))
    return 0


async def svc(ctx: CommandContext) -> int:
    """``svc wifi|data|bluetooth enable|disable``."""
    if len(ctx.args) < 2 or ctx.args[1] not in ("enable", "disable"):
        return await ctx.usage("Available commands:\n    wifi\n    data\n    bluetooth")
    on = ctx.args[1] == "enable"
    settings_ = ctx.phone.instance.state.os.settings
    if ctx.args[0] == "wifi":
        set_radio(settings_, "wifi_on", on)
    elif ctx.args[0] == "bluetooth":
        set_radio(settings_, "bluetooth_on", on)
    elif ctx.args[0] == "data":
        settings_["global"]["mobile_data"] = int(on)
    else:
        return await ctx.usage(f"svc: unknown command '{ctx.args[0]}'")
    ctx.changed()
    return 0


async def cmd(ctx: CommandContext) -> int:
    """``cmd SERVICE …``: statusbar, wifi, uimode, connectivity, and aliases of the tools."""
    from device.virtual.shell import command_table

    if not ctx.args:
        return await ctx.usage("cmd: No service specified; use -l to list all services")
    service, rest = ctx.args[0], ctx.args[1:]
    handler = _CMD_SERVICES.get(service)
    if handler is not None:
        return await handler(ctx, rest)
    alias = {
        "package": "pm",
        "activity": "am",
        "input": "input",
        "settings": "settings",
        "input_method": "ime",
        "content": "content",
    }.get(service)
    if alias is not None:
        ctx.args = rest
        return await command_table()[alias](ctx)
    await ctx.eprintln(f"cmd: Can't find service: {service}")
    return 20


async def _statusbar(ctx: CommandContext, rest: list[str]) -> int:
    ui = ctx.phone.instance.state.ui
    if rest[:1] in (["expand-notifications"], ["expand-settings"]):
        ui.shade_open, ui.recents_open, ui.keyboard_visible = True, False, False
    elif rest[:1] == ["collapse"]:
        ui.shade_open = False
    else:
        return await ctx.usage(
            "Status bar commands:\n  expand-notifications\n  expand-settings\n  collapse"
        )
    ctx.changed()
    return 0


async def _uimode(ctx: CommandContext, rest: list[str]) -> int:
    secure = ctx.phone.instance.state.os.settings.setdefault("secure", {})
    modes = {"auto": 0, "no": 1, "yes": 2}
    if rest[:1] != ["night"] or (len(rest) > 1 and rest[1] not in modes):
        return await ctx.usage("UiModeManager service (uimode) commands:\n  night [yes|no|auto]")
    if len(rest) > 1:
        secure["ui_night_mode"] = modes[rest[1]]
        ctx.changed()
    names = {value: name for name, value in modes.items()}
    await ctx.println(f"Night mode: {names.get(int(secure.get('ui_night_mode', 1)), 'no')}")
    return 0


async def _connectivity(ctx: CommandContext, rest: list[str]) -> int:
    if rest[:1] == ["airplane-mode"] and rest[1:2] in (["enable"], ["disable"]):
        # ConnectivityService.setAirplaneMode: write the setting, then broadcast the change
        # even when a `settings put` wrote it already, so the radios follow either way.
        settings_ = ctx.phone.instance.state.os.settings
        settings_["global"]["airplane_mode_on"] = int(rest[1] == "enable")
        airplane_changed(settings_)
        ctx.changed()
        return 0
    return await ctx.usage("Connectivity service commands:\n  airplane-mode [enable|disable]")


_CMD_SERVICES = {
    "statusbar": _statusbar,
    "wifi": wifi_command,
    "uimode": _uimode,
    "connectivity": _connectivity,
    "bluetooth_manager": bluetooth_command,
}


async def id_(ctx: CommandContext) -> int:
    """``id``: the adb shell user (root under ``su``)."""
    if ctx.uid == 0:
        await ctx.println("uid=0(root) gid=0(root) groups=0(root) context=u:r:su:s0")
        return 0
    await ctx.println(
        "uid=2000(shell) gid=2000(shell) groups=2000(shell),1004(input),"
        "1007(log),1011(adb),1015(sdcard_rw),1028(sdcard_r),3003(inet) "
        "context=u:r:shell:s0"
    )
    return 0


async def whoami(ctx: CommandContext) -> int:
    """``whoami``."""
    await ctx.println("root" if ctx.uid == 0 else "shell")
    return 0


async def date(ctx: CommandContext) -> int:
    """``date [+FORMAT]``: the simulated clock in :data:`sim.state.TIME_ZONE`, as toybox
    prints it (``%s`` epoch seconds, ``%N`` nanoseconds, ``%Z`` ``CST``, ``%z`` ``+0800``)."""
    os_state = ctx.phone.instance.state.os
    form = ctx.args[0][1:] if ctx.args[:1] and ctx.args[0].startswith("+") else "%a %b %d %T %Z %Y"
    fields = {
        "%s": str(os_state.clock_ms // 1000),
        "%N": f"{os_state.clock_ms % 1000 * 1_000_000:09d}",
        "%Z": TIME_ZONE_ABBREVIATION,
        "%z": f"{SIM_UTC_OFFSET_HOURS:+03d}00",
        "%T": "%H:%M:%S",
        "%%": "%%",
    }
    text = re.sub("|".join(map(re.escape, fields)), lambda m: fields[m.group()], form)
    await ctx.println(os_state.local_time().strftime(text))
    return 0


async def sleep(ctx: CommandContext) -> int:
    """``sleep SECONDS``: what the caller asked for, on the phone's clock."""
    try:
        seconds = float(ctx.args[0]) if ctx.args else -1.0
    except ValueError:
        seconds = -1.0
    if seconds < 0:
        return await ctx.usage("sleep: Need 1 argument")
    await asyncio.sleep(seconds)
    return 0


async def logcat(ctx: CommandContext) -> int:
    """``logcat [-d|-c]``: the virtual phone logs nothing; without ``-d`` it waits like
    logcat does, until the host closes the stream."""
    if "-c" in ctx.args:
        return 0
    await ctx.println("--------- beginning of main")
    if "-d" in ctx.args or ctx.stream is None:
        return 0
    while await ctx.stream.read():
        pass
    return 0


COMMANDS: dict[str, CommandFn] = {
    "getprop": getprop,
    "wm": wm,
    "settings": settings,
    "ime": ime,
    "ps": ps,
    "pidof": pidof,
    "svc": svc,
    "cmd": cmd,
    "id": id_,
    "whoami": whoami,
    "date": date,
    "sleep": sleep,
    "logcat": logcat,
}
"""The system commands, by name."""
