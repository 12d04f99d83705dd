"""XPath facts over the UI XML an episode saved (MobileBench-OL style), with lxml.

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
from collections.abc import Sequence
from dataclasses import dataclass

from lxml import etree

from bridge.errors import UITreeError
from bridge.uitree import parse_hierarchy

__all__ = [
    "CHOICE",
    "CHOICE_LABEL",
    "MIN_OPTIONS",
    "Offered",
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
