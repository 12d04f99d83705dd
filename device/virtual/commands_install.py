"""``pm install`` and the install sessions, as PackageManagerShellCommand runs them.

* ``pm install [OPTIONS] PATH``: the APK on the phone (what adbutils, uiautomator2 and
  ``adb install`` without the ``cmd`` feature push to ``/data/local/tmp`` first);
  ``pm install [OPTIONS] -S SIZE`` or ``… -``: the APK streamed on stdin (``adb install``'s
  streamed path, ``exec:cmd package install -S SIZE``). Prints ``Success``, or ``Failure
  [REASON: text]`` with exit status 1.
* ``pm install-create`` → ``Success: created install session [N]``; ``pm install-write [-S
  SIZE] N NAME [PATH|-]`` → ``Success: streamed SIZE bytes``; ``pm install-commit N`` →
  ``Success`` / ``Failure […]``; ``pm install-abandon N`` → ``Success``.

The staged APK is named as PackageInstaller stages it (``/data/app/vmdlN.tmp/base.apk``), and
the parse failures quote that path (protocols.md §4.4).
"""

from __future__ import annotations

import zlib

from device.virtual.apk import read_apk
from device.virtual.errors import ApkParseError, FsError, InstallFailure, PmUnknownOption
from device.virtual.installs import install
from device.virtual.packages import built_in
from device.virtual.shell_context import CommandContext
from device.virtual.vfs import normalize, read_file

__all__ = ["INSTALL_SUBCOMMANDS"]

_FLAGS = {
    "-r", "-t", "-g", "-d", "-f", "-l", "-R", "--force-sdk", "--instant", "--full",
    "--dont-kill", "--restrict-permissions", "--apex", "--staged", "--force-queryable",
    "--enable-rollback", "--bypass-low-target-sdk-block", "--skip-verification",
    "--ephemeral", "--wait", "--no-wait",
}  # fmt: skip
_VALUED = {
    "-i", "-p", "-S", "--user", "--install-location", "--originating-uid", "--referrer",
    "--abi", "--pkg", "--install-reason", "--force-uuid", "--staged-ready-timeout",
}  # fmt: skip
_SESSIONS = "/data/app/vmdl{session}.tmp"


def _options(args: list[str]) -> tuple[dict[str, str], list[str]]:
    """(options with their values, the remaining arguments) of an install command."""
    options: dict[str, str] = {}
    rest = list(args)
    while rest and rest[0].startswith("-") and rest[0] != "-":
        option = rest.pop(0)
        if option in _VALUED:
            if not rest:
                raise PmUnknownOption(f"Missing value for option {option}")
            options[option] = rest.pop(0)
        elif option in _FLAGS:
            options[option] = ""
        else:
            raise PmUnknownOption(f"Unknown option {option}")
    return options, rest


async def _exception(ctx: CommandContext, sub: str, exception: str) -> int:
    await ctx.eprintln(f"Exception occurred while executing '{sub}':", exception)
    return 255


async def _payload(ctx: CommandContext, size: str | None, path: str | None) -> bytes:
    """The APK bytes: from ``path`` on the phone, else ``size`` bytes of stdin."""
    if path is not None and path != "-":
        return read_file(ctx.phone.files, normalize(path, ctx.env.get("PWD", "/")))
    data = await ctx.read_stdin()
    return data[: int(size)] if size is not None and size.isdigit() else data


def _session_id(ctx: CommandContext) -> int:
    taken = {key for key in ctx.phone.files.local if key.startswith("/data/app/vmdl")}
    return 100_000_000 + zlib.crc32(f"{ctx.phone.serial}:{len(taken)}".encode()) % 900_000_000


async def _commit(ctx: CommandContext, data: bytes, options: dict[str, str], staged: str) -> int:
    """Install ``data`` and print pm's verdict."""
    try:
        install(
            ctx.phone,
            data,
            allow_downgrade="-d" in options,
            preinstalled=ctx.phone.identity.sdk if built_in(ctx.phone, _peek(data)) else 0,
        )
    except ApkParseError as exc:
        await ctx.println(f"Failure [{exc.reason}: {exc.detail(staged)}]")
        return 1
    except InstallFailure as exc:
        await ctx.println(f"Failure [{exc.reason}: {exc.detail}]")
        return 1
    await ctx.println("Success")
    return 0


