"""App names as models say them (``Settings``, ``设置``, ``File Manager``) -> our app ids.

Every model family launches apps by name (Qwen ``open``, UI-TARS ``open_app``, AutoGLM
``Launch``). The names, aliases and packages come from the one app catalog,
``bridge/apps.json``; app ids (``settings``, ``contacts``, ``answersheet``, …) are mapped to
packages by the device profiles, so a policy only needs the id. Unknown names still become an
``open_app`` with a normalized id (``Google Maps`` -> ``google_maps``, ``京东`` -> ``京东``):
the env reports an unknown app as a step error, which is the right feedback for the model.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache
from types import MappingProxyType

from bridge.app_catalog import app_catalog, normalize_app_name

__all__ = ["app_names", "known_app_ids", "resolve_app"]


@cache
def known_app_ids() -> frozenset[str]:
    """App ids of ``bridge/apps.json``; they pass through unchanged."""
    return frozenset(app_catalog().ids())


@cache
def app_names() -> Mapping[str, str]:
    """Lower-case names (English, Chinese, aliases, every profile's packages) -> app id, from
    ``bridge/apps.json`` (built once)."""
    return MappingProxyType(app_catalog().names())


_APP_SUFFIX = re.compile(r"\s*(?:app|application|应用)$")


def resolve_app(name: str) -> str:
    """Our app id for a model's app name; unknown names become a normalized id.

    Raises:
        ValueError: the name is empty.
    """
    key = normalize_app_name(name)
    if not key:
        raise ValueError("the app name is empty")
    known, names = known_app_ids(), app_names()
    for candidate in (key, _APP_SUFFIX.sub("", key)):
        if candidate in known:
            return candidate
        if candidate in names:
            return names[candidate]
        if candidate.replace(" ", "") in known:
            return candidate.replace(" ", "")
    return re.sub(r"[\s\-]+", "_", _APP_SUFFIX.sub("", key) or key)
