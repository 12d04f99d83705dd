"""System commands: ``wm``, ``ime``, ``svc``, ``cmd``, ``id``, ``whoami``, ``sleep`` …

Output follows AOSP (protocols.md §1.7/§4): ``wm size`` prints ``Physical size: 1080x2400``,
``ime list -s`` lists the enabled IMEs (the Latin IME, plus uiautomator2's
AdbKeyboard once its APK is installed and enabled). ``ps``, ``pidof`` and ``uname`` live
in :mod:`device.virtual.commands_proc`, pids in :mod:`device.virtual.processes`; the
commands of a task surface in the module named after it (``settings`` in
:mod:`device.virtual.commands_settings`, ``getprop`` in :mod:`device.virtual.commands_props`,
``date`` in :mod:`device.virtual.commands_clock`).
"""

from __future__ import annotations

import asyncio

from device.virtual import input_methods
from device.virtual.commands_radios import bluetooth_command, wifi_command
from device.virtual.processes import pid_of
from device.virtual.shell_context import CommandContext, CommandFn
from sim.radios import airplane_changed, set_radio

__all__ = [
    "COMMANDS",
    "DEFAULT_IME",
    "pid_of",
]

DEFAULT_IME = "com.android.inputmethod.latin/.LatinIME"
"""The one input method the virtual phone has."""


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


async def ime(ctx: CommandContext) -> int:
    """``ime list [-s] [-a]``, ``ime enable|disable|set ID``, ``ime reset``: the Latin IME and
    the IMEs of installed APKs (:mod:`device.virtual.input_methods`)."""
    sub, rest = (ctx.args[0], ctx.args[1:]) if ctx.args else ("", [])
    if sub == "list":
        return await _ime_list(ctx, rest)
    if sub in ("enable", "disable", "set") and rest:
        return await _ime_choose(ctx, sub, rest[-1])
    if sub == "reset":
        input_methods.set_enabled(ctx.phone, input_methods.LATIN_IME, True)
        for other in input_methods.enabled(ctx.phone)[1:]:
            input_methods.set_enabled(ctx.phone, other, False)
        input_methods.select(ctx.phone, input_methods.LATIN_IME)
        await ctx.println("Reset current and enabled IMEs for user #0")
        return 0
    return await ctx.usage("ime <command>:\n  list [-a] [-s]\n  enable ID\n  set ID")


async def _ime_list(ctx: CommandContext, rest: list[str]) -> int:
    shown = (input_methods.available if "-a" in rest else input_methods.enabled)(ctx.phone)
    if "-s" in rest:
        await ctx.println(*shown)
        return 0
    for ime_id in shown:
        settings_activity = (
            "com.android.inputmethod.latin.settings.SettingsActivity"
            if ime_id == input_methods.LATIN_IME
            else "null"
        )
        await ctx.println(f"{ime_id}:", f"  mId={ime_id} mSettingsActivityName={settings_activity}")
    return 0


async def _ime_choose(ctx: CommandContext, sub: str, ime_id: str) -> int:
    """``ime enable|disable|set ID`` with InputMethodManagerService's replies."""
    phone = ctx.phone
    known = input_methods.enabled(phone) if sub == "set" else input_methods.available(phone)
    if ime_id not in known:
        verb = {"enable": "enabled", "set": "selected", "disable": "disabled"}[sub]
        await ctx.eprintln(f"Unknown input method {ime_id} cannot be {verb} for user #0")
        return 0
    if sub == "set":
        input_methods.select(phone, ime_id)
        await ctx.println(f"Input method {ime_id} selected for user #0")
        return 0
    on = sub == "enable"
    was_on = input_methods.set_enabled(phone, ime_id, on)
    state = "already " if was_on == on else "now "
    await ctx.println(f"Input method {ime_id}: {state}{sub}d for user #0")
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
    tool = ctx.shell.commands.get(alias) if alias is not None else None
    if tool is not None:
        ctx.args = rest
        return await tool(ctx)
    await ctx.eprintln(f"cmd: Can't find service: {service}")
    return 20


async def _statusbar(ctx: CommandContext, rest: list[str]) -> int:
    """``cmd statusbar expand-notifications|expand-settings|collapse``: the shade showing
    the notifications or the quick settings in full (on HyperOS its Control Center)."""
    instance = ctx.phone.instance
    if rest[:1] in (["expand-notifications"], ["expand-settings"]):
        instance.phone.open_shade(instance.state, quick_settings=rest[0] == "expand-settings")
    elif rest[:1] == ["collapse"]:
        instance.phone.close_shade(instance.state)
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


async def _lock_settings(ctx: CommandContext, rest: list[str]) -> int:
    """``cmd lock_settings verify|get-disabled``: the virtual phone has no lock-screen
    credential and its lock screen is on (as a phone set up with "None" is not)."""
    if rest[:1] == ["verify"]:
        await ctx.println("Lock credential verified successfully")
        return 0
    if rest[:1] == ["get-disabled"]:
        await ctx.println("false")
        return 0
    return await ctx.usage("lock_settings service commands:\n  verify\n  get-disabled")


_CMD_SERVICES = {
    "lock_settings": _lock_settings,
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


COMMANDS: dict[str, CommandFn] = {
    "wm": wm,
    "ime": ime,
    "svc": svc,
    "cmd": cmd,
    "id": id_,
    "whoami": whoami,
    "sleep": sleep,
}
"""The system commands, by name."""
