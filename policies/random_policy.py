"""The random policy: a seeded baseline that only ever emits valid actions for the screen.

Each step it picks, by fixed weights, among what the observation allows: a tap on an
actionable node (clickable, long-clickable, checkable or editable, enabled, with area) or at
a random point, a scroll (of a scrollable node or the screen), ``back``, ``home``, typing
into the focused field (only when one is focused or the keyboard is up), or opening an app;
and with a small probability it finishes. Element targets always name nodes of the
observation it was given.

Reproducibility: the generator is reseeded at every ``reset`` from the seed and the
instruction, so an episode's actions depend only on (seed, instruction, observations) — not
on which episodes ran before it in the same process.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Literal

from bridge.actions import (
    Action,
    FinishAction,
    KeyAction,
    OpenAppAction,
    ScrollAction,
    TapAction,
    Target,
    TypeAction,
)
from bridge.app_catalog import app_catalog
from bridge.schema import Observation, PolicyContext, PolicyOutput, UINode, UIStatus

__all__ = ["RandomPolicy", "everyday_app_ids"]


def everyday_app_ids() -> tuple[str, ...]:
    """The apps ``open_app`` may name by default: every phone's everyday apps
    (``bridge/apps.json``)."""
    return tuple(app_catalog().everyday())


"""App ids ``open_app`` draws from unless told otherwise (ids every device profile maps)."""

_WORDS = ("hello", "test", "42", "Alice", "张伟", "café", "2024-05-01")
_WEIGHTS = {"tap": 5.0, "scroll": 2.0, "back": 1.0, "home": 0.5, "type": 2.0, "open_app": 1.0}
_POINT_TAP_PROB = 0.2
_DIRECTIONS: tuple[Literal["up", "down", "left", "right"], ...] = ("up", "down", "left", "right")
"""Chance that a tap goes to a random point although actionable nodes exist."""

_Choice = tuple[Action, str]


def _actionable(node: UINode) -> bool:
    flags = node.clickable or node.long_clickable or node.checkable or node.editable
    return flags and node.enabled and node.visible and node.area_px > 0


def _usable(observation: Observation) -> list[UINode]:
    """The nodes element targets may name: none unless the tree is trustworthy."""
    return list(observation.ui) if observation.ui_status is UIStatus.OK else []


def _label(node: UINode) -> str:
    return node.text or node.content_desc or node.resource_id or node.class_name


class RandomPolicy:
    """A Policy that takes random but always valid actions, reproducibly from ``seed``.

    Args:
        seed: Seeds the generator (mixed with the instruction at each reset).
        finish_prob: Probability of ``finish`` (status ``success``) at each step.
        apps: App ids that ``open_app`` may name (default: :func:`everyday_app_ids`).
        name: The spec string; defaults to ``random:SEED``.
    """

    def __init__(
        self,
        seed: int = 0,
        *,
        finish_prob: float = 0.02,
        apps: Sequence[str] | None = None,
        name: str | None = None,
    ) -> None:
        apps = everyday_app_ids() if apps is None else apps
        if not 0.0 <= finish_prob <= 1.0:
            raise ValueError(f"finish_prob must be in [0, 1], got {finish_prob}")
        if not apps:
            raise ValueError("apps must name at least one app id, e.g. ('settings',)")
        self._seed = seed
        self._finish_prob = finish_prob
        self._apps = tuple(apps)
        self._name = name or f"random:{seed}"
        self._rng = random.Random(seed)

    @property
    def name(self) -> str:
        """The spec string that recreates this policy."""
        return self._name

    @property
    def seed(self) -> int:
        """The seed the generator is derived from."""
        return self._seed

    async def reset(self, instruction: str, context: PolicyContext) -> None:
        """Reseed from (seed, instruction), so each episode is reproducible on its own."""
        self._rng = random.Random(f"{self._seed}\x00{instruction}")

    async def act(self, observation: Observation) -> PolicyOutput:
        """A random valid action for ``observation``."""
        rng = self._rng
        if rng.random() < self._finish_prob:
            return PolicyOutput(action=FinishAction(status="success"), thought="random: finish")
        makers = self._makers(observation)
        kinds = list(makers)
        kind = rng.choices(kinds, weights=[_WEIGHTS[k] for k in kinds])[0]
        action, thought = makers[kind](rng)
        return PolicyOutput(action=action, thought=f"random: {thought}")

    def _makers(self, observation: Observation) -> dict[str, Callable[[random.Random], _Choice]]:
        nodes = _usable(observation)
        actionable = [n for n in nodes if _actionable(n)]
        scrollable = [n for n in nodes if n.scrollable and n.visible and n.area_px > 0]
        focused = [n for n in nodes if n.focused and n.editable]
        makers: dict[str, Callable[[random.Random], _Choice]] = {
            "tap": lambda rng: _tap(rng, actionable),
            "scroll": lambda rng: _scroll(rng, scrollable),
            "back": lambda rng: (KeyAction(key="back"), "back"),
            "home": lambda rng: (KeyAction(key="home"), "home"),
            "open_app": lambda rng: _open_app(rng, self._apps),
        }
        if focused or observation.keyboard_visible:
            makers["type"] = lambda rng: _type(rng, focused)
        return makers


def _tap(rng: random.Random, actionable: list[UINode]) -> _Choice:
    if actionable and rng.random() >= _POINT_TAP_PROB:
        node = rng.choice(actionable)
        return TapAction(target=Target.node(node.id)), f"tap node {node.id} ({_label(node)!r})"
    x, y = round(rng.random(), 4), round(rng.random(), 4)
    return TapAction(target=Target.at(x, y)), f"tap at ({x}, {y})"


def _scroll(rng: random.Random, scrollable: list[UINode]) -> _Choice:
    direction = rng.choice(_DIRECTIONS)
    distance = round(rng.uniform(0.3, 0.8), 2)
    if scrollable and rng.random() < 0.8:
        node = rng.choice(scrollable)
        action = ScrollAction(direction=direction, target=Target.node(node.id), distance=distance)
        return action, f"scroll {direction} in node {node.id}"
    return ScrollAction(direction=direction, distance=distance), f"scroll {direction}"


def _type(rng: random.Random, focused: list[UINode]) -> _Choice:
    text = rng.choice(_WORDS)
    if focused:
        node = rng.choice(focused)
        return TypeAction(text=text, target=Target.node(node.id)), f"type {text!r} into {node.id}"
    return TypeAction(text=text), f"type {text!r}"


def _open_app(rng: random.Random, apps: tuple[str, ...]) -> _Choice:
    app = rng.choice(apps)
    return OpenAppAction(app=app), f"open {app}"
