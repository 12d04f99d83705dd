"""`mgb sim` commands: the task table, a recorded run a person can open, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bridge.trajectory import RunStore
from bridge.uitree import parse_hierarchy
from transfer_eval.cli import mgb_app

runner = CliRunner()
WIDE = {"COLUMNS": "220"}


def test_tasks_table_lists_every_template() -> None:
    result = runner.invoke(mgb_app, ["sim", "tasks"], env=WIDE)
    assert result.exit_code == 0, result.output
    assert "settings/SetWifi-v1" in result.output and "L1" in result.output
    shown, total = result.output.strip().splitlines()[-1].split()[0:3:2]
    assert shown == total and int(total) >= 25
    only = runner.invoke(mgb_app, ["sim", "tasks", "--level", "L4"], env=WIDE)
    assert "L1 " not in only.output and "L4" in only.output


def test_unknown_task_suggests_near_ids(tmp_path: Path) -> None:
    result = runner.invoke(
        mgb_app, ["sim", "run", "--task", "settings/SetWfi-v1", "--out", str(tmp_path / "r")],
        env=WIDE,
    )
    assert result.exit_code != 0
    assert "settings/SetWifi-v1" in result.output


@pytest.mark.browser
def test_run_writes_a_trajectory_with_frames_trees_and_pages(tmp_path: Path) -> None:
    out = tmp_path / "run"
    args = ["sim", "run", "--task", "settings/SetWifi-v1", "--seeds", "0,1", "--out", str(out)]
    result = runner.invoke(mgb_app, args, env=WIDE)
    assert result.exit_code == 0, result.output
    assert "2/2" in result.output and "2 succeeded" in result.output
    store = RunStore.open(out)
    completed = store.completed()
    assert set(completed) == {"settings.SetWifi-v1_s0_en", "settings.SetWifi-v1_s1_en"}
    assert all(record.outcome == "success" for record in completed.values())
    steps = store.read_steps("settings.SetWifi-v1_s0_en")
    assert steps and steps[0].frame is not None and steps[0].tree is not None
    episode_dir = store.episode_dir("settings.SetWifi-v1_s0_en")
    assert (episode_dir / steps[0].frame).read_bytes()[:2] == b"\xff\xd8"
    tree = parse_hierarchy((episode_dir / steps[0].tree).read_bytes())
    assert any(node.text == "Settings" for node in tree.nodes)
    page = (episode_dir / "index.html").read_text(encoding="utf-8")
    assert "wifi_on" in page and "&quot;type&quot;:&quot;open_app&quot;" in page
    assert "settings.SetWifi-v1_s1_en" in (out / "index.html").read_text(encoding="utf-8")
    again = runner.invoke(mgb_app, args, env=WIDE)  # resuming a finished run runs nothing
    assert again.exit_code == 0 and len(store.results_path.read_text().splitlines()) == 2
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["config"]["tasks"] == ["settings/SetWifi-v1"]


def test_a_bad_policy_spec_is_one_clear_error(tmp_path: Path) -> None:
    args = ["sim", "run", "--task", "settings/SetWifi-v1", "--policy", "rando",
            "--out", str(tmp_path / "r")]
    result = runner.invoke(mgb_app, args, env=WIDE)
    assert result.exit_code != 0 and "random[:SEED]" in result.output
    assert not (tmp_path / "r" / "results.jsonl").exists()
