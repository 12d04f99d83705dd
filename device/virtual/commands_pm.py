"""``pm``: list packages, path, clear, grant, install, uninstall, dump.

Output as PackageManagerShellCommand prints it: ``package:NAME`` lines (``-f`` adds the
path, ``-U`` the uid, ``--show-versioncode`` the versionCode), ``package:PATH`` for ``pm
path``, ``Success`` for ``pm clear``. ``pm install`` (a file, or ``-S SIZE`` / ``-`` on
stdin as adb's streamed install sends it) and the ``install-create`` / ``install-write`` /
``install-commit`` sessions are in :mod:`device.virtual.commands_install`; ``pm uninstall``
removes a user-installed package (``Success``) and refuses the built-in ones (``Failure
[DELETE_FAILED_INTERNAL_ERROR]``, exit status 1).
"""

from __future__ import annotations

from device.virtual.commands_dumpsys import dumpsys
from device.virtual.commands_install import INSTALL_SUBCOMMANDS
from device.virtual.input_methods import forget_package
from device.virtual.installs import uninstall
from device.virtual.packages import PackageInfo, installed, lookup
from device.virtual.shell_context import CommandContext, CommandFn

__all__ = ["COMMANDS"]

_LIST_FLAGS = {
    "-f",
    "-d",
    "-e",
    "-s",
    "-3",
    "-i",
    "-u",
    "-U",
    "-l",
    "-a",
    "--show-versioncode",
    "--apex-only",
    "--uid",
}


def _listed(info: PackageInfo, flags: set[str], needle: str) -> bool:
    if "-3" in flags and info.system:
        return False
    if "-s" in flags and not info.system:
        return False
    return needle in info.name


async def _list(ctx: CommandContext, rest: list[str]) -> int:
    if rest[:1] != ["packages"]:
        return await ctx.usage("Error: unknown list type '" + " ".join(rest[:1]) + "'")
    flags, needle, args = set(), "", rest[1:]
    while args:
        arg = args.pop(0)
        if arg == "--user" and args:
            args.pop(0)
        elif arg in _LIST_FLAGS:
            flags.add(arg)
        elif arg.startswith("-"):
            return await ctx.usage(f"Error: Unknown option: {arg}")
        else:
            needle = arg
    lines = []
    for info in installed(ctx.phone):
        if not _listed(info, flags, needle):
            continue
        line = f"package:{info.path}={info.name}" if "-f" in flags else f"package:{info.name}"
        if "--show-versioncode" in flags:
            line += f" versionCode:{info.version_code(ctx.phone.identity.sdk)}"
        if "-U" in flags:
            line += f" uid:{info.uid}"
        lines.append(line)
    await ctx.println(*lines)
    return 0


async def _path(ctx: CommandContext, rest: list[str]) -> int:
    info = lookup(ctx.phone, rest[-1]) if rest else None
    if info is None:
        return 1
    await ctx.println(f"package:{info.path}")
    return 0


async def _clear(ctx: CommandContext, rest: list[str]) -> int:
    package = rest[-1] if rest else ""
    if lookup(ctx.phone, package) is None:
        await ctx.println("Failed")
        return 1
    await ctx.phone.clear(package)
    await ctx.println("Success")
    return 0


async def _grant(ctx: CommandContext, rest: list[str]) -> int:
    package = next((arg for arg in rest if not arg.startswith("-")), "")
    if lookup(ctx.phone, package) is None:
        await ctx.eprintln(
            f"Exception occurred while executing '{ctx.args[0]}':",
            f"java.lang.IllegalArgumentException: Unknown package: {package}",
        )
        return 255
    return 0


async def _uninstall(ctx: CommandContext, rest: list[str]) -> int:
    args = list(rest)
    while args and args[0].startswith("-"):
        option = args.pop(0)
        if option in ("--user", "--versionCode") and args:
            args.pop(0)
    package = args[0] if args else ""
    if not package:
        return await ctx.usage("Error: package name not specified")
    if not uninstall(ctx.phone, package):
        await ctx.println("Failure [DELETE_FAILED_INTERNAL_ERROR]")
        return 1
    forget_package(ctx.phone, package)
    await ctx.println("Success")
    return 0


async def _dump(ctx: CommandContext, rest: list[str]) -> int:
    ctx.args = ["package", *rest[-1:]]
    return await dumpsys(ctx)


async def _enable(ctx: CommandContext, rest: list[str]) -> int:
    package = rest[-1] if rest else ""
    if lookup(ctx.phone, package) is None:
        await ctx.eprintln(
            f"Exception occurred while executing '{ctx.args[0]}':",
            f"java.lang.IllegalArgumentException: Unknown package: {package}",
        )
        return 255
    state = "enabled" if ctx.args[0] == "enable" else "disabled-user"
    await ctx.println(f"Package {package} new state: {state}")
    return 0


_SUBCOMMANDS = {
    "list": _list,
    "path": _path,
    "clear": _clear,
    "grant": _grant,
    "revoke": _grant,
    **INSTALL_SUBCOMMANDS,
    "uninstall": _uninstall,
    "dump": _dump,
    "enable": _enable,
    "disable-user": _enable,
}


async def pm(ctx: CommandContext) -> int:
    """``pm SUBCOMMAND …``."""
    sub, rest = (ctx.args[0], ctx.args[1:]) if ctx.args else ("", [])
    handler = _SUBCOMMANDS.get(sub)
    if handler is None:
        return await ctx.usage(f"Unknown command: {sub}" if sub else "usage: pm [subcommand]")
    return await handler(ctx, rest)


COMMANDS: dict[str, CommandFn] = {"pm": pm}
"""The package manager command."""
