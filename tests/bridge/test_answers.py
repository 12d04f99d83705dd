"""The one answer matcher on answers written the way models write them.

Tolerant forms (units, separators, full-width text, country codes, number words) must
match; ranges, alternatives, negations and other numbers must not — a wrong number never
matches, whatever it shares with the truth.
"""

from __future__ import annotations

import pytest

from bridge.spec.answers import answer_matches, parse_number

TOLERANT = [
    ("number", "3 contacts", 3), ("number", "There are 3 favorites.", 3),
    ("number", "1,200", 1200), ("number", "１２", 12), ("number", "3个", 3),
    ("number", "共有 3 个联系人", 3), ("number", "three", 3), ("number", "三", 3),
    ("number", "十二", 12), ("number", "3.0", 3), ("number", 3.0, 3),
    ("number", "30 minutes", 30), ("number", "about 10 minutes", 10),
    ("text", "ＨｏｍｅＮｅｔ-5G", "HomeNet-5G"), ("text", "homenet 5g", "HomeNet-5G"),
    ("text", "Redmi Note 12-Turbo", "Redmi Note 12 Turbo"), ("text", "张 伟", "张伟"),
    ("text", "Globex, Inc.", "Globex Inc"), ("choice", "shanghai", "Shanghai"),
    ("phone", "0086 139 1234 5678", "+86 139 1234 5678"),
    ("phone", "13912345678", "+86 139 1234 5678"),
    ("phone", "+86-139-1234-5678", "139 1234 5678"),
    ("phone", "(139) 1234-5678", "+86 139 1234 5678"),
    ("phone", "＋８６ １３９ １２３４ ５６７８", "+86 139 1234 5678"),
    ("phone", "+1 415-555-0132", "14155550132"), ("phone", "415 555 0132", "+1 415-555-0132"),
    ("phone", "010 6552 9988", "+86 10 6552 9988"),
    ("version", "Android 14", "14"), ("version", "14.0", "14"), ("version", "8.1", "8.1.0"),
    ("version", 14, "14"),
    ("date", "2026年5月12日", "2026-05-12"), ("date", "5/12/2026", "2026-05-12"),
    ("date", "May 12, 2026", "2026-05-12"), ("date", "12 May 2026", "2026-05-12"),
    ("time", "2:05 pm", "14:05"), ("time", "下午2:05", "14:05"), ("time", "下午2点05分", "14:05"),
    ("time", "7:30", "07:30"), ("time", "14点", "14:00"),
]  # fmt: skip

STRICT = [
    ("number", "not 3", 3), ("number", "3 or 4", 3), ("number", "2–3", 3), ("number", "2-3", 3),
    ("number", "3 to 4", 3), ("number", "3~4", 3), ("number", "不是3个", 3), ("number", "4", 3),
    ("number", "3 contacts and 2 favorites", 3), ("number", "", 3), ("number", True, 1),
    ("number", "no idea", 3), ("number", "12.49", 12.5),
    ("text", "Alicia", "Alice"), ("text", "", ""), ("text", "HomeNet", "HomeNet-5G"),
    ("phone", "139 1234 5679", "+86 139 1234 5678"),
    ("phone", "1234 5678", "+86 139 1234 5678"),  # the last digits only: another number
    ("phone", "5678", "+86 139 1234 5678"), ("phone", "+44 139 1234 5678", "+86 139 1234 5678"),
    ("phone", "call 139 1234 5678", "+86 139 1234 5678"),
    ("version", "13", "14"), ("version", "8", "8.1.0"), ("version", "fourteen", "14"),
    ("date", "2026-05-13", "2026-05-12"), ("time", "19:30", "07:30"),
    ("text", None, "x"), ("number", 3, None),
]  # fmt: skip


@pytest.mark.parametrize(("kind", "given", "truth"), TOLERANT)
def test_tolerant_forms_match(kind: str, given: object, truth: object) -> None:
    assert answer_matches(kind, given, truth)  # type: ignore[arg-type]


@pytest.mark.parametrize(("kind", "given", "truth"), STRICT)
def test_strict_where_it_must_be(kind: str, given: object, truth: object) -> None:
    assert not answer_matches(kind, given, truth)  # type: ignore[arg-type]


def test_numbers_within_a_tolerance_and_unknown_kinds() -> None:
    assert answer_matches("number", "84", 85, tolerance=1)
    assert not answer_matches("number", "83", 85, tolerance=1)
    assert parse_number("1,234,567.5 steps") == 1234567.5
    assert parse_number(float("nan")) is None
    with pytest.raises(ValueError, match="unknown answer kind"):
        answer_matches("colour", "red", "red")  # type: ignore[arg-type]
