"""``SimStateBase``: what every surface of :class:`~sim.android_state.SimAndroidState`
shares, the instance it reads and writes and the one way a write is announced."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from bridge.errors import StateUnavailable
from sim.device_props import DEFAULT_DENSITY_DPI, DeviceIdentity
from sim.phone import Phone
from sim.providers import ContentResolver, UnknownAuthority
from sim.state import InstanceState

__all__ = ["SimStateBase"]

T = TypeVar("T")


class SimStateBase:
    """The Android state of one simulated phone (see :mod:`sim.android_state`).

    Args:
        phone: The installed apps (the simulator's :class:`~sim.phone.Phone`).
        state: The instance state read and changed.
        identity: What ``getprop`` reports (the reference phone, serial ``SIM00000000``).
        density_dpi: ``ro.sf.lcd_density`` (the simulator's screen).
        on_change: Called after every write (e.g. ``Instance.changed``, so pages re-render).
    """

    def __init__(
        self,
        phone: Phone,
        state: InstanceState,
        *,
        identity: DeviceIdentity | None = None,
        density_dpi: int = DEFAULT_DENSITY_DPI,
        on_change: Callable[[], None] | None = None,
    ) -> None:
        self.phone = phone
        self.state = state
        self.identity = identity or DeviceIdentity()
        self.density_dpi = density_dpi
        self.resolver = ContentResolver.of(phone)
        self._on_change = on_change

    def _changed(self) -> None:
        if self._on_change is not None:
            self._on_change()

    def _provider_call(self, call: Callable[[], T]) -> T:
        try:
            return call()
        except UnknownAuthority as exc:
            raise StateUnavailable(
                f"the simulated phone has no provider {exc.authority!r}; it has "
                f"{', '.join(sorted(self.resolver.providers))}"
            ) from exc
