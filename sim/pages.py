"""A pool of Chromium pages shared by every instance, and keeping a page in sync with one.

Instance count is bounded by JSON state, not by browsers: a step borrows a page, makes it
show the instance (a swap of the screen's HTML, only when the page shows something else),
acts, observes and gives the page back.

Borrowing (:meth:`PagePool.page`) is where Playwright's exceptions meet ours, for every
Playwright call a step makes: a Playwright timeout becomes
:class:`~bridge.errors.EnvTimeout`, and any Playwright error while the page is gone (it
crashed, closed, or Chromium disconnected) becomes :class:`~bridge.errors.EnvError` —
infrastructure, an ``infra_error`` episode. A Playwright error on a live page (our page
runtime threw, a bad call of ours) is a simulator bug and propagates unchanged.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from playwright.async_api import Browser, BrowserContext, Page
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeout
from pydantic import BaseModel, ConfigDict, Field

from bridge.errors import EnvError, EnvTimeout
from bridge.images import decode_image, encode_image
from sim.instance import Instance, ScreenPayload

__all__ = ["PHONE_PAGE", "PagePool", "PooledPage", "SimProfile"]

PHONE_PAGE = "/phone"
"""The bare phone page (the runtime over an empty screen) each pooled tab loads."""


class SimProfile(BaseModel):
    """The simulated screen: pixel size and density (device-pixel ratio = dpi / 160)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    width_px: int = Field(default=1080, gt=0)
    height_px: int = Field(default=2400, gt=0)
    density_dpi: int = Field(default=480, gt=0)
    model: str = "mobilegym-sim"
    android_version: str = "14"

    @property
    def dpr(self) -> float:
        """Device pixels per CSS pixel."""
        return self.density_dpi / 160.0

    @property
    def css_size(self) -> tuple[float, float]:
        """The viewport in CSS pixels."""
        return (self.width_px / self.dpr, self.height_px / self.dpr)

    @property
    def overhang(self) -> bool:
        """Whether the viewport (a whole number of CSS pixels) is larger than the screen:
        at 440 dpi, 1080 px are 392.7 CSS pixels and the viewport is 393, whose capture is
        1081 px wide (:func:`_cropped` cuts it to the screen)."""
        width, height = self.css_size
        return width != round(width) or height != round(height)


def _cropped(data: bytes, image_format: str, quality: int, profile: SimProfile) -> bytes:
    """A capture of an overhanging viewport cut to the screen's pixels (Chromium's own clip
    rounds a fractional CSS rectangle differently from page to page)."""
    try:
        image = decode_image(data)
        screen = image[: profile.height_px, : profile.width_px]
        return encode_image(screen, "png" if image_format == "png" else "jpeg", quality)
    except ValueError as exc:
        raise EnvError(f"the simulator's page gave a capture that is no image: {exc}") from exc


