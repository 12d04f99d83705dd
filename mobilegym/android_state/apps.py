"""``MobileGymApps``: starting an app by its Android package and reading the one in front.

MobileGym names apps by ids (``clock``, ``file_manager``); each app's manifest gives its
Android ``packageName`` (``com.android.deskclock``). The map between them is read from the
build itself, once per phone: the installed apps (``os.installedApps``) and the manifests the
page's own module exports (every app's code imports its manifest from it), so a user's build
with other apps or packages is read as it is, never from a list of ours.
"""

from __future__ import annotations

from bridge.app_catalog import app_catalog
from bridge.errors import StateUnavailable
from mobilegym.android_state.base import MobileGymStateBase, unavailable

__all__ = ["MobileGymApps"]

_MANIFESTS = """async () => {
  const installed = new Set(window.__SIM__.getState().os.installedApps.map((a) => a.id));
  const found = {};
  for (const script of document.querySelectorAll('script[type=module][src]')) {
    const module = await import(script.src);  // evaluated already: the same instance
    for (const value of Object.values(module)) {
      try {
        if (value && typeof value === 'object' && typeof value.packageName === 'string'
            && typeof value.id === 'string' && 'displayName' in value
            && installed.has(value.id)) found[value.id] = value.packageName;
      } catch (e) { /* an export that cannot be read is no manifest */ }
    }
  }
  return {installed: [...installed], found};
}"""
_OPEN = "(id) => { window.__OS__.openApp(id); }"


class MobileGymApps(MobileGymStateBase):
    """:class:`bridge.android_state.AppsState` over ``__OS__.openApp`` and the app in front."""

    _packages: dict[str, str] | None = None
    """App id → package, read once (:meth:`packages`)."""

    async def packages(self) -> dict[str, str]:
        """Every installed app's package by its MobileGym id, from the build's manifests.

        Raises:
            StateUnavailable: an installed app's manifest was not found in the page's module.
        """
        if self._packages is None:
            read = await self.page.call(_MANIFESTS)
            found = {str(k): str(v) for k, v in read["found"].items()}
            missing = sorted(set(map(str, read["installed"])) - set(found))
            if missing:
                raise StateUnavailable(
                    f"MobileGym's page exports no manifest for the installed apps {missing}, "
                    "so their Android packages are unknown"
                )
            self._packages = found
        return self._packages

    async def catalog_ids(self) -> dict[str, str]:
        """Our app id (``bridge/apps.json``) -> MobileGym's id, for each installed app whose
        package is one of an app of our catalogue (on any profile: MobileGym's manifests use
        Xiaomi's packages, ``com.android.mms`` for Messages)."""
        catalog = app_catalog()
        ours: dict[str, str] = {}
        for mobilegym_id, package in sorted((await self.packages()).items()):
            app = catalog.by_package(package)
            if app is not None:
                ours.setdefault(app, mobilegym_id)
        return ours

    async def start_app(self, package: str) -> None:
        """Open the app of ``package`` as MobileGym's launcher does (``__OS__.openApp``).

        Raises:
            StateUnavailable: no installed MobileGym app has that package.
        """
        packages = await self.packages()
        app = next((i for i, p in sorted(packages.items()) if p == package), None)
        if app is None:
            unavailable(
                f"an app with package {package}",
                f"its installed apps have {', '.join(sorted(packages.values()))}",
            )
        await self.page.call(_OPEN, app)

    async def foreground_package(self) -> str | None:
        """The package of the app in front; None on the home screen (MobileGym's launcher
        is its OS shell, which has no package)."""
        app, _ = await self.page.route()
        if app is None:
            return None
        packages = await self.packages()
        if app not in packages:
            unavailable(f"the package of {app!r}", "it is not one of the installed apps")
        return packages[app]
