"""Soak the HTTP env API: N clients for T seconds against `mgb sim serve` on loopback.

Each client loops create (with a task) -> steps -> fork -> verdict -> delete (forks too).
Prints one JSON object: requests/s, p50/p95 latency, errors by status, and the server's
RSS (its process and its Chromium children) before the load and after every env is gone.

    .venv/bin/python benchmarks/api_soak.py [--clients 8] [--seconds 30] [--pages 2]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import socket
import statistics
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import psutil

TASK = {"task_id": "settings/SetWifi-v1", "seed": 1, "screenshot": False}
STEPS = [
    {"type": "open_app", "app": "settings"},
    {"type": "key", "key": "back"},
    {"type": "key", "key": "home"},
]


@dataclass
class Tally:
    """What the clients saw: one latency per request, and the errors by status."""

    latencies_s: list[float] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    episodes: int = 0


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _rss_mb(process: psutil.Process) -> dict[str, float]:
    """RSS of the server process and of it with its children (Chromium), in MB."""
    own = process.memory_info().rss
    children = sum(_child_rss(child) for child in process.children(recursive=True))
    return {
        "server_mb": round(own / 2**20, 1),
        "with_chromium_mb": round((own + children) / 2**20, 1),
    }


def _child_rss(child: psutil.Process) -> int:
    try:
        return int(child.memory_info().rss)
    except psutil.Error:  # a child that just ended
        return 0


async def _call(http: httpx.AsyncClient, tally: Tally, method: str, path: str, **kw: Any) -> Any:
    started = time.perf_counter()
    try:
        response = await http.request(method, path, **kw)
    except httpx.HTTPError as exc:
        tally.errors[type(exc).__name__] += 1
        return None
    tally.latencies_s.append(time.perf_counter() - started)
    if response.is_error:
        tally.errors[str(response.status_code)] += 1
        return None
    return response.json() if response.content else {}


async def _client(base_url: str, until: float, tally: Tally) -> None:
    async with httpx.AsyncClient(base_url=base_url, timeout=120) as http:
        while time.monotonic() < until:
            created = await _call(http, tally, "POST", "/api/envs", json=TASK)
            if created is None:
                continue
            env = f"/api/envs/{created['env_id']}"
            for action in STEPS:
                await _call(http, tally, "POST", f"{env}/step", json={"action": action})
            forks = await _call(http, tally, "POST", f"{env}/fork", json={"n": 2}) or []
            await _call(http, tally, "GET", f"{env}/verdict")
            for child in forks:
                await _call(http, tally, "DELETE", f"/api/envs/{child['env_id']}")
            await _call(http, tally, "DELETE", env)
            tally.episodes += 1


async def _wait_ready(base_url: str, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    async with httpx.AsyncClient(base_url=base_url, timeout=5) as http:
        while time.monotonic() < deadline:
            try:
                if (await http.get("/health")).json().get("ready"):
                    return
            except httpx.HTTPError:
                pass  # not listening yet
            await asyncio.sleep(0.2)  # poll interval while the server starts
    raise RuntimeError(f"the simulator at {base_url} was not ready in {timeout_s:g} s")


def _percentile(values: list[float], q: int) -> float:
    if len(values) < 2:
        return values[0] if values else 0.0
    return statistics.quantiles(values, n=100)[q - 1]


async def soak(clients: int, seconds: float, pages: int) -> dict[str, Any]:
    """Start a server, load it, and measure (see the module docstring)."""
    port = _free_port()
    mgb = str(Path(sys.executable).with_name("mgb"))
    command = [mgb, "sim", "serve", "--port", str(port), "--pages", str(pages)]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base_url = f"http://127.0.0.1:{port}"
    try:
        await _wait_ready(base_url, 120)
        process = psutil.Process(server.pid)
        before = _rss_mb(process)
        tally = Tally()
        until = time.monotonic() + seconds
        started = time.perf_counter()
        await asyncio.gather(*(_client(base_url, until, tally) for _ in range(clients)))
        elapsed = time.perf_counter() - started
        async with httpx.AsyncClient(base_url=base_url) as http:
            health = (await http.get("/health")).json()
        after = _rss_mb(process)
    finally:
        server.send_signal(signal.SIGINT)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
    latencies = sorted(tally.latencies_s)
    return {
        "clients": clients,
        "seconds": round(elapsed, 1),
        "episodes": tally.episodes,
        "requests": len(latencies),
        "requests_per_s": round(len(latencies) / elapsed, 1),
        "p50_ms": round(_percentile(latencies, 50) * 1000, 1),
        "p95_ms": round(_percentile(latencies, 95) * 1000, 1),
        "errors_by_status": dict(tally.errors),
        "envs_left": health["envs"],
        "rss_before": before,
        "rss_after": after,
    }


def main() -> None:
    """Parse the options, run the soak, print its JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--pages", type=int, default=2)
    options = parser.parse_args()
    result = asyncio.run(soak(options.clients, options.seconds, options.pages))
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
