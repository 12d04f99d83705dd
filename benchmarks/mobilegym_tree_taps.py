"""The derived MobileGym tree's tap check: does tapping a node the tree calls clickable do
anything? For each screen (the launcher's home, then the home screens of MobileGym's
Settings, Contacts, Clock, Calendar, Sms and FileManager), every clickable node of
:func:`mobilegym.tree.derived_tree` is tapped at its centre through
``__SIM_INPUT__.tap(x, y, {coords: 'physical'})`` on the same starting screen, and we record
whether the route or the state changed (``__SIM__.getState()`` without its volatile fields:
``os.time`` and the file system's ids and timestamps, which MobileGym draws anew at each
load) and, apart, whether the screen changed (the screenshot or the DOM). Prints one JSON
object: per screen and overall, the nodes, the clickable nodes, the shares that changed the
route or state and that changed anything, the tree's time, and the time taken.

    .venv/bin/python benchmarks/mobilegym_tree_taps.py [--dist PATH] [--screens a,b]

The starting screen is restored only after a tap that changed something, with MobileGym's
own reset (``__SIM__.resetState()``, then the page loaded again: about 1 s, where a new
browser context costs 2–3 s); every start is compared with the screen's first one and the
shares that matched are reported: ``clean_starts`` (route, state and DOM) and
``same_pixels_starts`` (the screenshot). A control per screen (settling again without a
tap) must change nothing, and ``pixels_only_changes`` counts taps after which only pixels
differed (a DOM that did not change), the measure's own noise.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import re
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:  # run as a script from anywhere
    sys.path.insert(0, str(REPO))

from bridge.schema import UINode  # noqa: E402
from mobilegym.page import MobileGymPage  # noqa: E402
from mobilegym.source import parse_source  # noqa: E402
from mobilegym.tree import derived_tree  # noqa: E402
from mobilegym.world import MobileGym  # noqa: E402

SCREENS: dict[str, str | None] = {
    "home": None,
    "settings": "settings",
    "contacts": "contacts",
    "clock": "clock",
    "calendar": "calendar",
    "sms": "sms",
    "file_manager": "file_manager",
}
"""Screen name -> the MobileGym app id opened on a freshly loaded page (None: the launcher)."""

VOLATILE = re.compile(
    r"^os\.time\.|^os\.fileSystem\.nodes\[\d+\]\.(id|parentId|createdAt|modifiedAt)$"
)
"""State paths that differ between two loads of the same build with nothing done."""

DEFAULT_DIST = REPO.parent / "shared" / "mobilegym" / "dist"
CONTROL_WAIT_S = 0.35
"""The control: how long a screen is left alone to see whether it changes by itself (a
measurement of its noise, not a wait for it to settle)."""


@dataclass(frozen=True)
class Snapshot:
    """What a tap may change: the route, the state, the pixels and the DOM."""

    route: tuple[str | None, str | None]
    state: dict[str, Any]
    shot: str
    dom: str


def _flat(value: Any, path: str, out: dict[str, Any]) -> dict[str, Any]:
    if isinstance(value, dict):
        for key, item in value.items():
            _flat(item, f"{path}.{key}" if path else key, out)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _flat(item, f"{path}[{i}]", out)
    elif not VOLATILE.match(path):
        out[path] = value
    return out


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


async def _wait_app(page: MobileGymPage) -> None:
    """Wait until the page settles (a launch splash and tap timers included)."""
    await page.settle(5.0)


async def snapshot(page: MobileGymPage) -> Snapshot:
    """The page's route, filtered state, screenshot (CSS scale) and DOM, as digests."""
    shot = await page.page.screenshot(type="png", scale="css", animations="allow")
    dom = await page.call("() => document.body.innerHTML")
    return Snapshot(
        route=await page.route(),
        state=_flat(await page.state(), "", {}),
        shot=_digest(shot),
        dom=_digest(dom.encode()),
    )


def compare(before: Snapshot, after: Snapshot) -> dict[str, bool]:
    """Which of the route-or-state, the screenshot and the DOM differ."""
    return {
        "route_or_state": before.route != after.route or before.state != after.state,
        "screenshot": before.shot != after.shot,
        "dom": before.dom != after.dom,
    }


async def start(page: MobileGymPage, app: str | None, clock_ms: int, wipe: bool) -> None:
    """The screen on a freshly (re)loaded page: MobileGym's reset, then the app opened."""
    if wipe:
        await page.wipe()
        await page.load(clock_ms)
    await page.settle(5.0)
    if app is not None:
        await page.act("(id) => window.__OS__.openApp(id)", app)
        await _wait_app(page)


