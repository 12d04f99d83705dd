"""App identity, once: ids, names in English and Chinese, aliases, packages per device profile.

The data is ``bridge/apps.json``. Everything that names an app derives from it: the device
profiles' app → package maps (``device/profiles.py``), the simulator's apps (which declare
only their id; ``sim.app.App`` takes package, activity and launcher label from here, and a
test checks both directions), the VLM adapters' name → id map and the random and learned
policies' app lists (``policies/``), none of which may import the simulator.

Packages and launcher activities are given per device profile, ``aosp`` being the default
for a profile the app does not name. The simulator draws a phone with the packages of its
skin's profile (:mod:`sim.skins`: AOSP's, or a Redmi's under ``hyperos``).

Apps may also come from outside the repository: ``MGB_EXTRA_APPS`` is a list of directories
(separated by ``os.pathsep``), each holding app folders and an ``apps.json`` in this file's
format with their identities. It is read when the catalog is first loaded; the extra apps
follow ``bridge/apps.json``'s, and an id may not be given twice.
"""

from __future__ import annotations

import json
import os
import re
import unicodedata
from functools import cache
from importlib import resources
from pathlib import Path
from typing import NamedTuple

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "AOSP",
    "EXTRA_APPS_ENV",
    "AppCatalog",
    "AppIdentity",
    "Component",
    "app_catalog",
    "extra_app_dirs",
    "normalize_app_name",
]

AOSP = "aosp"
"""The package set a profile falls back to (and the simulator's)."""

EXTRA_APPS_ENV = "MGB_EXTRA_APPS"
"""The environment variable listing directories of apps from outside the repository."""


class AppIdentity(BaseModel):
    """One app: its id, names, the names models use for it, packages by profile."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    names: dict[str, str]
    aliases: list[str] = Field(default_factory=list)
    packages: dict[str, str]
    activity: str | None = None
    """The launcher activity on AOSP (short form, ``.Settings``), where we know it."""
    activities: dict[str, str] = Field(default_factory=dict)
    """The launcher activity on phones of a profile whose own differs from AOSP's (a Redmi's
    Settings starts at ``.MainSettings``)."""
    simulated: bool = False
    """Whether the simulator has this app."""
    everyday: bool = True
    """An app of every phone (what a random policy opens); not the launcher or AnswerSheet."""

    def name(self, lang: str) -> str:
        """The app's name on the launcher in ``lang`` (English when there is none)."""
        return self.names.get(lang) or self.names["en"]

    def package(self, profile: str = AOSP) -> str | None:
        """The app's package on phones of ``profile`` (AOSP's when the profile has its own
        name for nothing else)."""
        return self.packages.get(profile) or self.packages.get(AOSP)

    def launcher_activity(self, profile: str = AOSP) -> str | None:
        """The launcher activity (short form) on phones of ``profile`` (AOSP's when the
        profile does not name its own)."""
        return self.activities.get(profile) or self.activity


class Component(NamedTuple):
    """An Android component: a package and its activity (short form, ``.Launcher``)."""

    package: str
    activity: str


def normalize_app_name(name: str) -> str:
    """A spoken app name as a lookup key: NFKC, case-folded, single spaces, no surrounding
    quotes (a model's ``open_app("'Settings'")``). The catalog's name table is keyed by it
    and every lookup goes through it."""
    folded = unicodedata.normalize("NFKC", name).casefold()
    return re.sub(r"\s+", " ", folded.strip().strip("'\"`").strip())


class AppCatalog(BaseModel):
    """Every app we know, with lookups by id, by name and by package."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    comment: str = ""
    system_ui: dict[str, str] = Field(default_factory=dict)
    """The System UI package (status bar, shade, recents) by profile (``bridge/apps.json``
    gives it; an extra directory's ``apps.json`` may leave it out)."""
    apps: list[AppIdentity]

    def ids(self) -> list[str]:
        """Every app id, in catalog order."""
        return [app.id for app in self.apps]

    def get(self, app_id: str) -> AppIdentity:
        """The app ``app_id``; ``KeyError`` names the known ones."""
        for app in self.apps:
            if app.id == app_id:
                return app
        raise KeyError(f"no app {app_id!r} in bridge/apps.json; known: {', '.join(self.ids())}")

    def packages(self, profile: str) -> dict[str, str]:
        """App id -> package on phones of ``profile``."""
        found = {app.id: app.package(profile) for app in self.apps}
        return {app_id: package for app_id, package in found.items() if package}

    def names(self) -> dict[str, str]:
        """Normalized names, aliases, ids and packages (every profile's) -> app id."""
        table: dict[str, str] = {}
        for app in self.apps:
            spoken = [app.id, *app.names.values(), *app.aliases, *app.packages.values()]
            for name in spoken:
                table.setdefault(normalize_app_name(name), app.id)
        return table

    def home(self, profile: str = AOSP) -> Component:
        """The home screen's component on phones of ``profile`` (the ``launcher`` app)."""
        launcher = self.get("launcher")
        package, activity = launcher.package(profile), launcher.launcher_activity(profile)
        if package is None or activity is None:
            raise ValueError("bridge/apps.json: the launcher needs a package and an activity")
        return Component(package, activity)

    def system_ui_package(self, profile: str = AOSP) -> str:
        """The System UI package on phones of ``profile``."""
        return self.system_ui.get(profile) or self.system_ui[AOSP]

    def simulated(self) -> list[str]:
        """Ids of the apps the simulator has."""
        return [app.id for app in self.apps if app.simulated]

    def by_package(self, package: str) -> str | None:
        """The app whose package is ``package`` on some profile (a world that names its apps
        by package, as a MobileGym build's manifests do), or None."""
        for app in self.apps:
            if package in app.packages.values():
                return app.id
        return None

    def everyday(self) -> list[str]:
        """Ids of the apps every phone has (not the launcher, not AnswerSheet)."""
        return [app.id for app in self.apps if app.everyday]


def extra_app_dirs() -> list[Path]:
    """The directories ``MGB_EXTRA_APPS`` lists (none when it is unset or empty)."""
    listed = os.environ.get(EXTRA_APPS_ENV, "")
    return [Path(entry).resolve() for entry in listed.split(os.pathsep) if entry]


def _extra_catalog(directory: Path) -> AppCatalog:
    path = directory / "apps.json"
    try:
        return AppCatalog.model_validate_json(path.read_text("utf-8"))
    except FileNotFoundError as exc:
        raise ValueError(f"{EXTRA_APPS_ENV} lists {directory}, which has no apps.json") from exc


@cache
def app_catalog() -> AppCatalog:
    """The catalog of ``bridge/apps.json`` and of the ``MGB_EXTRA_APPS`` directories (read
    once)."""
    text = resources.files("bridge").joinpath("apps.json").read_text("utf-8")
    catalog = AppCatalog.model_validate(json.loads(text))
    apps, system_ui = list(catalog.apps), dict(catalog.system_ui)
    for directory in extra_app_dirs():
        extra = _extra_catalog(directory)
        known = {app.id for app in apps}
        twice = [app.id for app in extra.apps if app.id in known]
        if twice:
            raise ValueError(f"{directory / 'apps.json'} gives app {twice[0]!r} a second time")
        apps += extra.apps
        system_ui = {**extra.system_ui, **system_ui}
    return catalog.model_copy(update={"apps": apps, "system_ui": system_ui})
