"""The generic adapter: any chat model answering in *our* schema.

The model replies with one JSON object, ``{"thought": "...", "action": <Action>}``, where the
action is exactly the contract's (``bridge.actions``): the prompt carries the Action JSON
Schema, the task's answer fields, the steps so far, the last action's error, and the compact
UI tree (:func:`bridge.uitree.render_text`), so a text-only model can act on element ids and a
vision model on normalized points. Nothing is converted: points are already normalized.

Reading is lenient about packaging only — ``<think>`` blocks, special tokens, code fences,
full-width JSON punctuation and text around the object are ignored, the **final** object
counts (objects quoted earlier in the prose do not), and a bare action object is accepted —
and strict about content: two action objects in a row or an action list are "several
actions", a reply cut inside the object is refused, and the action is validated by
:func:`bridge.actions.parse_action`, whose validation error is the
invalid step's reason (e.g. ``tap.target.point.x: Input should be less than or equal to 1``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import cache

from pydantic import TypeAdapter

from bridge.actions import Action, parse_action
from bridge.schema import Observation, PolicyContext, UIStatus
from bridge.uitree import render_text
from policies.vlm.adapter import Adapter, HistoryStep, ParsedOutput, describe_error, screenshot_url
from policies.vlm.errors import ActionError
from policies.vlm.messages import ChatMessage, system, user
from policies.vlm.reply_text import (
    SEVERAL_ACTIONS,
    clean_reply,
    fold,
    fold_syntax,
    json_spans,
    split_thinking,
)

__all__ = ["GenericAdapter", "action_schema"]

PARSER_VERSION = "2026-12-02"
"""Bump when this adapter reads replies differently: it is in every run's harness
fingerprint, and a resumed run must parse as it began."""

_SYSTEM = """You operate an Android phone to complete a task. At each step you see the \
screen (a screenshot, a list of UI elements, or both) and reply with exactly one JSON \
object and nothing else:
{{"thought": "<one or two sentences of reasoning>", "action": <one action>}}

The action is one of the objects described by this JSON Schema; its "type" selects which:
{schema}

Targets: {{"element": ID}} with an id from the UI element list (best when the element is \
listed), or {{"point": {{"x": X, "y": Y}}}} with X and Y as fractions of the screen's width \
and height (0,0 is the top-left corner, 1,1 the bottom-right one).
"scroll" direction names where the content you want is ("down" shows what is below); \
"swipe" is a literal finger movement; "type" presses Enter only with "submit": true.
End with {{"type": "finish", "status": "success"}} when the task is done, or status \
"infeasible" when it cannot be done. When the task asks a question, reply with \
{{"type": "answer", "fields": {{...}}}} using the answer field names given."""


@cache
def action_schema() -> str:
    """The contract's Action JSON Schema, compact."""
    return json.dumps(TypeAdapter(Action).json_schema(), separators=(",", ":"))


class GenericAdapter(Adapter):
    """Our own JSON action format, for any instruction-following model."""

    name = "generic"
    needs_image = False

    def __init__(
        self, include_image: bool = True, include_tree: bool = True, max_text: int = 60
    ) -> None:
        self.include_image, self.include_tree, self.max_text = include_image, include_tree, max_text

    def build_messages(
        self,
        instruction: str,
        context: PolicyContext,
        observation: Observation,
        history: Sequence[HistoryStep],
    ) -> list[ChatMessage]:
        """System: format and schema; user: task, history, screen state, tree, screenshot."""
        parts = [
            f"Task: {instruction}",
            _answer_fields(context),
            _history(history),
            _screen(observation),
        ]
        if self.include_tree:
            parts.append(self._tree(observation))
        text = "\n\n".join(part for part in parts if part)
        image = screenshot_url(observation) if self.include_image else None
        return [system(_SYSTEM.format(schema=action_schema())), user(text, image)]

    def _tree(self, observation: Observation) -> str:
        if observation.ui_status is not UIStatus.OK:
            return f"UI elements: not available ({observation.ui_status.value})."
        tree = render_text(observation.ui, self.max_text)
        return "UI elements ([id] class #resource-id text flags @(centre x,y in pixels)):\n" + (
            tree or "(none)"
        )

    def parse(
        self, raw_text: str, observation: Observation, context: PolicyContext | None = None
    ) -> ParsedOutput:
        """Validate the reply's action against the contract."""
        try:
            reply = _json_object(raw_text)
        except ActionError as exc:
            return ParsedOutput.invalid(str(exc))
        said = reply.get("thought")
        thought = said if isinstance(said, str) else None
        if "action" not in reply and "type" not in reply:
            return ParsedOutput.invalid(
                'the JSON object has no "action"; reply with {"thought": ..., "action": {...}}'
            )
        data = reply.get("action", reply)
        try:
            action = parse_action(data)
        except ValueError as exc:
            return ParsedOutput.invalid(describe_error(exc), thought)
        return ParsedOutput(
            action=action, thought=thought, summary=json.dumps(data, ensure_ascii=False)
        )


