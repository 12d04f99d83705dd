"""``AndroidDriver``: what a phone can do and show, in device pixels, over one adb link.

Input goes through ``adb shell input`` (tap, long press, swipe, keys, ASCII text), whose
output reveals MIUI's refusal of injected events, and through uiautomator2 where the shell
cannot do it (a double tap fast enough to count, Unicode text via the clipboard, clearing a
field). The clipboard path calls uiautomator2's ``setClipboard`` / ``getClipboard`` /
``pasteClipboard`` directly: ``Device.send_keys`` would install the ADBKeyboard apk when the
clipboard fails, and this driver never installs anything.

Observing: screenshots from uiautomator2 (``takeScreenshot``, JPEG) with ``screencap -p`` as
fallback; the hierarchy from uiautomator2 (``dumpWindowHierarchy``) with ``uiautomator
dump`` as fallback when the uiautomator2 server is broken; an empty dump is retried, then
reported as idle-timeout. Settling compares consecutive screenshots (opencv) until two differ
by less than a threshold, or a timeout passes.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import re
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Literal, Protocol

import cv2
import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from bridge.actions import KeyName
from bridge.coords import ScreenGeometry
from bridge.errors import UITreeError
from bridge.images import decode_at_least, image_size
from bridge.schema import ScreenSpec, UIStatus
from bridge.uitree import UITree, parse_hierarchy
from device.adb import mentions_inject_events
from device.app_shell import foreground_activity, start_app
from device.errors import DeviceError, InjectEventsDenied, UiAutomatorError

__all__ = [
    "KEYCODES",
    "THUMB_WIDTH",
    "U2_STEP_MS",
    "AndroidDriver",
    "DeviceLink",
    "Dump",
    "Frame",
    "ScreenFacts",
    "SettleConfig",
    "Settled",
    "frame_change",
    "is_ascii_safe",
]

KEYCODES: dict[KeyName, int] = {
    "home": 3,
    "back": 4,
    "volume_up": 24,
    "volume_down": 25,
    "power": 26,
    "enter": 66,
    "delete": 67,
    "recents": 187,
}
"""Android keycodes of the contract's keys (``input keyevent``)."""

U2_STEP_MS = 5
"""UiAutomator injects one move of a swipe every 5 ms."""

_ASCII_SAFE = re.compile(r"(?!-)[A-Za-z0-9._,:@/+=-]+")
_SIZE = re.compile(r"(Override|Physical) size: (\d+)x(\d+)")
_DENSITY = re.compile(r"(Override|Physical) density: (\d+)")
_ORIENTATION = re.compile(r"orientation=(\d)")
_INPUT_SHOWN = re.compile(r"\bmInputShown=true\b")


def is_ascii_safe(text: str) -> bool:
    """Whether ``input text`` can type ``text`` verbatim: letters, digits, ``._,:@/+=-``.

    Spaces, ``%``, quotes, shell metacharacters and anything non-ASCII go through the
    clipboard instead (``input text`` turns ``%s`` into a space and cannot type Unicode).
    """
    return _ASCII_SAFE.fullmatch(text) is not None


class DeviceLink(Protocol):
    """What the driver needs from a connection (:class:`device.adb.AdbSession` has it)."""

    async def shell(self, command: str, timeout_s: float | None = None) -> str:
        """Text output of an ``adb shell`` command line."""
        ...

    async def shell_bytes(self, command: str, timeout_s: float | None = None) -> bytes:
        """Raw output of an ``adb shell`` command line."""
        ...

    async def rpc(self, method: str, *params: Any, timeout_s: float | None = None) -> Any:
        """A uiautomator2 JSON-RPC call."""
        ...

    async def uiautomator_dump(self, timeout_s: float | None = None) -> str:
        """The platform ``uiautomator dump`` file (or the command's error output)."""
        ...


@dataclass(frozen=True)
class Frame:
    """A screenshot: the encoded bytes as captured, their size, and the pixels at a reduced
    size (:data:`THUMB_WIDTH` wide or more: what comparing frames and the black check
    need); the full pixels are decoded on first use (:mod:`bridge.images`)."""

    data: bytes
    format: Literal["jpeg", "png"]
    width: int
    height: int
    small: np.ndarray

    @cached_property
    def image(self) -> np.ndarray:
        """The BGR pixels at full size."""
        image = cv2.imdecode(np.frombuffer(self.data, np.uint8), cv2.IMREAD_COLOR)
        if image is None:  # decoded once already, at a reduced size
            raise DeviceError(f"the screenshot ({len(self.data)} bytes) no longer decodes")
        return image

    def is_black(self, level: int = 16, bright_fraction: float = 0.002) -> bool:
        """Whether (nearly) every pixel is black: what a ``FLAG_SECURE`` window captures.

        At most ``bright_fraction`` of the pixels may be above ``level`` (status-bar icons on
        some phones), so a dark-themed screen with any real content is not black.
        """
        gray = cv2.cvtColor(self.small, cv2.COLOR_BGR2GRAY)
        return bool(np.count_nonzero(gray > level) <= bright_fraction * gray.size)


