"""A simulator and the stand-in endpoint on a LoopThread, for the synchronous adapters
(Gymnasium, GEM, SkyRL), whose envs run on that loop."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import httpx

from bridge.sync import LoopThread
from sim.simulator import SimConfig, Simulator
from tests.trainers.helpers import MODEL, Endpoint, airplane_point, serve_endpoint


@dataclass
class SyncWorld:
    """What a synchronous test needs: the loop, the simulator, the endpoint, the row."""

    loop: LoopThread
    sim: Simulator
    endpoint: Endpoint
    point: tuple[float, float]

    def ask(self, messages: list[dict[str, object]]) -> str:
        """The stand-in model's reply to ``messages``, as a trainer would ask it."""
        body = {"model": MODEL, "messages": messages}
        response = httpx.post(f"{self.endpoint.base_url}/chat/completions", json=body)
        response.raise_for_status()
        return response.json()["choices"][0]["message"]["content"]


@contextmanager
def sync_world() -> Iterator[SyncWorld]:
    """Start the simulator and the endpoint on a new LoopThread; stop them after."""
    with LoopThread(name="trainers-test") as loop:
        sim = loop.run(Simulator(SimConfig(pages=1)).start())
        serving = serve_endpoint()
        try:
            endpoint = loop.run(serving.__aenter__())
            try:
                yield SyncWorld(loop, sim, endpoint, loop.run(airplane_point(sim)))
            finally:
                loop.run(serving.__aexit__(None, None, None))
        finally:
            loop.run(sim.close())
