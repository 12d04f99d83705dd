"""Actions in the words a person reads: ``tap "Clock"``, ``swipe up from (0.50, 0.80) to
(0.50, 0.20)``, ``type "hello" into "Search", then Enter``.

One wording for every place that shows what a policy did (episode pages, replay pages, a
terminal), instead of contract JSON such as ``{"element": 11}`` or ``0.5005005005005005``.
An element target is named from the UI tree of the observation the policy saw (the same
tree the env resolved it against), or from the node the step result says was touched.
Points are normalized coordinates with two decimals. Deterministic: the same action and tree
always give the same text.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from bridge.actions import (
    Action,
    AnswerAction,
    DoubleTapAction,
    FinishAction,
    KeyAction,
    LongPressAction,
    OpenAppAction,
    Point,
    ScrollAction,
    SwipeAction,
    TapAction,
    Target,
    TypeAction,
    WaitAction,
)
from bridge.app_catalog import app_catalog
from bridge.schema import ExecutedAction, Observation, ScreenSpec, UINode
from bridge.uitree import UITree
from bridge.uitree_text import short_id

__all__ = ["describe_action", "element_label"]

_MAX_LABEL = 40
"""Characters of an element's words shown before they are clipped with an ellipsis."""
_DEFAULT_PRESS_MS = LongPressAction.model_fields["duration_ms"].default
_DEFAULT_SCROLL = ScrollAction.model_fields["distance"].default


def _quoted(value: str) -> str:
    """``value`` in double quotes, with quotes and line breaks escaped (JSON style)."""
    return json.dumps(value, ensure_ascii=False)


def _words(value: str) -> str:
    """``value`` on one line, clipped to :data:`_MAX_LABEL` characters."""
    value = " ".join(value.split())
    return value if len(value) <= _MAX_LABEL else value[: _MAX_LABEL - 1] + "…"


def _at(x: float, y: float) -> str:
    return f"({x:.2f}, {y:.2f})"


def _named(node: UINode) -> str | None:
    """The node's own words, quoted (``"Clock"``), or ``#id`` by its resource id; None when
    it has neither. A field is named by its description or hint before its text: its text
    is what was typed into it, not what it is."""
    words: tuple[str, ...] = (node.text, node.content_desc, node.hint)
    if node.editable:
        words = (node.content_desc, node.hint)
    for word in words:
        if _words(word):
            return _quoted(_words(word))
    short = short_id(node.resource_id)
    if short:
        return f"#{short}"
    return _quoted(_words(node.text)) if node.editable and _words(node.text) else None


def element_label(node: UINode, screen: ScreenSpec | None = None) -> str:
    """How a person names ``node``: its text, else its content description, else its hint,
    else ``#`` + its resource id's short name, else its class and where its centre is
    (``ImageView at (0.50, 0.30)``, normalized on ``screen``; pixels without one)."""
    named = _named(node)
    if named is not None:
        return named
    kind = node.class_name.rpartition(".")[2] or "node"
    x, y = node.center_px
    if screen is None:
        return f"{kind} at ({x:.0f}, {y:.0f}) px"
    return f"{kind} at {_at(x / screen.width_px, y / screen.height_px)}"


def _node(
    target: Target, action: Action, seen: Observation | None, executed: ExecutedAction | None
) -> UINode | None:
    """The node an element target meant: the one the step result says it touched, else the
    one with that id in the tree the policy saw."""
    if executed is not None and executed.action == action and executed.element is not None:
        return executed.element
    if seen is None or target.element is None:
        return None
    return seen.node(target.element)


def _hit(point: Point, seen: Observation | None) -> UINode | None:
    """The node a tap at a normalized point lands on (:meth:`UITree.hit_test` on the tree
    the policy saw), if it has words to name it by."""
    if seen is None or not seen.ui:
        return None
    x, y = point.x * seen.screen.width_px, point.y * seen.screen.height_px
    node = UITree(seen.ui).hit_test(x, y)
    return node if node is not None and _named(node) is not None else None


