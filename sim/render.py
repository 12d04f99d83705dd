"""Server-side rendering of simulated screens with Jinja2.

One environment serves every app: shared templates (``widgets.html``, ``icons.html``, the
shell) live in ``sim/templates``; an app's own templates are addressed as
``<app id>/<file>`` and loaded from ``sim/apps/<app id>/templates``. Autoescaping is on, so
world data and typed text can never inject markup.

A skin (:mod:`sim.skins`) other than AOSP's looks for its own template first: an app's in
``sim/apps/<app id>/skins/<skin>/templates`` (addressed ``<app id>@<skin>/<file>``), a
shared one in ``sim/templates/skins/<skin>/``; what the skin does not have is AOSP's.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from importlib import resources
from typing import Any, Protocol

from jinja2 import (
    ChoiceLoader,
    Environment,
    PackageLoader,
    PrefixLoader,
    StrictUndefined,
    Template,
)

from sim.app import App
from sim.skins import DEFAULT_SKIN, SKINS

__all__ = ["Render", "TemplateRenderer", "page_template"]


class Render(Protocol):
    """What renders a template by name for a skin (:meth:`TemplateRenderer.render`)."""

    def __call__(self, template: str, values: dict[str, Any], skin: str = DEFAULT_SKIN) -> str:
        """The HTML of ``template`` with ``values``, as ``skin`` draws it."""
        ...


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
        app_loaders: dict[str, PackageLoader] = {}
        for app in apps:
            package = type(app).__module__.rsplit(".", 1)[0]
            app_loaders[app.id] = PackageLoader(package, "templates")
            for skin in SKINS:
                folder = f"skins/{skin}/templates"
                if resources.files(package).joinpath(folder).is_dir():
                    app_loaders[f"{app.id}@{skin}"] = PackageLoader(package, folder)
        self._chosen: dict[tuple[str, str], Template] = {}
        self._env = Environment(
            loader=ChoiceLoader([PrefixLoader(app_loaders), PackageLoader("sim", "templates")]),
            autoescape=True,
            undefined=StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
            auto_reload=False,
        )

    def render(self, template: str, values: dict[str, Any], skin: str = DEFAULT_SKIN) -> str:
        """Render ``template`` (``widgets.html``-style shared name or ``app/file``) as
        ``skin`` draws it: the skin's own template if it has one, else AOSP's."""
        chosen = self._chosen.get((template, skin))
        if chosen is None:
            names = [*_skinned(template, skin), template]
            chosen = self._chosen[(template, skin)] = self._env.select_template(names)
        return chosen.render(values)


def _skinned(template: str, skin: str) -> list[str]:
    """Where ``skin`` keeps its own version of ``template`` (none for AOSP: it is the base)."""
    if skin == DEFAULT_SKIN:
        return []
    app, sep, name = template.partition("/")
    return [f"{app}@{skin}/{name}" if sep else f"skins/{skin}/{template}"]
