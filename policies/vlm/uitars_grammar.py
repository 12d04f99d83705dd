"""Reading UI-TARS replies: ``Thought: ...`` prose and ``Action: name(key='value', ...)`` calls.

Handles what real outputs contain (tests/fixtures/model_outputs), after
:func:`policies.vlm.reply_text.clean_reply` dropped special tokens and code fences:
``Action：`` with a full-width colon; ``Action_Summary:`` or
``<think>``-style blocks (any tag starting with ``think``) instead of ``Thought:``; ``Action:``
on the same line as the thought; several ``Action:`` lines (the **last** one counts: a model
restating its action overrides itself, as UI-TARS-desktop's parser reads it); several calls
after one ``Action:`` separated by blank lines (the **first** counts: the later ones were
planned for screens the model has not seen yet); wrapper tags after the call
(``</computer_env>``); real newlines inside quoted values; quotes escaped as ``\\'`` by a
server log; and Seed's XML form ``<function=type><parameter=content>…</parameter></function>``.

Values are quoted strings with Python escapes (``\\n``, ``\\'``, ``\\"``) or bare tokens.
No ``eval``, no ``ast`` of untrusted text: a small scanner reads the arguments.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from policies.vlm.errors import ActionError
from policies.vlm.reply_text import clean_reply, find_calls, fold, fold_syntax, split_thinking

__all__ = ["Call", "read_call", "split_reply"]

_ACTION = re.compile(r"\bAction\s*[:：﹕]")
_LABELS = (r"Thought\s*[:：﹕]", r"Action_Summary\s*[:：﹕]", r"Reflection\s*[:：﹕]")
_KEY = re.compile(r"\s*(\w+)\s*=\s*")
_CALL = re.compile(r"([A-Za-z_]\w*)\s*\(")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "'": "'", '"': '"', "\\": "\\"}


@dataclass(frozen=True)
class Call:
    """One action call: its name and its arguments as text."""

    name: str
    args: dict[str, str]


def split_reply(text: str) -> tuple[str | None, str | None]:
    """The thought and the text of the action (None when the reply has no action).

    Special tokens and code fences are dropped and ``<think>``-style blocks set aside first
    (a block left open makes the rest of the reply reasoning: no action). The action text
    starts after the last ``Action:`` (``Action：`` too) that is not inside the call of an
    earlier one (``type(content='Action: …')`` quotes it, it does not restate the action).
    """
    thinking = split_thinking(_unescape_log(clean_reply(text)), ("think",))
    body = thinking.rest
    marks = _action_marks(body)
    if marks:
        prose, action = body[: marks[0].start()], body[marks[-1].end() :]
    elif _CALL.match(fold(body.strip())) or "<function=" in body:
        prose, action = "", body
    else:
        prose, action = body, None
    return _labelled(prose) or thinking.thought, action


def _action_marks(body: str) -> list[re.Match[str]]:
    """The ``Action:`` marks that start an action (not those quoted inside a call)."""
    kept: list[re.Match[str]] = []
    inside: list[tuple[int, int]] = []
    for mark in _ACTION.finditer(body):
        if any(start <= mark.start() < end for start, end in inside):
            continue
        kept.append(mark)
        calls = find_calls(body[mark.end() :])
        if calls:
            inside.append((mark.end() + calls[0].start, mark.end() + calls[0].end))
    return kept


def _labelled(prose: str) -> str | None:
    prose = re.sub(r"</?[\w:]+>", "", prose)  # wrapper tags such as <computer_env>
    for label in _LABELS:
        found = re.search(label, prose)
        if found is not None:
            return prose[found.end() :].strip() or None
    return prose.strip() or None


def _unescape_log(text: str) -> str:
    """Undo quotes escaped by a log (``start_box=\\'(660,1059)\\'``)."""
    if re.search(r"=\s*\\['\"]", text):
        return text.replace("\\'", "'").replace('\\"', '"')
    return text


def read_call(action_text: str) -> Call:
    """The first call in the text after ``Action:``.

    The text is read as written first; if that fails, once more with full-width syntax
    folded to ASCII outside quoted values (``click（start_box='(1,2)'）``), so typed text is
    only ever folded when the call could not be read otherwise.

    Raises:
        ActionError: no call, or arguments that cannot be read.
    """
    try:
        return _read_call(action_text)
    except ActionError:
        folded = fold_syntax(action_text)
        if folded == action_text:
            raise
        try:
            return _read_call(folded)
        except ActionError:
            pass
        raise


def _read_call(action_text: str) -> Call:
    if "<function=" in action_text:
        return _xml_call(action_text)
    found = _CALL.search(action_text)
    if found is None:
        raise ActionError(f"no action call after 'Action:' in {action_text.strip()[:80]!r}")
    try:
        return Call(found.group(1), _arguments(action_text, found.end(), found.group(1)))
    except ActionError:
        fallback = _content_fallback(action_text, found.group(1), found.end())
        if fallback is None:
            raise
        return fallback


def _arguments(text: str, pos: int, name: str) -> dict[str, str]:
    args: dict[str, str] = {}
    while True:
        while pos < len(text) and text[pos] in " \t\r\n,":
            pos += 1
        if pos >= len(text):
            raise ActionError(f"{name}(...) is not closed with ')'")
        if text[pos] == ")":
            return args
        key = _KEY.match(text, pos)
        if key is None:
            raise ActionError(
                f"cannot read the arguments of {name}(...) at "
                f"{text[pos : pos + 30]!r}; write key='value'"
            )
        args[key.group(1)], pos = _value(text, key.end(), name)


def _value(text: str, pos: int, name: str) -> tuple[str, int]:
    if pos < len(text) and text[pos] in "'\"":
        quote, end = text[pos], pos + 1
        while end < len(text) and text[end] != quote:
            end += 2 if text[end] == "\\" else 1
        if end >= len(text):
            raise ActionError(f"a quoted argument of {name}(...) is not closed")
        return _unescape(text[pos + 1 : end]), end + 1
    depth, end = 0, pos
    while end < len(text) and not (depth == 0 and text[end] in ",)"):
        depth += {"(": 1, "[": 1, ")": -1, "]": -1}.get(text[end], 0)
        end += 1
    return text[pos:end].strip(), end


def _unescape(raw: str) -> str:
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(0)), raw, flags=re.DOTALL)


def _content_fallback(text: str, name: str, pos: int) -> Call | None:
    """``type(content='it's')``: the text between ``content='`` and the last ``')``."""
    opening = re.compile(r"\s*content\s*=\s*(['\"])").match(text, pos)
    if opening is None:
        return None
    quote = opening.group(1)
    end = text.rfind(quote + ")")
    if end < opening.end():
        return None
    return Call(name, {"content": _unescape(text[opening.end() : end])})


def _xml_call(text: str) -> Call:
    """Seed's ``<function=NAME><parameter=KEY>VALUE</parameter>...</function>``."""
    name = re.search(r"<function=([\w.]+)>", text)
    if name is None:
        raise ActionError("a <function=...> tag without a name")
    params = re.findall(r"<parameter=(\w+)>(.*?)</parameter>", text, re.DOTALL)
    return Call(name.group(1), {key: value.strip("\n") for key, value in params})
