"""Our MobileGym env against MobileGym's own Python driver, on the same build and machine in
one run: prints one JSON object.

.venv/bin/python benchmarks/mobilegym_speed.py [--dist PATH] [--checkout PATH] [--quick]

- **new instance to first observation**: ours is a new phone, loaded, its task posed and its
  home screen observed (`gym.env()` + `reset(task)`); theirs is `MobileGymEnv.start()` +
  `reset()` + `get_observation()` (a new context and page, MobileGym's reset, a screenshot).
- **settled step**: the same walk through the launcher, Settings and Clock (taps, swipes,
  back, home) in both, ours `env.step` (act, settle on a condition, screenshot and derived
  tree), theirs `env.step` with its default `delay_after_action` (0.8 s × U(0.5, 1.125)
  after every action, then a screenshot); p50 and p95 per step.
- **8 at once**: eight envs of each walking at the same time (two with ``--quick``).
- **settled, shown how**: after every step of a walk, the screen is looked at again a second
  later (screenshot and DOM); a step whose screen changed in that second returned before
  the screen settled. Counted for both drivers.

Their driver is imported from the MobileGym checkout (`bench_env`, the `mobilegym` extra); it
is given a Chromium of its own (it would download Playwright's otherwise) and makes its own
context and page in it, as in their shared-browser mode.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import importlib
import json
import statistics
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from bridge.browser import launch_chromium
from bridge.records import TaskInstance
from bridge.schema import Action, KeyAction, Point, SwipeAction, TapAction, Target
from mobilegym.env import MobileGymEnv
from mobilegym.native_harness import load_harness
from mobilegym.source import parse_source
from mobilegym.world import MobileGym
from sim.tasks.registry import default_registry

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "mobilegym"

# One walk, as normalized points on the 1080×2400 screen (the launcher's icons of the build
# beside the repository: Settings in the second row, Clock at its end).
Step = tuple[str, tuple[float, ...]]
WALK: list[Step] = [
    ("tap", (0.147, 0.69)),  # Settings
    ("swipe", (0.5, 0.75, 0.5, 0.35)),
    ("swipe", (0.5, 0.35, 0.5, 0.75)),
    ("tap", (0.5, 0.5)),  # WLAN
    ("back", ()),
    ("home", ()),
    ("tap", (0.853, 0.69)),  # Clock
    ("back", ()),
    ("home", ()),
]
CONTROL_S = 1.0
"""How long a screen is looked at again after a step, to see whether it was still moving."""


def _ours(step: Step) -> Action:
    kind, args = step
    if kind == "tap":
        return TapAction(target=Target.at(args[0], args[1]))
    if kind == "swipe":
        return SwipeAction(
            start=Point(x=args[0], y=args[1]), end=Point(x=args[2], y=args[3]), duration_ms=300
        )
    return KeyAction(key="back" if kind == "back" else "home")


def _theirs(base: Any, step: Step) -> Any:
    kind, args = step
    norm = [round(value * 1000) for value in args]
    if kind == "tap":
        return base.Action(base.ActionType.CLICK, {"point": norm[:2]})
    if kind == "swipe":
        return base.Action(
            base.ActionType.SWIPE, {"point1": norm[:2], "point2": norm[2:], "duration": 300}
        )
    return base.Action(base.ActionType.BACK if kind == "back" else base.ActionType.HOME, {})


def _pct(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000, 1)


def _summary(values: Sequence[float]) -> dict[str, float | int]:
    return {"n": len(values), "p50_ms": _pct(values, 0.5), "p95_ms": _pct(values, 0.95),
            "mean_ms": round(statistics.fmean(values) * 1000, 1)}  # fmt: skip


async def _looked_again(page: Any) -> str:
    """A digest of what the page shows: its screenshot and its DOM."""
    shot = await page.screenshot(type="jpeg", quality=80)
    dom = await page.evaluate("() => document.body.innerHTML")
    return hashlib.sha256(shot + dom.encode()).hexdigest()


class Driver:
    """One env of either driver, behind the same three calls."""

    def __init__(
        self,
        step: Callable[[Step], Awaitable[None]],
        page: Callable[[], Any],
        close: Callable[[], Awaitable[None]],
    ) -> None:
        self.step, self.page, self.close = step, page, close


async def ours(gym: MobileGym, task: TaskInstance) -> Driver:
    """Our env, its task posed."""
    env: MobileGymEnv = await gym.env()
    await env.reset(task)

    async def step(walk_step: Step) -> None:
        result = await env.step(_ours(walk_step))
        if result.error is not None:
            raise RuntimeError(f"our step {walk_step} failed: {result.error}")

    return Driver(step, lambda: env.page.page, env.close)


async def theirs(harness: Any, base_url: str, browser: Any) -> Driver:
    """Their env with its default delay, in its shared-browser mode."""
    gym_env, base = harness
    env = gym_env.MobileGymEnv(url=base_url, browser=browser, headless=True, verbose=False)
    await env.start()
    await env.reset()
    await env.get_observation()

    async def step(walk_step: Step) -> None:
        await env.step(_theirs(base, walk_step))

    return Driver(step, lambda: env._page, env.close)


async def walk(driver: Driver, *, control: bool) -> tuple[list[float], int]:
    """The walk's step times, and how many steps' screens changed in the second after."""
    times, moving = [], 0
    for walk_step in WALK:
        began = time.perf_counter()
        await driver.step(walk_step)
        times.append(time.perf_counter() - began)
        if control:
            seen = await _looked_again(driver.page())
            await asyncio.sleep(CONTROL_S)  # the measurement: a second of looking
            moving += seen != await _looked_again(driver.page())
    return times, moving


async def _timed(make: Callable[[], Awaitable[Driver]]) -> tuple[float, Driver]:
    began = time.perf_counter()
    driver = await make()
    return time.perf_counter() - began, driver


async def run(dist: str, checkout: Path, quick: bool) -> dict[str, Any]:
    """Every measurement, both drivers."""
    load_harness(checkout)  # their bench_env, imported from the checkout
    modules = (
        importlib.import_module("bench_env.env.mobile_gym"),
        importlib.import_module("bench_env.env.base"),
    )
    task = default_registry().instantiate("settings/SetWifi-v1", 0, "en")
    starts = 2 if quick else 5
    result: dict[str, Any] = {"build": parse_source(dist).build_id(), "walk_steps": len(WALK)}
    async with MobileGym(parse_source(dist)) as gym, launch_chromium() as browser:
        assert gym.base_url is not None
        sides: dict[str, Callable[[], Awaitable[Driver]]] = {
            "ours": lambda: ours(gym, task),
            "theirs": lambda: theirs(modules, gym.base_url or "", browser),
        }
        for name, make in sides.items():
            print(f"bench: {name}: new instances", file=sys.stderr, flush=True)
            first, steps, moving = [], [], 0
            for index in range(starts):
                took, driver = await _timed(make)
                first.append(took)
                try:
                    times, changed = await walk(driver, control=index == 0)
                    steps += times
                    moving += changed
                finally:
                    await driver.close()
            at_once = 2 if quick else 8
            print(f"bench: {name}: {at_once} at once", file=sys.stderr, flush=True)
            drivers = await asyncio.gather(*(make() for _ in range(at_once)))
            try:
                walks = await asyncio.gather(*(walk(d, control=False) for d in drivers))
            finally:
                await asyncio.gather(*(d.close() for d in drivers))
            result[name] = {
                "new_instance_to_first_observation": _summary(first),
                "settled_step": _summary(steps),
                "at_once": at_once,
                "at_once_step": _summary([t for times, _ in walks for t in times]),
                "steps_still_moving_a_second_later": f"{moving} of {len(WALK)}",
            }
    ours_p50 = result["ours"]["settled_step"]["p50_ms"]
    theirs_p50 = result["theirs"]["settled_step"]["p50_ms"]
    result["settled_step_speedup_p50"] = round(theirs_p50 / ours_p50, 2)
    return result


def main(argv: Sequence[str] | None = None) -> None:
    """Parse the options, run, print the JSON object."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dist", default=str(SHARED / "dist"), help="MobileGym's built dist/")
    parser.add_argument("--checkout", default=str(SHARED), help="MobileGym's checkout")
    parser.add_argument("--quick", action="store_true", help="Small counts (a smoke run).")
    args = parser.parse_args(argv)
    print(json.dumps(asyncio.run(run(args.dist, Path(args.checkout), args.quick)), indent=2))


if __name__ == "__main__":
    main()
