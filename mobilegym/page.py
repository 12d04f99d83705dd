"""One MobileGym phone: a Chromium page of the build in a browser context of its own, and
typed calls into the globals its runtime defines (``__SIM__``, ``__OS__``, ``__SIM_INPUT__``,
``__SIM_FS__``, ``__SIM_TIME__``).

The context is the one MobileGym's own harness makes — 360×800 CSS pixels at DPR 3 (a
1080×2400 screen), a phone user agent, touch — so a policy sees the screens MobileGym's users
see. Each phone has its own context: MobileGym keeps its state in ``localStorage``, which
pages of one context would share.

**Time.** A simulated world never reads the wall clock: the page's clock is MobileGym's
simulated time, set when the phone loads and standing still (``setFlowing(false)``) until
a task poses another instant.

**Settling** waits for a condition, never a fixed sleep: no request in flight (counted from
Playwright's network events, module chunks and images included), the DOM unchanged for a
frame interval, and no finite animation running (``instrument.js``). A page that never
settles within the budget is observed as it is and marked unstable, as a phone that keeps
animating is.

A call that fails because the page crashed, closed or threw is a
:class:`~mobilegym.errors.MobileGymFailed` (an ``EnvError``: the episode is an infra error).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from importlib import resources
from typing import Any, Literal

from playwright.async_api import Browser, BrowserContext, Page, Request
from playwright.async_api import Error as PlaywrightError

from bridge.errors import EnvTimeout
from mobilegym.errors import MobileGymFailed

__all__ = [
    "CSS_SIZE",
    "DENSITY_DPI",
    "DPR",
    "SCREEN_PX",
    "MobileGymPage",
]

CSS_SIZE = (360, 800)
"""MobileGym's viewport in CSS pixels (its harness's ``get_context_args``)."""
DPR = 3
"""Device pixels per CSS pixel: screenshots are 1080×2400."""
SCREEN_PX = (CSS_SIZE[0] * DPR, CSS_SIZE[1] * DPR)
"""The screen in device pixels."""
DENSITY_DPI = 160 * DPR
"""Android's density for a device-pixel ratio of 3 (xxhdpi)."""
USER_AGENT = (
    "Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/120.0.0.0 Mobile Safari/537.36"
)
"""A phone's user agent, as MobileGym's harness sends (its apps branch on it)."""

_READY = (
    "() => !!(window.__SIM__ && window.__SIM__.getState && window.__OS__ && "
    "window.__OS__.openApp && window.__SIM_FS__ && window.__SIM_INPUT__ && window.__SIM_TIME__)"
)
_QUIET_MS = 100.0
"""How long the DOM must have been still (and no short timer pending) since the last change
or action: what an action causes starts up to ~50 ms later (measured: the first mutation
after ``openApp`` came 13–44 ms after it, its chunk requests 15–80 ms after), so two frame
intervals would call a page settled before it began to change."""


def _instrument() -> str:
    return resources.files("mobilegym").joinpath("instrument.js").read_text("utf-8")


