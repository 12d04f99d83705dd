"""uiautomator2's selectors over a UI tree: UiSelector semantics as pure functions.

uiautomator2 sends a selector as JSON (protocols.md §2.4): ``mask`` says which fields count,
``childOrSibling`` / ``childOrSiblingSelector`` chain further selectors. The jar turns it into
an ``androidx.test.uiautomator.UiSelector``; this module re-implements what ``QueryController``
then does, over ``list[UINode]``:

* every masked field must match; ``*Matches`` are Java ``Pattern.matches`` (full match, DOTALL),
  approximated with Python's :func:`re.fullmatch`; a node without text / description /
  resource id never matches a text / description / resource-id criterion (Java's ``null``);
* the search is depth-first in document order over every window root (the jar's BySelector
  path sees all windows), skipping nodes not visible to the user and their subtrees;
* ``index`` is the node's index among its parent's children (the dump's ``index``);
* ``instance`` counts matches per chain level, as ``UiSelector.matchOrUpdateInstance`` does;
* ``child`` searches the descendants of the previous level's match, ``sibling`` (UiSelector's
  ``fromParent``) the descendants of its parent — the match itself included.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from pydantic import BaseModel, ConfigDict

from bridge.schema import UINode
from device.virtual.errors import JavaException

__all__ = [
    "Bounds",
    "ObjInfo",
    "Step",
    "UiSelector",
    "find",
    "find_all",
    "obj_info",
    "parse_selector",
]

# uiautomator2's Selector masks (uiautomator2/_selector.py); bit -> (field, UiSelector name).
_MASKS: dict[str, tuple[int, str]] = {
    "text": (0x01, "TEXT"),
    "textContains": (0x02, "CONTAINS_TEXT"),
    "textMatches": (0x04, "TEXT_REGEX"),
    "textStartsWith": (0x08, "START_TEXT"),
    "className": (0x10, "CLASS"),
    "classNameMatches": (0x20, "CLASS_REGEX"),
    "description": (0x40, "DESCRIPTION"),
    "descriptionContains": (0x80, "CONTAINS_DESCRIPTION"),
    "descriptionMatches": (0x100, "DESCRIPTION_REGEX"),
    "descriptionStartsWith": (0x200, "START_DESCRIPTION"),
    "checkable": (0x400, "CHECKABLE"),
    "checked": (0x800, "CHECKED"),
    "clickable": (0x1000, "CLICKABLE"),
    "longClickable": (0x2000, "LONG_CLICKABLE"),
    "scrollable": (0x4000, "SCROLLABLE"),
    "enabled": (0x8000, "ENABLED"),
    "focusable": (0x10000, "FOCUSABLE"),
    "focused": (0x20000, "FOCUSED"),
    "selected": (0x40000, "SELECTED"),
    "packageName": (0x80000, "PACKAGE_NAME"),
    "packageNameMatches": (0x100000, "PACKAGE_NAME_REGEX"),
    "resourceId": (0x200000, "RESOURCE_ID"),
    "resourceIdMatches": (0x400000, "RESOURCE_ID_REGEX"),
    "index": (0x800000, "INDEX"),
    "instance": (0x1000000, "INSTANCE"),
}
_STRINGS: dict[str, tuple[str, str]] = {  # selector field -> (UINode field, comparison)
    "text": ("text", "equals"),
    "textContains": ("text", "contains"),
    "textMatches": ("text", "matches"),
    "textStartsWith": ("text", "startswith"),
    "className": ("class_name", "equals"),
    "classNameMatches": ("class_name", "matches"),
    "description": ("content_desc", "equals"),
    "descriptionContains": ("content_desc", "contains"),
    "descriptionMatches": ("content_desc", "matches"),
    "descriptionStartsWith": ("content_desc", "startswith"),
    "packageName": ("package", "equals"),
    "packageNameMatches": ("package", "matches"),
    "resourceId": ("resource_id", "equals"),
    "resourceIdMatches": ("resource_id", "matches"),
}
_FLAGS = {"checkable", "checked", "clickable", "scrollable", "enabled", "focusable", "focused"}
_FLAGS |= {"selected", "longClickable"}
_NODE_FLAG = {name: name for name in _FLAGS} | {"longClickable": "long_clickable"}
_ILLEGAL = "java.lang.IllegalArgumentException"


@dataclass(frozen=True)
class Step:
    """One level of a selector chain: how it relates to the previous level, and its criteria."""

    relation: Literal["self", "child", "sibling"]
    criteria: tuple[tuple[str, object], ...]
    """``(selector field, expected value)``; regexes are compiled :class:`re.Pattern`."""
    instance: int = 0

    def describe(self) -> str:
        """The criteria the way ``UiSelector.toString()`` lists them (``TEXT=OK``)."""
        parts = [f"{_MASKS[key][1]}={_shown(value)}" for key, value in self.criteria]
        return ", ".join(parts + ([f"INSTANCE={self.instance}"] if self.instance else []))


@dataclass(frozen=True)
class UiSelector:
    """A parsed uiautomator2 selector: a flattened chain of :class:`Step` (first is ``self``)."""

    steps: tuple[Step, ...]
    has_instance: bool = False
    """Whether the last level set ``instance`` explicitly (``count`` then answers 0 or 1)."""

    def with_instance(self, instance: int) -> UiSelector:
        """The same chain asking for the ``instance``-th match of its last level."""
        last = replace(self.steps[-1], instance=instance)
        return UiSelector((*self.steps[:-1], last), has_instance=True)

    def describe(self) -> str:
        """``UiSelector[TEXT=OK, CHILD=UiSelector[...]]``, the text of UiObjectNotFoundException."""
        return self._describe_from(0)

    def _describe_from(self, level: int) -> str:
        parts = [self.steps[level].describe()]
        if level + 1 < len(self.steps):
            link = "CHILD" if self.steps[level + 1].relation == "child" else "PARENT"
            parts.append(f"{link}={self._describe_from(level + 1)}")
        return f"UiSelector[{', '.join(part for part in parts if part)}]"


def _shown(value: object) -> str:
    if isinstance(value, re.Pattern):
        return str(value.pattern)
    return str(value).lower() if isinstance(value, bool) else str(value)


# --------------------------------------------------------------------------- parsing


def parse_selector(raw: object) -> UiSelector:
    """Parse uiautomator2's selector JSON; nested chains are flattened as UiSelector does.

    Raises:
        JavaException: ``IllegalArgumentException`` for a malformed selector,
            ``PatternSyntaxException`` for a regex that does not compile.
    """
    steps = _parse_chain(raw, "self")
    last = _as_dict(raw)
    while nested := last.get("childOrSiblingSelector"):
        if not isinstance(nested, list):
            raise JavaException(_ILLEGAL, "childOrSibling and childOrSiblingSelector are lists")
        last = _as_dict(nested[-1])
    has_instance = bool(_mask(last) & _MASKS["instance"][0])
    return UiSelector(tuple(steps), has_instance=has_instance)


def _as_dict(raw: object) -> Mapping[str, object]:
    if not isinstance(raw, dict):
        raise JavaException(_ILLEGAL, f"a selector is a JSON object, not {raw!r:.80}")
    return raw


def _mask(raw: Mapping[str, object]) -> int:
    mask = raw.get("mask", 0)
    if not isinstance(mask, int) or isinstance(mask, bool):
        raise JavaException(_ILLEGAL, f"selector mask {mask!r} is not an integer")
    return mask


def _parse_chain(raw: object, relation: Literal["self", "child", "sibling"]) -> list[Step]:
    data = _as_dict(raw)
    steps = [_parse_step(data, relation)]
    relations = data.get("childOrSibling") or []
    nested = data.get("childOrSiblingSelector") or []
    if not isinstance(relations, list) or not isinstance(nested, list):
        raise JavaException(_ILLEGAL, "childOrSibling and childOrSiblingSelector are lists")
    for kind, sub in zip(relations, nested, strict=False):
        kind = str(kind).lower()
        if kind == "child":
            steps.extend(_parse_chain(sub, "child"))
        elif kind == "sibling":
            steps.extend(_parse_chain(sub, "sibling"))
    return steps


def _parse_step(data: Mapping[str, object], relation: Literal["self", "child", "sibling"]) -> Step:
    mask = _mask(data)
    criteria: list[tuple[str, object]] = []
    instance = 0
    for key, (bit, _) in _MASKS.items():
        if not mask & bit:
            continue
        if key not in data:
            raise JavaException(_ILLEGAL, f"selector mask sets {key} but gives no value")
        value = data[key]
        if key == "instance":
            instance = _integer(key, value)
        elif key == "index":
            criteria.append((key, _integer(key, value)))
        elif key in _FLAGS:
            if not isinstance(value, bool):
                raise JavaException(_ILLEGAL, f"selector {key} must be true or false")
            criteria.append((key, value))
        else:
            criteria.append((key, _string(key, value)))
    return Step(relation, tuple(criteria), instance)


def _integer(key: str, value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise JavaException(_ILLEGAL, f"selector {key} must be a non-negative integer")
    return value


def _string(key: str, value: object) -> object:
    if not isinstance(value, str):
        raise JavaException(_ILLEGAL, f"selector {key} must be a string, not {value!r:.40}")
    if _STRINGS[key][1] != "matches":
        return value
    try:
        return re.compile(value, re.DOTALL)
    except re.error as exc:
        raise JavaException("java.util.regex.PatternSyntaxException", f"{exc}: {value}") from exc


# --------------------------------------------------------------------------- searching


def _compare(actual: str, comparison: str, wanted: object) -> bool:
    if not actual:  # Java's null: no text criterion matches it
        return False
    if isinstance(wanted, re.Pattern):
        return wanted.fullmatch(actual) is not None
    if comparison == "contains":
        return str(wanted) in actual
    if comparison == "startswith":
        return actual.startswith(str(wanted))
    return actual == wanted


def _step_matches(step: Step, node: UINode) -> bool:
    for key, wanted in step.criteria:
        if key == "index":
            ok = node.index == wanted
        elif key in _FLAGS:
            ok = getattr(node, _NODE_FLAG[key]) == wanted
        else:
            attribute, comparison = _STRINGS[key]
            ok = _compare(getattr(node, attribute), comparison, wanted)
        if not ok:
            return False
    return True


class _Search:
    """One ``QueryController.findNodeRegularRecursive`` run, with its per-level counters."""

    def __init__(self, nodes: Sequence[UINode], selector: UiSelector) -> None:
        self.by_id = {node.id: node for node in nodes}
        self.children: dict[int, list[UINode]] = {node.id: [] for node in nodes}
        self.roots = [node for node in nodes if node.parent is None and node.visible]
        for node in nodes:
            if node.parent is not None and node.visible and node.parent in self.children:
                self.children[node.parent].append(node)
        self.steps = selector.steps
        self.counts = [0] * len(self.steps)

    def run(self) -> UINode | None:
        for root in self.roots:
            found = self._visit(0, root)
            if found is not None:
                return found
        return None

    def _matched(self, level: int, node: UINode) -> bool:
        step = self.steps[level]
        if not _step_matches(step, node):
            return False
        if self.counts[level] == step.instance:
            return True
        self.counts[level] += 1
        return False

    def _visit(self, level: int, node: UINode) -> UINode | None:
        scope = node
        if self._matched(level, node):
            if level == len(self.steps) - 1:
                return node
            level += 1
            if self.steps[level].relation == "sibling":
                parent = None if node.parent is None else self.by_id.get(node.parent)
                if parent is None:
                    return None
                scope = parent
        for child in self.children[scope.id]:
            found = self._visit(level, child)
            if found is not None:
                return found
        return None


def find(nodes: Sequence[UINode], selector: UiSelector) -> UINode | None:
    """The node ``UiDevice.findObject(selector)`` would resolve to, or None."""
    return _Search(nodes, selector).run()


def find_all(nodes: Sequence[UINode], selector: UiSelector) -> list[UINode]:
    """Every instance of the selector, as the jar's ``count`` / ``objInfoOfAllInstances`` see them.

    With ``instance`` set on the last level that is the one match (or none); otherwise the
    matches for instance 0, 1, 2, … of the last level until one is missing.
    """
    if selector.has_instance:
        found = find(nodes, selector)
        return [] if found is None else [found]
    matches: list[UINode] = []
    for instance in range(len(nodes)):
        found = find(nodes, selector.with_instance(instance))
        if found is None:
            break
        matches.append(found)
    return matches


# --------------------------------------------------------------------------- results


class Bounds(BaseModel):
    """A rectangle as the jar's ObjInfo serialises ``Rect`` (Jackson getters)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    top: int
    bottom: int
    left: int
    right: int


