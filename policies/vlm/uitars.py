"""Adapter for UI-TARS-1.5 (and, with options, UI-TARS v1 and Doubao UI-TARS) — models.md §2.

Prompt: the mobile action space in UI-TARS's own notation, written in our words; messages as
in UI-TARS's deployment guide: a system turn, a user turn with the prompt, then for each step
its screenshot (only the last ``max_images`` screenshots, the current one included) and the
model's earlier reply as an assistant turn, with the ``<|box_start|>``/``<|box_end|>`` tokens
put back around ``(x,y)`` (the server strips them as special tokens when decoding).

Coordinates: by default absolute pixels of ``smart_resize(H, W, 28, 100*28*28,
16384*28*28)`` of the screenshot (UI-TARS-1.5, Qwen2.5-VL based). ``relative1000=True``
reads a ``0..1000`` grid instead (UI-TARS v1 and Doubao outputs). A point may be written
``'(x,y)'``, ``'<|box_start|>(x,y)<|box_end|>'``, ``'<point>x y</point>'`` or as a box
``'[x1,y1,x2,y2]'``/``'<bbox>x1 y1 x2 y2</bbox>'`` (its centre is used).
``syntax="point"`` writes the Doubao ``point='<point>x y</point>'`` form in the prompt.

Actions (reading rules of :mod:`policies.vlm.uitars_grammar`):

* ``click``/``left_single`` -> tap; ``left_double`` -> double_tap; ``long_press`` -> long_press;
* ``type(content)`` -> type; a trailing ``\\n`` in the content means submit (Enter);
* ``scroll(start_box, direction)`` -> **scroll with the same direction**: UI-TARS's prompts
  describe ``direction`` as the side where more content is shown, which is our content
  direction (models.md §8.2). UI-TARS-desktop's ADB operator moves the finger that way
  instead; ``scroll_semantics="finger"`` reads it so. A ``scroll`` with ``end_box`` and no
  direction (AndroidWorld variant) is a swipe;
* ``drag``/``swipe``/``select(start_box, end_box)`` -> swipe (a literal finger path);
* ``open_app(app_name)`` -> open_app (:mod:`policies.vlm.apps`); ``press_home``/``press_back``
  -> key; ``hotkey(key)`` -> key when the key exists on a phone (enter, back, home, …) and
  invalid for desktop chords (``ctrl v``); ``wait()`` -> wait 5 s (the prompt's meaning);
* ``finished(content)`` -> finish success (on a query task, the content is the answer);
  ``call_user()`` -> finish abort;
* desktop-only actions (``right_single``, ``mouse_move``, …) -> invalid, saying so.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Literal

from bridge.actions import (
    Action,
    DoubleTapAction,
    LongPressAction,
    OpenAppAction,
    Point,
    ScrollAction,
    SwipeAction,
    TapAction,
    Target,
    WaitAction,
)
from bridge.coords import QWEN2_5_VL_FACTOR
from bridge.schema import Observation, PolicyContext
from policies.vlm.adapter import (
    Adapter,
    HistoryStep,
    ParsedOutput,
    describe_error,
    finish_or_answer,
    human_needed,
    key_action,
    screenshot_url,
    typed_text,
)
from policies.vlm.apps import resolve_app
from policies.vlm.errors import ActionError, VLMConfigError
from policies.vlm.frames import ModelFrame, image_size, numbers
from policies.vlm.messages import ChatMessage, ImageURL, assistant, system, user
from policies.vlm.reply_text import fold
from policies.vlm.uitars_grammar import Call, read_call, split_reply

__all__ = ["UITARS15Adapter", "with_box_tokens"]

PARSER_VERSION = "2026-12-02"
"""Bump when this adapter reads replies differently: it is in every run's harness
fingerprint, and a resumed run must parse as it began."""

_BOX = "<|box_start|>({})<|box_end|>"
_PROMPT = """You operate an Android phone as a GUI agent. You get a task, the actions you \
already took, and screenshots; choose the next action.

## Output Format
```
Thought: ...
Action: ...
```

## Action Space
{actions}

