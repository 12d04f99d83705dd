"""The Qwen ``mobile_use`` tool, shared by the qwen3vl, qwen25vl and guiowl adapters.

The model answers with one Hermes/Nous-style call, ``<tool_call>{"name": "mobile_use",
"arguments": {...}}</tool_call>``, optionally preceded by ``Thought:``/``Action:`` lines
(Qwen3-VL, GUI-Owl-1.5) or wrapped in ``<thinking>``/``<conclusion>`` blocks (GUI-Owl v3).

Mapping to the contract (coordinates through the adapter's :class:`ModelFrame`):

=================  ============================================================
``click``/``tap``  ``tap`` (``left_click`` of ``computer_use`` too)
``long_press``     ``long_press``; ``time`` seconds -> ``duration_ms``
``swipe``          ``swipe`` from ``coordinate`` to ``coordinate2`` — a *finger path*;
                   with a ``direction`` instead of ``coordinate2`` the finger moves
                   that way, i.e. ``scroll`` of the opposite content direction
``type``           ``type``; a trailing newline sets ``submit``
``system_button``  ``key`` back / home / enter; ``Menu`` has no contract key (invalid)
``key``            ``key`` when the name has a mobile equivalent, else invalid
``open``           ``open_app`` with the name mapped by :mod:`policies.vlm.apps`
``wait``           ``wait`` for ``time`` seconds (default 2, at most 60)
``answer``         ``answer`` (see :func:`policies.vlm.adapter.answer_action`)
``terminate``      ``finish``: ``success`` -> success, ``failure`` -> infeasible
``interact``       ``finish`` abort: the model asks the user, and nobody is there
=================  ============================================================
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
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
from bridge.schema import PolicyContext
from policies.vlm.adapter import (
    ActionError,
    ParsedOutput,
    answer_action,
    describe_error,
    human_needed,
    key_action,
    typed_text,
)
from policies.vlm.apps import resolve_app
from policies.vlm.frames import ModelFrame, numbers

__all__ = [
    "ALL_ACTIONS",
    "Prose",
    "extract_tool_call",
    "parse_mobile_use",
    "split_prose",
    "to_action",
    "tool_schema",
    "tools_prompt",
]

ALL_ACTIONS: tuple[str, ...] = (
    "click",
    "long_press",
    "swipe",
    "type",
    "system_button",
    "open",
    "wait",
    "answer",
    "terminate",
    "key",
)
"""Every action the adapters offer by default (GUI-Owl-1.5 adds ``interact``)."""

_DESCRIPTIONS = {
    "click": "tap the point `coordinate`",
    "long_press": "touch and hold `coordinate` for `time` seconds",
    "swipe": "drag a finger from `coordinate` to `coordinate2` (the content follows the finger)",
    "type": "enter `text` into the focused input box",
    "system_button": "press the system button named in `button`",
    "open": "launch the app whose name is `text`",
    "wait": "do nothing for `time` seconds while the screen updates",
    "answer": "give the final answer in `text` (ends the task)",
    "terminate": "end the task and report `status`",
    "key": "send the Android key named in `text` (e.g. volume_up, power)",
    "interact": "ask the user for a decision with the question in `text`",
}

_TOOLS = frozenset({"mobile_use", "computer_use"})
_Direction = Literal["up", "down", "left", "right"]
_FINGER_TO_CONTENT: dict[str, _Direction] = {
    "up": "down",
    "down": "up",
    "left": "right",
    "right": "left",
}


def tool_schema(width: int, height: int, actions: Sequence[str]) -> dict[str, object]:
    """The function schema of ``mobile_use`` for a ``width x height`` coordinate frame."""
    lines = "; ".join(f"`{name}`: {_DESCRIPTIONS[name]}" for name in actions)
    description = (
        "Operate an Android phone through its touchscreen and system buttons, looking at "
        f"screenshots. The screen's resolution is {width}x{height}. A coordinate is "
        "[x, y]: x counts from the left edge, y from the top edge. Aim at the centre of the "
        f"element you want. Actions: {lines}."
    )
    properties: dict[str, object] = {
        "action": {"type": "string", "enum": list(actions), "description": "what to do"},
        "coordinate": {"type": "array", "description": "[x, y] for click, long_press, swipe"},
        "coordinate2": {"type": "array", "description": "[x, y] where a swipe ends"},
        "text": {"type": "string", "description": "for type, open, answer, key, interact"},
        "time": {"type": "number", "description": "seconds, for long_press and wait"},
        "button": {"type": "string", "enum": ["Back", "Home", "Enter"]},
        "status": {"type": "string", "enum": ["success", "failure"]},
    }
    return {
        "type": "function",
        "function": {
            "name": "mobile_use",
            "description": description,
            "parameters": {"type": "object", "properties": properties, "required": ["action"]},
        },
    }


def tools_prompt(schema: dict[str, object], preamble: str = "You are a helpful assistant.") -> str:
    """The system text declaring the tool in the Hermes/Nous layout Qwen models were tuned on
    (section ``# Tools``, the schema inside ``<tools>``, calls inside ``<tool_call>``)."""
    return (
        f"{preamble}\n\n# Tools\n\nYou can call the function below to act on the device.\n\n"
        "Its signature is given inside <tools></tools> tags:\n<tools>\n"
        f"{json.dumps(schema, ensure_ascii=False)}\n</tools>\n\n"
        "To call it, write a JSON object with the function name and its arguments between "
        "<tool_call></tool_call> tags:\n<tool_call>\n"
        '{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>'
    )


@dataclass(frozen=True)
class Prose:
    """The free text around a tool call: the reasoning and the one-line action summary."""

    thought: str | None
    summary: str | None


def _block(text: str, tag: str) -> str | None:
    found = re.search(rf"<{tag}>(.*?)</{tag}>", text, re.DOTALL)
    return found.group(1).strip() or None if found else None


def split_prose(text: str) -> Prose:
    """Thought and summary of a mobile_use output in any of the families' layouts."""
    thinking = _block(text, "thinking") or _block(text, "think")
    conclusion = _block(text, "conclusion")
    outside = re.sub(r"<(thinking|think|conclusion)>.*?</\1>", "", text, flags=re.DOTALL)
    before = outside.split("<tool_call>", 1)[0].strip()
    thought_line = re.search(r"Thought:\s*(.*?)(?=\n\s*Action:|$)", before, re.DOTALL)
    action_line = re.search(r"(?:^|\n)\s*Action:\s*(.*)", before)
    thought = thought_line.group(1).strip() if thought_line else None
    summary = action_line.group(1).strip().strip('"“”').strip() if action_line else None
    if not thought_line and not action_line:
        thought = before or None
    summary = conclusion or summary
    return Prose(thought=thought or thinking or summary, summary=summary)


def extract_tool_call(text: str) -> dict[str, object]:
    """The arguments of the first well-formed tool call in ``text``.

    Each ``<tool_call>`` is tried in turn (a first one left unclosed and then repeated still
    works); without the tag, a bare ``{"name": ..., "arguments": ...}`` object is accepted.

    Raises:
        ActionError: no call, invalid JSON, another tool, or no ``action`` argument.
    """
    starts = [m.end() for m in re.finditer(r"<tool_call>", text)]
    if not starts:
        starts = [m.start() for m in re.finditer(r'\{\s*"name"', text)]
    if not starts:
        raise ActionError("no <tool_call> block in the output")
    decoder, first_error = json.JSONDecoder(), ""
    for start in starts:
        body = text[start:].lstrip()
        try:
            call, _ = decoder.raw_decode(body)
        except json.JSONDecodeError as exc:
            first_error = first_error or f"the tool call is not valid JSON ({exc})"
            continue
        if isinstance(call, dict):
            return _arguments(call)
    raise ActionError(first_error or "the tool call is not a JSON object")


def _arguments(call: dict[str, object]) -> dict[str, object]:
    name, arguments = call.get("name"), call.get("arguments")
    if name not in _TOOLS:
        raise ActionError(f"unknown tool {name!r}; call mobile_use")
    if isinstance(arguments, str):  # native tool calling sends arguments as a JSON string
        try:
            arguments = json.loads(arguments)
        except json.JSONDecodeError as exc:
            raise ActionError(f"the tool arguments are not valid JSON ({exc})") from exc
    if not isinstance(arguments, dict) or not isinstance(arguments.get("action"), str):
        raise ActionError("the tool call has no string 'action' argument")
    return arguments


def _point(args: dict[str, object], key: str, frame: ModelFrame) -> Point:
    if key not in args:
        raise ActionError(f"{args['action']} needs '{key}'")
    return frame.point_of(numbers(args[key]))


def _target(args: dict[str, object], frame: ModelFrame) -> Target:
    return Target(point=_point(args, "coordinate", frame))


def _text(args: dict[str, object], required: bool = True) -> str:
    value = args.get("text")
    if not isinstance(value, str) or (required and not value.strip()):
        if required:
            raise ActionError(f"{args['action']} needs a non-empty 'text'")
        return ""
    return value


def _seconds(args: dict[str, object], default: float) -> float:
    value = args.get("time", default)
    if not isinstance(value, (int, float)) or isinstance(value, bool) or value <= 0:
        return default
    return float(value)


def _swipe(args: dict[str, object], frame: ModelFrame) -> Action:
    start = _point(args, "coordinate", frame)
    if "coordinate2" in args:
        return SwipeAction(start=start, end=_point(args, "coordinate2", frame))
    direction = str(args.get("direction", "")).lower()
    if direction not in _FINGER_TO_CONTENT:
        raise ActionError("swipe needs 'coordinate2' (or a direction up/down/left/right)")
    return ScrollAction(direction=_FINGER_TO_CONTENT[direction], target=Target(point=start))


def _system_button(args: dict[str, object], frame: ModelFrame) -> Action:
    button = str(args.get("button", "")).strip()
    if button.lower() == "menu":
        raise ActionError("system_button Menu has no equivalent among the contract's keys")
    return key_action(button)


def _terminate(args: dict[str, object], frame: ModelFrame) -> Action:
    status = str(args.get("status", "success")).lower()
    if status not in ("success", "failure"):
        raise ActionError(f"terminate status {status!r} is neither success nor failure")
    return FinishAction(status="success" if status == "success" else "infeasible")


_Builder = Callable[[dict[str, object], ModelFrame], Action]
_BUILDERS: dict[str, _Builder] = {
    "click": lambda a, f: TapAction(target=_target(a, f)),
    "long_press": lambda a, f: LongPressAction(
        target=_target(a, f), duration_ms=round(_seconds(a, 1.0) * 1000)
    ),
    "swipe": _swipe,
    "type": lambda a, f: typed_text(_text(a)),
    "system_button": _system_button,
    "key": lambda a, f: key_action(_text(a)),
    "open": lambda a, f: OpenAppAction(app=resolve_app(_text(a))),
    "wait": lambda a, f: WaitAction(seconds=min(_seconds(a, 2.0), 60.0)),
    "terminate": _terminate,
    "interact": lambda a, f: human_needed("user interaction", _text(a, required=False)),
}
_ALIASES = {
    "tap": "click",
    "left_click": "click",
    "press": "long_press",
    "input": "type",
    "open_app": "open",
    "launch": "open",
}


def to_action(
    args: dict[str, object],
    frame: ModelFrame,
    allowed: Sequence[str],
    context: PolicyContext | None,
) -> Action:
    """The contract action for ``mobile_use`` arguments.

    Raises:
        ActionError: an action outside ``allowed`` or with missing/bad arguments.
        bridge.errors.CoordinateError: a point outside the frame.
    """
    name = str(args["action"]).strip().lower()
    name = _ALIASES.get(name, name)
    if name not in allowed:
        raise ActionError(
            f"action {args['action']!r} is not available; use one of: {', '.join(allowed)}"
        )
    if name == "answer":
        return answer_action(_text(args), context)
    return _BUILDERS[name](args, frame)


def parse_mobile_use(
    text: str,
    frame: ModelFrame,
    allowed: Sequence[str],
    context: PolicyContext | None,
) -> ParsedOutput:
    """Read a mobile_use output; invalid outputs come back with ``error`` set."""
    prose = split_prose(text)
    if not text.strip():
        return ParsedOutput.invalid("the model returned no text")
    try:
        action = to_action(extract_tool_call(text), frame, allowed, context)
    except ValueError as exc:
        return ParsedOutput.invalid(describe_error(exc), prose.thought, prose.summary)
    return ParsedOutput(action=action, thought=prose.thought, summary=prose.summary)
