"""Checks of the agent's typed answer against a truth read from the phone.

Answers are compared leniently where people write the same thing differently: text ignores
case, spaces and punctuation (``Redmi Note 12 Turbo`` = ``redmi note 12-turbo``), phone
numbers compare their digits without a China country code, numbers their value (``3`` =
``3.0`` = ``"3"``), and Android versions ignore trailing ``.0`` parts (``14`` = ``14.0``,
``8.1`` = ``8.1.0``). Several truths may be accepted (a phone's model code and its marketing
name).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Literal

from bridge.schema import AnswerValue, Check
from device.tasks.base import VariantContext
from device.tasks.contacts_probe import digits

__all__ = ["AnswerKind", "answer_check", "answer_matches"]

AnswerKind = Literal["text", "number", "phone", "version"]


def _text(value: Any) -> str:
    return re.sub(r"[\s\W_]+", "", str(value).casefold())


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    try:
        return float(str(value).strip())
    except ValueError:
        return None


def _version(value: Any) -> str | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    parts = str(value).strip().split(".")
    if not all(part.isdigit() for part in parts):
        return None
    while len(parts) > 1 and int(parts[-1]) == 0:
        parts.pop()
    return ".".join(str(int(part)) for part in parts)


def answer_matches(kind: AnswerKind, given: AnswerValue | None, truth: Any) -> bool:
    """Whether the answer ``given`` says ``truth``, compared as ``kind``."""
    if given is None:
        return False
    if kind == "number":
        value, wanted = _number(given), _number(truth)
        return value is not None and wanted is not None and abs(value - wanted) < 1e-9
    if kind == "phone":
        return digits(str(given)) == digits(str(truth)) != ""
    if kind == "version":
        return _version(given) is not None and _version(given) == _version(truth)
    return _text(given) == _text(truth) != ""


def answer_check(
    ctx: VariantContext,
    field: str,
    truth: Any,
    kind: AnswerKind = "text",
    accept: Sequence[Any] = (),
) -> Check:
    """The check of answer field ``field``: it must say ``truth`` (or one of ``accept``)."""
    given = (ctx.answer or {}).get(field)
    truths = [truth, *accept]
    return Check(
        name=f"answer.{field}",
        expected=truth if not accept else truths,
        actual=given,
        passed=any(answer_matches(kind, given, wanted) for wanted in truths),
        evidence="truth read from the phone at setup",
    )
