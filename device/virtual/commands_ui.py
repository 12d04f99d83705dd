"""Screen commands: ``screencap``, ``uiautomator dump`` and uiautomator2's ``app_process``.

* ``screencap -p`` writes the PNG to stdout; ``screencap [-p] FILE`` writes the file (PNG
  when ``-p`` is given or the name ends in ``.png``, else the raw framebuffer);
  ``screencap`` alone writes the raw framebuffer (width, height, format, dataspace as
  uint32 LE, then RGBA pixels).
* ``uiautomator dump [--compressed] [FILE|/dev/tty]`` writes the platform dump (one line,
  as AOSP's ``uiautomator`` does) to FILE (default ``/sdcard/window_dump.xml``) and prints
  ``UI hierchary dumped to: FILE`` (sic). A phone whose profile says so (MIUI) then fails
  on a missing theme file and exits non-zero, the XML written all the same.
* ``CLASSPATH=/data/local/tmp/u2.jar app_process / com.wetest.uia2.Main -p PORT`` starts
  the uiautomator2 server: ``device.virtual.u2server.run_uiautomator(phone, port,
  stream)`` serves ``tcp:PORT`` until the host closes the shell stream.
"""

from __future__ import annotations

import importlib
import struct
from collections.abc import Awaitable, Callable

import cv2
import numpy as np

from device.virtual import vfs
from device.virtual.phone import ServiceStream, VirtualPhone
from device.virtual.shell_context import CommandContext, CommandFn

__all__ = ["COMMANDS", "U2_MAIN_CLASS", "platform_dump", "u2_runner"]

U2_MAIN_CLASS = "com.wetest.uia2.Main"
"""The main class of uiautomator2's server jar (u2.jar 0.4.x)."""
_DEFAULT_DUMP = "/sdcard/window_dump.xml"
_RGBA_8888 = 1
_DATASPACE_SRGB = 0x8C20000

U2Runner = Callable[[VirtualPhone, int, ServiceStream], Awaitable[None]]


def u2_runner() -> U2Runner | None:
    """``device.virtual.u2server.run_uiautomator`` if that module exists (imported lazily)."""
    try:
        module = importlib.import_module("device.virtual.u2server")
    except ModuleNotFoundError as exc:
        if exc.name != "device.virtual.u2server":
            raise
        return None
    return getattr(module, "run_uiautomator", None)


def platform_dump(xml: str) -> str:
    """uiautomator2's indented dump as the platform ``uiautomator dump`` writes it: one line."""
    return "".join(line.strip() for line in xml.splitlines())


def _framebuffer(png: bytes) -> bytes:
    image = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_UNCHANGED)
    if image is None:
        raise ValueError(f"{len(png)} bytes that are not a PNG image")
    rgba = cv2.cvtColor(image, cv2.COLOR_BGRA2RGBA if image.shape[2] == 4 else cv2.COLOR_BGR2RGBA)
    height, width = rgba.shape[:2]
    return struct.pack("<4I", width, height, _RGBA_8888, _DATASPACE_SRGB) + rgba.tobytes()


async def screencap(ctx: CommandContext) -> int:
    """``screencap [-p] [-d DISPLAY] [FILE]``."""
    args, png, target = list(ctx.args), False, None
    while args:
        arg = args.pop(0)
        if arg == "-p":
            png = True
        elif arg == "-d" and args:
            if args.pop(0) not in ("0", "4630946545580055170"):
                return await ctx.usage("Display Id is invalid.")
        elif arg.startswith("-"):
            return await ctx.usage("usage: screencap [-hp] [-d display-id] [FILENAME]")
        else:
            target = arg
    image = await ctx.phone.screenshot("png")
    if target is None:
        await ctx.out(image if png else _framebuffer(image))
        return 0
    data = image if png or target.endswith(".png") else _framebuffer(image)
    try:
        vfs.write_file(ctx.phone.files, vfs.normalize(target), data)
    except vfs.FsError as exc:
        await ctx.eprintln(f"Error opening file: {target} ({exc})")
        return 1
    return 0


async def uiautomator(ctx: CommandContext) -> int:
    """``uiautomator dump [--compressed] [FILE]``."""
    if ctx.args[:1] != ["dump"]:
        return await ctx.usage(
            "Usage: uiautomator <subcommand> [options]\n\nAvailable "
            "subcommands:\n\nhelp: displays help message\n\ndump: "
            "creates an XML dump of current UI hierarchy"
        )
    operands = [arg for arg in ctx.args[1:] if not arg.startswith("--")]
    target = operands[0] if operands else _DEFAULT_DUMP
    xml = platform_dump(await ctx.phone.hierarchy_xml())
    if target == "/dev/tty":
        await ctx.out(xml)
    else:
        try:
            vfs.write_file(ctx.phone.files, vfs.normalize(target), xml.encode("utf-8"))
        except vfs.FsError as exc:
            await ctx.eprintln(f"ERROR: could not write {target}: {exc}")
            return 1
    await ctx.println(f"UI hierchary dumped to: {target}")
    code = ctx.phone.plays.dump_exit_code
    if code:  # MIUI: a theme file it looks for after writing the dump is missing
        await ctx.eprintln(
            "java.io.FileNotFoundException: /data/system/theme_config/"
            "theme_compatibility.xml: open failed: ENOENT (No such file or directory)"
        )
    return code


async def app_process(ctx: CommandContext) -> int:
    """``app_process / com.wetest.uia2.Main -p PORT`` (only uiautomator2's server)."""
    args = list(ctx.args)
    main = next((arg for arg in args if not arg.startswith("-") and "." in arg), None)
    if main != U2_MAIN_CLASS:
        await ctx.eprintln(
            f"Error: Could not find class '{main}'"
            if main
            else "Usage: app_process [java-options] cmd-dir start-class-name [options]"
        )
        return 1
    classpath = ctx.env.get("CLASSPATH", "")
    if not any(vfs.normalize(jar) in ctx.phone.files for jar in classpath.split(":") if jar):
        await ctx.eprintln(f"Error: Could not find class '{main}' (CLASSPATH={classpath!r})")
        return 1
    port = int(args[args.index("-p") + 1]) if "-p" in args[:-1] else 9008
    runner = u2_runner()
    if runner is None:
        await ctx.eprintln(
            "Error: the virtual phone's uiautomator2 server "
            "(device.virtual.u2server) is not installed"
        )
        return 1
    if ctx.stream is None:
        return await ctx.usage("app_process: needs the adb stream it runs on")
    await runner(ctx.phone, port, ctx.stream)
    return 0


COMMANDS: dict[str, CommandFn] = {
    "screencap": screencap,
    "uiautomator": uiautomator,
    "app_process": app_process,
}
"""The screen commands."""
