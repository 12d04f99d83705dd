"""A running simulator shared by the browser tests of a module (Chromium starts once)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest_asyncio

from sim.simulator import SimConfig, Simulator


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def sim() -> AsyncIterator[Simulator]:
    """A started simulator with every app and the default task registry."""
    async with Simulator(SimConfig(pages=2)) as simulator:
        yield simulator
