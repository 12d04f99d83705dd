"""Judging: the state a task is judged on, state diffs, and typed answer matchers.

The *judged state* is plain JSON: ``{"settings": <Android settings>, "apps": {<app id>:
app.view(overlay)}}`` — data only, never UI state. A verdict's ``clean`` compares the judged
state at the start and at the end: every changed path must match one of the task's
``expected_changes`` globs (``settings.global.wifi_on``, ``apps.contacts.contacts.*``).
"""

from __future__ import annotations

import fnmatch
import math
import re
import unicodedata
from collections.abc import Iterable, Mapping
from datetime import date, time
from typing import Any

from bridge.schema import AnswerValue, Check
from sim.phone import Phone
from sim.state import InstanceState

__all__ = [
    "ALWAYS_IGNORED",
    "changed_paths",
    "check",
    "judged_state",
    "match_answer",
    "unexpected_changes",
]

ALWAYS_IGNORED = ("apps.answersheet", "apps.answersheet.*")
"""Paths no task is blamed for: the AnswerSheet is where the agent answers."""


def judged_state(phone: Phone, state: InstanceState) -> dict[str, Any]:
    """The data a task is judged on (deep copies, safe to keep)."""
    apps = {
        app_id: app.view(state.apps.get(app_id) or app.initial_overlay())
        for app_id, app in phone.apps.items()
    }
    settings = {ns: dict(values) for ns, values in state.os.settings.items()}
    return {"settings": settings, "apps": apps}


def _by_id(value: Any) -> dict[str, Any] | None:
    """A list of dicts that all carry a distinct ``id``, keyed by it; else None."""
    if not isinstance(value, list) or not all(isinstance(v, Mapping) and "id" in v for v in value):
        return None
    keyed = {str(item["id"]): item for item in value}
    return keyed if len(keyed) == len(value) else None


def changed_paths(before: Any, after: Any, prefix: str = "") -> list[str]:
    """Dotted paths whose values differ.

    Lists of records with ids are compared record by record (``apps.contacts.contacts.c012
    .starred``), so a task may change one contact without being blamed for the others;
    other lists are compared as whole values.
    """
    keyed_before, keyed_after = _by_id(before), _by_id(after)
    if keyed_before is not None and keyed_after is not None:
        before, after = keyed_before, keyed_after
    if isinstance(before, Mapping) and isinstance(after, Mapping):
        paths: list[str] = []
        for key in sorted(set(before) | set(after), key=str):
            path = f"{prefix}.{key}" if prefix else str(key)
            if key not in before or key not in after:
                paths.append(path)
            else:
                paths.extend(changed_paths(before[key], after[key], path))
        return paths
    return [] if before == after else [prefix]


def unexpected_changes(
    before: Mapping[str, Any], after: Mapping[str, Any], expected: Iterable[str]
) -> list[str]:
    """Changed paths not covered by ``expected`` globs (nor by :data:`ALWAYS_IGNORED`)."""
    allowed = (*expected, *ALWAYS_IGNORED)
    return [
        path
        for path in changed_paths(before, after)
        if not any(fnmatch.fnmatchcase(path, pattern) for pattern in allowed)
    ]


def check(name: str, expected: Any, actual: Any, evidence: str | None = None) -> Check:
    """A check that passes when ``actual == expected``."""
    return Check(
        name=name, expected=expected, actual=actual, passed=expected == actual, evidence=evidence
    )


# ------------------------------------------------------------------ answer matchers


def _text(value: Any) -> str:
    folded = unicodedata.normalize("NFKC", str(value)).casefold()
    return re.sub(r"[\s\W_]+", "", folded)


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    match = re.search(r"-?\d+(?:\.\d+)?", str(value).replace(",", ""))
    return float(match.group()) if match else None


def _date(value: Any) -> date | None:
    text = str(value).strip()
    patterns = (
        r"(\d{4})[-/.年](\d{1,2})[-/.月](\d{1,2})",
        r"(\d{1,2})/(\d{1,2})/(\d{4})",
    )
    for index, pattern in enumerate(patterns):
        found = re.search(pattern, text)
        if found:
            a, b, c = (int(g) for g in found.groups())
            try:
                return date(a, b, c) if index == 0 else date(c, a, b)
            except ValueError:
                return None
    return None


def _time(value: Any) -> time | None:
    text = str(value).lower()
    found = re.search(r"(\d{1,2})\s*[:：点時时]\s*(\d{2})?", text)
    if not found:
        return None
    hour, minute = int(found.group(1)), int(found.group(2) or 0)
    afternoon = re.search(r"pm|p\.m\.|下午|晚上", text) is not None
    morning = re.search(r"am|a\.m\.|上午|早上|凌晨", text) is not None
    if afternoon and hour < 12:
        hour += 12
    if morning and hour == 12:
        hour = 0
    return time(hour, minute) if hour < 24 and minute < 60 else None


def match_answer(kind: str, expected: Any, given: AnswerValue | None, tolerance: float = 0) -> bool:
    """Whether ``given`` answers a field of ``kind`` whose truth is ``expected``.

    choice/text: equal after Unicode normalisation, case folding and dropping spaces and
    punctuation; number: numerically within ``tolerance``; date and time: equal after
    parsing the common written forms (2026-05-12, 2026年5月12日, 5/12/2026; 14:05, 2:05 pm).
    """
    if given is None:
        return False
    if kind in ("choice", "text"):
        return _text(expected) == _text(given)
    if kind == "number":
        a, b = _number(expected), _number(given)
        return a is not None and b is not None and math.isclose(a, b, abs_tol=tolerance + 1e-9)
    if kind == "date":
        return _date(expected) is not None and _date(expected) == _date(given)
    if kind == "time":
        return _time(expected) is not None and _time(expected) == _time(given)
    raise ValueError(f"unknown answer kind {kind!r}")
