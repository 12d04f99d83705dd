"""The console's speed as a person feels it, over its HTTP API (what the page calls):

* Approve → next frozen observation: ``POST /api/approve`` until its answer (the new
  observation's state) plus ``GET /api/frozen`` (its screenshot), on the scripted policy's
  steps of settings/SetWifi-v1, reset between attempts;
* the live view's frame rate: ``GET /api/live`` back to back for a few seconds.

In the simulator and on the virtual phone (the full adb stack). Prints one JSON object.

    .venv/bin/python benchmarks/console_bench.py [--attempts N] [--live-s S] [--world sim|virtual]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from pathlib import Path

import httpx

from transfer_eval.console.launch import ConsoleConfig, open_console


def _p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))], 1)


async def _measure(world: str, attempts: int, live_s: float) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as tmp:
        config = ConsoleConfig(
            device=world, policy="scripted", task="settings/SetWifi-v1", out=Path(tmp) / "run",
            port=0,
        )  # fmt: skip
        async with open_console(config) as running, httpx.AsyncClient(timeout=60) as client:
            base = running.url.rstrip("/")
            approve_ms: list[float] = []
            for _ in range(attempts):
                for _step in range(2):  # open Settings, tap Wi-Fi
                    (await client.post(f"{base}/api/propose")).raise_for_status()
                    started = time.perf_counter()
                    (await client.post(f"{base}/api/approve")).raise_for_status()
                    (await client.get(f"{base}/api/frozen")).raise_for_status()
                    approve_ms.append((time.perf_counter() - started) * 1000)
                (await client.post(f"{base}/api/reset")).raise_for_status()
            seq, frames, ages = 0, 0, []
            (await client.get(f"{base}/api/live")).raise_for_status()  # start the feed
            started = time.perf_counter()
            while time.perf_counter() - started < live_s:
                response = await client.get(f"{base}/api/live", params={"after": seq})
                response.raise_for_status()
                seq = int(response.headers["X-Frame-Seq"])
                ages.append(float(response.headers["X-Frame-Age-Ms"]))
                frames += 1
            elapsed = time.perf_counter() - started
    return {
        "world": world,
        "approve_samples": len(approve_ms),
        "approve_to_frozen_ms_p50": round(statistics.median(approve_ms), 1),
        "approve_to_frozen_ms_p95": _p(approve_ms, 0.95),
        "live_fps": round(frames / elapsed, 1),
        "live_frame_age_ms_p50": round(statistics.median(ages), 1),
    }


def main() -> None:
    """Measure each world and print the numbers."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--attempts", type=int, default=4)
    parser.add_argument("--live-s", type=float, default=8.0)
    parser.add_argument("--world", choices=["sim", "virtual"], action="append")
    args = parser.parse_args()
    results = [
        asyncio.run(_measure(world, args.attempts, args.live_s))
        for world in args.world or ["sim", "virtual"]
    ]
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