@dataclass(frozen=True)
class Dump:
    """A hierarchy dump: the XML and its tree when usable, and the status to report."""

    xml: str | None
    tree: UITree | None
    status: UIStatus
    source: str = ""


class ScreenFacts(BaseModel):
    """The panel's natural size (``wm size``), density (``wm density``) and rotation."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    width_px: int = Field(gt=0)
    height_px: int = Field(gt=0)
    density_dpi: int = Field(gt=0)
    rotation: Literal[0, 90, 180, 270] = 0

    @property
    def geometry(self) -> ScreenGeometry:
        """The bridge.coords geometry (natural size and rotation)."""
        return ScreenGeometry(
            width_px=self.width_px, height_px=self.height_px, rotation=self.rotation
        )

    def spec(self) -> ScreenSpec:
        """The screen as displayed (logical size, swapped at 90 and 270 degrees)."""
        size = self.geometry.logical_size
        return ScreenSpec(
            width_px=size.width,
            height_px=size.height,
            density_dpi=self.density_dpi,
            orientation=self.rotation,
        )


class SettleConfig(BaseModel):
    """When the screen counts as settled: two frames taken at least ``interval_s`` apart
    nearly agree (compared as 180-pixel-wide thumbnails), or a timeout.

    The first frame after an action is a probe at ``probe_scale`` of the screen (a small
    screenshot is several times cheaper to take, move and decode, on a phone as on the
    virtual one); the frame that confirms it is full size and becomes the observation.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    threshold: float = Field(default=0.004, ge=0, le=1, description="max changed fraction")
    pixel_delta: int = Field(default=24, ge=0, le=255, description="gray levels = changed")
    interval_s: float = Field(
        default=0.15, ge=0, description="least time between the two frames compared"
    )
    probe_scale: float = Field(
        default=0.25, gt=0, le=1, description="size of the first frame, of the screen's"
    )
    timeout_s: float = Field(default=5.0, gt=0)


@dataclass(frozen=True)
class Settled:
    """The outcome of settling: the last frame, whether it is stable, and the cost.

    ``meanwhile`` is what the work given to :meth:`AndroidDriver.settle` returned, kept only
    when it ran between the two frames that agreed (so it saw the settled screen).
    """

    frame: Frame
    stable: bool
    frames: int
    elapsed_s: float
    meanwhile: Any = None


def _thumb(image: np.ndarray, width: int) -> np.ndarray:
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    height = max(1, round(gray.shape[0] * width / gray.shape[1]))
    return cv2.resize(gray, (width, height), interpolation=cv2.INTER_AREA)


THUMB_WIDTH = 180
"""The width frames are compared at: a screen's change shows at this size, and a thumbnail
this small is cheap to make and compare."""


def frame_change(a: np.ndarray, b: np.ndarray, pixel_delta: int = 24) -> float:
    """Fraction of pixels (on thumbnails at most :data:`THUMB_WIDTH` px wide) that differ by
    more than ``pixel_delta``.

    A frame larger than the other (a full frame against a small probe) is first shrunk to
    the other's size, so both thumbnails come from the same resolution; frames of
    different shapes (a rotation) count as entirely changed.
    """
    width = min(THUMB_WIDTH, a.shape[1], b.shape[1])  # never upscale a small probe
    if _thumb(a, width).shape != _thumb(b, width).shape:
        return 1.0
    if a.shape[1] > b.shape[1]:
        a = cv2.resize(a, (b.shape[1], b.shape[0]), interpolation=cv2.INTER_AREA)
    elif b.shape[1] > a.shape[1]:
        b = cv2.resize(b, (a.shape[1], a.shape[0]), interpolation=cv2.INTER_AREA)
    diff = cv2.absdiff(_thumb(a, width), _thumb(b, width))
    return float(np.count_nonzero(diff > pixel_delta)) / diff.size


