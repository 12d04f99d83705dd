"""Python-style action calls, ``Click(box=(120,340))`` or ``Type(content='hi')`` (UI-Venus).

A call is read with :mod:`ast` (``ast.parse`` plus ``literal_eval`` of each keyword, never
``eval``). Text arguments holding an unescaped quote (``Type(content='it's')``) are read by
slicing the one text argument. Several calls in one block (``Click(...),Click(...)``) are
refused: the mobile prompts ask for one action per step. A call that does not read as written
is read again with its syntax folded to ASCII outside quotes (``Click（box＝（５００，２５０））``),
so the text inside a quoted argument is never folded.
"""

from __future__ import annotations

import ast
import re

from policies.vlm.errors import ActionError
from policies.vlm.reply_text import fold_syntax

__all__ = ["read_call"]

_ONE_TEXT_ARGUMENT = re.compile(r"^(\w+)\(\s*(\w+)\s*=\s*(['\"])(.*)\3\s*\)$", re.DOTALL)


def read_call(text: str) -> tuple[str, dict[str, object]]:
    """``("Click", {"box": (120, 340)})`` for ``Click(box=(120,340))``.

    Raises:
        ActionError: not exactly one call with literal keyword arguments.
    """
    source = text.strip()
    try:
        return _read_as_written(source)
    except ActionError:
        folded = fold_syntax(source)
        if folded == source:
            raise
    return _read_as_written(folded)


def _read_as_written(source: str) -> tuple[str, dict[str, object]]:
    """:func:`read_call` of ``source`` exactly as it is."""
    try:
        node = ast.parse(source, mode="eval").body
    except SyntaxError:
        sliced = _ONE_TEXT_ARGUMENT.match(source)
        if sliced is None:
            raise ActionError(f"not a valid action call: {source[:80]!r}") from None
        return sliced.group(1), {sliced.group(2): sliced.group(4)}
    if isinstance(node, ast.Tuple) and all(isinstance(e, ast.Call) for e in node.elts):
        raise ActionError(f"several actions in one reply ({len(node.elts)}); give one per step")
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)) or node.args:
        raise ActionError(f"not a single Name(key=value, ...) call: {source[:80]!r}")
    try:
        kwargs = {kw.arg: ast.literal_eval(kw.value) for kw in node.keywords if kw.arg}
    except ValueError as exc:
        raise ActionError(f"an argument of {node.func.id} is not a literal: {exc}") from exc
    return node.func.id, kwargs
