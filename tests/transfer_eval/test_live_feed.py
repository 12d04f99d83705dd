"""The console's live feed paces itself: a screen that answers at once (the simulator's
cached frame of an unchanged screen) is captured at most 15 times a second, not in a loop
that takes a core."""

from __future__ import annotations

import time

import pytest

from bridge.schema import Screenshot
from transfer_eval.console.live import LiveFeed


class _InstantScreen:
    """A live screen whose every capture returns at once, recording when it was asked."""

    def __init__(self) -> None:
        self.asked: list[float] = []

    async def screenshot(self) -> Screenshot:
        self.asked.append(time.monotonic())
        return Screenshot(format="jpeg", width=1, height=1, data=b"\xff")


@pytest.mark.asyncio
async def test_captures_of_an_instant_screen_are_paced() -> None:
    screen = _InstantScreen()
    feed = LiveFeed(screen, min_interval_s=0.05)
    seen = 0
    for _ in range(6):
        frame = await feed.next(seen, timeout_s=5.0)
        assert frame is not None
        seen = frame.seq
    await feed.close()
    gaps = [b - a for a, b in zip(screen.asked, screen.asked[1:], strict=False)]
    assert len(screen.asked) >= 6
    assert min(gaps) >= 0.05 * 0.99, gaps  # asyncio.sleep never wakes early (clock rounding)
