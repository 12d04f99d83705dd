"""A small scripted phone behind the ``DeviceLink`` interface, for the driver's unit tests.

It answers the shell commands and uiautomator2 methods the driver uses with AOSP's output
formats, records every command, and plays back scripted screens (frames) and dumps. Knobs
make it misbehave the ways phones do: refuse injected input (MIUI), return empty dumps,
show a black FLAG_SECURE frame, break the uiautomator2 server, or hang.
"""

from __future__ import annotations

import asyncio
import base64
import shlex
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from bridge.schema import UINode
from bridge.uitree import to_xml
from device.errors import UiAutomatorError

MIUI_REFUSAL = (
    "Exception occurred while executing 'tap':\n"
    "java.lang.SecurityException: Injecting input events requires the caller (or the source "
    "of the instrumentation, if any) to have the INJECT_EVENTS permission.\n"
)

DUMPSYS_WINDOW = """WINDOW MANAGER WINDOWS (dumpsys window windows)
  Window #3 Window{1f2e3d4 u0 com.android.settings/com.android.settings.Settings}:
    mDisplayId=0 rootTaskId=12
  mCurrentFocus=Window{1f2e3d4 u0 com.android.settings/com.android.settings.Settings}
  mFocusedApp=ActivityRecord{9c8d7e u0 com.android.settings/.Settings t12}
"""


