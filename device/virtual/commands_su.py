"""``su [WHO [COMMAND...]]``: AOSP's ``su`` (``system/extras/su``) on the virtual phone.

It runs ``COMMAND`` as ``WHO`` (default ``root``; a uid or a name, the first of a
comma-separated ``uid,gid,groups`` list), only for the shell or root (``su: not allowed``
otherwise). Output as AOSP's: ``--help`` prints the usage on stderr, an unknown user is
``su: invalid uid/gid 'WHO'`` (exit 1). ``su 0 sh -c 'SCRIPT'`` runs the script as root.
What root may do and the shell may not — write SMS (:meth:`sim.providers.ContentResolver.
shell_may_write`) — follows from :attr:`~device.virtual.shell_context.CommandContext.uid`.
A retail phone has no ``su`` (``/system/bin/sh: su: inaccessible or not found``, exit 127);
the virtual phone has it so that tasks a retail phone cannot pose (an inbound SMS) still
run through its real adb path. Deviation: without a command there is no interactive shell
(the usage is printed, exit 1).
"""

from __future__ import annotations

from device.virtual.shell_context import ROOT_UID, SHELL_UID, CommandContext

__all__ = ["USAGE", "su"]

USAGE = (
    "usage: su [WHO [COMMAND...]]\n\n"
    "Switch to WHO (default 'root') and run the given COMMAND (default sh).\n\n"
    "WHO is a comma-separated list of user, group, and supplementary groups\n"
    "in that order.\n"
)
_USERS = {"root": ROOT_UID, "system": 1000, "shell": SHELL_UID}
_DEFAULT_PATH = "/product/bin:/apex/com.android.runtime/bin:/system/bin:/system/xbin:/vendor/bin"


def _uid(who: str) -> tuple[int, str] | None:
    """(uid, user name) of ``WHO``'s first token; None for an unknown one."""
    token = who.split(",", 1)[0]
    if token.isdigit():
        uid = int(token)
        name = next((n for n, u in _USERS.items() if u == uid), token)
        return uid, name
    return (_USERS[token], token) if token in _USERS else None


async def su(ctx: CommandContext) -> int:
    """``su [WHO [COMMAND...]]`` (see the module docstring)."""
    args = list(ctx.args)
    if args[:1] in (["-h"], ["--help"]):
        await ctx.err(USAGE)
        return 0
    if ctx.uid not in (ROOT_UID, SHELL_UID):
        return await ctx.usage("su: not allowed")
    who = _uid(args.pop(0)) if args else (ROOT_UID, "root")
    if who is None:
        return await ctx.usage(f"su: invalid uid/gid '{ctx.args[0]}'")
    if not args:
        await ctx.err(USAGE)
        return 1
    uid, name = who
    env = {**ctx.env, "PATH": _DEFAULT_PATH, "USER": name, "LOGNAME": name}
    return await ctx.execute(args, uid=uid, env=env)
