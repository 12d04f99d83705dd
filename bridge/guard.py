"""A guard for real phones: stop before an action with consequences, or one that leaves the
apps a run may use.

Two questions, asked of the observation the policy saw and of the one after the action:

* :meth:`ActionGuard.before` — does the proposed action land on an element whose text,
  content-desc or resource id marks it as sending, calling, paying, deleting or installing
  (``bridge/guard_words.json``, English and Chinese)? Then a person must approve it.
* :meth:`ActionGuard.after` — did the foreground package change to one the run may not
  use? Then the run stops (the console pauses and asks; unattended runs end the episode
  with the reason).

The launcher and the system UI are always allowed: going home or opening the shade leaves
no app. The guard reads only what a phone gives, so it means the same in every world.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources

from pydantic import BaseModel, ConfigDict

from bridge.actuate import resolve
from bridge.app_catalog import app_catalog
from bridge.errors import CoordinateError, TargetError
from bridge.records import TaskInstance
from bridge.schema import (
    Action,
    DoubleTapAction,
    LongPressAction,
    Observation,
    TapAction,
    TypeAction,
    UINode,
)
from bridge.uitree import UITree

__all__ = ["ALWAYS_ALLOWED", "ActionGuard", "GuardStop", "guard_words"]

ALWAYS_ALLOWED = frozenset(
    {*app_catalog().get("launcher").packages.values(), *app_catalog().system_ui.values()}
)
"""Packages a run may always show: the launchers of every profile (``bridge/apps.json``)
and the system UI."""

_ANCESTORS = 3
"""How many enclosing nodes of the touched one count (the clickable row around a label)."""
_SUBTREE = 40
"""At most this many nodes inside the touched one count (a button's icon and label)."""
_LATIN = re.compile(r"[a-z]+")
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")


@dataclass(frozen=True)
class GuardStop:
    """Why the guard stops a step: ``kind`` is ``sensitive`` or ``left_apps``."""

    kind: str
    reason: str


class _GuardWords(BaseModel):
    """``bridge/guard_words.json``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    comment: str
    keyboards: tuple[str, ...]
    categories: dict[str, tuple[str, ...]]


@cache
def _data() -> _GuardWords:
    text = resources.files("bridge").joinpath("guard_words.json").read_text("utf-8")
    return _GuardWords.model_validate_json(text)


def guard_words() -> dict[str, tuple[str, ...]]:
    """The word list by category (``bridge/guard_words.json``, read once)."""
    return dict(_data().categories)


def _keyboard(node: UINode) -> bool:
    """Whether ``node`` is a key of a soft keyboard (never marked)."""
    return any(node.package.startswith(prefix) for prefix in _data().keyboards)


def _tokens(text: str) -> set[str]:
    return set(_LATIN.findall(_CAMEL.sub(" ", text).lower()))


def _marks(node: UINode, words: Mapping[str, tuple[str, ...]]) -> tuple[str, str] | None:
    """The (category, word) that marks ``node``, if any."""
    if _keyboard(node):
        return None
    name = node.resource_id.rsplit("/", 1)[-1].replace("_", " ")
    texts = [node.text, node.content_desc, name]
    tokens = set().union(*(_tokens(text) for text in texts))
    joined = " ".join(texts)
    for category, listed in words.items():
        for word in listed:
            latin = word.isascii()
            if (latin and word in tokens) or (not latin and word in joined):
                return category, word
    return None


def _subtree(tree: UITree, node: UINode) -> list[UINode]:
    """Up to ``_SUBTREE`` nodes inside ``node``, breadth first."""
    found: list[UINode] = []
    queue = list(tree.children(node.id))
    while queue and len(found) < _SUBTREE:
        child = queue.pop(0)
        found.append(child)
        queue.extend(tree.children(child.id))
    return found


class ActionGuard:
    """Stops what a person should decide on a real phone (see the module docstring)."""

    def __init__(
        self,
        allowed_packages: Iterable[str] | None = None,
        *,
        allowed_apps: Iterable[str] = (),
        words: Mapping[str, tuple[str, ...]] | None = None,
    ) -> None:
        """``allowed_packages``: the packages the run may use (None, with no
        ``allowed_apps``: any app); ``allowed_apps``: app ids (``settings``) the run may
        use, matched against the observation's ``foreground.app``, which each world maps
        from the package with its own profile (so one list means the same on every phone)."""
        apps = frozenset(allowed_apps)
        self.allowed = (
            None if allowed_packages is None and not apps else frozenset(allowed_packages or ())
        )
        self.allowed_apps = apps
        self.words = dict(words) if words is not None else guard_words()

    @classmethod
    def for_task(
        cls,
        task: TaskInstance | None,
        *,
        extra: Iterable[str] = (),
        apps_only: bool = False,
        handoff: Iterable[str] = (),
    ) -> ActionGuard:
        """The guard of a run of ``task``: the apps its spec uses (and the launcher) plus
        ``extra`` (app ids or packages); with no task and no ``extra``, any app. With
        ``apps_only`` no element is marked sensitive (only leaving the apps stops).
        ``handoff``: packages the phone's own apps pass through (a Redmi's Settings opens
        the SIM page in ``com.android.phone``; its device profile lists them), allowed too
        whenever the apps are limited."""
        extra = list(extra)
        spec = task.spec if task is not None else None
        apps = {"launcher", *spec.apps} if spec is not None else set()
        ids = {name for name in extra if "." not in name}
        packages = [name for name in extra if "." in name]
        if not apps and not ids and not packages:
            return cls(words={} if apps_only else None)
        packages += list(handoff)
        return cls(packages, allowed_apps=apps | ids, words={} if apps_only else None)

    def before(self, action: Action, seen: Observation) -> GuardStop | None:
        """A stop when ``action`` lands on (or inside) an element marked as consequential."""
        if not isinstance(action, TapAction | DoubleTapAction | LongPressAction | TypeAction):
            return None
        target = action.target
        if target is None:
            return None
        try:
            point, node = resolve(target, seen)
        except (TargetError, CoordinateError):
            return None  # the step will fail on its own, touching nothing
        tree = UITree(seen.ui)
        hit = node or tree.hit_test(point.x, point.y)
        if hit is None:
            return None
        for candidate in [hit, *_subtree(tree, hit), *tree.ancestors(hit.id)[:_ANCESTORS]]:
            found = _marks(candidate, self.words)
            if found is not None:
                category, word = found
                label = candidate.text or candidate.content_desc or candidate.resource_id
                return GuardStop(
                    "sensitive",
                    f"{action.type} on {label!r} looks like {category} ({word!r}): approve it",
                )
        return None

    def after(self, observation: Observation) -> GuardStop | None:
        """A stop when the screen now shows a package the run may not use."""
        foreground = observation.foreground
        package = foreground.package
        if self.allowed is None or package is None:
            return None
        if package in self.allowed or package in ALWAYS_ALLOWED:
            return None
        if foreground.app is not None and foreground.app in self.allowed_apps:
            return None
        allowed = ", ".join(sorted(self.allowed_apps | self.allowed)) or "none"
        shown = f"{package} ({foreground.app})" if foreground.app else package
        return GuardStop("left_apps", f"the phone now shows {shown}, not one of: {allowed}")
