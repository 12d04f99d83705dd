"""The clock surface: ``date [+FORMAT]`` on the simulated clock, as toybox prints it."""

from __future__ import annotations

import re

from device.virtual.shell_context import CommandContext, CommandFn
from sim.state import SIM_UTC_OFFSET_HOURS, TIME_ZONE_ABBREVIATION

__all__ = ["COMMANDS", "date"]


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


COMMANDS: dict[str, CommandFn] = {"date": date}
"""The clock surface's command."""
