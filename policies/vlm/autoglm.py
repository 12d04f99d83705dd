"""Adapter for AutoGLM-Phone (Open-AutoGLM) — models.md §3.

Messages follow Open-AutoGLM: the system prompt (:mod:`policies.vlm.autoglm_prompt`, Chinese
or English by ``lang``, else the task's language); the first user turn holds the instruction
and ``{"current_app": ...}``, later user turns ``** Screen Info **`` with that JSON; each
earlier reply is replayed as ``<think>…</think><answer>…</answer>``; only the **current**
screenshot is sent.

Reading a reply (:func:`split_reply`): special tokens, code fences and ``<think>`` blocks are
set aside; the action is the last ``do(...)``/``finish(...)`` of the ``<answer>`` part, else
the call on the reply's last line — calls quoted in the thought never count, two different
calls in the answer part are an invalid step ("several actions"), a call cut off by the end
of the reply is invalid, and full-width syntax is read as ASCII outside quoted text. The
call is parsed with :mod:`ast` (``ast.parse`` + ``literal_eval`` of each keyword, never
``eval``); ``Type``/``Type_Name``/``finish`` whose text breaks the quoting are read by
slicing, as Open-AutoGLM does. A reply that is none of these is an invalid step — it is not
turned into ``finish`` as Open-AutoGLM does, which would end the episode on a format slip.

Coordinates are on the prompt's 0–999 grid and divided by ``scale`` = 1000, as Open-AutoGLM
converts them (``scale=999`` divides by 999). ``out_of_range="pixels"`` reads points beyond
the grid as screen pixels; by default they are invalid.

Mapping: Launch -> open_app; Tap -> tap (a sensitive-tap ``message`` is kept in the thought
only); Type/Type_Name -> type with ``clear`` (AutoGLM clears the field first); Swipe ->
swipe (finger path); Long Press -> long_press 3 s (Open-AutoGLM's duration); Double Tap ->
double_tap; Back/Home -> key; Wait -> wait; Take_over/Interact -> finish abort (a human is
asked for, none is there); finish -> finish success (on a query task the message is the
answer); Note/Call_API -> invalid (they do nothing on a phone).
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from bridge.actions import (
    Action,
    DoubleTapAction,
    LongPressAction,
    OpenAppAction,
    Point,
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
    describe_error,
    finish_or_answer,
    human_needed,
    key_action,
    screenshot_url,
    typed_text,
)
from policies.vlm.apps import resolve_app
from policies.vlm.autoglm_prompt import system_prompt
from policies.vlm.errors import ActionError, VLMConfigError
from policies.vlm.frames import ModelFrame, image_size, numbers
from policies.vlm.messages import ChatMessage, assistant, system, user
from policies.vlm.reply_text import (
    SEVERAL_ACTIONS,
    clean_reply,
    find_calls,
    fold,
    fold_syntax,
    split_thinking,
)

__all__ = ["AutoGLMAdapter", "Reply", "read_command", "split_answer", "split_reply"]

PARSER_VERSION = "2026-12-02"
"""Bump when this adapter reads replies differently: it is in every run's harness
fingerprint, and a resumed run must parse as it began."""

_Args = dict[str, object]


@dataclass(frozen=True)
class Reply:
    """A reply split into its thought and the command the model committed to (``command``
    None with ``error`` saying why when there is no single complete one)."""

    thought: str | None
    command: str | None
    error: str | None = None


def split_reply(text: str) -> Reply:
    """The thought and the committed command of a reply.

    The command is the last ``do(...)``/``finish(...)`` of the ``<answer>`` part; without
    ``<answer>``, the call on the reply's last line (calls quoted on earlier lines are part
    of the thought). Special tokens, code fences and ``<think>`` blocks are set aside first.
    A call cut off by the end of the reply, or two different calls in the answer part, are
    errors, never an action.
    """
    thinking = split_thinking(clean_reply(text), ("think",), stop_at=("<answer>",))
    rest = thinking.rest
    in_answer = "<answer>" in rest
    if in_answer:
        head, _, tail = rest.rpartition("<answer>")
        region = tail.split("</answer>", 1)[0]
    else:
        head, region = "", rest.replace("</answer>", "")
    calls = find_calls(region, _COMMANDS)
    if not calls:
        error = _NO_COMMAND + (" (the reply ends inside <think>)" if thinking.unclosed else "")
        return Reply(_clean_thought(thinking.thought, head, region), None, error)
    last = calls[-1]
    thought = _clean_thought(thinking.thought, head, region[: last.start])
    command = region[last.start : last.end].strip()
    if not last.complete:
        return Reply(thought, None, f"the command {command[:60]!r} is cut off before its ')'")
    line_start = region.rfind("\n", 0, last.start) + 1
    before, after = region[line_start : last.start], region[last.end :]
    rivals = calls if in_answer else [c for c in calls if c.start >= line_start]
    if len({_key(region[c.start : c.end]) for c in rivals}) > 1:
        return Reply(thought, None, f"{SEVERAL_ACTIONS}; " + _ONE_COMMAND)
    if after.strip(_TRAILING) or (not in_answer and before.strip(_TRAILING)):
        return Reply(thought, None, "the command is not on a line of its own; " + _ONE_COMMAND)
    return Reply(thought, command)


def split_answer(text: str) -> tuple[str | None, str | None]:
    """The thought and the committed command of a reply (None when there is none)."""
    reply = split_reply(text)
    return reply.thought, reply.command


_COMMANDS = ("do", "finish")
_NO_COMMAND = "no do(action=...) or finish(message=...) command in the output"
_ONE_COMMAND = 'answer with exactly one do(action=...) or finish(message="...")'
_TRAILING = " \t\r\n`'\"。.，,；;：:"


def _key(call: str) -> str:
    return re.sub(r"\s+", "", fold_syntax(call))


def _clean_thought(*parts: str | None) -> str | None:
    text = "\n".join(part for part in parts if part and part.strip())
    return re.sub(r"</?(think|answer)>", "", text).strip() or None


def read_command(command: str) -> tuple[str, _Args]:
    """``("Tap", {"element": [x, y]})`` for ``do(action="Tap", element=[x, y])``;
    ``("finish", {"message": ...})`` for ``finish(...)``.

    Raises:
        ActionError: not a single ``do(...)``/``finish(...)`` call with literal arguments.
    """
    command = fold_syntax(command)  # full-width syntax to ASCII; quoted text kept
    text = command[: command.rfind(")") + 1] if ")" in command else command
    for candidate in (text, text.replace("\n", "\\n")):
        try:
            return _from_ast(ast.parse(candidate, mode="eval").body)
        except (SyntaxError, ValueError):
            continue
    sliced = _sliced(text)
    if sliced is None:
        raise ActionError(f"not a valid do(...) or finish(...) call: {text[:80]!r}")
    return sliced


def _from_ast(node: ast.expr) -> tuple[str, _Args]:
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)) or node.args:
        raise ValueError("not a call with keyword arguments")
    kwargs = {kw.arg: ast.literal_eval(kw.value) for kw in node.keywords if kw.arg}
    if node.func.id == "finish":
        return "finish", kwargs
    action = kwargs.pop("action", None)
    if node.func.id != "do" or not isinstance(action, str):
        raise ValueError("not do(action=...)")
    return fold(action).strip(), kwargs


def _sliced(text: str) -> tuple[str, _Args] | None:
    """Open-AutoGLM's fallback for text values holding quotes: slice, do not parse."""
    for prefix, name, key in (
        ('do(action="Type", text="', "Type", "text"),
        ('do(action="Type_Name", text="', "Type_Name", "text"),
        ('finish(message="', "finish", "message"),
    ):
        if text.startswith(prefix) and text.endswith('")'):
            return name, {key: text[len(prefix) : -2]}
    return None


