"""The simulator's actuation primitives (:class:`bridge.actuate.Actuator`).

Everything an action means — target resolution, scroll areas, step errors — is
:func:`bridge.actuate.perform`; this module only carries out its primitives on a simulated
phone. Touches go through the page runtime, so the browser's own hit-testing and layout
decide what was touched; a stroke is classified as Android classifies it
(:func:`bridge.gestures.classify_stroke`, with this phone's ``secure long_press_timeout``);
keys, text and launching an app change the state directly. What the runtime reports that a
phone would not (the tap hit nothing, the list is at its end) becomes notes of the executed
action, never a step error.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from bridge.actions import KeyName
from bridge.actuate import ALL_KEYS, FocusState, Launch, LaunchStatus, Performed
from bridge.app_catalog import app_catalog
from bridge.coords import IntPoint
from bridge.gestures import LONG_PRESS_TIMEOUT_MS, Stroke, classify_stroke
from sim.instance import Instance
from sim.observe import tree_nodes
from sim.pages import PooledPage, SimProfile

__all__ = ["PageTouch", "SimActuator", "long_press_timeout_ms"]


def long_press_timeout_ms(settings: dict[str, dict[str, Any]]) -> float:
    """The phone's long-press timeout: ``secure long_press_timeout`` if set, else Android's
    default."""
    value = settings.get("secure", {}).get("long_press_timeout")
    try:
        return float(value) if value is not None else LONG_PRESS_TIMEOUT_MS
    except (TypeError, ValueError):
        return LONG_PRESS_TIMEOUT_MS


def _runtime_notes(result: dict[str, Any]) -> dict[str, str]:
    """What the runtime's hit test found, as notes (never a step error)."""
    notes: dict[str, str] = {}
    if not result.get("posted"):
        notes["effect"] = f"no effect: {result.get('reason') or 'nothing happened'}"
    hit = result.get("hit")
    if isinstance(hit, dict):
        label = hit.get("text") or hit.get("desc") or hit.get("rid") or ""
        notes["hit"] = f"{hit.get('class', '')} {label!r}".strip()
    return notes


class PageTouch:
    """Touches on one instance's page, in device pixels of ``profile``: the one way a finger
    reaches a simulated screen, for the simulator's actuator and the virtual phone's
    ``input`` and uiautomator alike."""

    def __init__(self, pooled: PooledPage, instance: Instance, profile: SimProfile) -> None:
        self.pooled = pooled
        self.instance = instance
        self.profile = profile

    def _css(self, x: float, y: float) -> list[float]:
        """The CSS point of device pixel (x, y)."""
        dpr = self.profile.dpr
        return [x / dpr, y / dpr]

    async def gesture(
        self, call: str, *points: tuple[float, float], **flags: Any
    ) -> dict[str, Any]:
        """Run the page runtime's ``call`` (``tap``, ``doubleTap``, ``longPress``, ``swipe``)
        at ``points``; what its hit test reported (``posted``, ``reason``, ``hit``)."""
        coords = [value for x, y in points for value in self._css(x, y)]
        await self.pooled.show(self.instance)
        reply = await self.pooled.page.evaluate(
            "async ([call, coords, flags]) => {"
            " const result = await window.__mgb[call](...coords, flags);"
            " return {result, shown: [window.__mgb.instance, window.__mgb.version]}; }",
            [call, coords, flags],
        )
        # A gesture the page posted came back with the screen it caused: the page shows
        # that version now, so the settle that follows need not render it again.
        shown_instance, shown_version = reply["shown"]
        if shown_instance == self.instance.id and shown_version == self.instance.version:
            self.pooled.loaded(self.instance)
        result = reply["result"]
        return result if isinstance(result, dict) else {}

    def classify(self, path: Sequence[tuple[float, float]], duration_ms: float) -> Stroke:
        """What Android makes of this finger path, with this phone's long-press timeout."""
        timeout = long_press_timeout_ms(self.instance.state.os.settings)
        return classify_stroke(
            path, duration_ms, density_dpi=self.profile.density_dpi, long_press_timeout_ms=timeout
        )

    async def stroke(
        self, path: Sequence[tuple[float, float]], duration_ms: float
    ) -> tuple[Stroke, dict[str, Any]]:
        """One finger stroke as Android classifies it: a tap or long press where it stays in
        the slop, else a drag (the content follows the finger) or a fling (it glides on)."""
        stroke = self.classify(path, duration_ms)
        if stroke.kind in ("tap", "long_press"):
            call = "tap" if stroke.kind == "tap" else "longPress"
            return stroke, await self.gesture(call, stroke.start)
        fling = stroke.kind == "fling"
        return stroke, await self.gesture("swipe", stroke.start, stroke.end, fling=fling)


