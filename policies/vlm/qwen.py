"""Adapters for Qwen3-VL and Qwen2.5-VL with the ``mobile_use`` tool (models.md §1).

Both declare the tool in the system prompt (Hermes layout, prompt-embedded rather than native
``tools=`` so no server flags are needed) and send one user turn: the instruction, the steps
done so far as text, and the current screenshot only. They differ in the frame of the
coordinates and in how history is written:

* ``qwen3vl``: a relative grid. The prompt states a ``999x999`` screen and points are divided
  by 999, as in the Qwen3-VL cookbook; ``scale=1000`` follows GUI-Owl-1.5/AutoGLM instead.
  The reply is ``Thought:``/``Action:`` lines and a ``<tool_call>``; history replays each
  step's ``Action:`` summary.
* ``qwen25vl``: absolute pixels of the image the processor really sees,
  ``smart_resize(H, W, 28, min_pixels, max_pixels)`` with the Qwen2.5-VL processor defaults
  (3136, 12845056); the prompt states that resolution (1080x2400 -> ``1092x2408``). History
  replays each step's raw tool-call JSON, as the Qwen2.5-VL cookbook did. Serve the model
  with the same min/max pixels, or pass them here.

``actions`` restricts the tool's action enum (default: every action of
:data:`policies.vlm.mobile_use.ALL_ACTIONS`); the parser refuses actions outside it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from bridge.coords import QWEN2_5_VL_FACTOR
from bridge.schema import Observation, PolicyContext
from policies.vlm.adapter import Adapter, HistoryStep, ParsedOutput, screenshot_url
from policies.vlm.errors import VLMConfigError
from policies.vlm.frames import ModelFrame, image_size
from policies.vlm.messages import ChatMessage, system, user
from policies.vlm.mobile_use import ALL_ACTIONS, parse_mobile_use, tool_schema, tools_prompt

__all__ = ["Qwen3VLAdapter", "Qwen25VLAdapter", "check_actions", "step_line", "tool_call_text"]

PARSER_VERSION = "2026-12-02"
"""Bump when this adapter reads replies differently: it is in every run's harness
fingerprint, and a resumed run must parse as it began."""

_RESPONSE_FORMAT = """

# Response format

Answer in three parts, in this order:
1) Thought: one short sentence of reasoning about the screen and the next step.
2) Action: a brief imperative description of that step.
3) Exactly one <tool_call>...</tool_call> block with the call.
When the task is done (or cannot be done), call terminate."""
_ANSWER_NOTE = " When the task asks a question, call answer with the answer."


def check_actions(actions: Sequence[str] | None, known: Sequence[str]) -> tuple[str, ...]:
    """The action subset an adapter offers, validated against ``known``."""
    chosen = tuple(actions) if actions is not None else tuple(known)
    unknown = [name for name in chosen if name not in known]
    if unknown or not chosen:
        raise VLMConfigError(f"unknown or no actions {unknown}; choose from {', '.join(known)}")
    return chosen


def step_line(index: int, step: HistoryStep, text: str) -> str:
    """``Step i: ...;`` for a history list; an invalid step says it failed."""
    if step.parsed.action is None:
        text = f"(invalid output: {step.parsed.error})"
    return f"Step {index}: {text}; "


def tool_call_text(raw_text: str) -> str:
    """The JSON inside the first ``<tool_call>`` of an output (else the stripped output)."""
    found = re.search(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|$)", raw_text, re.DOTALL)
    return found.group(1) if found else raw_text.strip()


class _QwenAdapter(Adapter):
    """One system turn declaring the tool, one user turn with text history and the image."""

    def __init__(self, actions: Sequence[str] | None = None) -> None:
        self.actions = check_actions(actions, ALL_ACTIONS)

    def frame(self, observation: Observation) -> ModelFrame:
        """The frame this model's coordinates are in for ``observation``."""
        raise NotImplementedError

    def _system_text(self, frame: ModelFrame) -> str:
        return tools_prompt(tool_schema(frame.width, frame.height, self.actions))

    def _history_entry(self, step: HistoryStep) -> str:
        raise NotImplementedError

    def build_messages(
        self,
        instruction: str,
        context: PolicyContext,
        observation: Observation,
        history: Sequence[HistoryStep],
    ) -> list[ChatMessage]:
        """System: the tool; user: the instruction, the steps so far, the screenshot."""
        frame = self.frame(observation)
        done = "".join(step_line(i, s, self._history_entry(s)) for i, s in enumerate(history, 1))
        text = f"User instruction: {instruction}\n"
        text += f"Steps already carried out on the device: {done or 'none yet'}\n"
        return [system(self._system_text(frame)), user(text, screenshot_url(observation))]

    def parse(
        self, raw_text: str, observation: Observation, context: PolicyContext | None = None
    ) -> ParsedOutput:
        """Read the ``<tool_call>`` of a reply (see :mod:`policies.vlm.mobile_use`)."""
        return parse_mobile_use(raw_text, self.frame(observation), self.actions, context)


class Qwen3VLAdapter(_QwenAdapter):
    """Qwen3-VL ``mobile_use``: a ``scale x scale`` relative grid (999 or 1000)."""

    name = "qwen3vl"
    default_model = "Qwen/Qwen3-VL-8B-Instruct"

    def __init__(self, scale: int = 999, actions: Sequence[str] | None = None) -> None:
        if scale not in (999, 1000):
            raise VLMConfigError(f"scale must be 999 or 1000, got {scale!r}")
        super().__init__(actions)
        self.scale = scale

    def frame(self, observation: Observation) -> ModelFrame:
        """The relative grid (independent of the screen)."""
        return ModelFrame.grid(self.scale)

    def _system_text(self, frame: ModelFrame) -> str:
        note = _ANSWER_NOTE if "answer" in self.actions else ""
        return super()._system_text(frame) + _RESPONSE_FORMAT + note

    def _history_entry(self, step: HistoryStep) -> str:
        parsed = step.parsed
        return parsed.summary or parsed.thought or tool_call_text(step.raw_text)


class Qwen25VLAdapter(_QwenAdapter):
    """Qwen2.5-VL ``mobile_use``: absolute pixels of the smart-resized screenshot."""

    name = "qwen25vl"
    default_model = "Qwen/Qwen2.5-VL-7B-Instruct"

    def __init__(
        self,
        min_pixels: int = 3136,
        max_pixels: int = 12845056,
        factor: int = QWEN2_5_VL_FACTOR,
        actions: Sequence[str] | None = None,
    ) -> None:
        super().__init__(actions)
        self.min_pixels, self.max_pixels, self.factor = min_pixels, max_pixels, factor

    def frame(self, observation: Observation) -> ModelFrame:
        """Pixels of ``smart_resize`` of the screenshot with this processor's limits."""
        return ModelFrame.resized(
            image_size(observation), self.factor, self.min_pixels, self.max_pixels
        )

    def _history_entry(self, step: HistoryStep) -> str:
        call = tool_call_text(step.raw_text)
        try:
            return json.dumps(json.loads(call), ensure_ascii=False)
        except json.JSONDecodeError:
            return call
