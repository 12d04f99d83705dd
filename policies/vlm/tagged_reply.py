"""Reading the tagged replies of the newer agent models (UI-Venus, MAI-UI, GELab, generic_v2).

These models wrap their parts in tags (``<think>``, ``<action>``, ``<tool_call>``,
``<answer>``, ``<THINK>``). The committed action is the content of the **last complete**
block of its tag: a block quoted earlier in the thought is not the action, and a block that
was opened but never closed means the reply was cut off — an invalid step, never a guess.
"""

from __future__ import annotations

import json
import re

from policies.vlm.errors import ActionError
from policies.vlm.reply_text import clean_reply, fold_syntax, split_thinking

__all__ = ["blocks", "committed_block", "outside_thought", "read_json"]


def _pattern(tag: str) -> re.Pattern[str]:
    return re.compile(rf"<\s*{tag}\s*>(.*?)<\s*/\s*{tag}\s*>", re.DOTALL | re.IGNORECASE)


def blocks(text: str, tag: str) -> list[str]:
    """The contents of every complete ``<tag>…</tag>`` block, in order (tag case ignored)."""
    return [match.strip() for match in _pattern(tag).findall(text)]


def outside_thought(text: str, tag: str) -> str:
    """``text`` without its ``<tag>`` reasoning blocks, nor any other ``<think…>`` block, and
    without special tokens and fences (:mod:`policies.vlm.reply_text`), so that an action
    quoted in the reasoning can never be taken for the committed one.

    Raises:
        ActionError: a reasoning block is opened and never closed (a truncated reply).
    """
    rest = _pattern(tag).sub(" ", clean_reply(text))
    if re.search(rf"<\s*{tag}\s*>", rest, re.IGNORECASE):
        raise ActionError(f"the reply was cut off: a <{tag}> block is not closed")
    thinking = split_thinking(rest)
    if thinking.unclosed:
        raise ActionError("the reply was cut off: a <think> block is not closed")
    return thinking.rest


def committed_block(text: str, tag: str) -> str:
    """The content of the last complete ``<tag>`` block: the action the model committed to.

    Raises:
        ActionError: there is no complete block, or a block opened after the last complete
            one was never closed (a truncated reply).
    """
    text = clean_reply(text)
    found = list(_pattern(tag).finditer(text))
    tail = text[found[-1].end() :] if found else text
    if re.search(rf"<\s*{tag}\s*>", tail, re.IGNORECASE):
        raise ActionError(f"the reply was cut off: a <{tag}> block is not closed")
    if not found:
        raise ActionError(f"no <{tag}>...</{tag}> block in the output")
    content = found[-1].group(1).strip()
    if not content:
        raise ActionError(f"the <{tag}> block is empty")
    return content


def read_json(text: str) -> object:
    """The JSON value of a block, read as written, else with full-width syntax (``｛``,
    ``：``, ``，``, ``５``) folded outside its strings, so that typed text is never folded.

    Raises:
        json.JSONDecodeError: neither reading is valid JSON (the error of the first).
    """
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        folded = fold_syntax(text, quotes='"')
        if folded == text:
            raise
        try:
            return json.loads(folded)
        except json.JSONDecodeError:
            raise exc from None
