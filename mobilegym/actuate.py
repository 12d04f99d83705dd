"""A MobileGym phone's actuation primitives (:class:`bridge.actuate.Actuator`) through its own
input API, ``window.__SIM_INPUT__``, in integer device pixels (``{coords: 'physical'}``).

Everything an action means — target resolution, scroll areas, step errors — is
:func:`bridge.actuate.perform`, as in every world. What a finger stroke is, is decided as
Android decides it (:func:`bridge.gestures.classify_stroke`: a tap or long press within the
touch slop, else a drag or a fling by the release speed), then performed with MobileGym's
gesture of that kind: ``tap``, ``longPress``, and ``swipe`` with its inertia only for a fling
(a drag — every ``scroll`` — lifts where it stopped).

Keys: MobileGym has back, home, recents and enter; delete, the volume keys and power are a
step error worded as in every world (:func:`bridge.actuate.key_unavailable`). Our app ids
open the build's app with the same package (its manifests say), through ``__OS__.openApp``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from bridge.actions import KeyName
from bridge.actuate import FocusState, Launch, LaunchStatus, Performed
from bridge.app_catalog import app_catalog
from bridge.coords import IntPoint
from bridge.gestures import classify_stroke
from bridge.schema import UINode
from mobilegym.android_state.apps import MobileGymApps
from mobilegym.errors import MobileGymFailed
from mobilegym.page import DENSITY_DPI, MobileGymPage

__all__ = ["MobileGymActuator"]

_KEYS: dict[KeyName, str] = {
    "back": "back",
    "home": "home",
    "recents": "recent",
    "enter": "enter",
}
"""Our keys MobileGym has, and its ``__SIM_INPUT__`` call for each."""

_PHYSICAL = {"coords": "physical"}


class MobileGymActuator:
    """The primitives on one MobileGym phone.

    Args:
        page: The phone.
        apps: Its apps (which of ours it has, under which MobileGym id).
        tree: How to read the tree now (after a tap meant to focus a field).
    """

    def __init__(
        self,
        page: MobileGymPage,
        apps: MobileGymApps,
        tree: Callable[[], Awaitable[list[UINode]]],
    ) -> None:
        self.page = page
        self.apps = apps
        self._tree = tree

    async def _input(self, call: str, *args: Any) -> None:
        await self.page.act(
            "async ([call, args]) => { await window.__SIM_INPUT__[call](...args); }",
            [call, list(args)],
        )

    # ---- touch
    async def tap(self, at: IntPoint) -> Performed:
        """``__SIM_INPUT__.tap`` at a device pixel."""
        await self._input("tap", at.x, at.y, _PHYSICAL)
        return Performed(f"__SIM_INPUT__.tap {at.x} {at.y}")

    async def double_tap(self, at: IntPoint) -> Performed:
        """``__SIM_INPUT__.doubleTap`` at a device pixel."""
        await self._input("doubleTap", at.x, at.y, _PHYSICAL)
        return Performed(f"__SIM_INPUT__.doubleTap {at.x} {at.y}")

    async def press(self, at: IntPoint, duration_ms: int) -> Performed:
        """A held touch: ``longPress`` for ``duration_ms`` (a tap when shorter than Android's
        long-press timeout, as a phone decides)."""
        stroke = classify_stroke([(at.x, at.y)], duration_ms, density_dpi=DENSITY_DPI)
        if stroke.kind == "tap":
            return await self.tap(at)
        await self._input("longPress", at.x, at.y, duration_ms, _PHYSICAL)
        return Performed(f"__SIM_INPUT__.longPress {at.x} {at.y} {duration_ms}")

    async def swipe(self, path: Sequence[IntPoint], duration_ms: int) -> Performed:
        """A finger path as Android classifies it, done with MobileGym's gesture of that kind
        (its ``swipe`` goes straight from the first point to the last)."""
        stroke = classify_stroke([(p.x, p.y) for p in path], duration_ms, density_dpi=DENSITY_DPI)
        start, end = path[0], path[-1]
        if stroke.kind == "tap":
            return await self.tap(start)
        if stroke.kind == "long_press":
            return await self.press(start, duration_ms)
        fling = stroke.kind == "fling"
        moving_ms = _moving_ms(path, duration_ms)
        options = {**_PHYSICAL, "ms": moving_ms, "inertia": fling}
        await self._input("swipe", {"x": start.x, "y": start.y}, {"x": end.x, "y": end.y}, options)
        return Performed(
            f"__SIM_INPUT__.swipe {start.x} {start.y} {end.x} {end.y} {moving_ms}",
            {"stroke": stroke.kind},
        )

    # ---- keys, text, apps
    @property
    def keys(self) -> frozenset[KeyName]:
        """back, home, recents and enter."""
        return frozenset(_KEYS)

    async def key(self, key: KeyName) -> Performed:
        """``__SIM_INPUT__.back`` / ``home`` / ``recent`` / ``enter``."""
        call = _KEYS.get(key)
        if call is None:
            raise MobileGymFailed(f"MobileGym has no {key} key (perform checks keys first)")
        await self._input(call)
        return Performed(f"__SIM_INPUT__.{call}")

    async def type_text(self, text: str, *, clear: bool) -> Performed:
        """``__SIM_INPUT__.type`` into the focused field (emptied first when ``clear``)."""
        await self._input("type", text, {"clear": clear})
        return Performed("__SIM_INPUT__.type")

    async def launch(self, app: str) -> Launch:
        """``__OS__.openApp`` with MobileGym's id of our app ``app``, if the build has it (its
        manifests' packages say which of its apps is ours)."""
        mobilegym_id = (await self.apps.catalog_ids()).get(app)
        if mobilegym_id is None:
            return Launch(LaunchStatus.NOT_INSTALLED, package=app_catalog().get(app).package())
        package = (await self.apps.packages())[mobilegym_id]
        await self.page.act("(id) => window.__OS__.openApp(id)", mobilegym_id)
        return Launch(
            LaunchStatus.LAUNCHED, command=f"__OS__.openApp {mobilegym_id}", package=package
        )

    async def focus(self) -> FocusState:
        """After the page settles: the derived tree and whether MobileGym's keyboard shows."""
        await self.page.settle(timeout=5.0)
        return FocusState(await self._tree(), await self.page.keyboard_visible())

    async def wait(self, seconds: float) -> Performed:
        """Let ``seconds`` pass: MobileGym's clock is moved on by as much (it stands still
        otherwise), and the page gets that long to run."""
        clock = await self.page.clock()
        await self.page.set_clock(clock + round(seconds * 1000))
        await asyncio.sleep(seconds)  # the action itself is "let time pass"
        return Performed("wait")


def _moving_ms(path: Sequence[IntPoint], duration_ms: int) -> int:
    """How long the finger of ``path`` (points evenly spaced over ``duration_ms``) moves: a
    hold at its end (a scroll's, so that it lifts without a fling) is no travel.

    MobileGym's ``swipe`` has no hold: its finger moves for all of ``ms`` and lifts. Its rows'
    press timers are cancelled by no move (Clock's alarm rows select themselves after 450 ms
    held), so a drag spread over a held stroke's whole duration would select the row that a
    phone scrolls; without inertia it lifts with no fling all the same.
    """
    last = len(path) - 1
    moving = last
    while moving > 0 and path[moving - 1] == path[last]:
        moving -= 1
    return round(duration_ms * moving / last) if moving else duration_ms