## Note
- Write the Thought in {language}.
- In the Thought, plan briefly, then name the next action and its target element in one \
sentence.

## User Instruction
{instruction}
"""
_SPACE = """click({p}='{a}')
long_press({p}='{a}')
type(content='') # to submit what you typed, end content with "\\n"
scroll({p}='{a}', direction='down or up or right or left') # shows more on the direction side
open_app(app_name='')
drag({s}='{a}', {e}='{b}')
press_home()
press_back()
finished(content='xxx') # the task is done; escape \\', \\" and \\n inside content"""

_Direction = Literal["up", "down", "left", "right"]
_SAME: dict[str, _Direction] = {"up": "up", "down": "down", "left": "left", "right": "right"}
_CONTENT_OF: dict[str, _Direction] = {"up": "down", "down": "up", "left": "right", "right": "left"}
"""A finger moving one way shows the content on the opposite side."""
_DESKTOP = frozenset(
    {
        "right_single",
        "right_click",
        "mouse_move",
        "hover",
        "mouse_down",
        "mouse_up",
        "navigate",
        "navigate_back",
        "screenshot",
    }
)


def with_box_tokens(raw_text: str) -> str:
    """Put the box tokens back around ``start_box='(x,y)'`` points of an earlier reply."""
    pattern = r"((?:start|end)_box=)(['\"])\(([^()'\"]*)\)\2"
    return re.sub(pattern, lambda m: f"{m[1]}{m[2]}{_BOX.format(m[3])}{m[2]}", raw_text)


class UITARS15Adapter(Adapter):
    """UI-TARS-1.5 (absolute resized pixels) or v1/Doubao (``relative1000=True``)."""

    name = "uitars15"
    default_model = "ByteDance-Seed/UI-TARS-1.5-7B"

    def __init__(
        self,
        relative1000: bool = False,
        min_pixels: int = 100 * 28 * 28,
        max_pixels: int = 16384 * 28 * 28,
        max_images: int = 5,
        syntax: Literal["box", "point"] = "box",
        scroll_semantics: Literal["content", "finger"] = "content",
        language: str | None = None,
    ) -> None:
        if syntax not in ("box", "point") or scroll_semantics not in ("content", "finger"):
            raise VLMConfigError(
                "syntax must be 'box' or 'point' and scroll_semantics "
                f"'content' or 'finger', got {syntax!r}, {scroll_semantics!r}"
            )
        if max_images < 1:
            raise VLMConfigError(f"max_images must be >= 1, got {max_images}")
        self.relative1000, self.min_pixels, self.max_pixels = relative1000, min_pixels, max_pixels
        self.max_images, self.syntax, self.scroll_semantics = max_images, syntax, scroll_semantics
        self.language = language

    def frame(self, observation: Observation) -> ModelFrame:
        """The 0-1000 grid, or the smart-resized screenshot."""
        if self.relative1000:
            return ModelFrame.grid(1000)
        size = image_size(observation)
        return ModelFrame.resized(size, QWEN2_5_VL_FACTOR, self.min_pixels, self.max_pixels)

    def prompt(self, instruction: str, context: PolicyContext) -> str:
        """The user prompt: output format, action space, notes, instruction."""
        if self.syntax == "point":
            space = _SPACE.format(
                p="point",
                s="start_point",
                e="end_point",
                a="<point>x1 y1</point>",
                b="<point>x2 y2</point>",
            )
        else:
            space = _SPACE.format(
                p="start_box",
                s="start_box",
                e="end_box",
                a=_BOX.format("x1,y1"),
                b=_BOX.format("x3,y3"),
            )
        language = self.language or ("Chinese" if context.lang == "zh" else "English")
        return _PROMPT.format(actions=space, language=language, instruction=instruction)

    def build_messages(
        self,
        instruction: str,
        context: PolicyContext,
        observation: Observation,
        history: Sequence[HistoryStep],
    ) -> list[ChatMessage]:
        """System, prompt, then (screenshot, reply) per step, then the current screenshot."""
        messages = [system("You are a helpful assistant."), user(self.prompt(instruction, context))]
        first_with_image = len(history) - (self.max_images - 1)
        for index, step in enumerate(history):
            if index >= first_with_image and step.image_url:
                messages.append(user(ImageURL(url=step.image_url)))
            messages.append(assistant(with_box_tokens(step.raw_text)))
        messages.append(user(screenshot_url(observation)))
        return messages

    def parse(
        self, raw_text: str, observation: Observation, context: PolicyContext | None = None
    ) -> ParsedOutput:
        """Read ``Thought: ... Action: call(...)`` into one action."""
        if not raw_text.strip():
            return ParsedOutput.invalid("the model returned no text")
        thought, action_text = split_reply(raw_text)
        if action_text is None:
            return ParsedOutput.invalid("no 'Action:' in the output", thought)
        try:
            action = self._action(read_call(action_text), self.frame(observation), context)
        except ValueError as exc:
            return ParsedOutput.invalid(describe_error(exc), thought)
        return ParsedOutput(action=action, thought=thought)

    def _action(self, call: Call, frame: ModelFrame, context: PolicyContext | None) -> Action:
        name = fold(call.name).lower()
        if name in _DESKTOP:
            raise ActionError(f"{call.name} is a desktop action with no mobile equivalent")
        if name == "finished":
            return finish_or_answer(call.args.get("content"), context)
        if name == "scroll":
            return self._scroll(call, frame)
        builder = _BUILDERS.get(name)
        if builder is None:
            raise ActionError(f"unknown action {call.name}(...); see the action space")
        return builder(call, frame)

    def _scroll(self, call: Call, frame: ModelFrame) -> Action:
        direction = fold(call.args.get("direction", "")).strip().strip("'\"").lower()
        if direction not in _CONTENT_OF:
            if _end(call) is not None:
                return _drag(call, frame)
            raise ActionError(f"scroll direction {direction!r} is not up, down, left or right")
        table = _CONTENT_OF if self.scroll_semantics == "finger" else _SAME
        start = _start(call)
        target = Target(point=frame.point_of(numbers(fold(start)))) if start is not None else None
        return ScrollAction(direction=table[direction], target=target)


