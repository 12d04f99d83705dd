"""Clean-up and scanning of raw model replies, shared by every adapter's parser.

Real replies carry noise around the action: special tokens a server did not strip
(``<|im_end|>``, ``<|endoftext|>``, ``<|begin_of_box|>``), Markdown code fences, full-width
punctuation and digits (``Action：click（…）``, ``［４９９，９３８］``), reasoning blocks left
open by a truncated reply, and thoughts that quote action syntax before the real action.
These helpers are grammar-agnostic so that each adapter can apply its own model's rule:

* :func:`clean_reply` drops special tokens and code fences;
* :func:`fold_syntax` applies Unicode NFKC **outside** quoted literals only, so punctuation and
  digits of the call become ASCII while the text the model wants typed is kept as written;
  :func:`fold` is plain NFKC, for values that are never typed (coordinates, enum names);
* :func:`split_thinking` separates ``<think>``-style blocks, and says when one is unclosed;
* :func:`find_calls` finds every ``name(...)`` call (quote-aware, balanced parentheses) and
  whether it is complete, so an adapter can take the last complete call and recognise a
  reply cut mid-call;
* :func:`json_spans` does the same for top-level JSON objects.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = [
    "SEVERAL_ACTIONS",
    "Span",
    "Thinking",
    "clean_reply",
    "find_calls",
    "fold",
    "fold_syntax",
    "json_spans",
    "split_thinking",
]

SEVERAL_ACTIONS = "several actions in one reply"
"""The start of every invalid step's reason for a reply that commits to more than one action."""

_SPECIAL = re.compile(
    r"<\|im_start\|>(?:system|user|assistant)?"
    r"|<\|[A-Za-z_][\w.:-]*\|>"  # <|im_end|>, <|endoftext|>, <|box_start|>, <|begin_of_box|>
    r"|</?s>|<eos>|<pad>|\[/?INST\]"
)
_FENCE = re.compile(r"^[ \t]*```[\w+-]*[ \t]*$\n?|```[\w+-]*", re.MULTILINE)
_OPEN_PAREN = "(（﹙⁽₍"
_CLOSE_PAREN = ")）﹚⁾₎"


def clean_reply(text: str) -> str:
    """``text`` without special tokens and code-fence markers (the fenced text is kept)."""
    return _FENCE.sub("", _SPECIAL.sub("", text))


def fold(text: str) -> str:
    """Plain NFKC: full-width letters, digits and punctuation as ASCII. Only for values that
    are never typed (coordinates, action and key names, directions)."""
    return unicodedata.normalize("NFKC", text)


def _quote_of(char: str, quotes: str) -> str | None:
    folded = unicodedata.normalize("NFKC", char)
    return folded if folded in quotes else None


def fold_syntax(text: str, quotes: str = "'\"") -> str:
    """NFKC outside quoted literals; the inside of each literal is kept as written.

    A literal opens with any character whose NFKC form is one of ``quotes`` (``＂`` counts
    as ``"``) and closes at the next unescaped one of the same kind; its delimiters come out
    as ASCII. An unclosed literal runs to the end of the text.
    """
    out: list[str] = []
    index, length = 0, len(text)
    while index < length:
        char = text[index]
        quote = _quote_of(char, quotes)
        if quote is None:
            out.append(unicodedata.normalize("NFKC", char))
            index += 1
            continue
        out.append(quote)
        index += 1
        while index < length:
            inner = text[index]
            if inner == "\\" and index + 1 < length:
                out.append(text[index : index + 2])
                index += 2
                continue
            if _quote_of(inner, quotes) == quote:
                out.append(quote)
                index += 1
                break
            out.append(inner)
            index += 1
    return "".join(out)


@dataclass(frozen=True)
class Thinking:
    """A reply split into its reasoning blocks and the rest.

    ``unclosed`` is True when a reasoning block is opened and never closed and nothing marks
    where the answer starts: the whole rest is reasoning (a reply cut while thinking).
    """

    thought: str | None
    rest: str
    unclosed: bool


