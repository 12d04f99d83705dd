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
    ParsedOutput,
    answer_action,
    describe_error,
    human_needed,
    key_action,
    typed_text,
)
from policies.vlm.apps import resolve_app
from policies.vlm.errors import ActionError
from policies.vlm.frames import ModelFrame, numbers
from policies.vlm.reply_text import (
    SEVERAL_ACTIONS,
    clean_reply,
    fold,
    fold_syntax,
    json_spans,
    split_thinking,
)

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
    text = clean_reply(text)
    thinking = _block(text, "thinking") or _block(text, "think")
    conclusion = _block(text, "conclusion")
    outside = re.sub(r"<(thinking|think|conclusion)>.*?</\1>", "", text, flags=re.DOTALL)
    before = outside.split("<tool_call>", 1)[0].strip()
    thought_line = re.search(r"Thought\s*[:：]\s*(.*?)(?=\n\s*Action\s*[:：]|$)", before, re.DOTALL)
    action_line = re.search(r"(?:^|\n)\s*Action\s*[:：]\s*(.*)", before)
    thought = thought_line.group(1).strip() if thought_line else None
    summary = action_line.group(1).strip().strip('"“”').strip() if action_line else None
    if not thought_line and not action_line:
        thought = before or None
    summary = conclusion or summary
    return Prose(thought=thought or thinking or summary, summary=summary)


def extract_tool_call(text: str) -> dict[str, object]:
    """The arguments of the tool call the reply commits to.

    Special tokens and code fences are dropped; ``<think>``/``<thinking>`` blocks and, in the
    ``Thought:``/``Action:`` layout, everything before the ``Action:`` line are the model's
    reasoning, so calls quoted there never count (a block left open swallows the rest). Of
    the ``<tool_call>`` blocks left (a first one left unclosed and then repeated still
    works), the last must be complete, and all that can be read must be the same call —
    different ones are "several actions".
    Without the tag, bare ``{"name": ..., "arguments": ...}`` objects are read the same way.

    Raises:
        ActionError: no call, a cut-off or invalid call, several different calls, another
            tool, or no ``action`` argument.
    """
    region, unclosed = _answer_region(text)
    blocks = _blocks(region)
    if not blocks:
        ends = " (the reply ends inside its reasoning block)" if unclosed else ""
        raise ActionError(f"no <tool_call> block in the output{ends}")
    calls: list[dict[str, object]] = []
    error = ""
    for body, closed in blocks:
        try:
            calls.append(_arguments(_decode(body)))
        except json.JSONDecodeError as exc:
            cut = "" if closed else "; the reply ends inside it (cut off?)"
            error = f"the tool call is not valid JSON ({exc}){cut}"
            calls.clear()  # only calls after the last unreadable one count
    if error and not calls:
        raise ActionError(error)
    if len({json.dumps(call, sort_keys=True, ensure_ascii=False) for call in calls}) > 1:
        raise ActionError(f"{SEVERAL_ACTIONS}: {len(calls)} different tool calls; make one call")
    return calls[-1]


def _answer_region(text: str) -> tuple[str, bool]:
    """The part of a reply that may hold the committed call, and whether a reasoning block
    was left open."""
    thinking = split_thinking(clean_reply(text), ("think", "thinking"))  # open: all reasoning
    rest = re.sub(r"<conclusion>.*?</conclusion>", "", thinking.rest, flags=re.DOTALL)
    labels = re.search(r"(?:^|\n)\s*Thought\s*[:：]", rest)
    action = re.search(r"\n\s*Action\s*[:：]", rest[labels.end() :]) if labels else None
    if labels is not None and action is not None:
        after = rest[labels.end() + action.start() :]
        if "<tool_call>" in after or "<tool_call>" not in rest:
            rest = after
    return rest, thinking.unclosed


def _blocks(region: str) -> list[tuple[str, bool]]:
    """The text of each call candidate, and whether it was closed by its tag (or brace)."""
    starts = [m.end() for m in re.finditer(r"<tool_call>", region)]
    if not starts:
        bare = [s for s in json_spans(region) if re.match(r'\{\s*"name"', region[s.start :])]
        return [(region[s.start : s.end], s.complete) for s in bare]
    blocks = []
    for index, start in enumerate(starts):
        stop = starts[index + 1] - len("<tool_call>") if index + 1 < len(starts) else len(region)
        chunk = region[start:stop]
        closed = "</tool_call>" in chunk
        blocks.append((chunk.split("</tool_call>", 1)[0], closed))
    return blocks


def _decode(body: str) -> dict[str, object]:
    """The JSON object a candidate starts with, read as written, else with full-width
    syntax folded outside strings (typed text is never folded when the call reads as is)."""
    decoder = json.JSONDecoder()
    try:
        call, _ = decoder.raw_decode(body.strip())
    except json.JSONDecodeError as exc:
        try:
            call, _ = decoder.raw_decode(fold_syntax(body.strip(), quotes='"'))
        except json.JSONDecodeError:
            raise exc from None
    if not isinstance(call, dict):
        raise ActionError("the tool call is not a JSON object")
    return call


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
    value = args[key]
    return frame.point_of(numbers(fold(value) if isinstance(value, str) else value))


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
    direction = fold(str(args.get("direction", ""))).strip().lower()
    if direction not in _FINGER_TO_CONTENT:
        raise ActionError("swipe needs 'coordinate2' (or a direction up/down/left/right)")
    return ScrollAction(direction=_FINGER_TO_CONTENT[direction], target=Target(point=start))


def _system_button(args: dict[str, object], frame: ModelFrame) -> Action:
    button = fold(str(args.get("button", ""))).strip()
    if button.lower() == "menu":
        raise ActionError("system_button Menu has no equivalent among the contract's keys")
    return key_action(button)


def _terminate(args: dict[str, object], frame: ModelFrame) -> Action:
    status = fold(str(args.get("status", "success"))).strip().lower()
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
    name = fold(str(args["action"])).strip().lower()
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