class SimActuator:
    """The primitives on one instance shown on ``pooled`` (device pixels of ``profile``)."""

    def __init__(self, pooled: PooledPage, instance: Instance, profile: SimProfile) -> None:
        self.pooled = pooled
        self.instance = instance
        self.profile = profile
        self.touch = PageTouch(pooled, instance, profile)

    # ---- touch
    async def _touch(self, call: str, at: IntPoint, stroke: str) -> Performed:
        notes = _runtime_notes(await self.touch.gesture(call, (at.x, at.y)))
        return Performed(f"runtime.{call} {at.x} {at.y}", {"stroke": stroke, **notes})

    async def tap(self, at: IntPoint) -> Performed:
        """A tap where the runtime's hit test says."""
        return await self._touch("tap", at, "tap")

    async def double_tap(self, at: IntPoint) -> Performed:
        """Two taps (no simulated app handles a double tap: each tap is a click)."""
        return await self._touch("doubleTap", at, "double_tap")

    async def press(self, at: IntPoint, duration_ms: int) -> Performed:
        """A held touch: a long press when it lasts the long-press timeout, else a tap."""
        stroke = self.touch.classify([(at.x, at.y)], duration_ms)
        call = "longPress" if stroke.kind == "long_press" else "tap"
        return await self._touch(call, at, stroke.kind)

    async def swipe(self, path: Sequence[IntPoint], duration_ms: int) -> Performed:
        """A finger path, classified as Android does (:meth:`PageTouch.stroke`)."""
        stroke, result = await self.touch.stroke([(p.x, p.y) for p in path], duration_ms)
        start, end = path[0], path[-1]
        if stroke.kind == "tap":
            command = f"runtime.tap {start.x} {start.y}"
        elif stroke.kind == "long_press":
            command = f"runtime.longPress {start.x} {start.y}"
        else:
            command = f"runtime.swipe {start.x} {start.y} {end.x} {end.y}"
        return Performed(command, {"stroke": stroke.kind, **_runtime_notes(result)})

    # ---- keys, text, apps
    @property
    def keys(self) -> frozenset[KeyName]:
        """Every key (a phone has them all)."""
        return ALL_KEYS

    async def key(self, key: KeyName) -> Performed:
        """A key, applied to the state."""
        instance = self.instance
        effect = instance.phone.key(instance.state, key)
        instance.changed()
        return Performed(f"key {key}", {"effect": effect} if effect else {})

    async def type_text(self, text: str, *, clear: bool) -> Performed:
        """Commit ``text`` to the focused field (like an IME); where it reached no field
        (a system dialog in front), that is a note."""
        instance = self.instance
        effect = instance.phone.type_text(instance.state, text, clear)
        instance.changed()
        return Performed("ime.commit_text", {"effect": effect} if effect else {})

    async def launch(self, app: str) -> Launch:
        """Bring ``app`` to the front, if the simulator has it."""
        instance = self.instance
        if app not in instance.phone.apps:
            package = app_catalog().get(app).package()
            return Launch(LaunchStatus.NOT_INSTALLED, package=package)
        instance.phone.launch(instance.state, app)
        instance.changed()
        package = instance.phone.app(app).package_on(instance.state.os.skin)
        return Launch(LaunchStatus.LAUNCHED, command=f"launch {app}", package=package)

    async def focus(self) -> FocusState:
        """The tree the page shows now and the keyboard state."""
        nodes = tree_nodes(json.loads(await self.pooled.tree_of(self.instance)))
        return FocusState(nodes, self.instance.state.ui.keyboard_visible)

    async def wait(self, seconds: float) -> Performed:
        """Time passes on the instance's own clock (the env advances it per step)."""
        return Performed("wait")
