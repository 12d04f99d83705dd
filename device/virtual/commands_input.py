"""``input``: taps, swipes, text and key events, as Android 14's InputShellCommand.

* ``input [SOURCE] [-d DISPLAY] tap X Y`` (floats allowed);
* ``input swipe X1 Y1 X2 Y2 [MS]`` (default 300 ms): one stroke, classified as the touch
  framework would (a tap, a long press, a drag or a fling: :func:`bridge.gestures.classify_stroke`
  with the phone's long-press timeout); ``draganddrop`` likewise;
* ``input text STRING``: exactly one argument, ``%s`` is a space. Like Android, only
  characters of the virtual keyboard's key map (printable ASCII) can be typed: anything else
  fails with Android's NullPointerException and types nothing — Unicode text needs the
  clipboard (uiautomator2) or an IME;
* ``input keyevent [--longpress|--doubletap|--delay MS] KEY…``: numbers or names
  (``KEYCODE_`` optional); letters, digits and SPACE type their character.

On a phone that refuses injected input (a Redmi whose "USB debugging (Security settings)" is
off) every event fails with the ``SecurityException`` Android 14 throws, exit 255.
"""

from __future__ import annotations

import math

from device.virtual.errors import SecurityRefused
from device.virtual.phone import KEYCODES
from device.virtual.shell_context import CommandContext, CommandFn

__all__ = ["COMMANDS", "KEY_NAMES", "keycode"]

EXIT_EXCEPTION = 255
"""Exit status when the Java side throws (ShellCommand returns -1)."""

KEY_NAMES: dict[str, int] = {
    "UNKNOWN": 0,
    "HOME": 3,
    "BACK": 4,
    "CALL": 5,
    "ENDCALL": 6,
    "STAR": 17,
    "POUND": 18,
    "DPAD_UP": 19,
    "DPAD_DOWN": 20,
    "DPAD_LEFT": 21,
    "DPAD_RIGHT": 22,
    "DPAD_CENTER": 23,
    "VOLUME_UP": 24,
    "VOLUME_DOWN": 25,
    "POWER": 26,
    "CAMERA": 27,
    "CLEAR": 28,
    "COMMA": 55,
    "PERIOD": 56,
    "TAB": 61,
    "SPACE": 62,
    "ENTER": 66,
    "DEL": 67,
    "MENU": 82,
    "NOTIFICATION": 83,
    "SEARCH": 84,
    "ESCAPE": 111,
    "FORWARD_DEL": 112,
    "MOVE_HOME": 122,
    "MOVE_END": 123,
    "VOLUME_MUTE": 164,
    "APP_SWITCH": 187,
    "SLEEP": 223,
    "WAKEUP": 224,
    **{str(d): 7 + d for d in range(10)},
    **{chr(ord("A") + i): 29 + i for i in range(26)},
}
"""Android key names (without ``KEYCODE_``) → keycodes."""
_CODE_NAMES = {code: name for name, code in KEY_NAMES.items()}
_TYPED = {
    **{7 + d: str(d) for d in range(10)},
    **{29 + i: chr(ord("a") + i) for i in range(26)},
    55: ",",
    56: ".",
    62: " ",
    17: "*",
    18: "#",
}
_SOURCES = {
    "keyboard",
    "touchscreen",
    "touchpad",
    "touchnavigation",
    "dpad",
    "gamepad",
    "trackball",
    "stylus",
    "mouse",
    "joystick",
    "rotaryencoder",
}
_USAGE = (
    "Usage: input [<source>] [-d DISPLAY_ID] <command> [<arg>...]\n\n"
    "The commands and default sources are:\n"
    "      text <string> (Default: keyboard)\n"
    "      keyevent [--longpress|--doubletap|--async|--delay <duration>] "
    "<key code number or name> ... (Default: keyboard)\n"
    "      tap <x> <y> (Default: touchscreen)\n"
    "      swipe <x1> <y1> <x2> <y2> [duration(ms)] (Default: touchscreen)\n"
    "      draganddrop <x1> <y1> <x2> <y2> [duration(ms)] (Default: touchscreen)"
)


