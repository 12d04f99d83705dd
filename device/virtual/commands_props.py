"""The props surface: ``getprop [KEY [DEFAULT]]`` over the simulator's property table (the
value, or an empty line) with what the phone plays and what was set on it; ``setprop``.

What a phone says it is comes from three places, later ones winning: the simulator's table
(:func:`sim.device_props.system_properties`), the properties of the profile the phone plays
(a Redmi's ``ro.mi.os.version.name``, its input switch, ``ro.mgb.profile``), and what was
set on this phone (:attr:`~device.virtual.phone.VirtualPhone.set_props`). ``setprop`` sets
a property as Android's ``init`` allows it: the shell only ``debug.*`` and ``log.tag.*``,
root anything but a read-only ``ro.*`` already set; a refusal prints Android's two lines and
exits 1.
"""

from __future__ import annotations

from device.virtual.phone import VirtualPhone
from device.virtual.shell_context import ROOT_UID, CommandContext, CommandFn
from sim.device_props import system_properties

__all__ = ["COMMANDS", "getprop", "props", "setprop"]

_SHELL_SETTABLE = ("debug.", "log.tag.")
"""Property prefixes the shell user may set (their SELinux contexts allow it)."""


def props(phone: VirtualPhone) -> dict[str, str]:
    """System properties of the virtual phone (``getprop``): see the module docstring."""
    state = phone.instance.state
    values = system_properties(phone.identity, phone.sim.phone, state, density_dpi=phone.density)
    values.update(phone.plays.props)
    values["ro.mgb.profile"] = phone.plays.name
    switch = phone.plays.input_permission
    if switch is not None:
        values[switch.prop] = "0"
    values.update(phone.set_props)
    return values


async def getprop(ctx: CommandContext) -> int:
    """``getprop [KEY [DEFAULT]]``."""
    values = props(ctx.phone)
    if not ctx.args:
        await ctx.println(*(f"[{key}]: [{values[key]}]" for key in sorted(values)))
        return 0
    default = ctx.args[1] if len(ctx.args) > 1 else ""
    await ctx.println(values.get(ctx.args[0]) or default)
    return 0


async def setprop(ctx: CommandContext) -> int:
    """``setprop NAME VALUE``."""
    if len(ctx.args) != 2:
        return await ctx.usage("usage: setprop NAME VALUE\n\nSets an Android system property.")
    name, value = ctx.args
    allowed = name.startswith(_SHELL_SETTABLE) or (
        ctx.uid == ROOT_UID and not (name.startswith("ro.") and name in props(ctx.phone))
    )
    if not allowed:
        await ctx.eprintln(
            f"Failed to set property '{name}' to '{value}'.", "See dmesg for error reason."
        )
        return 1
    ctx.phone.set_props[name] = value
    return 0


COMMANDS: dict[str, CommandFn] = {"getprop": getprop, "setprop": setprop}
"""The props surface's commands."""