def _peek(data: bytes) -> str:
    """The APK's package name, or empty when it is no APK (the commit reports that)."""
    try:
        return read_apk(data).package
    except ApkParseError:
        return ""


async def _install(ctx: CommandContext, rest: list[str]) -> int:
    try:
        options, args = _options(rest)
    except PmUnknownOption as exc:
        return await _exception(ctx, "install", f"java.lang.IllegalArgumentException: {exc}")
    path = args[0] if args else None
    if path is None and "-S" not in options:
        await ctx.eprintln("Error: APK content must be streamed")
        return 1
    try:
        data = await _payload(ctx, options.get("-S"), path)
    except FsError:
        return await _exception(
            ctx, "install", f"java.lang.IllegalArgumentException: Error: Can't open file: {path}"
        )
    staged = _SESSIONS.format(session=_session_id(ctx)) + "/base.apk"
    return await _commit(ctx, data, options, staged)


async def _create(ctx: CommandContext, rest: list[str]) -> int:
    try:
        _options(rest)
    except PmUnknownOption as exc:
        return await _exception(ctx, "install-create", f"java.lang.IllegalArgumentException: {exc}")
    session = _session_id(ctx)
    ctx.phone.files.local[_SESSIONS.format(session=session) + "/"] = b""
    await ctx.println(f"Success: created install session [{session}]")
    return 0


def _session_dir(ctx: CommandContext, text: str) -> str | None:
    directory = _SESSIONS.format(session=text)
    return directory if text.isdigit() and directory + "/" in ctx.phone.files.local else None


async def _no_session(ctx: CommandContext, sub: str, text: str) -> int:
    return await _exception(
        ctx, sub, f"java.lang.SecurityException: Caller has no access to session {text}"
    )


async def _write(ctx: CommandContext, rest: list[str]) -> int:
    try:
        options, args = _options(rest)
    except PmUnknownOption as exc:
        return await _exception(ctx, "install-write", f"java.lang.IllegalArgumentException: {exc}")
    if len(args) < 2:
        return await ctx.usage("Error: must specify a session ID and a split name")
    directory = _session_dir(ctx, args[0])
    if directory is None:
        return await _no_session(ctx, "install-write", args[0])
    try:
        data = await _payload(ctx, options.get("-S"), args[2] if len(args) > 2 else None)
    except FsError:
        return await _exception(
            ctx,
            "install-write",
            f"java.lang.IllegalArgumentException: Error: Can't open file: {args[2]}",
        )
    name = args[1] if args[1].endswith(".apk") else args[1] + ".apk"
    ctx.phone.files.local[f"{directory}/{name}"] = data
    await ctx.println(f"Success: streamed {len(data)} bytes")
    return 0


def _drop_session(ctx: CommandContext, directory: str) -> list[bytes]:
    """Remove a session's staging directory; the APKs it held, in name order."""
    local = ctx.phone.files.local
    keys = sorted(key for key in local if key.startswith(directory + "/"))
    apks = [local[key] for key in keys if not key.endswith("/")]
    for key in keys:
        del local[key]
    return apks


async def _commit_session(ctx: CommandContext, rest: list[str]) -> int:
    directory = _session_dir(ctx, rest[0]) if rest else None
    if directory is None:
        return await _no_session(ctx, "install-commit", rest[0] if rest else "")
    apks = _drop_session(ctx, directory)
    if not apks:
        await ctx.println("Failure [INSTALL_FAILED_INVALID_APK: No packages staged]")
        return 1
    return await _commit(ctx, apks[0], {}, f"{directory}/base.apk")


async def _abandon(ctx: CommandContext, rest: list[str]) -> int:
    directory = _session_dir(ctx, rest[0]) if rest else None
    if directory is None:
        return await _no_session(ctx, "install-abandon", rest[0] if rest else "")
    _drop_session(ctx, directory)
    await ctx.println("Success")
    return 0


INSTALL_SUBCOMMANDS = {
    "install": _install,
    "install-create": _create,
    "install-write": _write,
    "install-commit": _commit_session,
    "install-abandon": _abandon,
}
"""``pm`` subcommand name → handler(ctx, args after the subcommand)."""
