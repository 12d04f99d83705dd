"""``screenrecord``: an MP4 of the screen until SIGINT or the time limit.

As AOSP's ``frameworks/av/cmds/screenrecord`` does, it creates FILE first (``Unable to open
'F': …``, exit 1), then records until the time limit (``--time-limit``, default 180 s),
Ctrl-C on the terminal, ``kill -2``, or the host closing the stream, and then finishes the
file. Frames are the phone's screenshots, ``--size WxH`` scaled (default: the display's),
encoded by OpenCV's MPEG-4 writer (``mp4v``). Argument errors exit 2 with screenrecord's
lines: ``Must specify output file (see --help).``, ``Invalid size 'X', must be width x
height``, ``Time limit Ns outside acceptable range [1,180]``, ``Bit rate Nbps outside
acceptable range [100000,200000000]``, ``screenrecord: unrecognized option '--x'``.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from bridge.images import decode_image
from device.virtual import vfs
from device.virtual.commands_log import wait_for_hangup
from device.virtual.errors import ScreenrecordUsage
from device.virtual.shell_context import CommandContext, CommandFn

__all__ = ["COMMANDS", "FRAME_INTERVAL_S"]

FRAME_INTERVAL_S = 0.2
"""How often a frame is taken (5 fps: enough for agent replays, light on CPU)."""
_MAX_TIME_LIMIT_S = 180
_BIT_RATE_RANGE = (100_000, 200_000_000)
_EXIT_USAGE = 2
_VALUE_OPTIONS = (
    "--size",
    "--bit-rate",
    "--time-limit",
    "--output-format",
    "--codec-name",
    "--display-id",
    "--bframes",
)
_FLAG_OPTIONS = (
    "--verbose",
    "--rotate",
    "--bugreport",
    "--monotonic-time",
    "--persistent-surface",
    "--help",
)


@dataclass
class _Options:
    path: str
    size: tuple[int, int] | None
    time_limit_s: int


def _unit_value(text: str) -> int | None:
    match = re.fullmatch(r"(\d+)([kKmM]?)", text)
    if match is None:
        return None
    scale = {"": 1, "k": 1_000, "m": 1_000_000}[match.group(2).lower()]
    return int(match.group(1)) * scale


def _check(option: str, value: str, options: dict[str, object]) -> None:
    if option == "--size":
        match = re.fullmatch(r"(\d+)x(\d+)", value)
        if match is None:
            raise ScreenrecordUsage(f"Invalid size '{value}', must be width x height")
        width, height = int(match.group(1)), int(match.group(2))
        if not width or not height:
            raise ScreenrecordUsage(
                f"Invalid size {width}x{height}, width and height may not be zero"
            )
        options["size"] = (width, height)
    elif option == "--time-limit":
        seconds = int(value) if value.lstrip("-").isdigit() else 0
        if seconds <= 0 or seconds > _MAX_TIME_LIMIT_S:
            raise ScreenrecordUsage(
                f"Time limit {seconds}s outside acceptable range [1,{_MAX_TIME_LIMIT_S}]"
            )
        options["time_limit_s"] = seconds
    elif option == "--bit-rate":
        rate = _unit_value(value)
        if rate is None:
            raise ScreenrecordUsage("")
        low, high = _BIT_RATE_RANGE
        if not low <= rate <= high:
            raise ScreenrecordUsage(f"Bit rate {rate}bps outside acceptable range [{low},{high}]")


def _parse(argv: list[str]) -> _Options:
    args, operands = list(argv), []
    options: dict[str, object] = {"size": None, "time_limit_s": 180}
    while args:
        arg = args.pop(0)
        name, eq, attached = arg.partition("=")
        if name in _VALUE_OPTIONS:
            if not eq and not args:
                raise ScreenrecordUsage(f"screenrecord: option '{name}' requires an argument")
            _check(name, attached if eq else args.pop(0), options)
        elif arg in _FLAG_OPTIONS:
            continue
        elif arg.startswith("-") and arg != "-":
            raise ScreenrecordUsage(f"screenrecord: unrecognized option '{arg}'")
        else:
            operands.append(arg)
    if len(operands) != 1:
        raise ScreenrecordUsage("Must specify output file (see --help).")
    size = options["size"]
    limit = options["time_limit_s"]
    assert isinstance(limit, int) and (size is None or isinstance(size, tuple))
    return _Options(operands[0], size, limit)


class _Recorder:
    """Frames into an MP4 file in a private temporary directory."""

    def __init__(self, size: tuple[int, int]) -> None:
        self._dir = tempfile.TemporaryDirectory(prefix="mgb-screenrecord-")
        self.path = Path(self._dir.name) / "record.mp4"
        fourcc = cv2.VideoWriter.fourcc(*"mp4v")
        self.size = size
        self._writer = cv2.VideoWriter(str(self.path), fourcc, 1 / FRAME_INTERVAL_S, size)
        if not self._writer.isOpened():
            raise RuntimeError("OpenCV cannot write MPEG-4 video here (no mp4v encoder)")
        self.frames = 0

    def add(self, png: bytes) -> None:
        """Append one screenshot, scaled to the video size."""
        frame = decode_image(png)
        if (frame.shape[1], frame.shape[0]) != self.size:
            frame = cv2.resize(frame, self.size, interpolation=cv2.INTER_AREA)
        self._writer.write(np.ascontiguousarray(frame))
        self.frames += 1

    def finish(self) -> bytes:
        """Close the file and return its bytes (the temporary directory goes)."""
        self._writer.release()
        try:
            return self.path.read_bytes()
        finally:
            self._dir.cleanup()


async def _until_interrupted(ctx: CommandContext) -> None:
    """Return when the host hangs up or sends Ctrl-C (a pty's SIGINT)."""
    if ctx.stream is None:
        await asyncio.Event().wait()  # no terminal: only the time limit or kill stop it
        return
    await wait_for_hangup(ctx.stream)


async def _record(ctx: CommandContext, recorder: _Recorder, limit_s: int) -> None:
    stop = asyncio.ensure_future(_until_interrupted(ctx))
    deadline = time.monotonic() + limit_s
    try:
        while True:
            recorder.add(await ctx.phone.screenshot("png"))
            remaining = deadline - time.monotonic()
            if remaining <= 0 or stop.done():
                return
            # the time between two frames of a real recording
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(asyncio.shield(stop), min(FRAME_INTERVAL_S, remaining))
            if stop.done():
                return
    finally:
        stop.cancel()


async def screenrecord(ctx: CommandContext) -> int:
    """``screenrecord [--time-limit N] [--size WxH] [--bit-rate R] FILE``."""
    try:
        options = _parse(ctx.args)
    except ScreenrecordUsage as exc:
        if str(exc):
            await ctx.eprintln(str(exc))
        return _EXIT_USAGE
    path = vfs.normalize(options.path, ctx.env.get("PWD", "/"))
    try:
        vfs.write_file(ctx.phone.files, path, b"")
    except vfs.FsError as exc:
        await ctx.eprintln(f"Unable to open '{options.path}': {exc}")
        return 1
    recorder = _Recorder(options.size or (ctx.phone.width_px, ctx.phone.height_px))
    try:
        await _record(ctx, recorder, options.time_limit_s)
    finally:  # SIGINT (kill -2 cancels the command) still leaves a complete file
        vfs.write_file(ctx.phone.files, path, recorder.finish())
    return 0


COMMANDS: dict[str, CommandFn] = {"screenrecord": screenrecord}
"""The media commands."""
