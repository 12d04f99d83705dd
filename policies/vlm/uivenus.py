"""Adapter for UI-Venus (inclusionAI/UI-Venus; notes in docs/vlm_adapters.md).

Prompt (our wording of the documented mobile prompt): one user message with the task, the
action list ``Click(box=(x,y))``, ``Drag(start=..., end=...)``, ``Scroll(start=..., end=...)``,
``Type(content='')``, ``Launch(app='')``, ``Wait()``, ``Finished(content='')``,
``CallUser(content='')``, ``LongPress(box=...)``, ``PressBack()``, ``PressHome()``,
``PressEnter()``, ``PressRecent()``, the previous steps as ``Step i: <conclusion>``, the
output format ``<think>…</think><action>…</action><conclusion>…</conclusion>``, and the
current screenshot only.

Coordinates: ``version="1.5"`` (default; Venus_framework) — a 0–999 grid stated in the prompt,
divided by 1000 as the framework does; ``version="1.0"`` (models/navigation) — absolute pixels
of ``smart_resize(H, W, 28, min_pixels, max_pixels)`` of the screenshot.

Reading: the action is the last complete ``<action>`` block (a quoted block in the thought is
not it; an unclosed one is a truncated reply). Mapping: Click -> tap; LongPress -> long_press;
Drag/Scroll(start,end) -> swipe (finger path); Scroll(direction) -> scroll (content
direction); Type -> type (no Enter); Launch -> open_app; Wait -> wait 1 s; PressBack/Home/
Enter/Recent -> key; Finished -> finish success (the answer on a query task); CallUser -> the
answer on a query task, else finish abort (a human is asked for, none is there).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal

from bridge.actions import (
    Action,
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
    answer_action,
    describe_error,
    finish_or_answer,
    human_needed,
    key_action,
    screenshot_url,
    typed_text,
)
from policies.vlm.apps import resolve_app
from policies.vlm.call_syntax import read_call
from policies.vlm.errors import ActionError, VLMConfigError
from policies.vlm.frames import ModelFrame, image_size, numbers
from policies.vlm.messages import ChatMessage, user
from policies.vlm.tagged_reply import blocks, committed_block, outside_thought

__all__ = ["UIVenusAdapter"]

PARSER_VERSION = "2026-12-02"
"""Bump when this adapter reads replies differently: it is in every run's harness
fingerprint, and a resumed run must parse as it began."""

_Args = dict[str, object]

_PROMPT = """You are a GUI agent operating an Android phone. Look at the current screenshot, \
the task and the steps taken so far, and choose the single next action.

Actions (one per reply; {coords}):
- Click(box=(x,y)) tap a point
- LongPress(box=(x,y)) press and hold a point
- Drag(start=(x1,y1), end=(x2,y2)) hold, then drag from start to end
- Scroll(start=(x1,y1), end=(x2,y2)) swipe from start to end to scroll or switch tabs
- Type(content='') type into the focused input field
- Launch(app='') open an app by name
- Wait() wait for the page to load
- Finished(content='') the task is done
- CallUser(content='') answer the user's question, or ask the user when you cannot decide
- PressBack() / PressHome() / PressEnter() / PressRecent() system keys

Task:
{task}

Previous steps:
{history}

