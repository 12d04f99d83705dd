"""The one answer matcher: does a typed answer say the truth? Same function in both worlds.

Tolerant where people (and models) write one thing differently, strict where a different
thing is said:

* **text / choice**: equal after NFKC (full-width letters and digits), case folding and
  dropping spaces and punctuation (``Redmi Note 12-Turbo`` = ``redmi note 12 turbo``).
* **number**: one number, written with digits (full-width too), thousands separators
  (``1,200``), a unit or noun around it (``3 contacts``, ``3个``, ``about 10 minutes``),
  or as a small number word (``three``, ``三``). Ranges, alternatives and negations (``2–3``,
  ``3 or 4``, ``not 3``) and two different numbers never match.
* **phone**: the same digits, up to formatting (spaces, dashes, brackets), an international
  prefix (``+86`` = ``0086``) and a country code that one side leaves out
  (``+86 139 1234 5678`` = ``13912345678``). Never a partial match: another number fails.
* **version**: ``14`` = ``14.0`` = ``Android 14``; ``8.1`` = ``8.1.0``.
* **date** / **time**: the common written forms (``2026-05-12``, ``2026年5月12日``,
  ``5/12/2026``, ``May 12, 2026``; ``14:05``, ``2:05 pm``, ``下午2点05分``).
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Mapping, Sequence
from datetime import date, time
from typing import Literal

from pydantic import Field

from bridge.schema import AnswerValue, CheckResult
from bridge.spec.base import SpecNode, Truths

__all__ = ["AnswerRule", "MatchKind", "answer_matches", "check_answers", "parse_number"]

MatchKind = Literal["text", "choice", "number", "phone", "version", "date", "time"]

_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "twenty": 20, "none": 0, "no one": 0,
}  # fmt: skip
_HAN_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6,
               "七": 7, "八": 8, "九": 9}  # fmt: skip
_NEGATION = re.compile(r"\b(not|no|never|isn't|aren't|neither)\b|不是|不|没有|并非")
_ALTERNATIVE = re.compile(r"\bor\b|\bto\b|或|还是|至|到|~|～|–|—|\d\s*-\s*\d|±|\+/-")
_NUMBER = re.compile(r"(?<![\d.])-?\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\d,])|(?<![\d.])-?\d+(?:\.\d+)?")
_COUNTRY_CODES = frozenset(
    {"1", "7", "20", "27", "30", "31", "33", "34", "39", "41", "44", "45", "46", "47", "49",
     "52", "55", "60", "61", "62", "63", "64", "65", "66", "81", "82", "84", "86", "90", "91",
     "852", "853", "886", "971"}
)  # fmt: skip
"""Country calling codes an answer may add or leave out (ITU-T E.164, the common ones)."""


def _nfkc(value: object) -> str:
    return unicodedata.normalize("NFKC", str(value)).strip()


def _text(value: object) -> str:
    return re.sub(r"[\s\W_]+", "", _nfkc(value).casefold())


def _han_number(text: str) -> int | None:
    """一 … 九十九 (and 十, 两), the counts people write in Chinese."""
    if not text or any(ch not in _HAN_DIGITS and ch != "十" for ch in text):
        return None
    if "十" not in text:
        return _HAN_DIGITS[text] if len(text) == 1 else None
    tens, _, ones = text.partition("十")
    if len(tens) > 1 or len(ones) > 1:
        return None
    return (_HAN_DIGITS[tens] if tens else 1) * 10 + (_HAN_DIGITS[ones] if ones else 0)


def parse_number(value: object) -> float | None:
    """The one number an answer states, None when it states none, several, a range, an
    alternative or a negation."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value) if math.isfinite(value) else None
    text = _nfkc(value).casefold()
    if _NEGATION.search(text) or _ALTERNATIVE.search(text):
        return None
    found = {float(m.replace(",", "")) for m in _NUMBER.findall(text)}
    if len(found) == 1:
        return found.pop()
    if found:
        return None
    words = {n for word, n in _WORDS.items() if re.search(rf"\b{word}\b", text)}
    han = {_han_number(run) for run in re.findall(r"[零〇一二两三四五六七八九十]+", text)}
    candidates = words | {n for n in han if n is not None}
    return float(candidates.pop()) if len(candidates) == 1 else None


def _phone_digits(value: object) -> tuple[str, bool] | None:
    """(digits, international): ``+86 139…`` and ``0086 139…`` are international."""
    text = _nfkc(value)
    if re.search(r"[^\d\s+()\-./]", text) or not re.search(r"\d", text):
        return None
    digits = re.sub(r"\D", "", text)
    if text.startswith("+"):
        return digits, True
    if digits.startswith("00"):
        return digits[2:], True
    return digits, False