class AutoGLMAdapter(Adapter):
    """AutoGLM-Phone: ``<think>…</think><answer>do(...)</answer>`` on a 0–999 grid."""

    name = "autoglm"
    default_model = "zai-org/AutoGLM-Phone-9B"

    def __init__(
        self,
        scale: int = 1000,
        out_of_range: Literal["error", "pixels"] = "error",
        lang: Literal["zh", "en"] | None = None,
        date: str | None = None,
    ) -> None:
        if scale not in (999, 1000) or out_of_range not in ("error", "pixels"):
            raise VLMConfigError(
                f"scale must be 999 or 1000 and out_of_range 'error' or "
                f"'pixels', got {scale!r}, {out_of_range!r}"
            )
        if lang not in (None, "zh", "en"):
            raise VLMConfigError(f"lang must be 'zh' or 'en', got {lang!r}")
        self.scale, self.out_of_range, self.lang, self.date = scale, out_of_range, lang, date

    def frame(self, observation: Observation) -> ModelFrame:
        """The 0..scale grid (screen pixels as fallback when asked)."""
        fallback = image_size(observation) if self.out_of_range == "pixels" else None
        return ModelFrame.grid(self.scale, fallback)

    def build_messages(
        self,
        instruction: str,
        context: PolicyContext,
        observation: Observation,
        history: Sequence[HistoryStep],
    ) -> list[ChatMessage]:
        """System prompt, the task, earlier replies, and the current screenshot only."""
        messages = [system(system_prompt(self.lang or context.lang, self.date))]
        for index, step in enumerate(history):
            messages.append(user(_screen_text(instruction, step.app, first=index == 0)))
            messages.append(assistant(_replayed(step)))
        app = observation.foreground.app or observation.foreground.package
        text = _screen_text(instruction, app, first=not history)
        return [*messages, user(text, screenshot_url(observation))]

    def parse(
        self, raw_text: str, observation: Observation, context: PolicyContext | None = None
    ) -> ParsedOutput:
        """Read ``<think>``/``<answer>`` and the ``do(...)``/``finish(...)`` command."""
        reply = split_reply(raw_text)
        thought, command = reply.thought, reply.command
        if command is None:
            return ParsedOutput.invalid(reply.error or _NO_COMMAND, thought)
        try:
            name, args = read_command(command)
            action = self._action(name, args, self.frame(observation), context)
        except ValueError as exc:
            return ParsedOutput.invalid(describe_error(exc), thought, command)
        return ParsedOutput(action=action, thought=thought, summary=command)

    def _action(
        self, name: str, args: _Args, frame: ModelFrame, context: PolicyContext | None
    ) -> Action:
        if name == "finish":
            return finish_or_answer(_str(args, "message", required=False), context)
        builder = _BUILDERS.get(name)
        if builder is None:
            raise ActionError(
                f"action {name!r} is not supported on the phone; use one of "
                f"{', '.join(_BUILDERS)} or finish"
            )
        return builder(args, frame)


