"""``SimProps``: system properties, :func:`sim.device_props.system_properties` of a
:class:`~sim.device_props.DeviceIdentity`."""

from __future__ import annotations

from sim.android_state.base import SimStateBase
from sim.device_props import system_properties

__all__ = ["SimProps"]


class SimProps(SimStateBase):
    """:class:`bridge.android_state.PropsState` of the simulated phone."""

    async def getprop(self, key: str) -> str:
        """A system property as ``getprop KEY`` prints it ("" when unset)."""
        props = system_properties(
            self.identity, self.phone, self.state, density_dpi=self.density_dpi
        )
        return props.get(key, "")
