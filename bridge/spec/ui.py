"""The UI: XPath over the UI XML an episode saved (MobileBench-OL style), with lxml.

The rules here find a *duration chooser* on a screen — the screen-timeout list of Settings —
and read the durations it offers from its options' labels, in English or Chinese
(``30 minutes``, ``1 minute``, ``15 秒``, ``10 分钟``). Which durations a phone offers differs
by ROM (AOSP goes to 30 minutes, MIUI to 10 minutes or "Never"), so a task that asks for the
longest one is judged against what the episode's own screens showed. Labels that are not
durations (MIUI's "Never" / "永不") are not options of a timeout in minutes and are skipped.

A rule is an XPath 1.0 string; evaluating it against a tree is all the code does, so a
reader sees the rule itself.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from lxml import etree
from pydantic import Field

from bridge.android_state import AndroidState, Namespace
from bridge.errors import UITreeError
from bridge.schema import AnswerValue, CheckResult
from bridge.spec.answers import answer_matches
from bridge.spec.base import CheckNode, Seen, number
from bridge.uitree import parse_hierarchy

__all__ = [
    "CHOICE",
    "CHOICE_LABEL",
    "MIN_OPTIONS",
    "LongestOfferedCheck",
    "Offered",
    "check_longest_offered",
    "duration_ms",
    "longest_offered",
    "offered_durations",
]

CHOICE = "//node[@checkable='true'][not(contains(@class, 'Switch'))]"
"""The options of a single-choice list: checkable nodes that are not on/off switches
(``RadioButton``, ``CheckedTextView``)."""
CHOICE_LABEL = (
    "string((ancestor-or-self::node[descendant-or-self::node[normalize-space(@text) != '']][1]"
    "/descendant-or-self::node[normalize-space(@text) != ''])[1]/@text)"
)
"""From an option: the first text of its row, i.e. of the nearest node (the option itself or
an ancestor) holding any text — the option's own text, else the row's title."""
MIN_OPTIONS = 3
"""A screen is a chooser when at least this many options read as distinct durations."""

_UNITS_MS = {
    "second": 1_000, "seconds": 1_000, "sec": 1_000, "secs": 1_000, "秒": 1_000, "秒钟": 1_000,
    "minute": 60_000, "minutes": 60_000, "min": 60_000, "mins": 60_000, "分钟": 60_000,
    "hour": 3_600_000, "hours": 3_600_000, "hr": 3_600_000, "hrs": 3_600_000,
    "小时": 3_600_000,
}  # fmt: skip
_DURATION = re.compile(
    r"(\d+(?:\.\d+)?)\s*(seconds?|secs?|minutes?|mins?|hours?|hrs?|秒钟|秒|分钟|小时)(?![a-z])",
    re.IGNORECASE,
)


def duration_ms(label: str) -> int | None:
    """The duration a label names in milliseconds (``2 minutes`` -> 120000), else None."""
    found = _DURATION.search(label)
    if found is None:
        return None
    return round(float(found.group(1)) * _UNITS_MS[found.group(2).lower()])


def _root(xml: str) -> etree._Element | None:
    """The tree as lxml elements (via :func:`parse_hierarchy`, which tolerates the junk
    around real dumps); None for a dump that holds no tree (idle timeout, secure window)."""
    try:
        tree = parse_hierarchy(xml)
    except UITreeError:
        return None
    return etree.fromstring(tree.to_xml().encode("utf-8"))


def offered_durations(xml: str) -> dict[int, str]:
    """Durations (ms -> label) a screen's chooser offers; {} when the screen is no chooser."""
    root = _root(xml)
    if root is None:
        return {}
    offered: dict[int, str] = {}
    for option in root.xpath(CHOICE):
        label = str(option.xpath(CHOICE_LABEL)).strip()
        ms = duration_ms(label)
        if ms is not None:
            offered.setdefault(ms, label)
    return offered if len(offered) >= MIN_OPTIONS else {}


@dataclass(frozen=True)
class Offered:
    """The longest duration the episode's choosers offered, its label, and the steps (tree
    indices) that showed a chooser."""

    ms: int
    label: str
    steps: tuple[int, ...]


def longest_offered(trees: Sequence[str]) -> Offered | None:
    """The longest option of every chooser the trees showed; None when none showed one."""
    seen: dict[int, str] = {}
    steps: list[int] = []
    for step, xml in enumerate(trees):
        offered = offered_durations(xml)
        if offered:
            steps.append(step)
            for ms, label in offered.items():
                seen.setdefault(ms, label)
    if not seen:
        return None
    longest = max(seen)
    return Offered(ms=longest, label=seen[longest], steps=tuple(steps))


class LongestOfferedCheck(CheckNode):
    """XPath over the episode's saved UI trees: the longest duration any screen's chooser
    offered; the setting must hold it and the answer ``answer_field`` must give it in
    ``answer_unit_ms`` (a ROM decides what "longest" means, so its own screens do)."""

    check: Literal["longest_offered"] = "longest_offered"
    namespace: Namespace
    key: str
    answer_field: str
    answer_unit_ms: int = Field(default=60_000, gt=0)

    async def evaluate(self, state: AndroidState, seen: Seen) -> list[CheckResult]:
        """Three lines: a chooser seen, the setting, the answer."""
        return await check_longest_offered(state, self, seen.trees, seen.answer)


async def check_longest_offered(
    state: AndroidState,
    rule: LongestOfferedCheck,
    trees: Sequence[str],
    answer: Mapping[str, AnswerValue] | None,
) -> list[CheckResult]:
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
            CheckResult(name="longest option offered", expected="a duration chooser", actual=None,
                  passed=False, evidence=evidence),
            CheckResult(name=setting, expected="the longest option offered", actual=raw,
                  passed=False, evidence=evidence),
            CheckResult(name=f"answer.{rule.answer_field}", expected="the longest option",
                  actual=given, passed=False, evidence=evidence),
        ]  # fmt: skip
    steps = ", ".join(map(str, offered.steps))
    where = f"the longest option, {offered.label!r}, offered at steps {steps}"
    amount = offered.ms / rule.answer_unit_ms
    truth = int(amount) if amount.is_integer() else amount
    return [
        CheckResult(name="longest option offered", expected="a duration chooser",
              actual=offered.label, passed=True,
              evidence=f"steps {steps}: XPath options {CHOICE}, labels {CHOICE_LABEL}"),
        CheckResult(name=setting, expected=offered.ms, actual=raw,
              passed=number(raw) == offered.ms,
              evidence=f"settings get {rule.namespace} {rule.key} against {where}"),
        CheckResult(name=f"answer.{rule.answer_field}", expected=truth, actual=given,
              passed=answer_matches("number", given, truth),
              evidence=f"answer against {where}"),
    ]  # fmt: skip
