"""A small, strict SQL ``WHERE``/``ORDER BY`` for ``content query|update|delete``.

Grammar (case-insensitive keywords)::

    expr    := and_expr (OR and_expr)*
    and     := factor (AND factor)*
    factor  := NOT factor | '(' expr ')' | column op value
             | column [NOT] LIKE 'pattern' | column IS [NOT] NULL | column IN (v, …)
    op      := = | == | != | <> | < | <= | > | >=
    value   := 'text' ('' escapes a quote) | integer | decimal | NULL | ?

Comparisons follow SQLite's affinity loosely: a number compared with a numeric string
compares as numbers; LIKE is case-insensitive for ASCII with ``%`` and ``_``. Anything
else raises :class:`QueryError` naming what is not supported, as the virtual phone's
provider cannot fall back to SQLite.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

__all__ = ["Predicate", "QueryError", "Row", "parse_sort", "parse_where", "project"]

Row = Mapping[str, Any]
Predicate = Callable[[Row], bool]

_TOKEN = re.compile(
    r"\s*(?:(?P<string>'(?:[^']|'')*')|(?P<number>-?\d+(?:\.\d+)?)"
    r"|(?P<op><=|>=|!=|<>|==|=|<|>|\(|\)|,|\?)|(?P<word>[A-Za-z_][A-Za-z0-9_.]*))"
)


class QueryError(ValueError):
    """A where clause, sort order or projection the provider does not support."""


def _tokenize(text: str) -> list[tuple[str, str]]:
    tokens, pos = [], 0
    text = text.rstrip()
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if match is None or match.end() == pos:
            raise QueryError(f'near "{text[pos : pos + 10].strip()}": syntax error')
        kind = match.lastgroup or ""
        tokens.append((kind, match.group(kind)))
        pos = match.end()
    return tokens


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return None
    return None


def _compare(left: Any, op: str, right: Any) -> bool:
    if left is None or right is None:
        return False
    a, b = _number(left), _number(right)
    if a is None or b is None or (isinstance(left, str) and isinstance(right, str)):
        a, b = str(left), str(right)  # type: ignore[assignment]
    return {
        "=": a == b,
        "==": a == b,
        "!=": a != b,
        "<>": a != b,
        "<": a < b,
        "<=": a <= b,
        ">": a > b,
        ">=": a >= b,
    }[op]


def _like(value: Any, pattern: str) -> bool:
    if value is None:
        return False
    regex = "".join(".*" if ch == "%" else "." if ch == "_" else re.escape(ch) for ch in pattern)
    return re.fullmatch(regex, str(value), re.IGNORECASE | re.DOTALL) is not None


class _Parser:
    def __init__(self, text: str, columns: Sequence[str]) -> None:
        self.tokens = _tokenize(text)
        self.pos = 0
        self.columns = set(columns)

    def _peek(self) -> tuple[str, str] | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def _keyword(self, *words: str) -> bool:
        token = self._peek()
        if token and token[0] == "word" and token[1].upper() in words:
            self.pos += 1
            return True
        return False

    def _expect(self, kind: str, text: str | None = None) -> str:
        token = self._peek()
        if token is None or token[0] != kind or (text is not None and token[1] != text):
            found = token[1] if token else "end of input"
            raise QueryError(f'near "{found}": syntax error')
        self.pos += 1
        return token[1]

    def parse(self) -> Predicate:
        predicate = self._or()
        if self._peek() is not None:
            raise QueryError(f'near "{self._peek()[1]}": syntax error')  # type: ignore[index]
        return predicate

    def _or(self) -> Predicate:
        parts = [self._and()]
        while self._keyword("OR"):
            parts.append(self._and())
        return parts[0] if len(parts) == 1 else (lambda row: any(p(row) for p in parts))

    def _and(self) -> Predicate:
        parts = [self._factor()]
        while self._keyword("AND"):
            parts.append(self._factor())
        return parts[0] if len(parts) == 1 else (lambda row: all(p(row) for p in parts))

    def _factor(self) -> Predicate:
        if self._keyword("NOT"):
            inner = self._factor()
            return lambda row: not inner(row)
        if self._peek() == ("op", "("):
            self.pos += 1
            inner = self._or()
            self._expect("op", ")")
            return inner
        return self._comparison()

    def _column(self) -> str:
        column = self._expect("word")
        if column not in self.columns:
            raise QueryError(f"no such column: {column}")
        return column

    def _comparison(self) -> Predicate:
        column = self._column()
        if self._keyword("IS"):
            negate = self._keyword("NOT")
            self._null()
            return lambda row: (row.get(column) is None) != negate
        negate = self._keyword("NOT")
        if self._keyword("LIKE"):
            pattern = str(self._value())
            return lambda row: _like(row.get(column), pattern) != negate
        if self._keyword("IN"):
            values = self._list()
            return lambda row: any(_compare(row.get(column), "=", v) for v in values) != negate
        if negate:
            raise QueryError("NOT is only supported before LIKE, IN, NULL or a condition")
        op = self._expect("op")
        if op not in ("=", "==", "!=", "<>", "<", "<=", ">", ">="):
            raise QueryError(f'near "{op}": syntax error')
        value = self._value()
        return lambda row: _compare(row.get(column), op, value)

    def _null(self) -> None:
        if not self._keyword("NULL"):
            raise QueryError("IS must be followed by [NOT] NULL")

    def _list(self) -> list[Any]:
        self._expect("op", "(")
        values = [self._value()]
        while self._peek() == ("op", ","):
            self.pos += 1
            values.append(self._value())
        self._expect("op", ")")
        return values

    def _value(self) -> Any:
        token = self._peek()
        if token is None:
            raise QueryError("incomplete input")
        kind, text = token
        self.pos += 1
        if kind == "string":
            return text[1:-1].replace("''", "'")
        if kind == "number":
            return float(text) if "." in text else int(text)
        if kind == "word" and text.upper() == "NULL":
            return None
        if text == "?":
            raise QueryError("selection arguments (?) are not supported by `content`")
        if kind == "word":
            raise QueryError(f"column-to-column comparisons are not supported ({text})")
        raise QueryError(f'near "{text}": syntax error')


def parse_where(where: str | None, columns: Sequence[str]) -> Predicate:
    """A row predicate for ``where`` over ``columns``; everything matches when None."""
    if where is None or not where.strip():
        return lambda row: True
    return _Parser(where, columns).parse()


def parse_sort(sort: str | None, columns: Sequence[str]) -> list[tuple[str, bool]]:
    """``"col1 ASC, col2 DESC"`` → [(column, descending)]."""
    if not sort or not sort.strip():
        return []
    order = []
    for part in sort.split(","):
        words = part.split()
        if not words or len(words) > 3 or words[0] not in columns:
            raise QueryError(f"unsupported sort order: {part.strip()!r}")
        rest = [w.upper() for w in words[1:]]
        if any(w not in ("ASC", "DESC", "COLLATE", "LOCALIZED", "NOCASE") for w in rest):
            raise QueryError(f"unsupported sort order: {part.strip()!r}")
        order.append((words[0], "DESC" in rest))
    return order


def project(
    rows: list[dict[str, Any]],
    columns: Sequence[str],
    projection: Sequence[str] | None,
    order: list[tuple[str, bool]],
) -> list[list[tuple[str, Any]]]:
    """Sort rows and keep the projected columns (all of ``columns`` when None)."""
    chosen = list(projection) if projection else list(columns)
    unknown = [c for c in chosen if c not in columns]
    if unknown:
        raise QueryError(f"no such column: {unknown[0]}")
    for column, descending in reversed(order):
        rows.sort(
            key=lambda row, c=column: (row.get(c) is None, _sort_key(row.get(c))),
            reverse=descending,
        )
    return [[(c, row.get(c)) for c in chosen] for row in rows]


def _sort_key(value: Any) -> tuple[int, Any]:
    number = _number(value) if not isinstance(value, str) else None
    return (0, number) if number is not None else (1, str(value))
