"""Fixtures the trainer-adapter tests share, one of each per test module: an in-process
simulator and the stand-in model endpoint on the module's event loop (the async adapters),
or both on a loop thread (the synchronous ones)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
import pytest_asyncio

from tests.trainers.helpers import Endpoint, serve_endpoint
from tests.trainers.sync_world import SyncWorld, sync_world


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def endpoint() -> AsyncIterator[Endpoint]:
    """The stand-in OpenAI-compatible endpoint on loopback."""
    async with serve_endpoint() as served:
        yield served


@pytest.fixture(scope="module")
def world() -> Iterator[SyncWorld]:
    """The simulator and the endpoint on a loop thread."""
    with sync_world() as made:
        yield made
