"""One simulated phone: its JSON state, a version that moves with every change, and a lock.

An instance is cheap — kilobytes of state, no browser of its own. Pages render whichever
instance needs a step; the version tells a page whether what it shows is current.
"""

from __future__ import annotations

import asyncio
from typing import Any

from pydantic import BaseModel, ConfigDict

from sim.app import check_overlays
from sim.phone import Phone
from sim.screen import render_screen
from sim.state import InstanceState

__all__ = ["Instance", "ScreenPayload"]


class ScreenPayload(BaseModel):
    """What a page needs to show an instance: its HTML, version and scroll offsets."""

    model_config = ConfigDict(frozen=True)

    instance: str
    version: int
    html: str
    scroll: dict[str, int]


class Instance:
    """A simulated phone held by a :class:`~sim.simulator.Simulator`."""

    def __init__(self, instance_id: str, state: InstanceState, phone: Phone) -> None:
        self.id = instance_id
        self.state = state
        self.phone = phone
        self.version = 0
        self.lock = asyncio.Lock()
        self.episode: Any = None
        """The task episode being judged on this instance (set by the env), if any."""
        self.closed = False
        self._screen: ScreenPayload | None = None

    def changed(self) -> None:
        """Record that the state changed, so pages showing the old version re-render."""
        self.version += 1

    def screen(self) -> ScreenPayload:
        """The current screen for a page (rendered once per version: every change of the
        state moves the version, :meth:`changed`)."""
        if self._screen is None or self._screen.version != self.version:
            self._screen = ScreenPayload(
                instance=self.id,
                version=self.version,
                html=render_screen(self.phone, self.state),
                scroll=dict(self.state.ui.scroll),
            )
        return self._screen

    def snapshot(self) -> bytes:
        """The whole state as JSON bytes; its app overlays are checked against their models
        first (``OverlayInvalid``: a bug of the app that wrote one, caught as it leaves)."""
        check_overlays(self.phone.apps, self.state)
        return self.state.model_dump_json().encode("utf-8")
