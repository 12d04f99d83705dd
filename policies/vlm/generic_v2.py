"""The ``generic_v2`` adapter: reasoning in ``<think>``, the action as JSON in ``<answer>``.

MobileGym's RL recipe trains and evaluates with this packaging (``--agent generic_v2``): the
model thinks inside ``<think>…</think>`` and commits to one action inside
``<answer>…</answer>``. The action JSON here is the contract's (``bridge.actions``, the same
schema, task text, history, screen facts and UI tree as :mod:`policies.vlm.generic`), so
points are normalized fractions and nothing is converted; a model trained on another JSON
vocabulary needs its own adapter.

Reading is strict about packaging, unlike ``generic``: the action is the last complete
``<answer>`` block (JSON quoted in the thought is never taken), a reply without one — or with
an ``<answer>`` that is not closed, a truncated reply — is an invalid step, and the JSON is
validated by :func:`bridge.actions.parse_action` (a validation error is the step's reason).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from bridge.actions import parse_action
from bridge.schema import Observation, PolicyContext
from policies.vlm.adapter import HistoryStep, ParsedOutput, describe_error
from policies.vlm.errors import ActionError
from policies.vlm.generic import GenericAdapter, action_schema
from policies.vlm.messages import ChatMessage, system
from policies.vlm.tagged_reply import blocks, committed_block, outside_thought, read_json

__all__ = ["GenericV2Adapter"]

PARSER_VERSION = "2026-12-02"
"""Bump when this adapter reads replies differently: it is in every run's harness
fingerprint, and a resumed run must parse as it began."""

_SYSTEM = """You operate an Android phone to complete a task. At each step you see the \
screen (a screenshot, a list of UI elements, or both). Think first, then commit to exactly \
one action, in this format and nothing else:
<think>your reasoning</think>
<answer>{{"action": <one action>}}</answer>

The action is one of the objects described by this JSON Schema; its "type" selects which:
{schema}

Targets: {{"element": ID}} with an id from the UI element list, or \
{{"point": {{"x": X, "y": Y}}}} with X and Y as fractions of the screen's width and height \
(0,0 top-left, 1,1 bottom-right). "scroll" direction names where the content you want is \
("down" shows what is below); "swipe" is a literal finger movement; "type" presses Enter only \
with "submit": true. Finish with {{"type": "finish", "status": "success"}} when the task is \
done ("infeasible" when it cannot be done); answer a question with \
{{"type": "answer", "fields": {{...}}}} using the answer field names given."""


class GenericV2Adapter(GenericAdapter):
    """Our action JSON inside ``<think>…</think><answer>…</answer>`` (MobileGym's RL format)."""

    name = "generic_v2"

    def build_messages(
        self,
        instruction: str,
        context: PolicyContext,
        observation: Observation,
        history: Sequence[HistoryStep],
    ) -> list[ChatMessage]:
        """``generic``'s user turn under a system prompt asking for think/answer blocks."""
        messages = super().build_messages(instruction, context, observation, history)
        return [system(_SYSTEM.format(schema=action_schema())), *messages[1:]]

    def parse(
        self, raw_text: str, observation: Observation, context: PolicyContext | None = None
    ) -> ParsedOutput:
        """Validate the action of the last complete ``<answer>`` block."""
        thought = "\n".join(blocks(raw_text, "think")) or None
        try:
            answer = committed_block(outside_thought(raw_text, "think"), "answer")
            reply = read_json(answer)
        except ActionError as exc:
            return ParsedOutput.invalid(str(exc), thought)
        except json.JSONDecodeError as exc:
            return ParsedOutput.invalid(f"the <answer> is not valid JSON ({exc})", thought)
        if not isinstance(reply, dict) or ("action" not in reply and "type" not in reply):
            return ParsedOutput.invalid(
                'the <answer> needs {"action": {...}} or an action object', thought
            )
        data = reply.get("action", reply)
        try:
            action = parse_action(data)
        except ValueError as exc:
            return ParsedOutput.invalid(describe_error(exc), thought)
        return ParsedOutput(
            action=action, thought=thought, summary=json.dumps(data, ensure_ascii=False)
        )
