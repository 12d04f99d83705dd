"""Shipped suites pose mostly tasks whose spec a retail phone can pose (the others, which
need the simulator or the virtual phone, say why); entries get unique labels; a selection
resolves against the registry, and a bad one is refused in one line naming the choices."""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge.records import TaskInstance
from bridge.retail import retail_can_pose
from bridge.taskspec import Requirement, TaskSpec
from sim.tasks.registry import TaskRegistry, default_registry
from transfer_eval.errors import SuiteError
from transfer_eval.suites import SuiteTask, load_split, load_suite, suite_names


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


def test_a_retail_phone_can_pose_a_bound_spec_that_requires_nothing() -> None:
    task = TaskInstance(task_id="a/X-v1", instruction="x")
    needs_root = TaskSpec(requires=[Requirement(fact="sms", reason="no root")])
    assert not retail_can_pose(task)
    assert retail_can_pose(task.model_copy(update={"spec": TaskSpec()}))
    assert not retail_can_pose(task.model_copy(update={"spec": needs_root}))


def test_paired_all_selects_every_task_a_retail_phone_can_pose_in_id_order() -> None:
    registry = default_registry()
    retail = [t for t in registry.ids() if retail_can_pose(registry.instantiate(t, 1000))]
    suite = load_suite("paired-all", registry)
    assert suite.select is not None and not suite.tasks
    assert suite.entries == [SuiteTask(task_id=t, seed=1000) for t in retail]
    assert {e.lang for e in suite.instances()} == {"en"}


def _suite(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "s.json"
    path.write_text(text)
    return path


def test_a_selection_keeps_the_tasks_passing_every_filter(tmp_path: Path) -> None:
    registry = default_registry()
    path = _suite(
        tmp_path,
        '{"select": {"apps": ["clock"], "levels": ["L1", "L2"], "kinds": ["operate"], '
        '"retail": false, "seed": 7, "lang": "zh"}}',
    )
    wanted = [
        t.id
        for t in sorted(registry, key=lambda t: t.id)
        if "clock" in t.apps and t.level in ("L1", "L2") and t.kind == "operate"
        if not retail_can_pose(registry.instantiate(t.id, 7, "zh"))
    ]
    entries = load_suite(str(path), registry).entries
    assert wanted and entries == [SuiteTask(task_id=t, seed=7, lang="zh") for t in wanted]


def test_a_cross_app_task_is_selected_by_each_of_its_apps(tmp_path: Path) -> None:
    registry = default_registry()
    crossing = [t.id for t in registry if len(t.apps) > 1]
    for app in {app for t in registry if len(t.apps) > 1 for app in t.apps}:
        path = _suite(tmp_path, f'{{"select": {{"apps": ["{app}"]}}}}')
        selected = set(load_suite(str(path), registry).task_ids())
        assert selected >= {t for t in crossing if app in registry.get(t).apps}, app


def test_a_suite_lists_tasks_then_the_selected_ones_each_once(tmp_path: Path) -> None:
    path = _suite(
        tmp_path,
        '{"tasks": [{"task_id": "a/X-v1"}], "select": {"apps": ["settings"], "levels": ["L3"]}}',
    )
    entries = load_suite(str(path)).entries
    assert entries[0].task_id == "a/X-v1" and len(entries) > 1
    twice = _suite(
        tmp_path,
        '{"tasks": [{"task_id": "settings/SetWifi-v1"}], "select": {"apps": ["settings"]}}',
    )
    with pytest.raises(SuiteError, match=r"listed twice: settings/SetWifi-v1 \(seed 0, en\)"):
        load_suite(str(twice))


@pytest.mark.parametrize(
    ("select", "said"),
    [
        ('{"levle": ["L1"]}', "select: unknown key 'levle'; choices: retail, apps, levels,"),
        ('{"levels": ["L9"]}', "select: unknown levels value 'L9'; choices: L1, L2, L3, L4"),
        ('{"kinds": ["ask"]}', "select: unknown kinds value 'ask'; choices: operate, query,"),
        ('{"apps": ["calender"]}', "select: unknown apps value 'calender'; choices: calendar,"),
        ('{"retail": "maybe"}', "select.retail: Input should be a valid boolean"),
    ],
)
def test_a_bad_selection_is_refused_in_one_line_naming_the_choices(
    tmp_path: Path, select: str, said: str
) -> None:
    path = _suite(tmp_path, f'{{"select": {select}}}')
    with pytest.raises(SuiteError) as refused:
        load_suite(str(path))
    assert said in str(refused.value) and "\n" not in str(refused.value)


def test_a_selection_no_task_passes_is_refused(tmp_path: Path) -> None:
    registry = TaskRegistry([default_registry().get("settings/SetWifi-v1")])
    path = _suite(tmp_path, '{"select": {"levels": ["L4"], "seed": 3}}')
    with pytest.raises(
        SuiteError, match=r"no task passes the selection \{'levels': \['L4'\], 'seed': 3\}$"
    ):
        load_suite(str(path), registry)
