"""Reading a spec's checks through an ``AndroidState``: one function per kind of check.

Values are compared as Android prints them: numbers numerically (``"1.2999999523"`` is 1.3
within a tolerance of 0.05; ``"2"`` equals 2), other values as text.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pydantic import JsonValue

from bridge.android_state import AndroidState, printed
from bridge.answers import answer_matches
from bridge.phone_time import local_clock, say_time
from bridge.schema import AnswerValue, Check
from bridge.spec_rows import bind_truths, read_rows, said
from bridge.taskspec import (
    LongestOfferedCheck,
    NextAlarmCheck,
    RowsCheck,
    Scalar,
    SettingCheck,
    TruthRef,
    Truths,
)
from bridge.xpath_facts import CHOICE, CHOICE_LABEL, MIN_OPTIONS, longest_offered

__all__ = ["check_longest_offered", "check_next_alarm", "check_rows", "check_setting"]


def _number(text: object) -> float | None:
    if text is None or isinstance(text, bool):
        return None
    try:
        return float(str(text))
    except ValueError:
        return None


def _resolve(value: Scalar | TruthRef, truths: Truths) -> list[JsonValue]:
    """The accepted expected values: a literal, or a truth's accepted values."""
    if isinstance(value, TruthRef):
        return list(truths[value.truth])
    return [printed(value) if not isinstance(value, str) else value]


def _equal(actual: str | None, expected: JsonValue, tolerance: float) -> bool:
    a, b = _number(actual), _number(expected)
    if a is not None and b is not None:
        return abs(a - b) <= tolerance + 1e-9
    return actual is not None and actual == printed(expected)


def _compare(rule: SettingCheck, actual: str | None, expected: list[JsonValue]) -> bool:
    number = _number(actual)
    if rule.op == "eq":
        return any(_equal(actual, e, rule.tolerance) for e in expected)
    if rule.op == "ne":
        return not any(_equal(actual, e, rule.tolerance) for e in expected)
    if rule.op == "primary":
        first = actual.split(",")[0].strip() if actual is not None else None
        return any(_equal(first, e, rule.tolerance) for e in expected)
    if number is None:
        return False
    if rule.op == "zero":
        return number == 0
    if rule.op == "nonzero":
        return number != 0
    bound = _number(expected[0])
    if bound is None:
        raise ValueError(f"{rule.namespace}.{rule.key} {rule.op} needs a number, got {expected}")
    return number >= bound if rule.op == "ge" else number <= bound


async def check_setting(state: AndroidState, rule: SettingCheck, truths: Truths) -> Check:
    """A setting against its expected value."""
    actual = await state.get_setting(rule.namespace, rule.key)
    expected = _resolve(rule.value, truths) if rule.op not in ("zero", "nonzero") else []
    shown: JsonValue = expected[0] if len(expected) == 1 else expected
    if rule.op != "eq":
        shown = f"{rule.op} {shown}" if expected else rule.op
    elif rule.tolerance:
        shown = f"{shown} ± {rule.tolerance:g}"
    return Check(
        name=f"{rule.namespace}.{rule.key}",
        expected=shown,
        actual=actual,
        passed=_compare(rule, actual, expected),
        evidence=f"settings get {rule.namespace} {rule.key}",
    )


def _matches(how: str, actual: str | None, expected: list[JsonValue]) -> bool:
    if actual is None:
        return False
    if how == "number":
        return any(answer_matches("phone", actual, e) for e in expected)
    if how == "casefold":
        return any(actual.casefold() == str(e).casefold() for e in expected)
    return any(_equal(actual, e, 0.0) for e in expected)


async def check_rows(state: AndroidState, rule: RowsCheck, truths: Truths) -> Check:
    """A condition on provider rows (see :class:`~bridge.taskspec.RowsCheck`)."""
    rows = await read_rows(state, rule.uri, [rule.column], rule.where, rule.within, truths)
    values = await said(state, [row[rule.column] for row in rows], rule.as_time)
    expected = _resolve(rule.value, truths)
    if rule.expect == "count":
        passed = _number(expected[0]) == len(values)
        actual: JsonValue = len(values)
    else:
        hits = [_matches(rule.match, value, expected) for value in values]
        passed = {
            "any": any(hits),
            "all": bool(hits) and all(hits),
            "only": hits == [True],
        }[rule.expect]
        actual = list(values)
    where = f" --where {bind_truths(rule.where, truths)!r}" if rule.where else ""
    if rule.within is not None:
        where += f" (and {rule.within.column} in the {rule.within.of} of {rule.within.uri}"
        where += (
            f" --where {bind_truths(rule.within.where, truths)!r})" if rule.within.where else ")"
        )
    return Check(
        name=rule.name,
        expected=f"{rule.expect} {expected[0] if len(expected) == 1 else expected}",
        actual=actual,
        passed=passed,
        evidence=f"content query --uri {rule.uri} --projection {rule.column}{where}",
        guard=rule.guard,
    )


async def check_next_alarm(state: AndroidState, rule: NextAlarmCheck, truths: Truths) -> Check:
    """The phone's next alarm rings exactly at the truth (compared in epoch ms; shown as the
    phone's local date and time); fails when no alarm is set."""
    target = int(str(truths[rule.value.truth][0]))
    ring = await state.next_alarm()
    _, zone_name = await state.now()

    def said(ms: int) -> str:
        return f"{say_time(ms, zone_name, 'local_date')} {local_clock(ms, zone_name)}"

    return Check(
        name=rule.name,
        expected=said(target),
        actual=None if ring is None else said(ring),
        passed=ring == target,
        evidence="dumpsys alarm: Next alarm clock information",
    )


async def check_longest_offered(
    state: AndroidState,
    rule: LongestOfferedCheck,
    trees: Sequence[str],
    answer: Mapping[str, AnswerValue] | None,
) -> list[Check]:
    """Three checks: a chooser was seen, the setting holds its longest option, the answer
    gives it; all fail when no screen showed a chooser ("longest" then means nothing)."""
    raw = await state.get_setting(rule.namespace, rule.key)
    given = (answer or {}).get(rule.answer_field)
    offered = longest_offered(trees)
    setting = f"{rule.namespace}.{rule.key}"
    if offered is None:
        evidence = (
            f"none of the {len(trees)} saved screens showed a duration chooser (XPath options "
            f"{CHOICE}, labels {CHOICE_LABEL}, at least {MIN_OPTIONS} durations)"
        )
        return [
            Check(name="longest option offered", expected="a duration chooser", actual=None,
                  passed=False, evidence=evidence),
            Check(name=setting, expected="the longest option offered", actual=raw,
                  passed=False, evidence=evidence),
            Check(name=f"answer.{rule.answer_field}", expected="the longest option",
                  actual=given, passed=False, evidence=evidence),
        ]  # fmt: skip
    steps = ", ".join(map(str, offered.steps))
    where = f"the longest option, {offered.label!r}, offered at steps {steps}"
    amount = offered.ms / rule.answer_unit_ms
    truth = int(amount) if amount.is_integer() else amount
    return [
        Check(name="longest option offered", expected="a duration chooser",
              actual=offered.label, passed=True,
              evidence=f"steps {steps}: XPath options {CHOICE}, labels {CHOICE_LABEL}"),
        Check(name=setting, expected=offered.ms, actual=raw,
              passed=_number(raw) == offered.ms,
              evidence=f"settings get {rule.namespace} {rule.key} against {where}"),
        Check(name=f"answer.{rule.answer_field}", expected=truth, actual=given,
              passed=answer_matches("number", given, truth),
              evidence=f"answer against {where}"),
    ]  # fmt: skip
