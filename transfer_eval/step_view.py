"""One step as the episode page and the replay page both show it.

The marks of what the step did on its frame (a ring where it touched, two rings for a double
tap, a larger dot for a long press, an arrow for a swipe or scroll), each drawn twice — a
dark stroke under a light one — so it stands out on a red icon and on a white page alike;
the action in words (:func:`bridge.action_text.describe_action`, its contract JSON on hover);
the thought; the model's raw reply (escaped, line breaks kept, folded when long); any error.
"""

from __future__ import annotations

import html
import math

from bridge.action_text import describe_action
from bridge.schema import PolicyOutput, StepRecord

__all__ = ["MARK_DARK", "MARK_LIGHT", "action_html", "action_overlay", "raw_reply", "step_words"]

MARK_DARK, MARK_LIGHT = "#111111", "#ffffff"
"""The two strokes of every mark: a dark one under a light one."""
_RING, _HALO, _CORE, _DOT = 64, 36, 16, 16
"""Ring radius, dark and light stroke widths, dot radius — on a 1080-pixel-wide screen."""
_LONG_REPLY_LINES, _LONG_REPLY_CHARS = 8, 600
"""A raw reply longer than this starts folded."""


def _circle(x: float, y: float, radius: float, unit: float) -> str:
    return "".join(
        f'<circle cx="{x:.0f}" cy="{y:.0f}" r="{radius * unit:.0f}" fill="none" '
        f'stroke="{colour}" stroke-width="{width * unit:.1f}"/>'
        for colour, width in ((MARK_DARK, _HALO), (MARK_LIGHT, _CORE))
    )


def _dot(x: float, y: float, radius: float, unit: float) -> str:
    return (
        f'<circle cx="{x:.0f}" cy="{y:.0f}" r="{radius * unit:.0f}" fill="{MARK_LIGHT}" '
        f'stroke="{MARK_DARK}" stroke-width="{_HALO * unit / 3:.1f}"/>'
    )


def _arrow(start: tuple[float, float], end: tuple[float, float], unit: float) -> str:
    """A shaft from ``start`` to a head at ``end``, dark under light like the rings."""
    (x, y), (ex, ey) = start, end
    length = math.hypot(ex - x, ey - y)
    if length < 1:
        return ""
    ux, uy = (ex - x) / length, (ey - y) / length
    head, half = min(80 * unit, 0.6 * length), 46 * unit
    bx, by = ex - ux * head, ey - uy * head
    shaft = "".join(
        f'<line x1="{x:.0f}" y1="{y:.0f}" x2="{bx:.0f}" y2="{by:.0f}" stroke="{colour}" '
        f'stroke-width="{width * unit:.1f}" stroke-linecap="round"/>'
        for colour, width in ((MARK_DARK, _HALO), (MARK_LIGHT, _CORE))
    )
    corners = [(ex, ey), (bx - uy * half, by + ux * half), (bx + uy * half, by - ux * half)]
    points = " ".join(f"{px:.0f},{py:.0f}" for px, py in corners)
    return shaft + (
        f'<polygon points="{points}" fill="{MARK_LIGHT}" stroke="{MARK_DARK}" '
        f'stroke-width="{_HALO * unit / 3:.1f}" stroke-linejoin="round"/>'
    )


def action_overlay(step: StepRecord) -> str:
    """SVG marks of what the step did, in the screen's pixels (the SVG is scaled with the
    frame): a ring and a dot where it touched, an arrow from where a stroke began to where
    it ended. Empty when the step touched no point (a key, an app, an invalid step)."""
    result = step.result
    if result is None or result.executed is None or result.executed.point_px is None:
        return ""
    executed, screen = result.executed, step.observation.screen
    unit = screen.width_px / 1080
    x, y = executed.point_px
    if executed.end_point_px is not None:
        marks = _arrow((x, y), executed.end_point_px, unit) + _dot(x, y, _DOT, unit)
    else:
        kind = executed.action.type
        marks = _circle(x, y, _RING, unit)
        if kind == "double_tap":
            marks += _circle(x, y, _RING * 0.55, unit)
        marks += _dot(x, y, _DOT * (1.6 if kind == "long_press" else 1), unit)
    return (
        f'<svg class="marks" viewBox="0 0 {screen.width_px} {screen.height_px}" '
        f'data-kind="{executed.action.type}">{marks}</svg>'
    )


def action_html(output: PolicyOutput, step: StepRecord, tag: str = "div") -> str:
    """``output``'s action in words as an element ``tag`` of class ``action`` (its contract
    JSON in the tooltip), named on the tree of ``step``'s observation."""
    action = output.action
    if action is None:
        return f"<{tag} class='action invalid'>no action (invalid output)</{tag}>"
    executed = step.result.executed if step.result else None
    text = describe_action(action, step.observation, executed)
    contract = html.escape(action.model_dump_json(exclude_none=True), quote=True)
    return f"<{tag} class='action' title=\"{contract}\">{html.escape(text)}</{tag}>"


def raw_reply(output: PolicyOutput, source: str) -> str:
    """The model's raw reply, escaped with its line breaks, in a box that folds (folded from
    the start when long); a one-line note when there is none (``source`` says why: a
    scripted policy, a person)."""
    raw = output.raw_text
    if raw is None:
        return f"<div class='raw none'>no raw reply ({html.escape(source)})</div>"
    if not raw.strip():
        return "<div class='raw none'>the raw reply was empty</div>"
    lines = raw.count("\n") + 1
    long = lines > _LONG_REPLY_LINES or len(raw) > _LONG_REPLY_CHARS
    summary = f"raw reply · {lines} lines, {len(raw)} characters" if long else "raw reply"
    return (
        f"<details class='raw'{'' if long else ' open'}><summary>{summary}</summary>"
        f"<pre>{html.escape(raw)}</pre></details>"
    )


def _source(step: StepRecord, policy: str) -> str:
    """Who decided the step, for the note that it has no raw reply."""
    if step.decided_by in ("override", "human"):
        return "a person's action"
    return f"{policy} policy"


def step_words(step: StepRecord, policy: str) -> str:
    """The words under a step's frame: its action as a person reads it, the thought, the
    raw reply of ``policy`` (the episode's policy spec), and the step's error if any."""
    output = step.output
    error = output.error or (step.result.error if step.result else None)
    thought = (
        f"<div class='thought'><span class='what'>thought</span> {html.escape(output.thought)}"
        "</div>"
        if output.thought
        else ""
    )
    return (
        action_html(output, step)
        + thought
        + raw_reply(output, _source(step, policy))
        + (f"<div class='error'>{html.escape(error)}</div>" if error else "")
    )
