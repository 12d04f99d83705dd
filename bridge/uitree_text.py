"""A UI tree as compact text, for text-only policies and for people reading a step.

One line per node a policy can use, indented by depth among the lines shown, e.g.
``[12] Button #login "Sign in" clickable @(540,870)``. Deterministic: the same nodes always
give the same text, so prompts built from it are reproducible.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from bridge.schema import UINode

__all__ = ["render_text", "short_id"]

_SHOWN_FLAGS = ("clickable", "long_clickable", "editable", "password", "scrollable")
_INVISIBLE_CHARS = re.compile("[\u200b-\u200f\u2060\ufeff]")


def render_text(nodes: Sequence[UINode], max_text: int = 60) -> str:
    """A compact, deterministic text view of a tree for text-only policies.

    One line per visible, non-empty node that has text, a content description, a hint or a
    resource id, or is clickable, long-clickable, editable, scrollable or checkable; indented
    by depth among the shown nodes, e.g. ``[12] Button #login "Sign in" clickable @(540,870)``:
    the id to target (``element 12``), the class after its last dot, ``#`` + the resource id's
    short name, the text, ``desc=`` and ``hint=`` when they differ from it (clipped to
    ``max_text`` characters, whitespace as single spaces), flags, and the centre in pixels.
    """
    levels: dict[int, int] = {}
    shown: set[int] = set()
    lines: list[str] = []
    for node in nodes:
        parent = node.parent
        levels[node.id] = 0 if parent is None else levels.get(parent, 0) + (parent in shown)
        line = _render_line(node, max_text)
        if line is not None:
            shown.add(node.id)
            lines.append("  " * levels[node.id] + line)
    return "\n".join(lines)


def short_id(resource_id: str) -> str:
    """A resource id's short name: ``login`` for ``com.app:id/login``."""
    return resource_id.rpartition(":id/")[2].rpartition("/")[2]


def _clip(value: str, max_text: int) -> str:
    value = " ".join(_INVISIBLE_CHARS.sub("", value).split())
    if len(value) > max_text:
        value = value[: max(max_text - 1, 0)] + "…"
    return '"' + value.replace('"', '\\"') + '"'


def _flags(node: UINode) -> list[str]:
    flags = [name.replace("_", "-") for name in _SHOWN_FLAGS if getattr(node, name)]
    if node.checkable:
        flags.append("checked" if node.checked else "unchecked")
    flags += [name for name in ("selected", "focused") if getattr(node, name)]
    return flags if node.enabled else [*flags, "disabled"]


def _render_line(node: UINode, max_text: int) -> str | None:
    """The node's line, or None when it is hidden or gives a policy nothing to use."""
    short = short_id(node.resource_id)
    acts = node.clickable or node.long_clickable or node.editable or node.scrollable
    has_words = node.text or node.content_desc or node.hint or short
    if not node.visible or node.area_px == 0 or not (has_words or acts or node.checkable):
        return None
    parts = [f"[{node.id}]", node.class_name.rpartition(".")[2] or "node"]
    parts += [f"#{short}"] if short else []
    parts += [_clip(node.text, max_text)] if node.text else []
    if node.content_desc and node.content_desc != node.text:
        parts.append("desc=" + _clip(node.content_desc, max_text))
    if node.hint and node.hint != node.text:
        parts.append("hint=" + _clip(node.hint, max_text))
    left, top, right, bottom = node.bounds_px
    return " ".join([*parts, *_flags(node), f"@({(left + right) // 2},{(top + bottom) // 2})"])