def split_thinking(
    text: str, tags: Iterable[str] = ("think", "thinking"), stop_at: Iterable[str] = ()
) -> Thinking:
    """Separate ``<tag>…</tag>`` blocks (any tag beginning with one of ``tags``, such as
    ``<think_never_used_…>``) from the rest of the reply.

    A closing tag with no opening tag (a server's reasoning parser ate ``<think>``) makes
    everything before it reasoning. An opening tag that is never closed ends at the first
    of ``stop_at`` after it (``<answer>``, ``<tool_call>``), else at the end of the text.
    """
    prefix = "|".join(re.escape(tag) for tag in tags)
    closed = re.compile(rf"<((?:{prefix})\w*)>(.*?)</\1>", re.DOTALL)
    parts = [m.group(2).strip() for m in closed.finditer(text)]
    rest = closed.sub("", text)
    orphan = re.search(rf"</(?:{prefix})\w*>", rest)
    if orphan is not None and not re.search(rf"<(?:{prefix})\w*>", rest[: orphan.start()]):
        parts.insert(0, rest[: orphan.start()].strip())
        rest = rest[orphan.end() :]
    unclosed = False
    opening = re.search(rf"<(?:{prefix})\w*>", rest)
    if opening is not None:
        tail = rest[opening.end() :]
        stops = [tail.find(stop) for stop in stop_at if stop in tail]
        end = min(stops) if stops else len(tail)
        parts.append(tail[:end].strip())
        unclosed = not stops
        rest = rest[: opening.start()] + ("" if unclosed else tail[end:])
    thought = "\n".join(part for part in parts if part).strip() or None
    return Thinking(thought=thought, rest=rest, unclosed=unclosed)


@dataclass(frozen=True)
class Span:
    """One call or JSON object found in a reply: ``text[start:end]``; ``complete`` is False
    when the reply ends before it closes (``end`` is then the end of the text)."""

    name: str
    start: int
    end: int
    complete: bool


def _scan(text: str, pos: int, opens: str, closes: str, quotes: str) -> int | None:
    """The index just past the bracket closing the one at ``pos`` (quote-aware), or None."""
    depth, index, length = 0, pos, len(text)
    while index < length:
        char = text[index]
        if char in opens:
            depth += 1
        elif char in closes:
            depth -= 1
            if depth == 0:
                return index + 1
        elif char in quotes:
            index += 1
            while index < length and text[index] != char:
                index += 2 if text[index] == "\\" else 1
        index += 1
    return None


def find_calls(text: str, names: Iterable[str] | None = None, quotes: str = "'\"") -> list[Span]:
    """Every ``name(...)`` call in ``text`` that is not inside an earlier call, in order.

    ``names`` limits the calls to those names (None: any identifier). Parentheses may be
    ASCII or full-width; quoted literals are skipped while matching them (if that never
    closes the call, as with an unescaped quote inside a value, parentheses alone decide).
    A call whose closing parenthesis never comes is returned with ``complete=False``.
    """
    wanted = "|".join(re.escape(name) for name in names) if names is not None else r"[A-Za-z_]\w*"
    pattern = re.compile(rf"(?<![\w.])({wanted})\s*([{_OPEN_PAREN}])")
    spans: list[Span] = []
    pos = 0
    while (found := pattern.search(text, pos)) is not None:
        end = _scan(text, found.start(2), _OPEN_PAREN, _CLOSE_PAREN, quotes)
        if end is None:  # an unescaped quote inside a value (type(content='it's')): retry
            end = _scan(text, found.start(2), _OPEN_PAREN, _CLOSE_PAREN, "")
        complete = end is not None
        spans.append(Span(found.group(1), found.start(), end or len(text), complete))
        pos = end if end is not None else len(text)
    return spans


def json_spans(text: str) -> list[Span]:
    """Every top-level ``{...}`` in ``text`` (ASCII or full-width braces; strings inside it
    skipped), in order; the last
    one is incomplete when the reply ends inside it. Braces in prose outside any object
    start a span; quotes in prose are not tracked."""
    spans: list[Span] = []
    pos = 0
    while (found := re.compile("[{｛]").search(text, pos)) is not None:
        end = _scan(text, found.start(), "{｛", "}｝", '"＂')
        spans.append(Span("{", found.start(), end or len(text), end is not None))
        pos = end if end is not None else len(text)
    return spans
