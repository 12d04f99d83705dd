"""Shipped suites pose only tasks a phone can judge; suite entries get unique labels."""

from __future__ import annotations

from pathlib import Path

import pytest

from device.tasks.registry import default_variants
from sim.tasks.registry import default_registry
from transfer_eval.suites import SuiteError, load_suite, suite_names


@pytest.mark.parametrize("name", suite_names())
def test_every_shipped_suite_pairs_tasks_with_a_judging_device_variant(name: str) -> None:
    variants = default_variants()
    suite = load_suite(name)
    for entry in suite.instances():
        assert entry.task_id in default_registry().ids(), entry
        assert entry.task_id in variants and variants[entry.task_id].judged_by != "none", entry


def test_the_default_suite_is_held_out_from_the_shipped_checkpoints_training_seeds() -> None:
    from transfer_eval.train_cli import SPLITS

    train_first, train_count = SPLITS["all-l1"].train_seeds
    suite = load_suite("paired")
    assert all(not train_first <= e.seed < train_first + train_count for e in suite.instances())
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
        ("a/X-v1_s1-en", "en"), ("a/X-v1_s2-en", "en")]
    assert [e.lang for e in suite.instances("zh")] == ["zh", "zh"]
