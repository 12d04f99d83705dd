"""Adapter for MAI-UI (Tongyi-MAI/MAI-UI; notes in docs/vlm_adapters.md).

Prompt (our wording of the documented system prompt): reason inside ``<thinking>``, then one
``<tool_call>{"name": "mobile_use", "arguments": {...}}</tool_call>``; actions ``click``,
``long_press`` (``coordinate``), ``type`` (``text``), ``swipe`` (``direction``, optional
``coordinate``), ``open`` (``text``: app name), ``drag`` (``start_coordinate``,
``end_coordinate``), ``system_button`` (back, home, menu, enter), ``wait``, ``terminate``
(``status``: success or fail), ``answer`` (``text``). Messages: system prompt, the task as a
user turn, then each earlier step as its screenshot (the last ``history_images`` steps only)
and the model's reply, then the current screenshot.

Coordinates: a 0–999 grid, divided by 999 (MAI-UI's ``SCALE_FACTOR``); a 4-number box is read
as its centre. ``swipe`` directions are finger directions (``up`` moves the finger up and
shows what is below, our ``scroll down``).

Reading: the last complete ``<tool_call>`` block; several tool calls in one reply, or one
that is not closed, is an invalid step. ``menu`` has no equivalent and is refused.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Literal

from bridge.actions import (
    Action,
    FinishAction,
    LongPressAction,
    OpenAppAction,
    Point,
    ScrollAction,
    SwipeAction,
    TapAction,
    Target,
    WaitAction,
)
from bridge.schema import Observation, PolicyContext
from policies.vlm.adapter import (
    Adapter,
    HistoryStep,
    ParsedOutput,
    answer_action,
    describe_error,
    key_action,
    screenshot_url,
    typed_text,
)
from policies.vlm.apps import resolve_app
from policies.vlm.errors import ActionError, VLMConfigError
from policies.vlm.frames import ModelFrame, numbers
from policies.vlm.messages import ChatMessage, ImageURL, assistant, system, user
from policies.vlm.reply_text import fold
from policies.vlm.tagged_reply import blocks, committed_block, outside_thought, read_json

__all__ = ["MAIUIAdapter"]

PARSER_VERSION = "2026-12-02"
"""Bump when this adapter reads replies differently: it is in every run's harness
fingerprint, and a resumed run must parse as it began."""

_Args = dict[str, object]

_SYSTEM = """You are a GUI agent operating an Android phone. You get a task, the actions you \
took so far and screenshots, and you choose the next action.

Reply with your reasoning inside <thinking></thinking> (a short plan, ending with the next \
action and its target in one sentence), then exactly one tool call:
<tool_call>
{"name": "mobile_use", "arguments": <arguments as a JSON object>}
</tool_call>

The arguments are one of (points are [x, y] on a 0-999 grid over the screen):
{"action": "click", "coordinate": [x, y]}
{"action": "long_press", "coordinate": [x, y]}
{"action": "type", "text": "..."}
{"action": "swipe", "direction": "up, down, left or right", "coordinate": [x, y]} \
(coordinate optional: where to swipe)
{"action": "open", "text": "app name"}
{"action": "drag", "start_coordinate": [x1, y1], "end_coordinate": [x2, y2]}
{"action": "system_button", "button": "back, home, menu or enter"}
{"action": "wait"}
{"action": "terminate", "status": "success or fail"}
{"action": "answer", "text": "..."} (escape quotes and newlines inside the text)