def screen(value: int = 200, *, width: int = 108, height: int = 240, box: int = -1) -> np.ndarray:
    """A BGR screen of one gray level, with a dark box in row ``box`` (of 10) if given."""
    image = np.full((height, width, 3), value, np.uint8)
    if box >= 0:
        band = height // 10
        image[box * band : (box + 1) * band, : width // 2] = 20
    return image


def settings_nodes(focused_field: bool = False) -> list[UINode]:
    """A Settings-like tree on a 1080x2400 screen: a list with Wi-Fi and a search field."""
    return [
        UINode(id=0, class_name="android.widget.FrameLayout", bounds_px=(0, 0, 1080, 2400),
               package="com.android.settings"),
        UINode(id=1, parent=0, class_name="android.widget.EditText", bounds_px=(40, 200, 1040, 320),
               resource_id="com.android.settings:id/search", editable=True, clickable=True,
               focused=focused_field, package="com.android.settings"),
        UINode(id=2, parent=0, class_name="androidx.recyclerview.widget.RecyclerView",
               bounds_px=(0, 400, 1080, 2200), scrollable=True, package="com.android.settings"),
        UINode(id=3, parent=2, index=0, class_name="android.widget.TextView", text="Wi-Fi",
               bounds_px=(0, 400, 1080, 560), clickable=True, package="com.android.settings"),
        UINode(id=4, parent=2, index=1, class_name="android.view.View",
               bounds_px=(10, 600, 10, 600), package="com.android.settings"),
    ]  # fmt: skip


@dataclass
class FakeLink:
    """A scripted phone: see the module docstring. Lists play in order; the last repeats."""

    width: int = 1080
    height: int = 2400
    density: int = 440
    rotation: int = 0
    frames: list[np.ndarray] = field(default_factory=lambda: [screen()])
    dumps: list[str] = field(default_factory=lambda: [to_xml(settings_nodes())])
    focus: str = DUMPSYS_WINDOW
    keyboard: bool = False
    props: dict[str, str] = field(default_factory=dict)
    input_output: str = ""
    u2_broken: bool = False
    screenshot_via_u2: bool = True
    clipboard_keeps: bool = True
    hang: set[str] = field(default_factory=set)
    commands: list[str] = field(default_factory=list)
    rpcs: list[tuple[str, tuple[Any, ...]]] = field(default_factory=list)
    clipboard: str = ""
    closed: int = 0
    serial: str = "fake-0001"
    settings: dict[tuple[str, str], str] = field(default_factory=dict)
    """``settings put`` values, read back by ``settings get`` and ``settings list``."""

    def _next(self, items: list[Any]) -> Any:
        return items.pop(0) if len(items) > 1 else items[0]

    async def _maybe_hang(self, name: str) -> None:
        if name in self.hang:
            await asyncio.Event().wait()  # never set: a phone that stopped answering

    async def shell(self, command: str, timeout_s: float | None = None) -> str:
        self.commands.append(command)
        await self._maybe_hang(command.split()[0])
        if command.startswith("input "):
            return self.input_output
        if command.startswith("getprop "):
            return self.props.get(command.split()[1], "") + "\n"
        if command.startswith("settings "):
            return self._settings(shlex.split(command)[1:])
        return self._answer(command)

    def _settings(self, words: list[str]) -> str:
        verb, namespace, rest = words[0], words[1], words[2:]
        if verb == "put":
            self.settings[(namespace, rest[0])] = rest[1]
            return ""
        if verb == "get":
            return self.settings.get((namespace, rest[0]), "null") + "\n"
        listed = sorted((k, v) for (ns, k), v in self.settings.items() if ns == namespace)
        return "".join(f"{key}={value}\n" for key, value in listed)

    def _answer(self, command: str) -> str:
        answers = {
            "wm size": f"Physical size: {self.width}x{self.height}",
            "wm density": f"Physical density: {self.density}",
            "dumpsys display": "DisplayViewport{type=INTERNAL, valid=true, displayId=0, "
            f"orientation={self.rotation}, deviceWidth={self.width}}}",
            "dumpsys window windows": self.focus,
            "dumpsys activity activities": "",
            "dumpsys input_method": f"  mInputShown={'true' if self.keyboard else 'false'}",
        }
        if command in answers:
            return answers[command]
        if command.startswith("pm path "):
            package = command.split()[-1]
            return f"package:/system/app/{package}/base.apk" if "missing" not in package else ""
        return ""

    async def shell_bytes(self, command: str, timeout_s: float | None = None) -> bytes:
        self.commands.append(command)
        assert command == "screencap -p"
        return cv2.imencode(".png", self._next(self.frames))[1].tobytes()

    async def uiautomator_dump(self, timeout_s: float | None = None) -> str:
        self.commands.append("uiautomator dump")
        return self._next(self.dumps)

    async def rpc(self, method: str, *params: Any, timeout_s: float | None = None) -> Any:
        self.rpcs.append((method, params))
        await self._maybe_hang(method)
        if self.u2_broken:
            raise UiAutomatorError(f"rpc {method}: uiautomator2 server is gone")
        if method == "takeScreenshot":
            if not self.screenshot_via_u2:
                return None
            frame = self._next(self.frames)
            scale = float(params[0]) if params else 1.0
            if scale < 1:  # as the u2 server does: the bitmap scaled before it is encoded
                size = (
                    max(1, round(frame.shape[1] * scale)),
                    max(1, round(frame.shape[0] * scale)),
                )
                frame = cv2.resize(frame, size, interpolation=cv2.INTER_AREA)
            jpeg = cv2.imencode(".jpg", frame)[1].tobytes()
            return base64.encodebytes(jpeg).decode("ascii")
        if method == "dumpWindowHierarchy":
            return self._next(self.dumps)
        if method == "setClipboard":
            self.clipboard = params[1] if self.clipboard_keeps else ""
            return None
        if method == "getClipboard":
            return self.clipboard
        if method in ("pasteClipboard", "clearInputText"):
            return None
        return True

    async def close(self) -> None:
        self.closed += 1

    def typed(self) -> list[str]:
        """The text-entry commands sent, in order (``input text``, pastes, clears)."""
        shell = [c for c in self.commands if c.startswith("input text")]
        rpc = [m for m, _ in self.rpcs if m in ("setClipboard", "pasteClipboard", "clearInputText")]
        return shell + rpc
