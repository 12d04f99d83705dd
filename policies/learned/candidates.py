"""The actions the learned policy chooses among, built from the observation alone.

A phone gives the same observation, so the same candidates exist on hardware: a tap on
every actionable node, the two ends of every slider, typing a value from the instruction
into editable fields, scrolling the largest list, ``back``, ``home``, opening each app the
policy knows, answering (query tasks) and finishing. Each candidate carries the bridge
:class:`~bridge.actions.Action` it stands for and what it was built from (the node, the
value), which is what the features look at.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from bridge.actions import (
    Action,
    AnswerAction,
    AnswerValue,
    FinishAction,
    KeyAction,
    OpenAppAction,
    ScrollAction,
    TapAction,
    Target,
    TypeAction,
)
from bridge.app_catalog import app_catalog
from bridge.schema import AnswerField, Observation, UINode
from policies.learned.text import instruction_values

__all__ = [
    "KINDS",
    "AnswerChoice",
    "Candidate",
    "actionable_nodes",
    "answer_candidates",
    "build_candidates",
    "trained_app_ids",
]

KINDS: tuple[str, ...] = ("tap", "slide", "type", "scroll", "key", "open_app", "answer", "finish")
"""Candidate kinds, in the order of the kind one-hot of the features."""


def trained_app_ids() -> tuple[str, ...]:
    """The apps an ``open_app`` candidate may name by default: the simulator's
    (``bridge/apps.json``), which is what the policy trains on."""
    return tuple(app_catalog().simulated())


"""App ids the policy can open by default."""

_SLIDER = re.compile(r"(SeekBar|Slider|RatingBar)$")
_TOGGLE = re.compile(r"(Switch|CheckBox|RadioButton|ToggleButton|CompoundButton)$")
_NAV_KEYS = frozenset({"back", "home", "recent_apps"})
_NUMBER = re.compile(r"\s*([-+]?\d+(?:\.\d+)?)\s*([^\d\s]{0,6})\s*")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}|\d{1,2}/\d{1,2}/\d{2,4}")
_TIME = re.compile(r"\d{1,2}:\d{2}")
_MAX_TEXT = 60
_MAX_VALUES = 24
_MAX_TYPE_FIELDS = 3


@dataclass(frozen=True)
class AnswerChoice:
    """One field's value in an answer candidate and the node it was read from (if any)."""

    field: AnswerField
    value: AnswerValue
    node: UINode | None = None


@dataclass(frozen=True)
class Candidate:
    """One action the policy may take, with what it was built from.

    ``detail`` names the variant: the scroll direction, the key, the app id, the typed text,
    ``min``/``max`` for a slider.
    """

    kind: str
    action: Action
    node: UINode | None = None
    detail: str = ""
    answers: tuple[AnswerChoice, ...] = field(default=())

    @property
    def signature(self) -> str:
        """What makes two candidates on different screens "the same move" (for history)."""
        node = self.node
        where = f"{node.resource_id}|{node.text}|{node.content_desc}" if node else ""
        values = ",".join(str(choice.value) for choice in self.answers)
        return f"{self.kind}:{self.detail}:{where}:{values}"


def _usable(node: UINode) -> bool:
    return node.visible and node.enabled and node.area_px > 0


def _contains(outer: tuple[int, ...], inner: tuple[int, ...]) -> bool:
    return (
        outer[0] <= inner[0]
        and outer[1] <= inner[1]
        and outer[2] >= inner[2]
        and (outer[3] >= inner[3])
    )


def _is_nav_key(node: UINode) -> bool:
    return node.resource_id.rpartition("/")[2] in _NAV_KEYS and "systemui" in node.package


def _is_ime_key(observation: Observation, node: UINode) -> bool:
    """A key of the on-screen keyboard: the policy types whole values with ``type``."""
    return observation.keyboard_visible and "input" in node.package


def actionable_nodes(observation: Observation) -> list[UINode]:
    """Visible, enabled, non-empty nodes a tap could act on, nested duplicates removed.

    A node is dropped when an actionable ancestor has the same bounds (one target, two
    names), and a switch, check box or radio button inside an actionable row is dropped
    too (tapping the row toggles it). System navigation buttons are left to the ``back``
    and ``home`` key candidates, and keyboard keys (a visible keyboard's nodes from an
    input-method package) to the ``type`` candidates.
    """
    ui = observation.ui
    kept: list[UINode] = []
    actionable: set[int] = set()
    for node in ui:
        if not (_usable(node) and (node.clickable or node.checkable or node.editable)):
            continue
        actionable.add(node.id)
        if _is_nav_key(node) or _is_ime_key(observation, node) or _covered(node, ui, actionable):
            continue
        kept.append(node)
    return kept


