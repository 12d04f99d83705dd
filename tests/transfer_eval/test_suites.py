"""Shipped suites pose mostly tasks whose spec a retail phone can pose (the others, which
need the simulator or the virtual phone, say why); entries get unique labels."""

from __future__ import annotations

from pathlib import Path

import pytest

from sim.tasks.registry import default_registry
from transfer_eval.suites import SuiteError, load_split, load_suite, suite_names


@pytest.mark.parametrize("name", suite_names())
def test_every_shipped_suite_poses_tasks_a_phone_can_run(name: str) -> None:
    registry = default_registry()
    suite = load_suite(name)
    retail = 0
    for entry in suite.instances():
        task = registry.instantiate(entry.task_id, entry.seed, entry.lang)
        assert task.spec is not None and (task.spec.checks or task.spec.answers), entry
        assert all(r.reason for r in task.spec.requires), entry
        retail += not task.spec.requires
    assert retail >= 0.75 * len(suite.instances()), (name, retail)  # paired: 20 of 26


def test_the_default_suite_is_held_out_from_the_shipped_checkpoints_training_seeds() -> None:
    trained_on = {e.seed for e in load_split("all-l1").train.instances()}
    suite = load_suite("paired")
    assert not trained_on & {e.seed for e in suite.instances()}
    assert {e.lang for e in suite.instances()} == {"en", "zh"}


def test_a_task_listed_twice_gets_labels_with_seed_and_language(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text(
        '{"lang": "en", "tasks": [{"task_id": "a/X-v1", "seed": 1}, '
        '{"task_id": "a/X-v1", "seed": 1, "lang": "zh"}, {"task_id": "a/Y-v1"}]}'
    )
    labels = [e.label for e in load_suite(str(path)).instances()]
    assert labels == ["a/X-v1_s1-en", "a/X-v1_s1-zh", "a/Y-v1"]


def test_the_same_instance_twice_is_refused_by_name(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text('{"tasks": [{"task_id": "a/X-v1"}, {"task_id": "a/X-v1", "lang": "en"}]}')
    with pytest.raises(SuiteError, match=r"listed twice: a/X-v1 \(seed 0, en\)"):
        load_suite(str(path))


def test_posing_a_suite_in_the_phones_language_merges_entries_that_coincide(
    tmp_path: Path,
) -> None:
    path = tmp_path / "s.json"
    path.write_text(
        '{"lang": "en", "tasks": [{"task_id": "a/X-v1", "seed": 1}, '
        '{"task_id": "a/X-v1", "seed": 1, "lang": "zh"}, {"task_id": "a/X-v1", "seed": 2}]}'
    )
    suite = load_suite(str(path))
    assert [(e.label, e.lang) for e in suite.instances("en")] == [
        ("a/X-v1_s1-en", "en"),
        ("a/X-v1_s2-en", "en"),
    ]
    assert [e.lang for e in suite.instances("zh")] == ["zh", "zh"]


def test_paired_all_holds_every_task_a_retail_phone_can_pose() -> None:
    registry = default_registry()
    retail = set()
    for task_id in registry.ids():
        spec = registry.instantiate(task_id, 1000).spec
        if spec is not None and not spec.requires:
            retail.add(task_id)
    assert set(load_suite("paired-all").task_ids()) == retail