def _same_phone(given: object, truth: object) -> bool:
    a, b = _phone_digits(given), _phone_digits(truth)
    if a is None or b is None:
        return False
    (da, intl_a), (db, intl_b) = a, b
    if da == db:
        return True
    if intl_a == intl_b:
        return False
    full, national = (da, db) if intl_a else (db, da)
    national = national[1:] if national.startswith("0") else national  # trunk prefix 0
    code = full[: len(full) - len(national)]
    return full.endswith(national) and code in _COUNTRY_CODES and len(national) >= 7


def _version(value: object) -> str | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    text = re.sub(r"^(android|安卓)\s*", "", _nfkc(value).casefold()).strip()
    if not re.fullmatch(r"\d+(?:\.\d+)*", text):
        return None
    parts = text.split(".")
    while len(parts) > 1 and int(parts[-1]) == 0:
        parts.pop()
    return ".".join(str(int(part)) for part in parts)


_MONTH_NAMES = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_MONTHS = {name: number for number, name in enumerate(_MONTH_NAMES, 1)}


def _date(value: object) -> date | None:
    text = _nfkc(value).casefold()
    forms: list[tuple[str, tuple[int, int, int]]] = [
        (r"(\d{4})\s*[-/.年]\s*(\d{1,2})\s*[-/.月]\s*(\d{1,2})", (0, 1, 2)),
        (r"(\d{1,2})/(\d{1,2})/(\d{4})", (2, 0, 1)),
    ]
    for pattern, (y, m, d) in forms:
        found = re.search(pattern, text)
        if found:
            groups = [int(g) for g in found.groups()]
            return _safe_date(groups[y], groups[m], groups[d])
    named = re.search(r"([a-z]{3})[a-z]*\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})", text)
    if named and named.group(1) in _MONTHS:
        return _safe_date(int(named.group(3)), _MONTHS[named.group(1)], int(named.group(2)))
    named = re.search(r"(\d{1,2})(?:st|nd|rd|th)?\s+([a-z]{3})[a-z]*\.?,?\s+(\d{4})", text)
    if named and named.group(2) in _MONTHS:
        return _safe_date(int(named.group(3)), _MONTHS[named.group(2)], int(named.group(1)))
    return None


def _safe_date(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def _time(value: object) -> time | None:
    text = _nfkc(value).casefold()
    found = re.search(r"(\d{1,2})\s*(?:[:点時时]\s*(\d{1,2})?)", text) or re.search(
        r"(\d{1,2})\s*(?=am|pm|a\.m\.|p\.m\.)", text
    )
    if not found:
        return None
    groups = found.groups()
    hour = int(groups[0])
    minute = int(groups[1]) if len(groups) > 1 and groups[1] else 0
    if re.search(r"pm|p\.m\.|下午|晚上|傍晚", text) and hour < 12:
        hour += 12
    if re.search(r"am|a\.m\.|上午|早上|凌晨", text) and hour == 12:
        hour = 0
    return time(hour, minute) if hour < 24 and minute < 60 else None


def answer_matches(kind: MatchKind, given: object, truth: object, tolerance: float = 0.0) -> bool:
    """Whether the answer ``given`` says ``truth``, compared as ``kind`` (module docstring)."""
    if given is None or truth is None:
        return False
    if kind in ("text", "choice"):
        return _text(given) == _text(truth) != ""
    if kind == "number":
        a, b = parse_number(given), parse_number(truth)
        return a is not None and b is not None and abs(a - b) <= tolerance + 1e-9
    if kind == "phone":
        return _same_phone(given, truth)
    if kind == "version":
        return _version(given) is not None and _version(given) == _version(truth)
    if kind == "date":
        return _date(given) is not None and _date(given) == _date(truth)
    if kind == "time":
        return _time(given) is not None and _time(given) == _time(truth)
    raise ValueError(f"unknown answer kind {kind!r}")


class AnswerRule(SpecNode):
    """A typed answer field: its truth (by name) and how answers are matched."""

    field: str = Field(min_length=1)
    truth: str
    match: MatchKind
    tolerance: float = Field(default=0.0, ge=0)


def check_answers(
    rules: Sequence[AnswerRule], truths: Truths, answer: Mapping[str, AnswerValue] | None
) -> list[CheckResult]:
    """One verdict line per answer field: the answer against the truth read at the start."""
    checks = []
    for rule in rules:
        accepted = truths[rule.truth]
        given = (answer or {}).get(rule.field)
        passed = any(answer_matches(rule.match, given, t, rule.tolerance) for t in accepted)
        checks.append(
            CheckResult(
                name=f"answer.{rule.field}",
                expected=accepted[0] if len(accepted) == 1 else list(accepted),
                actual=given,
                passed=passed,
                evidence=f"matched as {rule.match} against the truth read at the start",
            )
        )
    return checks
