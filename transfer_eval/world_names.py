"""How a paired report names its two worlds in words.

The JSON keys stay ``sim`` (where the gain was made) and ``real`` (where it was checked)
whatever the worlds are; pages name them by their backends: ``sim`` or ``MobileGym`` for
the first, ``phone`` or ``MobileGym`` for the second (a virtual phone is a phone side, said
so in a banner).
"""

from __future__ import annotations

__all__ = ["PairNames"]

_NAMES = {"sim": "sim", "mobilegym": "MobileGym"}
_PLACES = {"sim": "in the simulator", "mobilegym": "in MobileGym"}


class PairNames:
    """The two worlds of one report by name (``name``) and as a place (``place``)."""

    def __init__(self, sim_backend: str = "sim", device_backend: str = "device") -> None:
        self.kinds = {"sim": sim_backend, "real": device_backend}

    def name(self, world: str) -> str:
        """``sim``, ``MobileGym`` or ``phone`` for a world key (``sim``, ``real``)."""
        return _NAMES.get(self.kinds.get(world, world), "phone")

    def place(self, world: str) -> str:
        """``in the simulator``, ``in MobileGym`` or ``on the phone`` for a world key."""
        return _PLACES.get(self.kinds.get(world, world), "on the phone")

    @property
    def mobilegym(self) -> bool:
        """Whether one side is MobileGym."""
        return "mobilegym" in self.kinds.values()

    @property
    def title(self) -> str:
        """The report's title: ``Sim-to-real transfer report`` between our simulator and a
        phone, else both worlds by name (``Transfer report: simulator → MobileGym``)."""
        if not self.mobilegym:
            return "Sim-to-real transfer report"
        gained = "MobileGym" if self.kinds["sim"] == "mobilegym" else "simulator"
        checked = {"mobilegym": "MobileGym", "virtual": "virtual phone"}.get(
            self.kinds["real"], "phone"
        )
        return f"Transfer report: {gained} → {checked}"
