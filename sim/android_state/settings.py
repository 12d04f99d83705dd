"""``SimSettings``: the settings surface over :mod:`sim.settings_store` (printed text;
writes as a user makes them)."""

from __future__ import annotations

from bridge.android_state import Namespace
from sim.android_state.base import SimStateBase
from sim.settings_store import apply_setting, delete_setting, get_setting, list_settings

__all__ = ["SimSettings"]


class SimSettings(SimStateBase):
    """:class:`bridge.android_state.SettingsState` over the instance's settings."""

    async def get_setting(self, namespace: Namespace, key: str) -> str | None:
        """``settings get``: the printed value, None for ``null``."""
        return get_setting(self.state, namespace, key)

    async def put_setting(self, namespace: Namespace, key: str, value: str) -> None:
        """The change as a user makes it (airplane mode and radios through their switches)."""
        apply_setting(self.state, namespace, key, value)
        self._changed()

    async def list_settings(self, namespace: Namespace) -> dict[str, str]:
        """``settings list``: every key with its printed value."""
        return list_settings(self.state, namespace)

    async def delete_setting(self, namespace: Namespace, key: str) -> None:
        """``settings delete``: the key is gone (an absent one is no error)."""
        if delete_setting(self.state, namespace, key):
            self._changed()