@dataclass
class PooledPage:
    """A page of the pool and what it currently shows."""

    page: Page
    profile: SimProfile
    instance: str | None = None
    version: int = -1
    uses: int = field(default=0)
    crashed: bool = False
    """Set by the page's ``crash`` event (a crashed page is not closed, but is dead)."""

    trees: Recent[Looks, str] = field(default_factory=lambda: tree_cache())
    """The trees of screens laid out before (shared by the pages of one pool)."""
    shown: Looks | None = None
    """The HTML and scroll offsets the page shows, when known."""
    frames: Recent[FrameKey, bytes] = field(default_factory=lambda: frame_cache())
    """The screenshots of screens captured before (shared by the pages of one pool)."""

    async def show(self, instance: Instance) -> None:
        """Make the page show ``instance``'s current version (no-op when it already does).

        A new version that looks the same (the clock moved within the minute) only moves
        the page's version: swapping in identical HTML would lay out and settle for nothing.
        """
        if self.instance == instance.id and self.version == instance.version:
            return
        payload = instance.screen()
        looks = looks_of(payload)
        if self.instance == instance.id and self.shown == looks:
            await self.page.evaluate("(v) => { window.__mgb.version = v; }", payload.version)
        else:
            await self.page.evaluate("(p) => window.__mgb.load(p)", payload.model_dump())
        self.instance, self.version, self.shown = instance.id, instance.version, looks

    def loaded(self, instance: Instance) -> None:
        """Record that the page's runtime loaded ``instance``'s current screen itself (a
        gesture it posted came back with the screen it caused)."""
        self.instance, self.version = instance.id, instance.version
        self.shown = looks_of(instance.screen())

    async def tree_json(self) -> str:
        """The runtime's UI tree (JSON) of what the page shows now."""
        looks = self.shown
        raw = self.trees.get(looks) if looks is not None else None
        if raw is None:
            raw = await self.page.evaluate("() => window.__mgb.treeJson()")
            if looks is not None:
                self.trees.put(looks, raw)
        return raw

    async def tree_of(self, instance: Instance) -> str:
        """The UI tree (JSON) of ``instance``'s current screen. A screen the pool has laid
        out before — the same HTML and scroll offsets, so the same layout — is not shown
        again: its tree is the one read then."""
        if not (self.instance == instance.id and self.version == instance.version):
            raw = self.trees.get(looks_of(instance.screen()))
            if raw is not None:
                return raw
            await self.show(instance)
        return await self.tree_json()

    async def screenshot(self, image_format: str = "jpeg", quality: int = 80) -> bytes:
        """The screen at device resolution.

        Playwright's screenshot, not a bare CDP ``Page.captureScreenshot``: the latter with a
        scaled clip silently resets the page's emulated device-pixel ratio to 1.
        """
        looks = self.shown
        key = None if looks is None else (looks, image_format, quality * (image_format == "jpeg"))
        kept = self.frames.get(key) if key is not None else None
        if kept is not None:
            return kept
        if image_format == "jpeg":
            data = await self.page.screenshot(type="jpeg", quality=quality, scale="device")
        else:
            data = await self.page.screenshot(type="png", scale="device")
        if self.profile.overhang:
            data = _cropped(data, image_format, quality, self.profile)
        if key is not None:
            self.frames.put(key, data)
        return data

    def forget(self) -> None:
        """Mark the page as showing nothing known (after an error mid-gesture)."""
        self.instance, self.version, self.shown = None, -1, None

    def gone(self) -> bool:
        """Whether the page can no longer answer: crashed, closed, or its browser is gone."""
        browser = self.page.context.browser
        disconnected = browser is not None and not browser.is_connected()
        return self.crashed or self.page.is_closed() or disconnected

    def _on_crash(self, _page: Page) -> None:
        self.crashed = True


Looks = tuple[str, tuple[tuple[str, int], ...]]
"""What decides a screen's layout: its HTML and the scroll offsets applied to it."""


def looks_of(payload: ScreenPayload) -> Looks:
    """The :data:`Looks` of a screen payload."""
    return payload.html, tuple(sorted(payload.scroll.items()))


_K = TypeVar("_K")
_V = TypeVar("_V")


class Recent(Generic[_K, _V]):
    """The values of the keys used last, up to ``budget`` (a value costs ``cost(value)``:
    1 by default, so the budget is a count); the least recently used are dropped first."""

    def __init__(self, budget: int, cost: Callable[[_V], int] = lambda _: 1) -> None:
        self._budget = budget
        self._cost = cost
        self._spent = 0
        self._kept: OrderedDict[_K, _V] = OrderedDict()

    def get(self, key: _K) -> _V | None:
        """The value kept for ``key``, if still kept."""
        value = self._kept.get(key)
        if value is not None:
            self._kept.move_to_end(key)
        return value

    def put(self, key: _K, value: _V) -> None:
        """Keep ``value`` for ``key`` (the newest kept value is never dropped)."""
        old = self._kept.pop(key, None)
        self._spent += self._cost(value) - (self._cost(old) if old is not None else 0)
        self._kept[key] = value
        while self._spent > self._budget and len(self._kept) > 1:
            _, dropped = self._kept.popitem(last=False)
            self._spent -= self._cost(dropped)


FrameKey = tuple[Looks, str, int]
"""A screenshot's looks, format and JPEG quality (0 for PNG)."""


def tree_cache() -> Recent[Looks, str]:
    """The last 256 screens' UI trees by their :data:`Looks`. The tree is a pure function of
    the looks for pages of one profile: the runtime keeps no state of its own beyond the
    HTML and scroll offsets it was given."""
    return Recent(256)