def _covered(node: UINode, ui: Sequence[UINode], actionable: set[int]) -> bool:
    parent = node.parent
    while parent is not None:
        above = ui[parent]
        if parent in actionable and _contains(above.bounds_px, node.bounds_px):
            same = above.bounds_px == node.bounds_px
            toggle = node.checkable and _TOGGLE.search(node.class_name) is not None
            if same or (toggle and not node.editable):
                return True
        parent = above.parent
    return False


def _point(observation: Observation, x_px: float, y_px: float) -> Target:
    screen = observation.screen
    x = min(max(x_px / screen.width_px, 0.0), 1.0)
    y = min(max(y_px / screen.height_px, 0.0), 1.0)
    return Target.at(x, y)


def _slider_candidates(observation: Observation, node: UINode) -> list[Candidate]:
    left, top, right, bottom = node.bounds_px
    y = (top + bottom) / 2.0
    ends = {"min": left + 1.0, "max": right - 1.0}
    return [
        Candidate("slide", TapAction(target=_point(observation, x, y)), node, end)
        for end, x in ends.items()
    ]


def _type_candidates(nodes: Sequence[UINode], instruction: str) -> list[Candidate]:
    fields = sorted((n for n in nodes if n.editable), key=lambda n: not n.focused)
    found: list[Candidate] = []
    for node, text in itertools.product(fields[:_MAX_TYPE_FIELDS], instruction_values(instruction)):
        action = TypeAction(text=text, target=Target.node(node.id), clear=True)
        found.append(Candidate("type", action, node, text))
    return found


def _scroll_candidates(observation: Observation) -> list[Candidate]:
    lists = [n for n in observation.ui if n.scrollable and _usable(n)]
    largest = max(lists, key=lambda n: n.area_px, default=None)
    if largest is None:
        return []
    return [
        Candidate("scroll", ScrollAction(direction=d, target=Target.node(largest.id)), largest, d)
        for d in ("down", "up")
    ]


def _read_value(kind: str, text: str) -> AnswerValue | None:
    """The typed value a visible text gives for a field kind, or None when it gives none."""
    text = " ".join(text.split())
    if not text or len(text) > _MAX_TEXT:
        return None
    if kind == "number":
        match = _NUMBER.fullmatch(text)
        if match is None:
            return None
        number = float(match.group(1))
        return int(number) if number.is_integer() else number
    if kind == "date":
        return text if _DATE.search(text) else None
    if kind == "time":
        return text if _TIME.search(text) else None
    return text


def _field_values(observation: Observation, answer_field: AnswerField) -> list[AnswerChoice]:
    if answer_field.kind == "choice":
        return [AnswerChoice(answer_field, choice) for choice in answer_field.choices or ()]
    found: list[AnswerChoice] = []
    seen: set[AnswerValue] = set()
    for node in observation.ui:
        if not (_usable(node) and node.text) or node.editable or "systemui" in node.package:
            continue  # the status bar's clock and battery are not app content
        value = _read_value(answer_field.kind, node.text)
        if value is not None and value not in seen:
            seen.add(value)
            found.append(AnswerChoice(answer_field, value, node))
    return found[:_MAX_VALUES]


def answer_candidates(observation: Observation, fields: Sequence[AnswerField]) -> list[Candidate]:
    """Answers built from visible texts that fit each field's kind (numbers for ``number``
    fields, dates, times, any text); several fields combine, at most 24 answers."""
    if not fields:
        return []
    per_field = [_field_values(observation, answer_field) for answer_field in fields]
    combos = itertools.islice(itertools.product(*per_field), _MAX_VALUES)
    found: list[Candidate] = []
    for combo in combos:
        action = AnswerAction(fields={choice.field.name: choice.value for choice in combo})
        found.append(Candidate("answer", action, combo[0].node, answers=tuple(combo)))
    return found


def build_candidates(
    observation: Observation,
    instruction: str,
    answer_fields: Sequence[AnswerField] = (),
    apps: Sequence[str] | None = None,
) -> list[Candidate]:
    """Every candidate action for this observation, in a deterministic order.

    The list is never empty: ``finish`` is always last.
    """
    apps = trained_app_ids() if apps is None else apps
    nodes = actionable_nodes(observation)
    found: list[Candidate] = []
    for node in nodes:
        if _SLIDER.search(node.class_name):
            found.extend(_slider_candidates(observation, node))
        else:
            found.append(Candidate("tap", TapAction(target=Target.node(node.id)), node))
    found.extend(_type_candidates(nodes, instruction))
    found.extend(_scroll_candidates(observation))
    found.extend(Candidate("key", KeyAction(key=k), detail=k) for k in ("back", "home"))
    found.extend(Candidate("open_app", OpenAppAction(app=a), detail=a) for a in apps)
    found.extend(answer_candidates(observation, answer_fields))
    found.append(Candidate("finish", FinishAction(status="success"), detail="success"))
    return found
