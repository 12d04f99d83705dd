"""Adapter for GUI-Owl: Mobile-Agent-v3.5 / GUI-Owl-1.5 and the older GUI-Owl (models.md §4).

Both speak the Qwen ``mobile_use`` tool (:mod:`policies.vlm.mobile_use`; ``tap`` is read as
``click``, and ``computer_use`` calls are read with the same table).

* ``version="1.5"`` (default; Qwen3-VL based): a relative ``0..1000`` grid (the prompt states a
  ``1000x1000`` screen, points are divided by 1000). Actions add ``answer`` and ``interact``.
  The reply is an ``Action:`` line and a ``<tool_call>`` (``<thinking>``/``<conclusion>``
  blocks are read too). History: the last ``replay_turns`` steps are replayed as real turns
  (their screenshot as a user turn, the raw output as the assistant turn); older steps are
  listed as text under "Previous actions".
* ``version="v3"`` (GUI-Owl-7B/32B, Qwen2.5-VL based): absolute pixels of
  ``smart_resize(H, W, 28, 784, 784*12800)`` of the screenshot, stated in the prompt. The
  model reasons in ``<thinking>``, calls the tool, then summarises in ``<conclusion>``; history
  is the list of conclusions, with only the current screenshot.

``out_of_range="pixels"`` reads points beyond the grid as screen pixels when they fit the
screen (some harnesses do; GUI-Plus answers have shown ``x=2530`` on a 3008-wide image);
the default reports them as invalid steps.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from bridge.coords import QWEN2_5_VL_FACTOR
from bridge.schema import Observation, PolicyContext
from policies.vlm.adapter import Adapter, HistoryStep, ParsedOutput, screenshot_url
from policies.vlm.errors import VLMConfigError
from policies.vlm.frames import ModelFrame, image_size
from policies.vlm.messages import ChatMessage, ImageURL, assistant, system, user
from policies.vlm.mobile_use import ALL_ACTIONS, parse_mobile_use, tool_schema, tools_prompt
from policies.vlm.qwen import check_actions, step_line, tool_call_text

__all__ = ["GUIOwlAdapter"]

PARSER_VERSION = "2026-12-02"
"""Bump when this adapter reads replies differently: it is in every run's harness
fingerprint, and a resumed run must parse as it began."""

_V15_ACTIONS = (*ALL_ACTIONS, "interact")
_V3_ACTIONS = (
    "click",
    "long_press",
    "swipe",
    "type",
    "answer",
    "system_button",
    "wait",
    "terminate",
)

_V15_FORMAT = """

# Response format

Reply with one line `Action: <the next step as one imperative sentence>` and then one \
<tool_call>...</tool_call> block that performs it."""

_V3_FORMAT = (
    "Think about the screen and the next step inside <thinking></thinking> first, then make "
    "exactly one tool call. After the </tool_call> tag, state in one sentence what you did, "
    "inside <conclusion></conclusion>."
)


class GUIOwlAdapter(Adapter):
    """GUI-Owl-1.5 (relative 0-1000) or GUI-Owl v3 (absolute pixels of the resized image)."""

    name = "guiowl"
    default_model = "mPLUG/GUI-Owl-1.5-8B-Instruct"

    def __init__(
        self,
        version: Literal["1.5", "v3"] = "1.5",
        out_of_range: Literal["error", "pixels"] = "error",
        replay_turns: int = 4,
        min_pixels: int = 784,
        max_pixels: int = 784 * 12800,
        actions: Sequence[str] | None = None,
    ) -> None:
        if version not in ("1.5", "v3") or out_of_range not in ("error", "pixels"):
            raise VLMConfigError(
                "version must be '1.5' or 'v3' and out_of_range 'error' or "
                f"'pixels', got {version!r} and {out_of_range!r}"
            )
        if replay_turns < 0:
            raise VLMConfigError(f"replay_turns must be >= 0, got {replay_turns}")
        known = _V15_ACTIONS if version == "1.5" else (*_V3_ACTIONS, "open", "key")
        self.actions = check_actions(
            actions or (_V15_ACTIONS if version == "1.5" else _V3_ACTIONS), known
        )
        self.version, self.out_of_range, self.replay_turns = version, out_of_range, replay_turns
        self.min_pixels, self.max_pixels = min_pixels, max_pixels

    def frame(self, observation: Observation) -> ModelFrame:
        """The 0-1000 grid (1.5) or the resized screenshot (v3)."""
        size = image_size(observation)
        if self.version == "v3":
            return ModelFrame.resized(size, QWEN2_5_VL_FACTOR, self.min_pixels, self.max_pixels)
        return ModelFrame.grid(1000, size if self.out_of_range == "pixels" else None)

    def build_messages(
        self,
        instruction: str,
        context: PolicyContext,
        observation: Observation,
        history: Sequence[HistoryStep],
    ) -> list[ChatMessage]:
        """The tool prompt, then the task with history in this version's style."""
        frame = self.frame(observation)
        tools = tools_prompt(tool_schema(frame.width, frame.height, self.actions))
        if self.version == "v3":
            return [system(tools), self._v3_turn(instruction, observation, history)]
        return [system(tools + _V15_FORMAT), *self._v15_turns(instruction, observation, history)]

    def _v3_turn(
        self, instruction: str, observation: Observation, history: Sequence[HistoryStep]
    ) -> ChatMessage:
        done = "".join(step_line(i, s, _summary(s)) for i, s in enumerate(history, 1))
        text = (
            f"User query: {instruction}\n"
            f"Steps already carried out on the device: {done or 'none yet'}\n{_V3_FORMAT}"
        )
        return user(text, screenshot_url(observation))

    def _v15_turns(
        self, instruction: str, observation: Observation, history: Sequence[HistoryStep]
    ) -> list[ChatMessage]:
        cut = max(0, len(history) - self.replay_turns)
        older, replayed = history[:cut], history[cut:]
        lines = "\n".join(step_line(i, s, _summary(s)).rstrip("; ") for i, s in enumerate(older, 1))
        text = (
            "Decide the next step from the screenshot, the instruction and the actions "
            f"taken so far.\n\nInstruction: {instruction}\n\n"
            f"Previous actions:\n{lines or 'None'}"
        )
        current = screenshot_url(observation)
        if not replayed:
            return [user(text, current)]
        turns = [user(text, _image(replayed[0])), assistant(replayed[0].raw_text)]
        for step in replayed[1:]:
            turns += [user(_image(step)), assistant(step.raw_text)]
        return [*turns, user(current)]

    def parse(
        self, raw_text: str, observation: Observation, context: PolicyContext | None = None
    ) -> ParsedOutput:
        """Read the ``<tool_call>`` of a reply (see :mod:`policies.vlm.mobile_use`)."""
        return parse_mobile_use(raw_text, self.frame(observation), self.actions, context)


def _summary(step: HistoryStep) -> str:
    return step.parsed.summary or step.parsed.thought or tool_call_text(step.raw_text)


def _image(step: HistoryStep) -> ImageURL | str:
    return ImageURL(url=step.image_url) if step.image_url else "(no screenshot for this step)"
