"""Fixtures the simulator tests share: a running simulator for a module's browser tests
(Chromium starts once), and a browser-free phone with its apps' world data."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import Any

import pytest
import pytest_asyncio

from sim.phone import Phone
from sim.simulator import SimConfig, Simulator, default_apps


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def sim() -> AsyncIterator[Simulator]:
    """A started simulator with every app and the default task registry."""
    async with Simulator(SimConfig(pages=2)) as simulator:
        yield simulator


@pytest.fixture(scope="module")
def phone() -> Phone:
    """The apps of a phone, without a browser (state and specs only)."""
    return Phone(default_apps())


@pytest.fixture(scope="module")
def world(phone: Phone) -> Mapping[str, Mapping[str, Any]]:
    """Every app's read-only world data, as templates are instantiated with it."""
    return {app_id: app.world for app_id, app in phone.apps.items()}