def _json_object(text: str) -> dict[str, object]:
    """The reply's final JSON object: special tokens, fences and ``<think>`` blocks set
    aside; objects quoted earlier in prose do not count, but two action objects in a row
    (or an array of them) are several actions; a reply cut inside the object is refused."""
    thinking = split_thinking(clean_reply(text), ("think",))
    if thinking.unclosed:
        raise ActionError("the reply ends inside <think> (cut off?); no JSON object follows")
    body = thinking.rest
    spans = json_spans(body)
    if not spans:
        raise ActionError(
            'no JSON object in the output; reply with {"thought": ..., "action": {...}}'
        )
    last = spans[-1]
    if not last.complete:
        raise ActionError("the reply ends inside its JSON object (cut off?)")
    value = _decode(body[last.start : last.end])
    if not isinstance(value, dict):
        raise ActionError("the reply's JSON is not an object")
    for earlier in reversed(spans[:-1]):
        gap = body[earlier.end : last.start].strip(" \t\r\n,[]")
        if gap:
            break
        try:
            previous = _decode(body[earlier.start : earlier.end])
        except ActionError:
            break
        if isinstance(previous, dict) and ("action" in previous or "type" in previous):
            raise ActionError(f"{SEVERAL_ACTIONS}: reply with one JSON object")
        last = earlier
    if isinstance(value.get("action"), list):
        raise ActionError(f'{SEVERAL_ACTIONS}: "action" is a list; give one action')
    return _fold_enums(value)


def _decode(text: str) -> object:
    """JSON as written, else with full-width syntax folded outside strings."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        try:
            return json.loads(fold_syntax(text, quotes='"'))
        except json.JSONDecodeError:
            raise ActionError(f"the reply is not valid JSON ({exc})") from exc


_ENUM_KEYS = frozenset({"type", "direction", "key", "status"})


def _fold_enums(value: dict[str, object]) -> dict[str, object]:
    """Full-width forms of enumerated values (``"ｔａｐ"``) as ASCII; text is left alone."""
    folded: dict[str, object] = {}
    for key, item in value.items():
        if isinstance(item, dict):
            item = _fold_enums(item)
        elif key in _ENUM_KEYS and isinstance(item, str):
            item = fold(item).strip()
        folded[key] = item
    return folded


def _answer_fields(context: PolicyContext) -> str:
    if not context.answer_fields:
        return ""
    lines = [
        f"- {f.name} ({f.kind}{': ' + ', '.join(f.choices) if f.choices else ''})"
        + (f" {f.label}" if f.label else "")
        for f in context.answer_fields
    ]
    return "Answer fields:\n" + "\n".join(lines)


def _history(history: Sequence[HistoryStep]) -> str:
    lines = [
        f"{i}. " + (step.parsed.summary or "")
        if step.parsed.action is not None
        else f"{i}. invalid output: {step.parsed.error}"
        for i, step in enumerate(history, 1)
    ]
    return "Previous steps:\n" + ("\n".join(lines) if lines else "none yet")


def _screen(observation: Observation) -> str:
    app = observation.foreground.app or observation.foreground.package or "unknown"
    screen = observation.screen
    lines = [
        f"Foreground app: {app}; keyboard visible: "
        f"{'yes' if observation.keyboard_visible else 'no'}; screen "
        f"{screen.width_px}x{screen.height_px} px."
    ]
    if observation.last_action_error:
        lines.append(f"Last action error: {observation.last_action_error}")
    return "\n".join(lines)
