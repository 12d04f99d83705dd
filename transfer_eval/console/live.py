"""The live view: screenshots taken back to back while someone watches.

A capture loop runs only while a page asked for a frame within the last ``idle_after_s``
seconds; it takes the next screenshot as soon as the previous one arrived, but not sooner
than ``min_interval_s`` after the previous one began, so the frame rate is what the phone
allows, up to 15 a second (the simulator serves an unchanged screen's frame from its
cache at once: unpaced, the loop and the page decoding its frames would take a core). A
page asks with the number of the last frame it has and waits (a condition, with a timeout)
for a newer one.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from dataclasses import dataclass

from bridge.env import LiveScreen
from bridge.errors import BridgeError
from bridge.schema import Screenshot

__all__ = ["LiveFeed", "LiveFrame"]

_log = logging.getLogger(__name__)


@dataclass(frozen=True)
class LiveFrame:
    """One live screenshot, its number and when it was captured (``time.monotonic``)."""

    seq: int
    shot: Screenshot
    captured: float
    capture_ms: float

    @property
    def age_ms(self) -> float:
        """Milliseconds since the frame was captured."""
        return (time.monotonic() - self.captured) * 1000


class LiveFeed:
    """Back-to-back screenshots of ``screen`` while watched (see the module doc)."""

    def __init__(
        self, screen: LiveScreen, *, idle_after_s: float = 3.0, min_interval_s: float = 1 / 15
    ) -> None:
        """``idle_after_s``: stop capturing this long after the last request;
        ``min_interval_s``: the least time from one capture's start to the next."""
        self.screen = screen
        self.idle_after_s = idle_after_s
        self.min_interval_s = min_interval_s
        self.latest: LiveFrame | None = None
        self.error: str | None = None
        self._seq = 0
        self._asked = 0.0
        self._wanted = asyncio.Event()
        self._fresh = asyncio.Condition()
        self._task: asyncio.Task[None] | None = None
        self._closed = False

    async def next(self, after: int, timeout_s: float = 5.0) -> LiveFrame | None:
        """The newest frame with a number above ``after``, waiting up to ``timeout_s`` for
        it; the newest frame (possibly old) when none came in time."""
        self._asked = time.monotonic()
        self._wanted.set()
        if self._task is None:
            self._task = asyncio.create_task(self._capture())
        async with self._fresh:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(
                    self._fresh.wait_for(lambda: self._seq > after or self._closed), timeout_s
                )
        return self.latest

    async def close(self, timeout_s: float = 10.0) -> None:
        """Stop the capture loop: let the screenshot in flight finish (a phone that is shut
        down next must not be mid-request), cancel it after ``timeout_s``."""
        self._closed = True
        self._wanted.set()
        async with self._fresh:  # a request waiting for a frame is answered now
            self._fresh.notify_all()
        task, self._task = self._task, None
        if task is None:
            return
        try:
            await asyncio.wait_for(asyncio.shield(task), timeout_s)
        except asyncio.TimeoutError:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _capture(self) -> None:
        try:
            await self._capture_loop()
        except Exception as exc:  # a bug: say so on the page and in the log, loudly
            self.error = f"the live view crashed: {exc!r}"
            _log.exception("live view crashed")
            raise

    async def _capture_loop(self) -> None:
        while not self._closed:
            if time.monotonic() - self._asked > self.idle_after_s:
                self._wanted.clear()
                await self._wanted.wait()  # nobody watches: wait for the next request
                continue
            started = time.monotonic()
            if self.latest is not None:
                since = started - (self.latest.captured - self.latest.capture_ms / 1000)
                if since < self.min_interval_s:  # pacing, not synchronization
                    await asyncio.sleep(self.min_interval_s - since)
                    started = time.monotonic()
            try:
                shot = await self.screen.screenshot()
            except BridgeError as exc:  # a closed env or a phone gone: say so, retry
                self.error = str(exc)
                _log.warning("live view: %s", exc)
                self._wanted.clear()
                await self._wanted.wait()
                continue
            self.error = None
            now = time.monotonic()
            async with self._fresh:
                self._seq += 1
                self.latest = LiveFrame(self._seq, shot, now, (now - started) * 1000)
                self._fresh.notify_all()