async def tree_ms(page: MobileGymPage, package: str, runs: int = 7) -> tuple[list[UINode], float]:
    """The tree and the median wall time of ``runs`` calls of :func:`derived_tree`."""
    times = []
    nodes: list[UINode] = []
    for _ in range(runs):
        began = time.perf_counter()
        nodes = await derived_tree(page, package)
        times.append((time.perf_counter() - began) * 1000)
    return nodes, round(statistics.median(times), 1)


def _label(node: UINode) -> str:
    rid = node.resource_id.partition(":id/")[2]
    name = node.text or node.content_desc or rid or node.class_name.split(".")[-1]
    return f"{node.id}:{name[:24]}"


def _share(part: int, whole: int) -> float | None:
    return round(part / whole, 3) if whole else None


def _shares(results: list[dict[str, bool]]) -> dict[str, float | None]:
    keys = ("route_or_state", "screen", "anything")
    return {key: _share(sum(r[key] for r in results), len(results)) for key in keys}


async def sweep(gym: MobileGym, name: str, app: str | None) -> dict[str, Any]:
    """Tap every clickable node of one screen, each from the same start."""
    began = time.perf_counter()
    page = await gym.page()
    try:
        await start(page, app, gym.clock_ms, wipe=False)
        nodes, median_ms = await tree_ms(page, f"mobilegym.{app or 'launcher'}")
        reference = await snapshot(page)
        await asyncio.sleep(CONTROL_WAIT_S)
        await page.settle(5.0)
        control = compare(reference, await snapshot(page))
        clickable = [n for n in nodes if n.clickable]
        results: list[dict[str, bool]] = []
        inert: list[str] = []
        clean = same_pixels = 0
        dirty = False
        for node in clickable:
            if dirty:
                await start(page, app, gym.clock_ms, wipe=True)
            before = await snapshot(page)
            drift = compare(reference, before)
            clean += not (drift["route_or_state"] or drift["dom"])
            same_pixels += not drift["screenshot"]
            x, y = node.center_px
            await page.act(
                "([x, y]) => window.__SIM_INPUT__.tap(x, y, {coords: 'physical'})", [x, y]
            )
            await _wait_app(page)
            changed = compare(before, await snapshot(page))
            result = {
                "route_or_state": changed["route_or_state"],
                "screen": changed["screenshot"] or changed["dom"],
                "anything": any(changed.values()),
                "pixels_only": changed["screenshot"] and not changed["dom"],
            }
            results.append(result)
            dirty = result["anything"]
            if not dirty:
                inert.append(_label(node))
    finally:
        await page.close()
    return {
        "nodes": len(nodes),
        "clickable": len(clickable),
        "shares": _shares(results),
        "tree_ms_median": median_ms,
        "clean_starts": _share(clean, len(clickable)),
        "same_pixels_starts": _share(same_pixels, len(clickable)),
        "pixels_only_changes": sum(r["pixels_only"] for r in results),
        "control_changed": [k for k, v in control.items() if v],
        "inert": inert,
        "seconds": round(time.perf_counter() - began, 1),
        "_results": results,
    }


async def run(dist: Path, screens: list[str]) -> dict[str, Any]:
    """The sweep over ``screens``, and the totals."""
    began = time.perf_counter()
    per_screen: dict[str, Any] = {}
    async with MobileGym(parse_source(str(dist))) as gym:
        for name in screens:
            print(f"mobilegym_tree_taps: {name}", file=sys.stderr, flush=True)
            per_screen[name] = await sweep(gym, name, SCREENS[name])
    everything = [r for s in per_screen.values() for r in s.pop("_results")]
    return {
        "benchmark": "mobilegym_tree_taps",
        "dist": str(dist),
        "load_average_1min": round(os.getloadavg()[0], 2),
        "screens": per_screen,
        "overall": {
            "nodes": sum(s["nodes"] for s in per_screen.values()),
            "clickable": sum(s["clickable"] for s in per_screen.values()),
            "shares": _shares(everything),
            "tree_ms_median": statistics.median(s["tree_ms_median"] for s in per_screen.values()),
            "seconds": round(time.perf_counter() - began, 1),
        },
    }


def main() -> None:
    """Parse the options, run the sweep, print the JSON object."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dist", type=Path, default=DEFAULT_DIST, help="a built MobileGym dist/")
    parser.add_argument(
        "--screens", default=",".join(SCREENS), help=f"comma-separated, of: {','.join(SCREENS)}"
    )
    options = parser.parse_args()
    screens = [s.strip() for s in options.screens.split(",") if s.strip()]
    unknown = [s for s in screens if s not in SCREENS]
    if unknown:
        parser.error(f"unknown screens {unknown}; choose from {','.join(SCREENS)}")
    if not (options.dist / "index.html").is_file():
        parser.error(f"{options.dist} holds no MobileGym build (no index.html)")
    print(json.dumps(asyncio.run(run(options.dist, screens)), indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
