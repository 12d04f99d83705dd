"""``MobileGymStateBase``: what every surface of
:class:`~mobilegym.android_state.MobileGymAndroidState` shares — the page whose state it reads
and writes, and the one way a fact MobileGym does not hold is refused."""

from __future__ import annotations

import json
from typing import Any, NoReturn

from bridge.errors import StateUnavailable
from mobilegym.page import MobileGymPage

__all__ = ["MobileGymStateBase", "read_json", "unavailable"]


def unavailable(fact: str, reason: str) -> NoReturn:
    """Refuse a fact MobileGym does not hold: never a guess (a spec that needs it is not
    posed there; :mod:`mobilegym.poseable` says so before a run)."""
    raise StateUnavailable(f"MobileGym does not hold {fact}: {reason}")


async def read_json(page: MobileGymPage, expression: str, arg: Any = None) -> Any:
    """``page.call(expression, arg)`` for a JSON value, sent as one string and parsed here:
    Playwright's client checks a structured result value by value in Python, which cost the
    parity tests more CPU than anything else they did (a string is checked once)."""
    text = await page.call(f"async (arg) => JSON.stringify(await ({expression})(arg))", arg)
    return None if text is None else json.loads(text)


class MobileGymStateBase:
    """The Android state of one MobileGym phone, read from ``__SIM__.getState()`` and
    written through ``__SIM__.setState`` and MobileGym's own APIs (see
    :mod:`mobilegym.android_state`).

    Args:
        page: The phone's page (loaded).
        timezone: The zone the page's browser context runs in (MobileGym has no zone of its
            own: its clock is the browser's ``Date`` in that zone).
    """

    def __init__(self, page: MobileGymPage, *, timezone: str) -> None:
        self.page = page
        self.timezone = timezone

    async def _patch(self, patch: dict[str, Any]) -> None:
        """A deep-merge ``setState`` (arrays are replaced whole; see
        :meth:`MobileGymPage.set_state`)."""
        await self.page.set_state(patch)
