"""A phone with Settings in the foreground, driven without a browser: the Settings tests'
shared helper (its handlers on a real instance state, its pages rendered as HTML)."""

from __future__ import annotations

from sim.app import AppContext, Event
from sim.apps.settings import SettingsApp
from sim.render import TemplateRenderer
from sim.skins import DEFAULT_SKIN
from sim.state import AppTask, InstanceState, Route

LANGS = {"en": "en-US", "zh": "zh-CN"}
"""The system locale of each UI language."""


class Phone:
    """One instance with Settings in the foreground, in ``skin``, and shortcuts to drive it."""

    def __init__(self, skin: str = DEFAULT_SKIN) -> None:
        self.app = SettingsApp()
        self.state = InstanceState()
        self.state.os.skin = skin
        self.state.os.tasks = [AppTask(app=self.app.id)]
        self.state.os.foreground = self.app.id
        self.ctx = AppContext(self.app, self.state, TemplateRenderer([self.app]).render)

    @property
    def g(self) -> dict:
        """The global settings table."""
        return self.state.os.settings["global"]

    @property
    def s(self) -> dict:
        """The system settings table."""
        return self.state.os.settings["system"]

    @property
    def path(self) -> str:
        """The route Settings shows."""
        return self.ctx.route.path

    def tap(self, action: str, kind: str = "tap", **args: str) -> None:
        """Send ``action`` (with ``args``) to Settings as a ``kind`` event."""
        self.app.handle(self.ctx, Event(kind, action, args))  # type: ignore[arg-type]

    def show(self, path: str, lang: str = "en") -> str:
        """The HTML of ``path`` in ``lang``."""
        self.s["system_locales"] = LANGS[lang]
        self.state.os.tasks[0].stack[-1] = Route(path=path)
        return self.app.render(self.ctx)
