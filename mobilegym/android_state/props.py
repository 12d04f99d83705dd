"""``MobileGymProps``: system properties from MobileGym's build description (``os.build``),
through one map (:data:`PROPS`); a property it does not describe is refused, never guessed."""

from __future__ import annotations

from bridge.errors import StateUnavailable
from mobilegym.android_state.base import MobileGymStateBase, unavailable

__all__ = ["PROPS", "MobileGymProps", "prop_refusal"]

PROPS: dict[str, str] = {
    "ro.product.model": "model",
    "ro.product.brand": "brand",
    "ro.product.marketname": "marketName",
    "ro.build.version.release": "androidVersion",
    "ro.build.version.security_patch": "securityPatch",
    "ro.build.version.incremental": "buildNumber",
}
"""``getprop`` key → the field of ``os.build`` that holds it (a Xiaomi phone's
``ro.build.version.incremental`` is its MIUI build, ``V816.0.9.0.VNACNXM``). Not here, with
why: ``ro.product.manufacturer`` (MobileGym holds the company's name, "Xiaomi Communications
Co., Ltd.", not Android's short one), ``ro.serialno`` (masked), every other property (MobileGym
describes none)."""

_READ = "() => window.__SIM__.getState().os.build"


def prop_refusal(key: str) -> str | None:
    """Why MobileGym cannot answer ``getprop KEY``, or None when :data:`PROPS` maps it."""
    if key in PROPS:
        return None
    return f"getprop {key}: MobileGym's build (os.build) describes only {', '.join(sorted(PROPS))}"


class MobileGymProps(MobileGymStateBase):
    """:class:`bridge.android_state.PropsState` over ``os.build``."""

    async def getprop(self, key: str) -> str:
        """The property as ``getprop KEY`` prints it ("" when MobileGym's field is empty).

        Raises:
            StateUnavailable: :data:`PROPS` does not map ``key``.
        """
        reason = prop_refusal(key)
        if reason is not None:
            unavailable(f"the property {key}", reason)
        build = await self.page.call(_READ)
        if not isinstance(build, dict):
            raise StateUnavailable("MobileGym's getState().os.build is not an object")
        value = build.get(PROPS[key])
        return "" if value is None else str(value)