def keycode(text: str) -> int | None:
    """A keycode from a number or a name (``KEYCODE_`` optional); None if unknown."""
    if text.isdigit():
        return int(text)
    return KEY_NAMES.get(text.upper().removeprefix("KEYCODE_"))


async def _crash(ctx: CommandContext, command: str, exception: str) -> int:
    """What the shell prints when InputShellCommand throws."""
    await ctx.eprintln(
        f"Exception occurred while executing '{command}':",
        exception,
        "\tat com.android.server.input.InputShellCommand.onCommand(InputShellCommand.java:257)",
    )
    return EXIT_EXCEPTION


def _floats(values: list[str]) -> list[float] | None:
    try:
        numbers = [float(v) for v in values]
    except ValueError:
        return None
    return numbers if all(math.isfinite(n) for n in numbers) else None


async def _tap(ctx: CommandContext, args: list[str]) -> int:
    point = _floats(args[:2]) if len(args) >= 2 else None
    if point is None:
        return await ctx.usage(_USAGE)
    await ctx.phone.tap(*point)
    return 0


async def _swipe(ctx: CommandContext, args: list[str]) -> int:
    coords = _floats(args[:4]) if len(args) >= 4 else None
    duration = _floats(args[4:5]) if len(args) > 4 else [300.0]
    if coords is None or duration is None:
        return await ctx.usage(_USAGE)
    x1, y1, x2, y2 = coords
    await ctx.phone.stroke([(x1, y1), (x2, y2)], duration[0])
    return 0


async def _text(ctx: CommandContext, args: list[str]) -> int:
    if not args:
        return await _crash(
            ctx, "text", 'java.lang.IllegalArgumentException: Argument expected after "text"'
        )
    text = args[0].replace("%s", " ")
    if any(not (" " <= ch <= "~" or ch in "\n\t") for ch in text):
        return await _crash(
            ctx, "text", "java.lang.NullPointerException: Attempt to get length of null array"
        )
    await ctx.phone.text(text)
    return 0


async def _keyevent(ctx: CommandContext, args: list[str]) -> int:
    args = list(args)
    while args and args[0].startswith("--"):
        option = args.pop(0)
        if option == "--delay" and args:
            args.pop(0)
    if not args:
        return await _crash(
            ctx,
            "keyevent",
            'java.lang.IllegalArgumentException: Argument expected after "keyevent"',
        )
    codes = [keycode(arg) for arg in args]
    if None in codes:
        bad = args[codes.index(None)]
        return await _crash(
            ctx, "keyevent", f"java.lang.IllegalArgumentException: Unknown keycode: {bad}"
        )
    for code in codes:
        await _press(ctx, int(code or 0))
    return 0


async def _press(ctx: CommandContext, code: int) -> None:
    """One key: typing keys type into the focused field, the others go to the phone."""
    if code in _TYPED:
        await ctx.phone.text(_TYPED[code])
    elif code in KEYCODES:
        await ctx.phone.keyevent(code)
    elif code in _CODE_NAMES:
        await ctx.phone.keyevent(_CODE_NAMES[code])


async def input_(ctx: CommandContext) -> int:
    """``input [SOURCE] [-d DISPLAY] COMMAND ARGS``."""
    args = list(ctx.args)
    if args and args[0] in _SOURCES:
        args.pop(0)
    if len(args) >= 2 and args[0] == "-d":
        args = args[2:]
    if not args:
        return await ctx.usage(_USAGE)
    command, rest = args[0], args[1:]
    handlers = {
        "tap": _tap,
        "swipe": _swipe,
        "draganddrop": _swipe,
        "text": _text,
        "keyevent": _keyevent,
    }
    handler = handlers.get(command)
    if handler is None:
        return await ctx.usage(f"Error: Unknown command: {command}\n{_USAGE}")
    refused = None if ctx.phone.input_allowed() else SecurityRefused.INJECT  # every event
    try:
        if refused is None:
            return await handler(ctx, rest)
    except SecurityRefused as exc:
        refused = str(exc)
    return await _crash(ctx, command, f"java.lang.SecurityException: {refused}")


COMMANDS: dict[str, CommandFn] = {"input": input_}
"""The input command."""
