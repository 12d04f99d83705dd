"""The virtual phone's installed packages: the simulator's apps plus a few system ones.

``pm``, ``am``, ``monkey`` and ``dumpsys package`` read these facts. An app whose package
starts with ``com.android.`` is a system app (``/system/priv-app``); others are "third
party" (``pm list packages -3``, ``/data/app/…/base.apk``).
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

from device.virtual.phone import VirtualPhone

__all__ = ["PackageInfo", "component", "installed", "lookup", "short_component"]

_SYSTEM_ONLY = {
    "android": ("/system/framework/framework-res.apk", None),
    "com.android.systemui": ("/system_ext/priv-app/SystemUI/SystemUI.apk", None),
    "com.android.launcher3": ("/system_ext/priv-app/Launcher3/Launcher3.apk", ".Launcher"),
    "com.android.inputmethod.latin": ("/system/app/LatinIME/LatinIME.apk", None),
    "com.android.shell": ("/system/priv-app/Shell/Shell.apk", None),
}


@dataclass(frozen=True)
class PackageInfo:
    """One installed package."""

    name: str
    path: str
    system: bool
    app_id: str | None
    """The simulator's app id (None for packages without a simulated UI)."""
    launcher_activity: str | None
    """Full class name of the LAUNCHER activity, None if it has none."""

    @property
    def uid(self) -> int:
        """A stable Linux uid (system apps share 1000)."""
        return 1000 if self.name == "android" else 10_000 + zlib.crc32(self.name.encode()) % 200


def _full(package: str, activity: str) -> str:
    return package + activity if activity.startswith(".") else activity


def short_component(package: str, activity: str) -> str:
    """``pkg/.Act`` as Android prints a component (``flattenToShortString``)."""
    full = _full(package, activity)
    short = full[len(package) :] if full.startswith(package + ".") else full
    return f"{package}/{short}"


def component(package: str, activity: str) -> str:
    """``pkg/pkg.Act`` with the full class name."""
    return f"{package}/{_full(package, activity)}"


def installed(phone: VirtualPhone) -> list[PackageInfo]:
    """Every installed package, sorted by name."""
    found: dict[str, PackageInfo] = {}
    for app in phone.sim.phone.apps.values():
        system = app.package.startswith("com.android.")
        path = (
            f"/system/priv-app/{app.id.title()}/{app.id.title()}.apk"
            if system
            else f"/data/app/~~{zlib.crc32(app.package.encode()):08x}==/{app.package}-1/base.apk"
        )
        found[app.package] = PackageInfo(
            app.package, path, system, app.id, _full(app.package, app.activity)
        )
    for name, (path, activity) in _SYSTEM_ONLY.items():
        if name not in found:
            launcher = _full(name, activity) if activity else None
            found[name] = PackageInfo(name, path, True, None, launcher)
    return [found[name] for name in sorted(found)]


def lookup(phone: VirtualPhone, package: str) -> PackageInfo | None:
    """The package ``package``, None if not installed."""
    return next((info for info in installed(phone) if info.name == package), None)
