"""``SimApps``: starting an app on the simulated phone and reading the foreground one."""

from __future__ import annotations

from bridge.errors import StateUnavailable
from sim.android_state.base import SimStateBase
from sim.observe import foreground_of

__all__ = ["SimApps"]


class SimApps(SimStateBase):
    """:class:`bridge.android_state.AppsState` of the simulated phone."""

    async def start_app(self, package: str) -> None:
        """Bring the app of ``package`` to the front (started on its first screen)."""
        skin = self.state.os.skin
        app = self.phone.package_app(package, skin)
        if app is None:
            installed = sorted(a.package_on(skin) for a in self.phone.apps.values())
            raise StateUnavailable(f"no app has package {package!r}; installed: {installed}")
        self.phone.launch(self.state, app.id)
        self._changed()

    async def foreground_package(self) -> str | None:
        """The foreground app's package, the launcher's on the home screen."""
        return foreground_of(self.phone, self.state).package
