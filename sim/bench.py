"""Simulator benchmark: start-up, resets, snapshots, forks, step latency, memory, throughput.

``benchmarks/sim_bench.py`` and ``mgb sim bench`` run :func:`run_bench`, which prints one
JSON object. Every figure is measured here, on this machine, in one run; compare ratios
rather than absolute numbers on a shared machine. ``quick`` shrinks the counts so that the
test suite can run it.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

from bridge.schema import KeyAction, OpenAppAction, TapAction, Target
from sim.env import SimEnv
from sim.simulator import SimConfig, Simulator

__all__ = ["cold_start_s", "rss_bytes", "run_bench"]

_COLD_START = """
import asyncio, sys
from sim.simulator import SimConfig, Simulator
async def main():
    async with Simulator(SimConfig(pages=1)) as sim:
        env = await sim.env()
        await env.observe()
        print("first-observation", flush=True)
asyncio.run(main())
"""


def rss_bytes() -> int:
    """Resident memory of this process (Linux ``/proc``)."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise OSError("VmRSS not found in /proc/self/status")


def cold_start_s() -> float:
    """Seconds from starting a Python process to its first observation."""
    started = time.perf_counter()
    command = [sys.executable, "-c", _COLD_START]
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True) as process:
        assert process.stdout is not None
        for line in process.stdout:
            if line.strip() == "first-observation":
                elapsed = time.perf_counter() - started
                break
        else:
            raise RuntimeError("the cold-start probe exited without an observation")
        process.stdout.read()
        process.wait(timeout=60)
    return elapsed


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def _timed(call: Callable[[], Awaitable[Any]]) -> tuple[float, Any]:
    started = time.perf_counter()
    value = await call()
    return (time.perf_counter() - started) * 1000, value


async def _step_pair(env: SimEnv) -> list[float]:
    """Open Settings by tapping its icon, then go home: two settled steps (ms)."""
    obs = env._last or await env.observe()
    icon = next(n for n in obs.ui if n.text == "Settings" and n.clickable)
    tap, _ = await _timed(lambda: env.step(TapAction(target=Target.node(icon.id))))
    home, _ = await _timed(lambda: env.step(KeyAction(key="home")))
    return [tap, home]


async def _latency(sim: Simulator, instances: int, rounds: int) -> list[float]:
    envs = [await sim.env() for _ in range(instances)]
    for env in envs:
        await env.observe()

    async def drive(env: SimEnv) -> list[float]:
        times: list[float] = []
        for _ in range(rounds):
            times += await _step_pair(env)
        return times

    per_env = await asyncio.gather(*(drive(env) for env in envs))
    for env in envs:
        await env.close()
    return [t for times in per_env for t in times]


async def _throughput(pages: int, envs: int, rounds: int, sim: Simulator | None = None) -> float:
    """Steps a second of ``envs`` envs stepping at once on ``pages`` pages (on ``sim`` when
    it has that many already, else on a simulator of its own)."""
    if sim is not None and sim.config.pages == pages:
        return await _steps_per_s(sim, envs, rounds)
    async with Simulator(SimConfig(pages=pages)) as own:
        return await _steps_per_s(own, envs, rounds)


async def _steps_per_s(sim: Simulator, envs: int, rounds: int) -> float:
    started = time.perf_counter()
    steps = len(await _latency(sim, envs, rounds))
    return steps / (time.perf_counter() - started)


async def _memory(sim: Simulator, count: int) -> float:
    """Bytes of resident memory per idle instance reset to a task."""
    ids = sim.tasks.ids()
    task_id = "contacts/StarContact-v1" if "contacts/StarContact-v1" in ids else ids[0]
    before = rss_bytes()
    envs = []
    for index in range(count):
        env = await sim.env()
        task = sim.tasks.instantiate(task_id, index)
        env.pose(task)
        envs.append(env)
    per_instance = (rss_bytes() - before) / count
    for env in envs:
        await env.close()
    return per_instance


async def _core(sim: Simulator, quick: bool) -> dict[str, Any]:
    task = sim.tasks.instantiate(sim.tasks.ids()[0], 0)
    warm = await sim.env()  # the pages' first render loads fonts: not an instance cost
    await warm.observe()
    await warm.close()
    create_ms, env = await _timed(sim.env)
    first_ms, _ = await _timed(env.observe)
    reset_ms = [(await _timed(lambda: env.reset(task)))[0] for _ in range(3 if quick else 10)]
    await env.step(OpenAppAction(app="settings"))
    snapshot_ms, snapshot = await _timed(env.snapshot)
    restore_ms, _ = await _timed(lambda: env.restore(snapshot))
    fork_ms, forks = await _timed(lambda: env.fork(8))
    for child in (*forks, env):
        await child.close()
    return {
        "instance_create_to_first_observation_ms": round(create_ms + first_ms, 1),
        "reset_ms_p50": round(statistics.median(reset_ms), 1),
        "snapshot_ms": round(snapshot_ms, 2),
        "snapshot_bytes": len(snapshot),
        "restore_ms": round(restore_ms, 1),
        "fork8_ms": round(fork_ms, 2),
    }


Stage = Callable[[str], None]
"""Told the name of each stage as it begins (a progress line for a person)."""


async def _measure(quick: bool, stage: Stage) -> dict[str, Any]:
    rounds = 3 if quick else 25
    async with Simulator(SimConfig(pages=4)) as sim:
        stage("instance life cycle (create, reset, snapshot, restore, fork)")
        result = await _core(sim, quick)
        stage("step latency, 1 instance")
        single = await _latency(sim, 1, rounds)
        stage("step latency, 8 instances at once")
        eight = await _latency(sim, 8, max(2, rounds // 4))
        result.update(
            step_ms_p50=round(_pct(single, 0.5), 1),
            step_ms_p95=round(_pct(single, 0.95), 1),
            step8_ms_p50=round(_pct(eight, 0.5), 1),
            step8_ms_p95=round(_pct(eight, 0.95), 1),
        )
        for count in (50,) if quick else (100, 1000):
            stage(f"memory, {count} idle instances")
            result[f"rss_bytes_per_idle_instance_{count}"] = round(await _memory(sim, count))
        if quick:  # the 4 pages already up serve their own figure
            await _throughputs(result, (1, 4), 1, stage, sim)
    if not quick:  # each on a simulator alone
        await _throughputs(result, (1, 4, 8), 4, stage)
    return result


async def _throughputs(
    result: dict[str, Any],
    page_counts: tuple[int, ...],
    rounds: int,
    stage: Stage,
    sim: Simulator | None = None,
) -> None:
    for pages in page_counts:
        stage(f"throughput, {pages} page(s)")
        result[f"steps_per_s_{pages}_pages"] = round(await _throughput(pages, 8, rounds, sim), 2)


def run_bench(quick: bool = False, on_stage: Stage | None = None) -> dict[str, Any]:
    """Measure everything; ``quick`` for a smoke run inside the test suite; ``on_stage`` is
    told each stage's name as it begins."""
    stage = on_stage or (lambda _: None)
    result: dict[str, Any] = {"quick": quick, "cpus": os.cpu_count()}
    stage("cold start to the first observation (a new process)")
    result["cold_start_to_first_observation_s"] = round(cold_start_s(), 2)
    result.update(asyncio.run(_measure(quick, stage)))
    return result
