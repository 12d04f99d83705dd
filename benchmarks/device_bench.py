"""Step latency through the full adb stack: AndroidEnv -> adbutils/uiautomator2 -> the real
adb server -> the virtual phone. Prints one JSON object: the step's p50 and p95 and the
median of each phase (act: the input; settle: a small probe frame, then full frames until
two agree; observe: the hierarchy, foreground and keyboard).

    .venv/bin/python benchmarks/device_bench.py [--steps N]
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import time

from bridge.schema import KeyAction, TapAction, Target
from device.adb import AdbTarget
from device.env import AndroidEnv, AndroidEnvConfig
from device.virtual.attach import attach_virtual_phone
from sim.tasks.registry import default_registry


async def _measure(target: AdbTarget, pairs: int) -> dict[str, float]:
    env = AndroidEnv(AndroidEnvConfig(target=target))
    try:
        task = default_registry().instantiate("settings/SetWifi-v1", 0)
        first = time.perf_counter()
        obs = await env.reset(task)
        first_ms = (time.perf_counter() - first) * 1000
        times, phases = [], []
        for _ in range(pairs):
            icon = next(n for n in obs.ui if n.text == "Settings" and n.clickable)
            for action in (TapAction(target=Target.node(icon.id)), KeyAction(key="home")):
                started = time.perf_counter()
                result = await env.step(action)
                times.append((time.perf_counter() - started) * 1000)
                phases.append(result.timings)
                obs = result.observation
    finally:
        await env.close()
    times.sort()
    breakdown = {
        f"{phase}_p50": round(statistics.median(getattr(t, phase) for t in phases if t), 1)
        for phase in ("act_ms", "settle_ms", "observe_ms")
    }
    return {
        "reset_to_first_observation_ms": round(first_ms, 1),
        "steps": len(times),
        "step_ms_p50": round(statistics.median(times), 1),
        "step_ms_p95": round(times[min(len(times) - 1, round(0.95 * (len(times) - 1)))], 1),
        **breakdown,
    }


def main() -> None:
    """Attach a virtual phone, time settled steps (tap + screenshot + hierarchy)."""
    pairs = int(sys.argv[sys.argv.index("--steps") + 1]) // 2 if "--steps" in sys.argv else 10
    with attach_virtual_phone(seed=0) as attached:
        target = AdbTarget(port=attached.adb_port, serial=attached.serial)
        print(json.dumps(asyncio.run(_measure(target, pairs)), indent=2))


if __name__ == "__main__":
    main()
