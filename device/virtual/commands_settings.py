"""The settings surface: ``settings get|put|delete|list``, as AOSP's ``settings`` prints it
(``null`` for an unset key). A phone that refuses secure settings (a Redmi without its
input switch) fails ``put`` and ``delete`` to ``secure`` and ``global`` with the
``SecurityException`` Android prints, exit 255."""

from __future__ import annotations

from device.virtual.errors import SecurityRefused
from device.virtual.shell_context import CommandContext, CommandFn
from sim.settings_store import delete_setting, list_settings

__all__ = ["COMMANDS", "settings"]


_NAMESPACES = ("system", "secure", "global")


async def settings(ctx: CommandContext) -> int:
    """``settings [--user U] get|put|delete|list NAMESPACE [KEY [VALUE]]``."""
    try:
        return await _settings(ctx)
    except SecurityRefused as exc:
        verb = next((a for a in ctx.args if a in ("put", "delete")), "put")
        await ctx.eprintln(
            f"Exception occurred while executing '{verb}':",
            f"java.lang.SecurityException: {exc}",
            "\tat com.android.providers.settings.SettingsProvider.enforceWritePermission"
            "(SettingsProvider.java:2297)",
        )
        return 255


async def _settings(ctx: CommandContext) -> int:
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
        if namespace != "system" and not ctx.phone.input_allowed():
            raise SecurityRefused(SecurityRefused.WRITE_SECURE)
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


COMMANDS: dict[str, CommandFn] = {"settings": settings}
"""The settings surface's command."""
