"""``mgb train`` (transfer_eval/commands/train.py, transfer_eval/training.py) without a
browser: splits, options, errors."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from sim.simulator import default_apps
from sim.tasks.registry import default_registry
from transfer_eval.commands.train import train_command
from transfer_eval.suites import SuiteError, load_split, split_names
from transfer_eval.training import TrainOptions, split_instances


def _parent() -> typer.Typer:
    """``mgb_app.command("train")(train_command)``, beside another command."""
    app = typer.Typer()
    app.command("train")(train_command)

    @app.command("other")
    def other() -> None:  # a second command, so that "train" is a subcommand
        """Nothing."""

    return app


@pytest.mark.parametrize("name", split_names())
def test_splits_never_share_an_instance(name: str) -> None:
    registry = default_registry()
    world = {app.id: app.world for app in default_apps()}
    train, test = split_instances(load_split(name), registry, world)
    assert train and len(test) >= 20
    train_keys = {(t.task_id, t.seed) for t in train}
    test_keys = {(t.task_id, t.seed) for t in test}
    assert not train_keys & test_keys
    assert {t.lang for t in train} == {t.lang for t in test} == {"en", "zh"}
    assert {t.task_id for t in test} <= set(registry.ids())
    if name.endswith("-unseen"):
        assert not {t.task_id for t in train} & {t.task_id for t in test}


def test_required_splits_exist() -> None:
    assert {"settings-l1", "all-l1"} <= set(split_names())
    assert all(t.startswith("settings/Set") for t in load_split("settings-l1").train.task_ids())
    assert all(level == "L1" for level in _levels(load_split("all-l1").test.task_ids()))


def test_a_split_is_a_pair_of_suites_in_a_data_file(tmp_path: Path) -> None:
    grid = {"tasks": ["settings/SetWifi-v1"], "seeds": {"first": 0, "count": 3}}
    held_out = {"task_id": "settings/SetWifi-v1", "seed": 9, "lang": "zh"}
    body = {"description": "mine", "train": {"grid": grid}, "test": {"tasks": [held_out]}}
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(body))
    split = load_split(str(path))
    assert [(e.seed, e.lang) for e in split.train.instances()] == [(0, "en"), (1, "zh"), (2, "en")]
    assert [(e.seed, e.lang) for e in split.test.instances()] == [(9, "zh")]
    body["test"] = {"grid": {**grid, "seeds": {"first": 2, "count": 1}}}
    path.write_text(json.dumps(body))
    with pytest.raises(SuiteError, match=r"share seeds \[2\]"):
        load_split(str(path))


def _levels(ids: list[str]) -> list[str]:
    registry = default_registry()
    return [registry.get(task_id).level for task_id in ids]


def test_the_command_line_reproduces_the_options(tmp_path: Path) -> None:
    options = TrainOptions(split="settings-l1", out=tmp_path / "ckpt", save_init=tmp_path / "b")
    command = options.command()
    assert command.startswith("mgb train --tasks settings-l1 --envs ")
    assert f"--out {tmp_path / 'ckpt'}" in command and "--save-init" in command


def test_help_and_bad_options() -> None:
    runner = CliRunner()
    app = _parent()
    shown = runner.invoke(app, ["train", "--help"])
    assert shown.exit_code == 0
    assert "--tasks" in shown.output and "--group" in shown.output
    unknown = runner.invoke(app, ["train", "--tasks", "nope", "--out", "x"])
    assert unknown.exit_code != 0 and "no split 'nope'" in unknown.output
    bad = runner.invoke(app, ["train", "--group", "1", "--out", "x"])
    assert bad.exit_code != 0
    missing = runner.invoke(app, ["train", "--init", "/nonexistent/ckpt", "--out", "x"])
    flat = re.sub(r"[\s│]+", " ", missing.output)  # Rich wraps the message in a panel
    assert missing.exit_code != 0 and "does not exist" in flat
