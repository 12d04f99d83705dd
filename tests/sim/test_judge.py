"""Judging helpers on literal inputs: diffs, side effects, answer matchers."""

from __future__ import annotations

import pytest

from sim.tasks.judge import changed_paths, check, match_answer, unexpected_changes

BEFORE = {
    "settings": {"global": {"wifi_on": 1, "bluetooth_on": 0}, "system": {"volume_ring": 10}},
    "apps": {"contacts": {"contacts": [{"id": "c1", "starred": False}]}, "answersheet": {}},
}


def test_changed_paths_finds_nested_changes_additions_and_removals() -> None:
    after = {
        "settings": {"global": {"wifi_on": 0}, "system": {"volume_ring": 10, "font_scale": 1.3}},
        "apps": {"contacts": {"contacts": [{"id": "c1", "starred": True}]}, "answersheet": {}},
    }
    assert changed_paths(BEFORE, after) == [
        "apps.contacts.contacts.c1.starred",
        "settings.global.bluetooth_on",
        "settings.global.wifi_on",
        "settings.system.font_scale",
    ]
    assert changed_paths(BEFORE, BEFORE) == []


def test_unexpected_changes_respects_globs_and_ignores_the_answer_sheet() -> None:
    after = {
        "settings": {"global": {"wifi_on": 0, "bluetooth_on": 1}, "system": {"volume_ring": 10}},
        "apps": {"contacts": BEFORE["apps"]["contacts"], "answersheet": {"submitted": True}},
    }
    assert unexpected_changes(BEFORE, after, ["settings.global.wifi_on"]) == [
        "settings.global.bluetooth_on"
    ]
    assert unexpected_changes(BEFORE, after, ["settings.global.*"]) == []


def test_check_compares_values() -> None:
    assert check("wifi", 0, 0).passed and not check("wifi", 0, 1).passed
    assert check("wifi", 0, 1).actual == 1


@pytest.mark.parametrize(
    ("kind", "expected", "given", "ok"),
    [
        ("text", "Alice Johnson", "alice  johnson.", True),
        ("text", "张伟", "张 伟", True),
        ("text", "Alice", "Alicia", False),
        ("choice", "Shanghai", "shanghai", True),
        ("number", 3, "3", True),
        ("number", 3, "three", False),
        ("number", 12.5, "12.49", False),
        ("number", "1,200", 1200, True),
        ("date", "2026-05-12", "2026年5月12日", True),
        ("date", "2026-05-12", "5/12/2026", True),
        ("date", "2026-05-12", "2026-05-13", False),
        ("time", "14:05", "2:05 pm", True),
        ("time", "14:05", "下午2:05", True),
        ("time", "07:30", "7:30", True),
        ("time", "07:30", "19:30", False),
        ("text", "x", None, False),
    ],
)
def test_match_answer(kind: str, expected: object, given: object, ok: bool) -> None:
    assert match_answer(kind, expected, given) is ok


def test_number_tolerance_and_bool_is_not_a_number() -> None:
    assert match_answer("number", 85, 84, tolerance=1)
    assert not match_answer("number", 1, True)
    with pytest.raises(ValueError, match="unknown answer kind"):
        match_answer("colour", "red", "red")


def test_lists_of_records_are_compared_by_id() -> None:
    before = {"contacts": [{"id": "c1", "starred": False}, {"id": "c2", "name": "Bo"}]}
    after = {"contacts": [{"id": "c1", "starred": True}, {"id": "n001", "name": "Al"}]}
    assert changed_paths(before, after) == [
        "contacts.c1.starred",
        "contacts.c2",
        "contacts.n001",
    ]
    assert unexpected_changes(before, after, ["contacts.c1.*"]) == ["contacts.c2", "contacts.n001"]