Reply in exactly this format:
<think>your reasoning</think>
<action>the next action</action>
<conclusion>one sentence on what this action does</conclusion>"""


class UIVenusAdapter(Adapter):
    """UI-Venus 1.5 (0–999 grid) or 1.0 (pixels of the resized screenshot)."""

    name = "uivenus"
    default_model = "inclusionAI/UI-Venus-1.5-8B"

    def __init__(
        self,
        version: Literal["1.5", "1.0"] = "1.5",
        min_pixels: int = 3136,
        max_pixels: int = 12845056,
    ) -> None:
        if version not in ("1.5", "1.0"):
            raise VLMConfigError(f"version must be '1.5' or '1.0', got {version!r}")
        self.version, self.min_pixels, self.max_pixels = version, min_pixels, max_pixels

    def frame(self, observation: Observation) -> ModelFrame:
        """The 0..1000 grid (1.5) or the resized screenshot (1.0)."""
        if self.version == "1.0":
            size = image_size(observation)
            return ModelFrame.resized(size, QWEN2_5_VL_FACTOR, self.min_pixels, self.max_pixels)
        return ModelFrame.grid(1000)

    def build_messages(
        self,
        instruction: str,
        context: PolicyContext,
        observation: Observation,
        history: Sequence[HistoryStep],
    ) -> list[ChatMessage]:
        """One user turn: the prompt with the task and step summaries, then the screenshot."""
        frame = self.frame(observation)
        coords = (
            "points on a 0-999 grid from the top-left (0,0) to the bottom-right (999,999)"
            if self.version == "1.5"
            else f"points in pixels of this {frame.width}x{frame.height} screenshot"
        )
        lines = [f"Step {i}: {_summary(step)}" for i, step in enumerate(history)]
        text = _PROMPT.format(coords=coords, task=instruction, history="\n".join(lines) or "none")
        return [user(text, screenshot_url(observation))]

    def parse(
        self, raw_text: str, observation: Observation, context: PolicyContext | None = None
    ) -> ParsedOutput:
        """Read the last complete ``<action>`` block."""
        thought = "\n".join(blocks(raw_text, "think")) or None
        conclusions = blocks(raw_text, "conclusion")
        summary = conclusions[-1] if conclusions else None
        try:
            call = committed_block(_answer_part(raw_text), "action")
            name, args = read_call(call)
            builder = _BUILDERS.get(name)
            if builder is None:
                raise ActionError(
                    f"action {name!r} is not in UI-Venus's mobile action space; use one of "
                    + ", ".join(_BUILDERS)
                )
            action = builder(args, self.frame(observation), context)
        except ValueError as exc:
            return ParsedOutput.invalid(describe_error(exc), thought, summary)
        return ParsedOutput(action=action, thought=thought, summary=summary or call)


def _answer_part(raw_text: str) -> str:
    """The reply without its reasoning; a cut-off ``<conclusion>`` means a truncated reply."""
    return outside_thought(outside_thought(raw_text, "think"), "conclusion")


def _summary(step: HistoryStep) -> str:
    if step.parsed.action is None:
        return f"invalid output ({step.parsed.error})"
    return step.parsed.summary or step.parsed.thought or ""


def _text(args: _Args, key: str = "content") -> str:
    value = args.get(key, "")
    return value if isinstance(value, str) else str(value)


def _at(args: _Args, frame: ModelFrame, key: str = "box") -> Target:
    return Target(point=_xy(args, frame, key))


def _xy(args: _Args, frame: ModelFrame, key: str) -> Point:
    if key not in args:
        raise ActionError(f"needs {key}=(x,y)")
    return frame.point_of(numbers(args[key]))


def _swipe(args: _Args, frame: ModelFrame, duration_ms: int) -> SwipeAction:
    start, end = _xy(args, frame, "start"), _xy(args, frame, "end")
    return SwipeAction(start=start, end=end, duration_ms=duration_ms)


_Direction = Literal["up", "down", "left", "right"]
_DIRECTIONS: dict[str, _Direction] = {"up": "up", "down": "down", "left": "left", "right": "right"}


def _scroll(args: _Args, frame: ModelFrame, context: PolicyContext | None) -> Action:
    if "start" in args and "end" in args:
        return _swipe(args, frame, 300)
    direction = _DIRECTIONS.get(_text(args, "direction").strip().lower())
    if direction is None:
        raise ActionError("Scroll needs start=(x,y), end=(x,y) or direction='up|down|left|right'")
    return ScrollAction(direction=direction)


def _call_user(args: _Args, context: PolicyContext | None) -> Action:
    if context is not None and context.answer_fields:
        return answer_action(_text(args), context)
    return human_needed("user reply", _text(args))


_Builder = Callable[[_Args, ModelFrame, "PolicyContext | None"], Action]

_BUILDERS: dict[str, _Builder] = {
    "Click": lambda a, f, c: TapAction(target=_at(a, f)),
    "LongPress": lambda a, f, c: LongPressAction(target=_at(a, f)),
    "Drag": lambda a, f, c: _swipe(a, f, 1500),
    "Scroll": _scroll,
    "Type": lambda a, f, c: typed_text(_text(a)),
    "Launch": lambda a, f, c: OpenAppAction(app=resolve_app(_text(a, "app"))),
    "Wait": lambda a, f, c: WaitAction(seconds=1.0),
    "PressBack": lambda a, f, c: key_action("back"),
    "PressHome": lambda a, f, c: key_action("home"),
    "PressEnter": lambda a, f, c: key_action("enter"),
    "PressRecent": lambda a, f, c: key_action("recents"),
    "Finished": lambda a, f, c: finish_or_answer(_text(a), c),
    "CallUser": lambda a, f, c: _call_user(a, c),
}
