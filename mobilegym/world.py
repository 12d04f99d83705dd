"""``MobileGym``: a user's MobileGym build as a world — served (or reached), one headless
Chromium, and a phone per env, each in its own browser context.

::

    async with MobileGym(parse_source("mobilegym:../mobilegym/dist")) as gym:
        env = await gym.env()
        obs = await env.reset(task)

The build is the user's: we serve a ``dist/`` on loopback for the lifetime of the block, or
reach a URL they serve (:mod:`mobilegym.source`). Everything started here stops when the
block ends.
"""

from __future__ import annotations

from contextlib import AsyncExitStack
from typing import TYPE_CHECKING, Any

from playwright.async_api import Browser

from bridge.browser import launch_chromium
from bridge.phone_time import START_CLOCK_MS, START_TIME_ZONE
from mobilegym.errors import MobileGymFailed
from mobilegym.page import MobileGymPage
from mobilegym.source import MobileGymSource, serve

if TYPE_CHECKING:
    from mobilegym.env import MobileGymEnv

__all__ = ["MobileGym"]


class MobileGym:
    """A MobileGym build being driven (an async context manager).

    Args:
        source: The build (:func:`mobilegym.source.parse_source`).
        timezone: The zone its phones' browser contexts run in (MobileGym has none of its
            own); the simulator's by default, so paired cells start on the same local day.
        clock_ms: Where a phone's clock stands when it loads (it never flows by itself).
    """

    def __init__(
        self,
        source: MobileGymSource,
        *,
        timezone: str = START_TIME_ZONE,
        clock_ms: int = START_CLOCK_MS,
    ) -> None:
        self.source = source
        self.timezone = timezone
        self.clock_ms = clock_ms
        self.base_url: str | None = None
        self._browser: Browser | None = None
        self._stack: AsyncExitStack | None = None

    async def start(self) -> MobileGym:
        """Serve (or reach) the build and launch Chromium."""
        stack = AsyncExitStack()
        try:
            self.base_url = stack.enter_context(serve(self.source))
            self._browser = await stack.enter_async_context(launch_chromium())
        except BaseException:
            await stack.aclose()
            raise
        self._stack = stack
        return self

    async def close(self) -> None:
        """Stop Chromium and the server; idempotent."""
        stack, self._stack, self._browser = self._stack, None, None
        if stack is not None:
            await stack.aclose()

    async def __aenter__(self) -> MobileGym:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def page(self, locale: str = "en-US", *, load: bool = True) -> MobileGymPage:
        """A new phone, its build loaded and its clock at :attr:`clock_ms` (or, with
        ``load=False``, an empty page whose first :meth:`MobileGymPage.load` is to come)."""
        if self._browser is None or self.base_url is None:
            raise MobileGymFailed("MobileGym is not started: use `async with MobileGym(...)`")
        page = await MobileGymPage.open(
            self._browser, self.base_url, timezone=self.timezone, locale=locale
        )
        if load:
            try:
                await page.load(self.clock_ms)
            except BaseException:
                await page.close()
                raise
        return page

    async def env(self, **options: Any) -> MobileGymEnv:
        """A :class:`~mobilegym.env.MobileGymEnv` on a new phone of this build (loaded by
        its first reset, which would otherwise load it a second time)."""
        from mobilegym.env import MobileGymEnv  # the env builds on this module

        return MobileGymEnv(self, await self.page(load=False), **options)
