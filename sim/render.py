"""Server-side rendering of simulated screens with Jinja2.

One environment serves every app: shared templates (``widgets.html``, ``icons.html``, the
shell) live in ``sim/templates``; an app's own templates are addressed as
``<app id>/<file>`` and loaded from ``sim/apps/<app id>/templates``. Autoescaping is on, so
world data and typed text can never inject markup.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from typing import Any

from jinja2 import (
    ChoiceLoader,
    Environment,
    PackageLoader,
    PrefixLoader,
    StrictUndefined,
    Template,
)

from sim.app import App

__all__ = ["TemplateRenderer", "page_template"]


@cache
def page_template(name: str) -> Template:
    """A page a person opens (not a phone screen) from ``sim/templates/``: the server's home
    page and player, the gallery page. Loaded once."""
    env = Environment(
        loader=PackageLoader("sim", "templates"), autoescape=True, undefined=StrictUndefined
    )
    return env.get_template(name)


class TemplateRenderer:
    """Renders shared and per-app templates; build one per set of apps and reuse it."""

    def __init__(self, apps: Iterable[App]) -> None:
        app_loaders = {
            app.id: PackageLoader(type(app).__module__.rsplit(".", 1)[0], "templates")
            for app in apps
        }
        self._env = Environment(
            loader=ChoiceLoader([PrefixLoader(app_loaders), PackageLoader("sim", "templates")]),
            autoescape=True,
            undefined=StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
            auto_reload=False,
        )

    def render(self, template: str, values: dict[str, Any]) -> str:
        """Render ``template`` (``widgets.html``-style shared name or ``app/file``)."""
        return self._env.get_template(template).render(values)
