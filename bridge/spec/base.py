"""What every node of the spec language is, and what judging a check reads.

A node is plain frozen data (a JSON round trip gives it back). Three kinds of node carry
their own behaviour over :class:`~bridge.android_state.AndroidState`, so the module of a
surface holds everything about it: an :class:`EnsureNode` is posed, a :class:`FactNode` is
read, a :class:`CheckNode` is evaluated; :mod:`bridge.judge` only dispatches.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from bridge.actions import require_tags
from bridge.android_state import AndroidState, printed
from bridge.schema import AnswerValue, CheckResult

__all__ = [
    "TRUTH_REF",
    "CheckNode",
    "EnsureNode",
    "FactNode",
    "Scalar",
    "Seen",
    "SpecNode",
    "TruthRef",
    "Truths",
    "equal",
    "number",
    "resolve",
]

Truths = Mapping[str, Sequence[JsonValue]]
"""What a spec's truths read on the phone when it was posed: truth name → accepted values.
Checks, row filters and file paths bind them (:mod:`bridge.spec.rows`,
:mod:`bridge.spec.files`)."""

TRUTH_REF = re.compile(r"\{truth\.([A-Za-z_]\w*)\}")
"""A truth named inside a ``where``, a path or a glob: ``{truth.NAME}``."""


class SpecNode(BaseModel):
    """A node of the spec language: frozen, no unknown keys, its tag required in JSON Schema."""

    model_config = ConfigDict(
        extra="forbid", frozen=True, json_schema_extra=require_tags("op", "source", "check")
    )


Scalar = str | int | float | bool | None


class TruthRef(SpecNode):
    """A value that is a truth read at the start (by name), e.g. the number to copy."""

    truth: str = Field(min_length=1)


class EnsureNode(SpecNode):
    """An ensure operation: part of posing the task on any phone."""

    async def pose(self, state: AndroidState) -> None:
        """Carry the operation out on ``state``."""
        raise NotImplementedError


class FactNode(SpecNode):
    """A fact: values read from the phone (absent values dropped)."""

    async def read(self, state: AndroidState, truths: Truths) -> list[JsonValue]:
        """The values the fact reads now; ``truths`` are those read before it."""
        raise NotImplementedError

    def truth_names(self) -> list[str]:
        """The truths this fact names, which must be read before it."""
        return []


@dataclass(frozen=True)
class Seen:
    """What evaluating a check reads besides the phone: the truths read when the task was
    posed, the episode's saved UI trees (XML), the answer the agent gave."""

    truths: Truths
    trees: Sequence[str] = ()
    answer: Mapping[str, AnswerValue] | None = None


class CheckNode(SpecNode):
    """A check: part of the goal, evaluated into verdict lines."""

    async def evaluate(self, state: AndroidState, seen: Seen) -> list[CheckResult]:
        """The verdict lines of this check now."""
        raise NotImplementedError

    async def judgeable(self, state: AndroidState, truths: Truths) -> None:
        """Raise :class:`~bridge.errors.TaskNotPosed` when this phone cannot judge the check
        (said when posing, so no episode is wasted); most checks can always be judged."""

    def truth_names(self) -> list[str]:
        """The truths this check names, which the spec must read."""
        return []


def number(text: object) -> float | None:
    """``text`` as a number (``"2"``, ``"1.2999999523"``); None when it is not one."""
    if text is None or isinstance(text, bool):
        return None
    try:
        return float(str(text))
    except ValueError:
        return None


def resolve(value: Scalar | TruthRef, truths: Truths) -> list[JsonValue]:
    """The accepted expected values: a literal, or a truth's accepted values."""
    if isinstance(value, TruthRef):
        return list(truths[value.truth])
    return [printed(value) if not isinstance(value, str) else value]


def equal(actual: str | None, expected: JsonValue, tolerance: float) -> bool:
    """Values compared as Android prints them: numbers numerically within ``tolerance``
    (``"1.2999999523"`` is 1.3 within 0.05; ``"2"`` equals 2), other values as text."""
    a, b = number(actual), number(expected)
    if a is not None and b is not None:
        return abs(a - b) <= tolerance + 1e-9
    return actual is not None and actual == printed(expected)
