"""One step as the episode page and the replay page both show it, as data for the macros of
``templates/step.html``.

The marks of what the step did on its frame (a ring where it touched, two rings for a double
tap, a larger dot for a long press, an arrow for a swipe or scroll), each drawn twice — a
dark stroke under a light one — so it stands out on a red icon and on a white page alike;
the action in words (:func:`bridge.action_text.describe_action`, its contract JSON on hover);
the thought; the model's raw reply (escaped, line breaks kept, folded when long); any error.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from bridge.action_text import describe_action
from bridge.records import StepRecord
from bridge.schema import PolicyOutput

__all__ = [
    "MARK_DARK",
    "MARK_LIGHT",
    "ActionView",
    "Marks",
    "RawReply",
    "Shape",
    "StepWords",
    "action_overlay",
    "action_view",
    "raw_reply",
    "step_words",
]

MARK_DARK, MARK_LIGHT = "#111111", "#ffffff"
"""The two strokes of every mark: a dark one under a light one."""
_RING, _HALO, _CORE, _DOT = 64, 36, 16, 16
"""Ring radius, dark and light stroke widths, dot radius — on a 1080-pixel-wide screen."""
_LONG_REPLY_LINES, _LONG_REPLY_CHARS = 8, 600
"""A raw reply longer than this starts folded."""


@dataclass(frozen=True)
class Shape:
    """One SVG element of a mark: a ``circle`` (``points``: its centre; ``radius``), a
    ``line`` (its two ends) or a ``polygon`` (its corners)."""

    kind: Literal["circle", "line", "polygon"]
    points: tuple[tuple[float, float], ...]
    fill: str
    stroke: str
    width: float
    radius: float = 0.0


@dataclass(frozen=True)
class Marks:
    """The marks of one step, in the screen's pixels (``width`` × ``height``)."""

    width: int
    height: int
    kind: str
    """The executed action's type (``data-kind``)."""
    shapes: tuple[Shape, ...]


@dataclass(frozen=True)
class ActionView:
    """An action in words (``text``; None for an output without an action) and its contract
    JSON for the tooltip."""

    text: str | None
    contract: str = ""


@dataclass(frozen=True)
class RawReply:
    """The model's raw reply as shown: ``text`` (None: there is none, ``source`` says why)."""

    text: str | None
    source: str
    lines: int = 0
    long: bool = False
    """Starts folded."""


@dataclass(frozen=True)
class StepWords:
    """The words under a step's frame."""

    action: ActionView
    thought: str | None
    raw: RawReply
    error: str | None


def _circle(x: float, y: float, radius: float, unit: float) -> list[Shape]:
    return [
        Shape("circle", ((x, y),), "none", colour, width * unit, radius * unit)
        for colour, width in ((MARK_DARK, _HALO), (MARK_LIGHT, _CORE))
    ]


def _dot(x: float, y: float, radius: float, unit: float) -> Shape:
    return Shape("circle", ((x, y),), MARK_LIGHT, MARK_DARK, _HALO * unit / 3, radius * unit)


def _arrow(start: tuple[float, float], end: tuple[float, float], unit: float) -> list[Shape]:
    """A shaft from ``start`` to a head at ``end``, dark under light like the rings."""
    (x, y), (ex, ey) = start, end
    length = math.hypot(ex - x, ey - y)
    if length < 1:
        return []
    ux, uy = (ex - x) / length, (ey - y) / length
    head, half = min(80 * unit, 0.6 * length), 46 * unit
    bx, by = ex - ux * head, ey - uy * head
    shaft = [
        Shape("line", ((x, y), (bx, by)), "none", colour, width * unit)
        for colour, width in ((MARK_DARK, _HALO), (MARK_LIGHT, _CORE))
    ]
    corners = ((ex, ey), (bx - uy * half, by + ux * half), (bx + uy * half, by - ux * half))
    return [*shaft, Shape("polygon", corners, MARK_LIGHT, MARK_DARK, _HALO * unit / 3)]


def action_overlay(step: StepRecord) -> Marks | None:
    """The marks of what the step did, in the screen's pixels (the SVG is scaled with the
    frame): a ring and a dot where it touched, an arrow from where a stroke began to where
    it ended. None when the step touched no point (a key, an app, an invalid step)."""
    executed = step.result.executed if step.result is not None else None
    if executed is None or executed.point_px is None:
        return None
    screen = step.observation.screen
    unit = screen.width_px / 1080
    x, y = executed.point_px
    kind = executed.action.type
    if executed.end_point_px is not None:
        shapes = [*_arrow((x, y), executed.end_point_px, unit), _dot(x, y, _DOT, unit)]
    else:
        shapes = _circle(x, y, _RING, unit)
        if kind == "double_tap":
            shapes += _circle(x, y, _RING * 0.55, unit)
        shapes.append(_dot(x, y, _DOT * (1.6 if kind == "long_press" else 1), unit))
    return Marks(screen.width_px, screen.height_px, kind, tuple(shapes))


def action_view(output: PolicyOutput, step: StepRecord) -> ActionView:
    """``output``'s action in words, named on the tree of ``step``'s observation."""
    action = output.action
    if action is None:
        return ActionView(None)
    executed = step.result.executed if step.result else None
    text = describe_action(action, step.observation, executed)
    return ActionView(text, action.model_dump_json(exclude_none=True))


def raw_reply(output: PolicyOutput, source: str) -> RawReply:
    """The model's raw reply, folded from the start when long (``source``: why there may be
    none, e.g. a scripted policy, a person)."""
    raw = output.raw_text
    if raw is None or not raw.strip():
        return RawReply(raw, source)
    lines = raw.count("\n") + 1
    long = lines > _LONG_REPLY_LINES or len(raw) > _LONG_REPLY_CHARS
    return RawReply(raw, source, lines, long)


def _source(step: StepRecord, policy: str) -> str:
    """Who decided the step, for the note that it has no raw reply."""
    if step.decided_by in ("override", "human"):
        return "a person's action"
    return f"{policy} policy"


def step_words(step: StepRecord, policy: str) -> StepWords:
    """The words under a step's frame: its action as a person reads it, the thought, the
    raw reply of ``policy`` (the episode's policy spec), and the step's error if any."""
    output = step.output
    error = output.error or (step.result.error if step.result else None)
    return StepWords(
        action_view(output, step),
        output.thought or None,
        raw_reply(output, _source(step, policy)),
        error or None,
    )
