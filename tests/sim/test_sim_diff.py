"""The simulator's full-state diff on literal inputs (``Verdict.sim_side_effects``)."""

from __future__ import annotations

from sim.tasks.sim_diff import changed_paths, sim_changes

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


def test_sim_changes_leave_out_the_answer_sheet() -> None:
    after = {
        "settings": {"global": {"wifi_on": 0, "bluetooth_on": 0}, "system": {"volume_ring": 10}},
        "apps": {"contacts": BEFORE["apps"]["contacts"], "answersheet": {"submitted": True}},
    }
    assert sim_changes(BEFORE, after) == ["settings.global.wifi_on"]


def test_lists_of_records_are_compared_by_id() -> None:
    before = {"contacts": [{"id": "c1", "starred": False}, {"id": "c2", "name": "Bo"}]}
    after = {"contacts": [{"id": "c1", "starred": True}, {"id": "n001", "name": "Al"}]}
    assert changed_paths(before, after) == [
        "contacts.c1.starred",
        "contacts.c2",
        "contacts.n001",
    ]
