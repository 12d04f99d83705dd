"""uiautomator2's gestures on the virtual phone take the time UiAutomator takes on a phone.

Driven through the REAL adb binary and the uiautomator2 client (one module-scoped virtual
phone, a private adb server, ``adb connect``): a swipe of N steps returns after N × 5 ms, a
timed click after its duration, and what the screen makes of a swipe follows from its real
speed (a slow one drags the list by the finger's travel, a fast one flings it further).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import uiautomator2 as u2

from device.virtual.attach import AttachedVirtualPhone
from device.virtual.phone import VirtualPhone

pytestmark = pytest.mark.device_virtual


@pytest.fixture(scope="module")
def d(attached: AttachedVirtualPhone) -> Iterator[Any]:
    device = u2.connect(attached.adb.client().device(attached.serial))
    yield device
    device.stop_uiautomator()


def _timed(call: Callable[[], object]) -> float:
    start = time.monotonic()
    call()
    return time.monotonic() - start


def _scroll(attached: AttachedVirtualPhone) -> dict[str, int]:
    async def read(phone: VirtualPhone) -> dict[str, int]:
        return dict(phone.instance.state.ui.scroll)

    return attached.phone.call(read)


def _wait_for(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not met before the deadline"
        time.sleep(0.02)


def test_a_swipe_of_400_steps_takes_two_seconds(d: Any) -> None:
    d.press("home")
    elapsed = _timed(lambda: d.swipe(540, 1200, 540, 1190, steps=400))
    assert 2.0 <= elapsed < 6.0


def test_swipe_points_and_drag_are_paced(d: Any) -> None:
    # swipePoints: 5 ms + (steps - 1) × 5 ms per segment; u2 sends steps = duration × 200
    points = [(540, 1200), (545, 1200), (540, 1200)]
    elapsed = _timed(lambda: d.swipe_points(points, duration=0.6))
    assert 1.15 <= elapsed < 5.0
    # drag: held 1.5 long-press timeouts (600 ms), 200 steps (1 s), 100 ms at rest
    elapsed = _timed(lambda: d.drag(540, 1200, 545, 1200, duration=1.0))
    assert 1.7 <= elapsed < 6.0


def test_clicks_take_their_duration(d: Any) -> None:
    d.press("home")
    assert _timed(lambda: d.long_click(540, 1200, duration=1.2)) >= 1.2
    assert _timed(lambda: d.click(540, 1200)) >= 0.1
    d.press("home")


def test_a_slow_swipe_drags_and_a_fast_one_flings(d: Any, attached: AttachedVirtualPhone) -> None:
    def travel(steps: int) -> int:
        d.app_stop("com.android.contacts")
        d.app_start("com.android.contacts")
        _wait_for(lambda: d.app_current()["package"] == "com.android.contacts")
        before = sum(_scroll(attached).values())
        d.swipe(540, 1800, 540, 1600, steps=steps)
        _wait_for(lambda: sum(_scroll(attached).values()) != before)
        return sum(_scroll(attached).values()) - before

    slow = travel(400)  # 200 px in 2 s: 100 px/s, under the fling velocity (50 dp/s): a drag
    fast = travel(4)  # 200 px in 20 ms: a fling, which glides on
    assert fast > slow > 0
