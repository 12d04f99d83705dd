"""App identity, once: ids, names in English and Chinese, aliases, packages per device profile.

The data is ``bridge/apps.json``. Everything that names an app derives from it: the device
profiles' app → package maps (``device/profiles.py``), the simulator's apps (which declare
only their id; ``sim.app.App`` takes package, activity and launcher label from here, and a
test checks both directions), the VLM adapters' name → id map and the random and learned
policies' app lists (``policies/``), none of which may import the simulator.

Packages are given per device profile, ``aosp`` being the default for a profile the app does
not name (the simulator and the virtual phone use AOSP's packages).
"""

from __future__ import annotations

import json
import re
import unicodedata
from functools import cache
from importlib import resources

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["AOSP", "AppCatalog", "AppIdentity", "app_catalog", "normalize_app_name"]

AOSP = "aosp"
"""The package set a profile falls back to (and the simulator's)."""


class AppIdentity(BaseModel):
    """One app: its id, names, the names models use for it, packages by profile."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    names: dict[str, str]
    aliases: list[str] = Field(default_factory=list)
    packages: dict[str, str]
    activity: str | None = None
    """The launcher activity on AOSP (short form, ``.Settings``), where we know it."""
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


def normalize_app_name(name: str) -> str:
    """A spoken app name as a lookup key: NFKC, lower case, single spaces."""
    folded = unicodedata.normalize("NFKC", name).strip().casefold()
    return re.sub(r"\s+", " ", folded)


class AppCatalog(BaseModel):
    """Every app we know, with lookups by id, by name and by package."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    comment: str = ""
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

    def simulated(self) -> list[str]:
        """Ids of the apps the simulator has."""
        return [app.id for app in self.apps if app.simulated]

    def everyday(self) -> list[str]:
        """Ids of the apps every phone has (not the launcher, not AnswerSheet)."""
        return [app.id for app in self.apps if app.everyday]


@cache
def app_catalog() -> AppCatalog:
    """The catalog of ``bridge/apps.json`` (read once)."""
    text = resources.files("bridge").joinpath("apps.json").read_text("utf-8")
    return AppCatalog.model_validate(json.loads(text))