def _screen_text(instruction: str, app: str | None, *, first: bool) -> str:
    info = json.dumps({"current_app": app or "System Home"}, ensure_ascii=False)
    return f"{instruction}\n\n{info}" if first else f"** Screen Info **\n\n{info}"


def _replayed(step: HistoryStep) -> str:
    thought, command = split_answer(step.raw_text)
    if command is None:
        return step.raw_text
    return f"<think>{thought or ''}</think><answer>{command}</answer>"


def _str(args: _Args, key: str, required: bool = True) -> str:
    value = args.get(key)
    if isinstance(value, str) and (value.strip() or not required):
        return value
    if required:
        raise ActionError(f'needs a non-empty text argument {key}="..."')
    return ""


def _point(args: _Args, frame: ModelFrame, key: str) -> Point:
    if key not in args:
        raise ActionError(f"needs {key}=[x,y]")
    value = args[key]
    return frame.point_of(numbers(fold(value) if isinstance(value, str) else value))


def _at(args: _Args, frame: ModelFrame) -> Target:
    return Target(point=_point(args, frame, "element"))


def _swipe(args: _Args, frame: ModelFrame) -> SwipeAction:
    return SwipeAction(start=_point(args, frame, "start"), end=_point(args, frame, "end"))


def _wait(args: _Args, frame: ModelFrame) -> WaitAction:
    seconds = numbers(fold(str(args.get("duration", ""))))
    return WaitAction(seconds=min(max(seconds[0], 0.1), 60.0) if seconds else 2.0)


_BUILDERS: dict[str, Callable[[_Args, ModelFrame], Action]] = {
    "Launch": lambda a, f: OpenAppAction(app=resolve_app(_str(a, "app"))),
    "Tap": lambda a, f: TapAction(target=_at(a, f)),
    "Type": lambda a, f: typed_text(_str(a, "text"), clear=True),
    "Type_Name": lambda a, f: typed_text(_str(a, "text"), clear=True),
    "Swipe": _swipe,
    "Long Press": lambda a, f: LongPressAction(target=_at(a, f), duration_ms=3000),
    "Double Tap": lambda a, f: DoubleTapAction(target=_at(a, f)),
    "Back": lambda a, f: key_action("back"),
    "Home": lambda a, f: key_action("home"),
    "Wait": _wait,
    "Take_over": lambda a, f: human_needed("human takeover", _str(a, "message", False)),
    "Interact": lambda a, f: human_needed("user choice", _str(a, "message", False)),
}
