"""Fixtures the simulator tests share: a running simulator for a module's browser tests
(Chromium starts once), and a browser-free phone with its apps' world data."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from sim.phone import Phone
from sim.simulator import installed_apps
from sim.tasks.registry import world_of


@pytest.fixture(scope="module")
def phone() -> Phone:
    """The apps of a phone, without a browser (state and specs only)."""
    return Phone(installed_apps())


@pytest.fixture(scope="module")
def world(phone: Phone) -> Mapping[str, Mapping[str, Any]]:
    """Every app's read-only world data, as templates are instantiated with it."""
    return world_of(phone.apps.values())
