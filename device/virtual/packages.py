"""The virtual phone's installed packages: the simulator's apps, a few system ones, and the
APKs the user installed (:mod:`device.virtual.installs`).

``pm``, ``am``, ``monkey``, ``ime`` and ``dumpsys package`` read these facts. An app whose
package starts with ``com.android.`` is a system app (``/system/priv-app``); others are
"third party" (``pm list packages -3``, ``/data/app/…/base.apk``). A user-installed APK
brings its own versionCode, versionName, SDK levels, launcher activity and input methods;
built-in packages report the platform's version.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

from device.virtual.installs import InstalledApk, installed_apks
from device.virtual.phone import VirtualPhone

__all__ = ["PackageInfo", "built_in", "component", "installed", "lookup", "short_component"]


def _system_only(phone: VirtualPhone) -> dict[str, tuple[str, str | None]]:
    """Packages of the system without a simulated UI: package -> (APK path, launcher
    activity or None); the home app's and the handoff packages of the profile it plays."""
    home = phone.home
    found: dict[str, tuple[str, str | None]] = {
        "android": ("/system/framework/framework-res.apk", None),
        phone.system_ui: ("/system_ext/priv-app/SystemUI/SystemUI.apk", None),
        home.package: (f"/system_ext/priv-app/{_apk_name(home.package)}.apk", home.activity),
        "com.android.inputmethod.latin": ("/system/app/LatinIME/LatinIME.apk", None),
        "com.android.shell": ("/system/priv-app/Shell/Shell.apk", None),
    }
    for package in phone.plays.handoff_packages:
        found.setdefault(package, (f"/system/priv-app/{_apk_name(package)}.apk", None))
    return found


def _apk_name(package: str) -> str:
    """``Name/Name`` of a system APK's folder and file, from its package's last word."""
    word = package.rsplit(".", 1)[-1]
    name = "Launcher3" if word == "launcher3" else word[:1].upper() + word[1:]
    return f"{name}/{name}"


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
    installed: InstalledApk | None = None
    """The user-installed APK behind it (None for built-in packages)."""

    def version_code(self, platform_sdk: int) -> int:
        """The package's versionCode (built-in packages carry the platform's)."""
        return self.installed.facts.version_code if self.installed else platform_sdk

    def version_name(self, platform_release: str) -> str | None:
        """The package's versionName (built-in packages carry the platform's release)."""
        return self.installed.facts.version_name if self.installed else platform_release

    @property
    def input_methods(self) -> tuple[str, ...]:
        """Its input method services (full class names)."""
        return self.installed.facts.input_methods if self.installed else ()

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
    skin = phone.skin
    for app in phone.sim.phone.apps.values():
        package = app.package_on(skin)
        system = package.startswith("com.android.")
        path = (
            f"/system/priv-app/{app.id.title()}/{app.id.title()}.apk"
            if system
            else f"/data/app/~~{zlib.crc32(package.encode()):08x}==/{package}-1/base.apk"
        )
        entry = _full(package, app.launcher_activity(skin))
        found[package] = PackageInfo(package, path, system, app.id, entry)
    for name, (path, activity) in _system_only(phone).items():
        if name not in found:
            found[name] = PackageInfo(name, path, True, None, activity and _full(name, activity))
    for apk in installed_apks(phone):
        built_in = found.get(apk.facts.package)
        found[apk.facts.package] = PackageInfo(
            apk.facts.package,
            apk.apk_path,
            built_in.system if built_in else False,
            built_in.app_id if built_in else None,
            apk.facts.launcher_activity or (built_in.launcher_activity if built_in else None),
            apk,
        )
    return [found[name] for name in sorted(found)]


def built_in(phone: VirtualPhone, package: str) -> bool:
    """Whether ``package`` comes with the phone (a simulated or system app)."""
    return package in _system_only(phone) or phone.package_app(package) is not None


def lookup(phone: VirtualPhone, package: str) -> PackageInfo | None:
    """The package ``package``, None if not installed."""
    return next((info for info in installed(phone) if info.name == package), None)
