"""``mgb train`` (transfer_eval/train_cli.py) without a browser: splits, options, errors."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from sim.simulator import default_apps
from sim.tasks.registry import default_registry
from transfer_eval.train_cli import (
    SPLITS,
    TrainOptions,
    split_instances,
    train_app,
    train_command,
)


def _parent(as_group: bool = True) -> typer.Typer:
    """``mgb_app.add_typer(train_app, name="train")`` or ``mgb_app.command("train")(...)``."""
    app = typer.Typer()
    if as_group:
        app.add_typer(train_app, name="train")
    else:
        app.command("train")(train_command)

    @app.command("other")
    def other() -> None:  # a second command, so that "train" is a subcommand
        """Nothing."""

    return app


@pytest.mark.parametrize("name", sorted(SPLITS))
def test_splits_never_share_an_instance(name: str) -> None:
    registry = default_registry()
    world = {app.id: app.world for app in default_apps()}
    train, test = split_instances(SPLITS[name], registry, world)
    assert train and len(test) >= 20
    train_keys = {(t.task_id, t.seed) for t in train}
    test_keys = {(t.task_id, t.seed) for t in test}
    assert not train_keys & test_keys
    assert {t.lang for t in train} == {t.lang for t in test} == {"en", "zh"}
    assert {t.task_id for t in test} <= set(registry.ids())
    if name.endswith("-unseen"):
        assert not {t.task_id for t in train} & {t.task_id for t in test}


def test_required_splits_exist() -> None:
    assert {"settings-l1", "all-l1"} <= set(SPLITS)
    assert all(t.startswith("settings/Set") for t in SPLITS["settings-l1"].train_tasks)
    assert all(registry_level == "L1" for registry_level in _levels(SPLITS["all-l1"].test_tasks))


def _levels(ids: tuple[str, ...]) -> list[str]:
    registry = default_registry()
    return [registry.get(task_id).level for task_id in ids]


def test_the_command_line_reproduces_the_options(tmp_path: Path) -> None:
    options = TrainOptions(split="settings-l1", out=tmp_path / "ckpt", save_init=tmp_path / "b")
    command = options.command()
    assert command.startswith("mgb train --tasks settings-l1 --envs ")
    assert f"--out {tmp_path / 'ckpt'}" in command and "--save-init" in command


@pytest.mark.parametrize("as_group", [True, False])
def test_help_and_bad_options(as_group: bool) -> None:
    runner = CliRunner()
    app = _parent(as_group)
    shown = runner.invoke(app, ["train", "--help"])
    assert shown.exit_code == 0
    assert "--tasks" in shown.output and "--group" in shown.output
    unknown = runner.invoke(app, ["train", "--tasks", "nope", "--out", "x"])
    assert unknown.exit_code != 0 and "unknown split 'nope'" in unknown.output
    bad = runner.invoke(app, ["train", "--group", "1", "--out", "x"])
    assert bad.exit_code != 0
    missing = runner.invoke(app, ["train", "--init", "/nonexistent/ckpt", "--out", "x"])
    flat = re.sub(r"[\s│]+", " ", missing.output)  # Rich wraps the message in a panel
    assert missing.exit_code != 0 and "does not exist" in flat