def frame_cache() -> Recent[FrameKey, bytes]:
    """Screenshots of screens captured before, up to 64 MB. Like the tree, a frame is a pure
    function of the looks: the phone's stylesheet has no transitions, animations or visible
    caret, the runtime waits for fonts before a screen counts as shown, and the locale, zone
    and pixel ratio are the pool's. Rastering a 1080×2400 frame is most of what Chromium does
    in a step (~130 ms of CPU); screens recur (every reset shows the home screen, paired cells
    and forks share theirs)."""
    return Recent(64 * 1024 * 1024, cost=len)


class PagePool:
    """Up to ``size`` pages, each in its own browser context, lent out one step at a time.

    One context per page: pages sharing a context are background tabs of one window, and
    Chromium produces their frames (which screenshots wait for) only about once a second.
    The pool opens one page at start and another only when every open page is lent out
    (each costs a renderer process and ~0.4 s of CPU): a simulator used one step at a time,
    as most are, never pays for the rest.
    """

    def __init__(self, browser: Browser, base_url: str, profile: SimProfile, size: int) -> None:
        self._browser = browser
        self._base_url = base_url
        self._profile = profile
        self._size = size
        self._opened = 0
        self._opening = asyncio.Lock()
        self._free: asyncio.Queue[PooledPage] = asyncio.Queue()
        self._contexts: list[BrowserContext] = []
        self._trees = tree_cache()
        self._frames = frame_cache()

    @property
    def opened(self) -> int:
        """How many pages the pool has opened so far (at most its size)."""
        return self._opened

    async def start(self) -> None:
        """Open the first context and load the runtime into its page."""
        await self._grow()

    async def _grow(self) -> None:
        """Open one more page into the free queue (below the pool's size)."""
        async with self._opening:
            if self._opened >= self._size or not self._free.empty():
                return  # another borrower opened one meanwhile, or a page came back
            self._opened += 1
            try:
                self._free.put_nowait(await self._open_page())
            except BaseException:
                self._opened -= 1
                raise

    async def _open_page(self) -> PooledPage:
        width, height = self._profile.css_size
        context = await self._browser.new_context(
            viewport={"width": round(width), "height": round(height)},
            device_scale_factor=self._profile.dpr,
            is_mobile=True,
            has_touch=True,
            locale="en-US",
            timezone_id="Asia/Shanghai",
        )
        self._contexts.append(context)
        page = await context.new_page()
        await page.goto(self._base_url + PHONE_PAGE, wait_until="load")
        await page.wait_for_function("() => window.__mgb !== undefined")
        pooled = PooledPage(page, self._profile, trees=self._trees, frames=self._frames)
        page.on("crash", pooled._on_crash)
        return pooled

    @asynccontextmanager
    async def page(self) -> AsyncIterator[PooledPage]:
        """Borrow a page for one step (opening another while every open one is lent out,
        up to the pool's size); Playwright failures of the browser come out as
        ``EnvTimeout`` / ``EnvError`` (see the module docstring)."""
        if self._free.empty() and self._opened < self._size:
            try:
                await self._grow()
            except PlaywrightError as exc:
                raise EnvError(
                    f"the simulator's Chromium could not open another page ({_gist(exc)}); "
                    "if this repeats, restart the simulator"
                ) from exc
        pooled = await self._free.get()
        try:
            pooled.uses += 1
            yield pooled
        except PlaywrightTimeout as exc:
            pooled.forget()
            raise EnvTimeout(f"the simulator's Chromium page did not answer: {_gist(exc)}") from exc
        except PlaywrightError as exc:
            pooled.forget()
            if not pooled.gone():
                raise  # the page is alive: our runtime or our call is wrong, a bug
            raise EnvError(
                f"the simulator's Chromium page crashed or closed ({_gist(exc)}); if this "
                "repeats, restart the simulator (its page pool does not replace dead pages)"
            ) from exc
        except BaseException:
            pooled.forget()
            raise
        finally:
            self._free.put_nowait(pooled)

    async def close(self) -> None:
        """Close every page and context; idempotent."""
        contexts, self._contexts = self._contexts, []
        for context in contexts:
            with contextlib.suppress(PlaywrightError):  # Chromium already gone (Ctrl-C)
                await context.close()


def _gist(exc: PlaywrightError) -> str:
    """The first line of a Playwright message (the rest is its call log)."""
    lines = exc.message.strip().splitlines()
    return lines[0] if lines else type(exc).__name__