class ObjInfo(BaseModel):
    """The jar's ``ObjInfo`` (protocols.md §2.4); field names are the JSON keys."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    bounds: Bounds
    visibleBounds: Bounds
    childCount: int
    className: str
    contentDescription: str | None
    packageName: str
    text: str
    checkable: bool
    checked: bool
    clickable: bool
    enabled: bool
    focusable: bool
    focused: bool
    longClickable: bool
    scrollable: bool
    selected: bool
    resourceName: str | None


def _rect(box: tuple[int, int, int, int]) -> Bounds:
    left, top, right, bottom = box
    return Bounds(top=top, bottom=bottom, left=left, right=right)


def _intersect(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, int, int, int]:
    return (max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3]))


def _visible_box(node: UINode, by_id: Mapping[int, UINode], screen: tuple[int, int]) -> Bounds:
    """Bounds clipped to the screen and to every scrollable ancestor (``getVisibleBounds``)."""
    box = _intersect(node.bounds_px, (0, 0, *screen))
    parent = node.parent
    while parent is not None and parent in by_id:
        ancestor = by_id[parent]
        if ancestor.scrollable:
            box = _intersect(box, ancestor.bounds_px)
        parent = ancestor.parent
    left, top, right, bottom = box
    return _rect((left, top, max(left, right), max(top, bottom)))


def obj_info(node: UINode, nodes: Sequence[UINode], screen: tuple[int, int]) -> ObjInfo:
    """The ObjInfo of ``node`` in ``nodes`` on a ``(width, height)`` screen."""
    by_id = {n.id: n for n in nodes}
    return ObjInfo(
        bounds=_rect(node.bounds_px),
        visibleBounds=_visible_box(node, by_id, screen),
        childCount=sum(1 for n in nodes if n.parent == node.id),
        className=node.class_name,
        contentDescription=node.content_desc or None,
        packageName=node.package,
        text=node.text,
        checkable=node.checkable,
        checked=node.checked,
        clickable=node.clickable,
        enabled=node.enabled,
        focusable=node.focusable,
        focused=node.focused,
        longClickable=node.long_clickable,
        scrollable=node.scrollable,
        selected=node.selected,
        resourceName=node.resource_id or None,
    )
