"""Fixtures of the MobileGym world's tests: the build to drive and a started world.

The build is the user's: ``MOBILEGYM_DIST`` (a built ``dist/``) or ``MOBILEGYM_URL`` (a
served build), else the copy beside the repository (``../shared/mobilegym/dist``, which CI
has). Without any, every test here skips with one line saying how to point at one.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from mobilegym.source import MobileGymSource, parse_source
from mobilegym.world import MobileGym

REPO = Path(__file__).resolve().parents[2]
SHARED_DIST = REPO.parent / "shared" / "mobilegym" / "dist"

NO_BUILD = (
    "no MobileGym build: set MOBILEGYM_DIST to a built dist/ or MOBILEGYM_URL to a served "
    f"build (looked for {SHARED_DIST})"
)


def build_source() -> MobileGymSource | None:
    """The build the tests drive, or None when there is none."""
    url = os.environ.get("MOBILEGYM_URL")
    if url:
        return parse_source(url)
    dist = os.environ.get("MOBILEGYM_DIST") or (
        str(SHARED_DIST) if (SHARED_DIST / "index.html").is_file() else None
    )
    return parse_source(dist) if dist else None


@pytest.fixture(scope="module")
def mobilegym_source() -> MobileGymSource:
    """The build, or a skip saying how to point at one."""
    source = build_source()
    if source is None:
        pytest.skip(NO_BUILD)
    return source


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def gym(mobilegym_source: MobileGymSource) -> AsyncIterator[MobileGym]:
    """A started MobileGym world (served build, one Chromium) for the module."""
    async with MobileGym(mobilegym_source) as world:
        yield world