Prefer "open" to start an app."""


class MAIUIAdapter(Adapter):
    """MAI-UI: ``<thinking>`` then a ``mobile_use`` tool call on a 0–999 grid."""

    name = "maiui"
    default_model = "Tongyi-MAI/MAI-UI-8B"

    def __init__(self, history_images: int = 2) -> None:
        if history_images < 0:
            raise VLMConfigError(f"history_images must be >= 0, got {history_images}")
        self.history_images = history_images

    def frame(self, observation: Observation) -> ModelFrame:
        """The 0..999 grid."""
        return ModelFrame.grid(999)

    def build_messages(
        self,
        instruction: str,
        context: PolicyContext,
        observation: Observation,
        history: Sequence[HistoryStep],
    ) -> list[ChatMessage]:
        """System prompt, the task, earlier (screenshot, reply) turns, the current screenshot."""
        messages = [system(_SYSTEM), user(instruction)]
        first_image = len(history) - self.history_images
        for index, step in enumerate(history):
            if index >= first_image and step.image_url:
                messages.append(user(ImageURL(url=step.image_url)))
            messages.append(assistant(step.raw_text))
        return [*messages, user(screenshot_url(observation))]

    def parse(
        self, raw_text: str, observation: Observation, context: PolicyContext | None = None
    ) -> ParsedOutput:
        """Read the one complete ``<tool_call>`` of the reply."""
        text = raw_text
        if "</think>" in text and "</thinking>" not in text:  # thinking models: MAI-UI's rule
            text = "<thinking>" + text.replace("</think>", "</thinking>")
        thought = "\n".join(blocks(text, "thinking")) or None
        try:
            answer_part = outside_thought(text, "thinking")
            if len(blocks(answer_part, "tool_call")) > 1:
                raise ActionError("several actions (tool calls) in one reply; give one per step")
            call = committed_block(answer_part, "tool_call")
            action = _action(_arguments(call), self.frame(observation), context)
        except ValueError as exc:
            return ParsedOutput.invalid(describe_error(exc), thought)
        return ParsedOutput(action=action, thought=thought, summary=call)


def _arguments(call: str) -> _Args:
    try:
        value = read_json(call)
    except json.JSONDecodeError as exc:
        raise ActionError(f"the tool call is not valid JSON ({exc})") from exc
    arguments = value.get("arguments") if isinstance(value, dict) else None
    if not isinstance(arguments, dict) or not isinstance(arguments.get("action"), str):
        raise ActionError('the tool call needs "arguments": {"action": ...}')
    return arguments


def _action(args: _Args, frame: ModelFrame, context: PolicyContext | None) -> Action:
    name = fold(str(args["action"])).strip().lower()
    builder = _BUILDERS.get(name)
    if builder is None:
        raise ActionError(f"action {name!r} is not available; use one of {', '.join(_BUILDERS)}")
    return builder(args, frame, context)


def _at(args: _Args, frame: ModelFrame, key: str = "coordinate") -> Target:
    return Target(point=_xy(args, frame, key))


def _xy(args: _Args, frame: ModelFrame, key: str) -> Point:
    if key not in args:
        raise ActionError(f"{args['action']} needs {key!r}")
    return frame.point_of(numbers(args[key]))


def _text(args: _Args) -> str:
    value = args.get("text")
    if not isinstance(value, str):
        raise ActionError(f'{args["action"]} needs a "text" string')
    return value


_Direction = Literal["up", "down", "left", "right"]
_FINGER_TO_CONTENT: dict[str, _Direction] = {
    "up": "down",
    "down": "up",
    "left": "right",
    "right": "left",
}


def _swipe(args: _Args, frame: ModelFrame, context: PolicyContext | None) -> ScrollAction:
    direction = fold(str(args.get("direction", ""))).strip().lower()
    if direction not in _FINGER_TO_CONTENT:
        raise ActionError('swipe needs "direction": up, down, left or right')
    target = _at(args, frame) if "coordinate" in args else None
    return ScrollAction(direction=_FINGER_TO_CONTENT[direction], target=target)


def _drag(args: _Args, frame: ModelFrame, context: PolicyContext | None) -> SwipeAction:
    start = _xy(args, frame, "start_coordinate")
    end = _xy(args, frame, "end_coordinate")
    return SwipeAction(start=start, end=end, duration_ms=1500)


def _button(args: _Args, frame: ModelFrame, context: PolicyContext | None) -> Action:
    button = fold(str(args.get("button", "")))
    if button.strip().lower() == "menu":
        raise ActionError("system button menu has no equivalent on the phone contract")
    return key_action(button)


def _terminate(args: _Args, frame: ModelFrame, context: PolicyContext | None) -> FinishAction:
    status = fold(str(args.get("status", "success"))).strip().lower()
    if status not in ("success", "fail", "failure"):
        raise ActionError('terminate needs "status": success or fail')
    return FinishAction(status="success" if status == "success" else "infeasible")


_BUILDERS: dict[str, Callable[[_Args, ModelFrame, PolicyContext | None], Action]] = {
    "click": lambda a, f, c: TapAction(target=_at(a, f)),
    "long_press": lambda a, f, c: LongPressAction(target=_at(a, f)),
    "type": lambda a, f, c: typed_text(_text(a)),
    "swipe": _swipe,
    "open": lambda a, f, c: OpenAppAction(app=resolve_app(_text(a))),
    "drag": _drag,
    "system_button": _button,
    "wait": lambda a, f, c: WaitAction(seconds=2.0),
    "terminate": _terminate,
    "answer": lambda a, f, c: answer_action(_text(a), c),
}