def _start(call: Call) -> str | None:
    for key in ("start_box", "point", "start_point", "box"):
        if key in call.args:
            return call.args[key]
    return None


def _end(call: Call) -> str | None:
    return call.args.get("end_box", call.args.get("end_point"))


def _at(call: Call, frame: ModelFrame) -> Point:
    start = _start(call)
    if start is None:
        raise ActionError(f"{call.name}(...) needs start_box (or point)")
    return frame.point_of(numbers(fold(start)))


def _drag(call: Call, frame: ModelFrame) -> SwipeAction:
    end = _end(call)
    if end is None:
        raise ActionError(f"{call.name}(...) needs end_box (or end_point)")
    return SwipeAction(start=_at(call, frame), end=frame.point_of(numbers(fold(end))))


def _press(call: Call) -> int:
    seconds = numbers(fold(call.args.get("time", "")))
    return round(seconds[0] * 1000) if seconds and seconds[0] > 0 else 1000


_BUILDERS: dict[str, Callable[[Call, ModelFrame], Action]] = {
    "click": lambda c, f: TapAction(target=Target(point=_at(c, f))),
    "left_single": lambda c, f: TapAction(target=Target(point=_at(c, f))),
    "left_double": lambda c, f: DoubleTapAction(target=Target(point=_at(c, f))),
    "long_press": lambda c, f: LongPressAction(
        target=Target(point=_at(c, f)), duration_ms=_press(c)
    ),
    "type": lambda c, f: typed_text(c.args.get("content", "")),
    "drag": _drag,
    "swipe": _drag,
    "select": _drag,
    "open_app": lambda c, f: OpenAppAction(app=resolve_app(c.args.get("app_name", ""))),
    "press_home": lambda c, f: key_action("home"),
    "press_back": lambda c, f: key_action("back"),
    "hotkey": lambda c, f: key_action(fold(c.args.get("key", ""))),
    "wait": lambda c, f: WaitAction(seconds=5.0),
    "call_user": lambda c, f: human_needed("user help", c.args.get("content")),
}
