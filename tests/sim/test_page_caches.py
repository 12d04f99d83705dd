"""The page pool: its caches (what is kept, what is dropped, and that a kept frame is the
frame Chromium would capture again: the purity the frame cache rests on), and pages opened
as the load needs them."""

from __future__ import annotations

import asyncio

import cv2
import numpy as np
import pytest

from sim.pages import Recent
from sim.simulator import Simulator
from sim.state import InstanceState


def test_a_budget_in_bytes_drops_the_least_recently_used() -> None:
    kept: Recent[str, bytes] = Recent(10, cost=len)
    kept.put("a", b"1234")
    kept.put("b", b"1234")
    assert kept.get("a") == b"1234"  # now the most recent
    kept.put("c", b"1234")  # 12 bytes > 10: "b" goes
    assert kept.get("b") is None and kept.get("a") and kept.get("c")
    kept.put("d", b"x" * 50)  # over the budget alone: kept, everything else dropped
    assert kept.get("d") and kept.get("a") is None and kept.get("c") is None


def test_a_count_budget_keeps_that_many() -> None:
    kept: Recent[int, str] = Recent(2)
    for key in range(3):
        kept.put(key, str(key))
    assert [kept.get(key) for key in range(3)] == [None, "1", "2"]


@pytest.mark.browser
@pytest.mark.asyncio(loop_scope="module")
async def test_a_kept_frame_is_what_chromium_captures_again(sim: Simulator) -> None:
    home = sim.create_instance(state=InstanceState(seed=0))
    settings = sim.create_instance(state=InstanceState(seed=0))
    sim.phone.launch(settings.state, "settings")
    settings.changed()
    async with sim.pool.page() as pooled:
        await pooled.show(home)
        first = await pooled.screenshot("jpeg", 80)
        await pooled.show(settings)
        other = await pooled.screenshot("jpeg", 80)
        await pooled.show(home)
        kept = await pooled.screenshot("jpeg", 80)  # from the cache
        fresh = await pooled.page.screenshot(type="jpeg", quality=80, scale="device")
    assert kept is first and other != first

    def pixels(data: bytes) -> np.ndarray:
        return cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR).astype(int)

    assert np.abs(pixels(kept) - pixels(fresh)).max() <= 2  # the same screen, re-rastered


@pytest.mark.browser
@pytest.mark.asyncio(loop_scope="module")
async def test_the_pool_opens_a_page_only_when_every_open_one_is_lent(sim: Simulator) -> None:
    assert sim.config.pages == 2 and sim.pool.opened == 1  # one page at start
    for _ in range(3):  # one borrower at a time: the one page serves them all
        async with sim.pool.page():
            pass
    assert sim.pool.opened == 1
    both = asyncio.Event()
    lent: list[int] = []

    async def borrow() -> None:
        async with sim.pool.page() as pooled:
            lent.append(id(pooled))
            if len(lent) == 2:
                both.set()
            await asyncio.wait_for(both.wait(), 30)  # held until the other has one too

    await asyncio.gather(borrow(), borrow())
    assert sim.pool.opened == 2 and len(set(lent)) == 2
    await asyncio.gather(borrow(), borrow(), asyncio.sleep(0))  # never beyond its size
    assert sim.pool.opened == 2