def _gist(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


class MobileGymPage:
    """One MobileGym phone in its own browser context (use :meth:`open`)."""

    def __init__(self, context: BrowserContext, page: Page, base_url: str) -> None:
        self._context = context
        self.page = page
        self.base_url = base_url
        self._inflight: set[Request] = set()
        self._idle = asyncio.Event()
        self._idle.set()
        self.closed = False
        self.loaded = False
        """Whether the build has been loaded into this page (by :meth:`load`)."""
        page.on("request", self._request_started)
        page.on("requestfinished", self._request_ended)
        page.on("requestfailed", self._request_ended)

    @classmethod
    async def open(
        cls,
        browser: Browser,
        base_url: str,
        *,
        timezone: str,
        locale: str = "en-US",
    ) -> MobileGymPage:
        """A new context and page on ``browser`` (nothing loaded yet: :meth:`load`)."""
        try:
            context = await browser.new_context(
                viewport={"width": CSS_SIZE[0], "height": CSS_SIZE[1]},
                device_scale_factor=DPR,
                is_mobile=True,
                has_touch=True,
                user_agent=USER_AGENT,
                locale=locale,
                timezone_id=timezone,
            )
            # Playwright's clock replaces the page's timers with its own: installed first,
            # so that instrument.js counts pending short timers over it, not under it (a
            # clock installed later would take its setTimeout out of our count)
            await context.clock.set_fixed_time(0)  # the time is the world's: load sets it
            await context.add_init_script(_instrument())
            page = await context.new_page()
        except PlaywrightError as exc:
            raise MobileGymFailed(f"could not open a MobileGym page: {_gist(exc)}") from exc
        return cls(context, page, base_url)

    # ---- network accounting (settling)
    def _request_started(self, request: Request) -> None:
        if request.url.startswith(("http://", "https://")):
            self._inflight.add(request)
            self._idle.clear()

    def _request_ended(self, request: Request) -> None:
        self._inflight.discard(request)
        if not self._inflight:
            self._idle.set()

    # ---- loading
    async def load(self, clock_ms: int, timeout: float = 60.0) -> None:
        """Load the build (or reload it after :meth:`wipe`), wait for its runtime and every
        app's data, and stop its clock at ``clock_ms``."""
        try:
            # The page's own Date stands at clock_ms from its first script on, so the stores
            # MobileGym builds as it loads (a calendar's selected day, the home widget) start
            # on the world's day, not the machine's; its timers keep running.
            await self.page.clock.set_fixed_time(clock_ms / 1000)
            await self.page.goto(self.base_url, wait_until="load", timeout=timeout * 1000)
            await self.page.wait_for_function(_READY, timeout=timeout * 1000, polling=50)
        except PlaywrightError as exc:
            raise MobileGymFailed(
                f"MobileGym did not load from {self.base_url}: {_gist(exc)} (is it a MobileGym "
                "build? its runtime defines window.__SIM__ and window.__OS__)"
            ) from exc
        await self.call("() => window.__SIM__.waitForData()", timeout=timeout)
        await self.set_clock(clock_ms)
        self.loaded = True

    async def wipe(self) -> None:
        """MobileGym's own reset: clear its stores, ``localStorage`` and file system (the
        page must be loaded again afterwards)."""
        await self.call("() => window.__SIM__.resetState()")

    # ---- calls into the runtime
    async def call(self, expression: str, arg: Any = None, timeout: float = 30.0) -> Any:
        """``page.evaluate(expression, arg)``, its failures mapped (see the module doc)."""
        if self.closed:
            raise MobileGymFailed("the MobileGym page is closed")
        try:
            return await asyncio.wait_for(self.page.evaluate(expression, arg), timeout)
        except asyncio.TimeoutError as exc:
            raise EnvTimeout(f"MobileGym did not answer within {timeout:g} s") from exc
        except PlaywrightError as exc:
            raise MobileGymFailed(f"MobileGym's runtime failed: {_gist(exc)}") from exc

    async def state(self) -> dict[str, Any]:
        """``__SIM__.getState()``: ``{os: {...}, apps: {<app id>: overlay}}``."""
        state = await self.call("() => window.__SIM__.getState()")
        if not isinstance(state, dict) or "os" not in state or "apps" not in state:
            raise MobileGymFailed("__SIM__.getState() did not return {os, apps}")
        return state

    async def set_state(self, patch: dict[str, Any]) -> None:
        """``__SIM__.setState(patch, {deep: true})``: objects merge, arrays are replaced,
        ``arr[id=x]`` updates (``null`` deletes) one element, ``arr[]`` appends."""
        await self.call("(patch) => window.__SIM__.setState(patch, {deep: true})", patch)

    async def set_clock(self, clock_ms: int) -> None:
        """Stop MobileGym's clock at ``clock_ms`` (epoch milliseconds): its simulated time,
        and the page's ``Date`` beneath it."""
        try:
            await self.page.clock.set_fixed_time(clock_ms / 1000)
        except PlaywrightError as exc:
            raise MobileGymFailed(f"could not set MobileGym's clock: {_gist(exc)}") from exc
        await self.call("(ms) => { window.__SIM_TIME__.setSimulatedTime(ms, false); }", clock_ms)

    async def clock(self) -> int:
        """MobileGym's clock now (epoch milliseconds)."""
        return int(await self.call("() => window.__SIM_TIME__.now()"))

    async def route(self) -> tuple[str | None, str | None]:
        """(the app id in front, its route path); (None, None) on the launcher."""
        found = await self.call(
            """() => {
              const s = window.__SIM__.getState().os;
              if (s.isLauncherVisible || !s.activeAppId) return [null, null];
              const r = window.__OS__.getAppRoute(s.activeAppId);
              return [s.activeAppId, r ? r.path : null];
            }"""
        )
        return found[0], found[1]

    async def keyboard_visible(self) -> bool:
        """Whether MobileGym's soft keyboard is shown."""
        return bool(await self.call("() => window.__OS__.keyboard.isVisible()"))

    # ---- settling and the screen
    async def act(self, expression: str, arg: Any = None) -> Any:
        """:meth:`call` for an action (input, opening an app), marked as a change as it
        starts, so :meth:`settle` measures quiet from it."""
        marked = (
            "async (arg) => { if (window.__mgbSettle) window.__mgbSettle.mark(); "
            f"return await ({expression})(arg); }}"
        )
        return await self.call(marked, arg)

    async def settle(self, timeout: float) -> bool:
        """Wait until nothing loads, the DOM is still for a frame interval and no finite
        animation runs — MobileGym's app-launch splash counting as one, and a short timer
        pending as a change to come (``instrument.js``); False when ``timeout`` seconds pass
        first (the page is unstable)."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            try:
                await asyncio.wait_for(self._idle.wait(), left)
            except asyncio.TimeoutError:
                return False
            probe = await self.call("() => window.__mgbSettle.probe()", timeout=max(left, 1.0))
            if self._idle.is_set() and probe["running"] == 0 and probe["quietMs"] >= _QUIET_MS:
                return True

    async def screenshot(self, image_format: Literal["jpeg", "png"], quality: int) -> bytes:
        """The screen, 1080×2400."""
        try:
            if image_format == "png":
                return await self.page.screenshot(type="png", animations="allow")
            return await self.page.screenshot(type="jpeg", quality=quality, animations="allow")
        except PlaywrightError as exc:
            raise MobileGymFailed(f"MobileGym's page gave no screenshot: {_gist(exc)}") from exc

    async def close(self) -> None:
        """Close the page and its context; idempotent."""
        if self.closed:
            return
        self.closed = True
        with contextlib.suppress(PlaywrightError):  # the browser went first
            await self._context.close()
