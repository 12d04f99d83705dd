"""What every model adapter provides, and the action helpers they share.

An :class:`Adapter` knows one model family: the prompt it was trained on
(:meth:`Adapter.build_messages`) and the grammar it answers in (:meth:`Adapter.parse`).
Parsing is pure — text and observation in, :class:`ParsedOutput` out — and never raises for
bad model output: the error goes into ``ParsedOutput.error`` and the step is recorded as
invalid. Coordinates are converted to normalized screen points here, at the edge
(:mod:`policies.vlm.frames`).
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar, Literal

from pydantic import ValidationError

from bridge.actions import Action, AnswerAction, FinishAction, KeyAction, TypeAction
from bridge.schema import Observation, PolicyContext
from policies.vlm.errors import ActionError
from policies.vlm.messages import ChatMessage, ImageURL

__all__ = [
    "Adapter",
    "HistoryStep",
    "ParsedOutput",
    "answer_action",
    "describe_error",
    "finish_or_answer",
    "human_needed",
    "key_action",
    "screenshot_url",
    "typed_text",
]


@dataclass(frozen=True)
class ParsedOutput:
    """An adapter's reading of one model output.

    ``action`` is None when the output could not be understood, and ``error`` says why.
    ``summary`` is the one-line description the model gave of its action (Qwen3-VL
    ``Action:``, GUI-Owl ``<conclusion>``), which some prompts replay as history.
    """

    action: Action | None
    thought: str | None = None
    error: str | None = None
    summary: str | None = None

    @classmethod
    def invalid(
        cls, error: str, thought: str | None = None, summary: str | None = None
    ) -> ParsedOutput:
        """An output without an action, with the reason."""
        return cls(action=None, thought=thought, error=error, summary=summary)


@dataclass(frozen=True)
class HistoryStep:
    """One earlier step as the policy saw it: the screenshot, the foreground app, the model's
    text and its reading."""

    image_url: str | None
    raw_text: str
    parsed: ParsedOutput
    app: str | None = None


class Adapter(ABC):
    """Prompt building and output parsing for one model family.

    Subclasses take their options as keyword arguments (``Qwen3VLAdapter(scale=1000)``);
    :meth:`policies.vlm.base.VLMPolicy.from_spec` passes the ones a spec does not consume.
    """

    name: ClassVar[str] = ""
    default_model: ClassVar[str | None] = None
    """The served model name a spec without ``#MODEL`` uses (the Hugging Face id, which is
    what ``vllm serve <id>`` serves under); None: ask the server (``GET /models``)."""
    needs_image: ClassVar[bool] = True
    """Whether the model cannot act without a screenshot (False for ``generic``)."""

    @abstractmethod
    def build_messages(
        self,
        instruction: str,
        context: PolicyContext,
        observation: Observation,
        history: Sequence[HistoryStep],
    ) -> list[ChatMessage]:
        """The chat messages asking for the next action on ``observation``."""

    @abstractmethod
    def parse(
        self, raw_text: str, observation: Observation, context: PolicyContext | None = None
    ) -> ParsedOutput:
        """Read one model output into an action on ``observation``'s screen; never raises
        for bad output. ``context`` supplies the task's answer fields, if any."""


def screenshot_url(observation: Observation) -> ImageURL | None:
    """The observation's screenshot as an image URL part, if it has one."""
    shot = observation.screenshot
    return ImageURL(url=shot.data_url) if shot is not None else None


def describe_error(exc: ValueError) -> str:
    """A one-line reason for an invalid step (pydantic errors compacted)."""
    if isinstance(exc, ValidationError):
        parts = [f"{'.'.join(map(str, e['loc'])) or 'value'}: {e['msg']}" for e in exc.errors()]
        return "invalid action: " + "; ".join(parts[:4])
    return str(exc)


# --------------------------------------------------------------------------- shared actions

_KEYS: dict[
    str, Literal["back", "home", "enter", "recents", "delete", "volume_up", "volume_down", "power"]
] = {
    "back": "back",
    "home": "home",
    "enter": "enter",
    "return": "enter",
    "recents": "recents",
    "recent": "recents",
    "app_switch": "recents",
    "overview": "recents",
    "delete": "delete",
    "del": "delete",
    "backspace": "delete",
    "volume_up": "volume_up",
    "volumeup": "volume_up",
    "volume_down": "volume_down",
    "volumedown": "volume_down",
    "power": "power",
}


def key_action(name: str) -> KeyAction:
    """A key press for a key name (``Back``, ``KEYCODE_ENTER``, ``volume up``).

    Raises:
        ActionError: the key has no equivalent among the contract's keys (``menu``,
            ``camera``, a desktop chord such as ``ctrl v``).
    """
    key = "_".join(name.strip().lower().replace("-", " ").split())
    key = key.removeprefix("keycode_")
    if key not in _KEYS:
        raise ActionError(
            f"key {name!r} has no mobile equivalent; use one of: "
            "back, home, enter, recents, delete, volume_up, volume_down, power"
        )
    return KeyAction(key=_KEYS[key])


def typed_text(text: str, *, clear: bool = False) -> Action:
    """Typing ``text``; a trailing newline means "and press Enter" (UI-TARS's rule).

    Raises:
        ActionError: there is nothing to type.
    """
    submit = text.endswith(("\n", "\r"))
    body = text.rstrip("\r\n") if submit else text
    if body:
        return TypeAction(text=body, clear=clear, submit=submit)
    if submit:
        return KeyAction(key="enter")
    raise ActionError("type has no text")


def answer_action(text: str, context: PolicyContext | None) -> Action:
    """The model's answer as the task's AnswerSheet.

    A JSON object answers named fields; plain text answers a task with exactly one field;
    a task without fields is finished with the text as its message.

    Raises:
        ActionError: the task has several fields and the text does not name them.
    """
    fields = context.answer_fields if context is not None else []
    stripped = text.strip()
    if stripped.startswith("{"):
        try:
            parsed = json.loads(stripped)
        except json.JSONDecodeError:
            parsed = None
        if isinstance(parsed, dict):
            return AnswerAction(fields=parsed)
    if len(fields) == 1:
        return AnswerAction(fields={fields[0].name: stripped})
    if not fields:
        return FinishAction(status="success", message=stripped or None)
    names = ", ".join(field.name for field in fields)
    raise ActionError(
        f"the task has {len(fields)} answer fields ({names}); answer with a "
        "JSON object that names them"
    )


def finish_or_answer(message: str | None, context: PolicyContext | None) -> Action:
    """A successful finish; on a query task a non-empty message is the answer."""
    if message and message.strip() and context is not None and context.answer_fields:
        return answer_action(message, context)
    return FinishAction(status="success", message=(message or "").strip() or None)


def human_needed(what: str, message: str | None) -> FinishAction:
    """The model asks for a human (AutoGLM Take_over/Interact, GUI-Owl interact, UI-TARS
    call_user). Nobody answers in an evaluation, so the episode is abandoned, saying why."""
    detail = f": {message.strip()}" if message and message.strip() else ""
    return FinishAction(status="abort", message=f"{what} requested{detail}")