def _target(
    target: Target, action: Action, seen: Observation | None, executed: ExecutedAction | None
) -> str:
    """``"Clock"`` for an element, ``at (0.50, 0.30)`` for a point (``on "Clock"`` added when
    the node a tap there lands on has words), ``element 11`` for an id not in the tree."""
    if target.point is not None:
        hit = _hit(target.point, seen)
        where = f"at {_at(target.point.x, target.point.y)}"
        return where if hit is None else f"{where} on {_named(hit)}"
    node = _node(target, action, seen, executed)
    if node is None:
        return f"element {target.element} (not in the tree)"
    return element_label(node, seen.screen if seen is not None else None)


def _swipe(action: SwipeAction) -> str:
    dx, dy = action.end.x - action.start.x, action.end.y - action.start.y
    if dx == dy == 0:
        way = ""
    elif abs(dx) > abs(dy):
        way = " right" if dx > 0 else " left"
    else:
        way = " down" if dy > 0 else " up"
    start, end = _at(action.start.x, action.start.y), _at(action.end.x, action.end.y)
    return f"swipe{way} from {start} to {end}"


def _scroll(action: ScrollAction, seen: Observation | None, ex: ExecutedAction | None) -> str:
    text = f"scroll {action.direction}"
    if action.target is not None:
        where = _target(action.target, action, seen, ex)
        text += f" {where}" if action.target.point is not None else f" in {where}"
    if action.distance != _DEFAULT_SCROLL:
        text += f" by {action.distance:.0%}"
    return text


def _focused(seen: Observation | None) -> UINode | None:
    fields: Sequence[UINode] = seen.ui if seen is not None else ()
    return next((node for node in fields if node.focused and node.editable), None)


def _type(action: TypeAction, seen: Observation | None, ex: ExecutedAction | None) -> str:
    text = f"type {_quoted(action.text)}"
    if action.target is not None:
        text += f" into {_target(action.target, action, seen, ex)}"
    elif (field := _focused(seen)) is not None:
        text += f" into {element_label(field, seen.screen if seen else None)}"
    if action.clear:
        text += ", replacing the text"
    return text + (", then Enter" if action.submit else "")


def _app(app: str) -> str:
    try:
        return app_catalog().get(app).name("en")
    except KeyError:
        return app


def _touch(
    action: TapAction | DoubleTapAction | LongPressAction,
    seen: Observation | None,
    executed: ExecutedAction | None,
) -> str:
    verb = {"tap": "tap", "double_tap": "double tap", "long_press": "long press"}[action.type]
    text = f"{verb} {_target(action.target, action, seen, executed)}"
    if isinstance(action, LongPressAction) and action.duration_ms != _DEFAULT_PRESS_MS:
        text += f" for {action.duration_ms / 1000:g} s"
    return text


def describe_action(
    action: Action, seen: Observation | None = None, executed: ExecutedAction | None = None
) -> str:
    """``action`` as a person reads it, e.g. ``tap "Clock"`` or ``key back``.

    Args:
        action: What the policy decided.
        seen: The observation the policy decided on; its tree names element targets (and
            the field typed into, and what lies under a tapped point). Without it an element
            is ``element 11 (not in the tree)``.
        executed: What the env did for the step; its ``element`` is the node an element
            target was resolved to (used when it executed this very ``action``).
    """
    if isinstance(action, TapAction | DoubleTapAction | LongPressAction):
        return _touch(action, seen, executed)
    if isinstance(action, SwipeAction):
        return _swipe(action)
    if isinstance(action, ScrollAction):
        return _scroll(action, seen, executed)
    if isinstance(action, TypeAction):
        return _type(action, seen, executed)
    if isinstance(action, KeyAction):
        return f"key {action.key.replace('_', ' ')}"
    if isinstance(action, OpenAppAction):
        return f"open app {_app(action.app)}"
    if isinstance(action, WaitAction):
        return f"wait {action.seconds:g} s"
    if isinstance(action, AnswerAction):
        pairs = action.fields.items()
        return "answer " + ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in pairs)
    if isinstance(action, FinishAction):
        return f"finish ({action.status})" + (f": {action.message}" if action.message else "")
    raise TypeError(f"unsupported action {action!r}")