def decode_frame(data: bytes, image_format: Literal["jpeg", "png"]) -> Frame:
    """Decode a captured image (at :data:`THUMB_WIDTH` wide or more; the full pixels on
    first use); DeviceError when the bytes are not an image."""
    size = image_size(data)
    small = decode_at_least(data, THUMB_WIDTH) if size is not None else None
    if size is None or small is None:
        raise DeviceError(
            f"the phone's screenshot ({len(data)} bytes of {image_format}) is not an image; "
            "is the screen on and unlocked?"
        )
    return Frame(data=data, format=image_format, width=size[0], height=size[1], small=small)


class AndroidDriver:
    """Device-level operations on one phone (pixels, packages, keycodes); all async."""

    def __init__(
        self,
        link: DeviceLink,
        *,
        settle: SettleConfig | None = None,
        dump_attempts: int = 3,
        dump_interval_s: float = 0.3,
    ) -> None:
        self.link = link
        self.settle_config = settle or SettleConfig()
        self.dump_attempts = max(1, dump_attempts)
        self.dump_interval_s = dump_interval_s

    # ---- observing
    async def screenshot(self, scale: float = 1.0) -> Frame:
        """The screen: uiautomator2's JPEG (``scale`` of the screen's size), or
        ``screencap -p`` (always full size) when that fails."""
        try:
            encoded = await self.link.rpc("takeScreenshot", scale, 80)
        except UiAutomatorError:
            encoded = None
        if isinstance(encoded, str) and encoded:
            try:
                return decode_frame(base64.b64decode(encoded), "jpeg")
            except (binascii.Error, DeviceError):
                pass  # a garbled JPEG: screencap below is the ground truth
        return decode_frame(await self.link.shell_bytes("screencap -p"), "png")

    async def hierarchy(self) -> Dump:
        """The UI tree: retried while empty, then ``idle_timeout`` without a tree."""
        for attempt in range(self.dump_attempts):
            if attempt:
                await asyncio.sleep(self.dump_interval_s)  # poll: the window may be changing
            xml, source = await self._dump_once()
            try:
                return Dump(xml=xml, tree=parse_hierarchy(xml), status=UIStatus.OK, source=source)
            except UITreeError:
                continue
        return Dump(xml=None, tree=None, status=UIStatus.IDLE_TIMEOUT)

    async def _dump_once(self) -> tuple[str, str]:
        try:
            xml = await self.link.rpc("dumpWindowHierarchy", False, 50)
            return (xml if isinstance(xml, str) else ""), "uiautomator2"
        except UiAutomatorError:
            return await self.link.uiautomator_dump(), "uiautomator dump"

    async def screen(self) -> ScreenFacts:
        """Natural size, density and current rotation (``wm size``, ``wm density``,
        ``dumpsys display``)."""
        size = _override_first(_SIZE, await self.link.shell("wm size"), "wm size")
        density = _override_first(_DENSITY, await self.link.shell("wm density"), "wm density")
        return ScreenFacts(
            width_px=int(size[0]),
            height_px=int(size[1]),
            density_dpi=int(density[0]),
            rotation=await self.rotation(),
        )

    async def rotation(self) -> Literal[0, 90, 180, 270]:
        """The display rotation in degrees (first ``orientation=`` of ``dumpsys display``)."""
        match = _ORIENTATION.search(await self.link.shell("dumpsys display"))
        index = int(match.group(1)) if match else 0
        return (0, 90, 180, 270)[index % 4]

    async def foreground(self) -> tuple[str | None, str | None]:
        """The focused app's package and activity, ``(None, None)`` when nothing has focus."""
        found = await foreground_activity(self.link.shell)
        return found if found is not None else (None, None)

    async def keyboard_visible(self) -> bool:
        """Whether the soft keyboard is shown (``mInputShown`` of ``dumpsys input_method``)."""
        return _INPUT_SHOWN.search(await self.link.shell("dumpsys input_method")) is not None

    async def settle(self, meanwhile: Callable[[], Awaitable[Any]] | None = None) -> Settled:
        """Frames until two taken at least ``interval_s`` apart nearly agree (the first a
        small probe, the rest full size), or the timeout passes; the last full frame.

        The interval runs from one frame's request to the next: a capture that itself took
        longer than the interval is not followed by a sleep. ``meanwhile`` (the hierarchy
        dump an observation needs, say) runs in the interval after the probe instead of a
        sleep; its result is kept when the next frame agrees with the probe.
        """
        config = self.settle_config
        started = time.monotonic()
        previous, previous_at = await self.screenshot(config.probe_scale), started
        side = await meanwhile() if meanwhile is not None else None
        frames = 1
        while True:
            wait = config.interval_s - (time.monotonic() - previous_at)
            if wait > 0:
                await asyncio.sleep(wait)  # poll interval: frames this far apart must agree
            current_at = time.monotonic()
            current = await self.screenshot()
            frames += 1
            change = frame_change(previous.small, current.small, config.pixel_delta)
            elapsed = time.monotonic() - started
            if change <= config.threshold:
                return Settled(current, True, frames, elapsed, side if frames == 2 else None)
            if elapsed >= config.timeout_s:
                return Settled(current, False, frames, elapsed)
            previous, previous_at = current, current_at

    # ---- input (device pixels of the current orientation)
    async def tap(self, x: int, y: int) -> str:
        """A tap (``input tap``)."""
        return await self._input(f"tap {x} {y}")

    async def long_press(self, x: int, y: int, duration_ms: int) -> str:
        """Touch and hold: a swipe that does not move (``input swipe x y x y ms``)."""
        return await self._input(f"swipe {x} {y} {x} {y} {duration_ms}")

    async def swipe(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int) -> str:
        """A finger path (``input swipe``)."""
        return await self._input(f"swipe {x1} {y1} {x2} {y2} {duration_ms}")

    async def swipe_path(self, path: Sequence[tuple[int, int]], duration_ms: int) -> str:
        """A finger along ``path``, its points evenly spaced over ``duration_ms``: ``input
        swipe`` for two points, else uiautomator2's ``swipePoints`` (one step per 5 ms, as
        UiAutomator injects them), which can hold the finger still before it lifts."""
        if len(path) < 2:
            raise ValueError("a swipe path needs at least two points")
        if len(path) == 2:
            (x1, y1), (x2, y2) = path
            return await self.swipe(x1, y1, x2, y2, duration_ms)
        segments = len(path) - 1
        steps = max(1, round(duration_ms / segments / U2_STEP_MS))
        flat = [int(value) for point in path for value in point]
        await self.link.rpc("swipePoints", flat, steps)
        return f"u2 swipePoints {flat} {steps}"

    async def double_tap(self, x: int, y: int) -> str:
        """Two taps within the double-tap window, through uiautomator2's injected events
        (two ``input tap`` processes start too slowly to count as one gesture)."""
        await self.link.rpc("injectInputEvent", 0, x, y, 0)  # ACTION_DOWN
        await self.link.rpc("injectInputEvent", 1, x, y, 0)  # ACTION_UP
        await self.link.rpc("click", x, y)
        return f"u2 double_click {x} {y}"

    async def key(self, key: KeyName) -> str:
        """Press a key (``input keyevent CODE``)."""
        return await self._input(f"keyevent {KEYCODES[key]}")

    async def type_text(self, text: str) -> str:
        """Type into the focused field: ``input text`` for safe ASCII, else the clipboard."""
        if is_ascii_safe(text):
            return await self._input(f"text {text}")
        await self.link.rpc("setClipboard", None, text)
        kept = await self.link.rpc("getClipboard")
        if kept != text:
            raise UiAutomatorError(
                f"the phone's clipboard did not keep the text to type (got {kept!r:.40}); "
                "unlock the phone and allow clipboard access for the shell, then run again"
            )
        await self.link.rpc("pasteClipboard")
        return "u2 setClipboard+pasteClipboard"

    async def clear_text(self) -> str:
        """Empty the focused field (uiautomator2 ``clearInputText``: select all, delete)."""
        await self.link.rpc("clearInputText")
        return "u2 clearInputText"

    async def _input(self, args: str) -> str:
        command = f"input {args}"
        output = await self.link.shell(command)
        if mentions_inject_events(output):
            raise InjectEventsDenied(output)
        return command

    # ---- apps
    async def installed(self, package: str) -> bool:
        """Whether ``package`` is installed (``pm path``)."""
        return "package:" in await self.link.shell(f"pm path {package}")

    async def start_app(self, package: str) -> str:
        """Launch an app's launcher activity (``monkey -p PKG -c LAUNCHER 1``)."""
        command, output = await start_app(self.link.shell, package)
        if mentions_inject_events(output):
            raise InjectEventsDenied(output)
        return command

    async def force_stop(self, package: str) -> None:
        """``am force-stop``: the app's processes and back stack are gone."""
        await self.link.shell(f"am force-stop {package}")


def _override_first(pattern: re.Pattern[str], output: str, what: str) -> tuple[str, ...]:
    """The groups of the ``Override`` line if there is one, else the ``Physical`` one."""
    found = {m.group(1): m.groups()[1:] for m in pattern.finditer(output)}
    groups = found.get("Override") or found.get("Physical")
    if groups is None:
        raise DeviceError(f"unexpected `{what}` output: {output.strip()[:200]!r}")
    return groups
