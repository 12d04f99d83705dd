"""Settings: put as the user would put them, read as ``settings get`` prints them, and
compared with a value (numbers numerically within a tolerance, other values as text)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, JsonValue

from bridge.android_state import AndroidState, Namespace
from bridge.schema import CheckResult
from bridge.spec.base import (
    CheckNode,
    EnsureNode,
    FactNode,
    Scalar,
    Seen,
    TruthRef,
    Truths,
    equal,
    number,
    resolve,
)

__all__ = ["Compare", "PutSetting", "SettingCheck", "SettingFact", "check_setting"]


class PutSetting(EnsureNode):
    """Put a setting, applied as the user would (a phone's service follows)."""

    op: Literal["put_setting"] = "put_setting"
    namespace: Namespace
    key: str = Field(min_length=1)
    value: str

    async def pose(self, state: AndroidState) -> None:
        """Put the setting (the owning service follows, as for a user)."""
        await state.put_setting(self.namespace, self.key, self.value)


class SettingFact(FactNode):
    """A setting's printed value (None: ``null``)."""

    source: Literal["setting"] = "setting"
    namespace: Namespace
    key: str

    async def read(self, state: AndroidState, truths: Truths) -> list[JsonValue]:
        """The printed value; nothing for ``null``."""
        value = await state.get_setting(self.namespace, self.key)
        return [] if value is None else [value]


Compare = Literal["eq", "ne", "zero", "nonzero", "ge", "le", "primary"]
"""``primary``: the first item of a comma-separated list equals the value (a locale list:
``zh-CN,en-US`` has the primary locale ``zh-CN``)."""


class SettingCheck(CheckNode):
    """A setting compared with a value: numbers numerically (within ``tolerance``), other
    text exactly; ``zero``/``nonzero`` need no value."""

    check: Literal["setting"] = "setting"
    namespace: Namespace
    key: str
    op: Compare = "eq"
    value: Scalar | TruthRef = None
    tolerance: float = Field(default=0.0, ge=0)

    async def evaluate(self, state: AndroidState, seen: Seen) -> list[CheckResult]:
        """The setting against its expected value."""
        return [await check_setting(state, self, seen.truths)]

    def truth_names(self) -> list[str]:
        """The truth the expected value names, if any."""
        return [self.value.truth] if isinstance(self.value, TruthRef) else []


def _compare(rule: SettingCheck, actual: str | None, expected: list[JsonValue]) -> bool:
    value = number(actual)
    if rule.op == "eq":
        return any(equal(actual, e, rule.tolerance) for e in expected)
    if rule.op == "ne":
        return not any(equal(actual, e, rule.tolerance) for e in expected)
    if rule.op == "primary":
        first = actual.split(",")[0].strip() if actual is not None else None
        return any(equal(first, e, rule.tolerance) for e in expected)
    if value is None:
        return False
    if rule.op == "zero":
        return value == 0
    if rule.op == "nonzero":
        return value != 0
    bound = number(expected[0])
    if bound is None:
        raise ValueError(f"{rule.namespace}.{rule.key} {rule.op} needs a number, got {expected}")
    return value >= bound if rule.op == "ge" else value <= bound


async def check_setting(state: AndroidState, rule: SettingCheck, truths: Truths) -> CheckResult:
    """A setting against its expected value."""
    actual = await state.get_setting(rule.namespace, rule.key)
    expected = resolve(rule.value, truths) if rule.op not in ("zero", "nonzero") else []
    shown: JsonValue = expected[0] if len(expected) == 1 else expected
    if rule.op != "eq":
        shown = f"{rule.op} {shown}" if expected else rule.op
    elif rule.tolerance:
        shown = f"{shown} ± {rule.tolerance:g}"
    return CheckResult(
        name=f"{rule.namespace}.{rule.key}",
        expected=shown,
        actual=actual,
        passed=_compare(rule, actual, expected),
        evidence=f"settings get {rule.namespace} {rule.key}",
    )
