"""The props surface: ``getprop [KEY [DEFAULT]]`` over the simulator's property table (the
value, or an empty line)."""

from __future__ import annotations

from device.virtual.phone import VirtualPhone
from device.virtual.shell_context import CommandContext, CommandFn
from sim.device_props import system_properties

__all__ = ["COMMANDS", "getprop", "props"]


def props(phone: VirtualPhone) -> dict[str, str]:
    """System properties of the virtual phone (``getprop``): the simulator's table."""
    state = phone.instance.state
    return system_properties(phone.identity, phone.sim.phone, state, density_dpi=phone.density)


async def getprop(ctx: CommandContext) -> int:
    """``getprop [KEY [DEFAULT]]``."""
    values = props(ctx.phone)
    if not ctx.args:
        await ctx.println(*(f"[{key}]: [{values[key]}]" for key in sorted(values)))
        return 0
    default = ctx.args[1] if len(ctx.args) > 1 else ""
    await ctx.println(values.get(ctx.args[0]) or default)
    return 0


COMMANDS: dict[str, CommandFn] = {"getprop": getprop}
"""The props surface's command."""
