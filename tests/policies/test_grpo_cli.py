"""``mgb train`` (transfer_eval/commands/train.py, transfer_eval/training.py) without a
browser: splits, options, errors."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from sim.tasks.registry import default_registry
from transfer_eval.commands.train import train_command
from transfer_eval.errors import SuiteError
from transfer_eval.suites import load_split, split_names
from transfer_eval.training import TrainOptions, skin_draw, split_instances


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
    train, test = split_instances(load_split(name), registry)
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
    body = {
        "description": "mine",
        "apps": ["settings"],
        "train": {"grid": grid},
        "test": {"tasks": [held_out]},
    }
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


def test_training_across_skins_draws_each_groups_skin_from_the_seed(tmp_path: Path) -> None:
    both = TrainOptions(split="settings-l1", out=tmp_path / "c", skins=("aosp", "hyperos"))
    assert "--skins aosp,hyperos" in both.command()
    assert "--skins" not in TrainOptions(split="settings-l1", out=tmp_path / "c").command()
    first, again = skin_draw(both), skin_draw(both)
    drawn = [first() for _ in range(40)]
    assert drawn == [again() for _ in range(40)] and set(drawn) == {"aosp", "hyperos"}
    only = skin_draw(TrainOptions(split="settings-l1", out=tmp_path / "c"))
    assert {only() for _ in range(10)} == {"aosp"}
    with pytest.raises(ValueError, match="the skins are aosp, hyperos"):
        TrainOptions(split="settings-l1", out=tmp_path / "c", skins=("miui",))


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
    skins = runner.invoke(app, ["train", "--skins", "aosp,miui", "--out", "x"])
    assert skins.exit_code == 2 and "--skins 'aosp,miui': skins are aosp, hyperos" in skins.output
    missing = runner.invoke(app, ["train", "--init", "/nonexistent/ckpt", "--out", "x"])
    flat = re.sub(r"[\s│]+", " ", missing.output)  # Rich wraps the message in a panel
    assert missing.exit_code != 0 and "does not exist" in flat


def _fake_training(rows: int, then: BaseException | None = None) -> object:
    """A stand-in for ``run_training`` (unit test of the command's progress and Ctrl-C):
    reports ``rows`` iterations, then raises ``then`` or returns a report."""
    from policies.grpo import CurveRow
    from transfer_eval.training import TrainReport

    async def fake(options: TrainOptions, on_iteration: object) -> TrainReport:
        for i in range(1, rows + 1):
            on_iteration(CurveRow(i, 0.5, 0.25, 0.5 if i == rows else None, 1.0, 10))  # type: ignore[operator]
        if then is not None:
            raise then
        return TrainReport(split=options.split, command=options.command(),
                           checkpoint=options.out, curve_csv=options.out / "curve.csv",
                           curve_png=options.out / "curve.png", init_success=0.5,
                           trained_success=0.75, gain=0.25, eval_episodes=4, improved=1,
                           worsened=0, train_instances=8, test_instances=4, train_steps=80,
                           eval_steps=20, train_wall_s=1.0, wall_s=2.0)  # fmt: skip

    return fake


def test_train_logs_every_iteration_off_a_terminal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("transfer_eval.training.run_training", _fake_training(3))
    out = tmp_path / "ckpt"
    result = CliRunner().invoke(_parent(), ["train", "--iters", "3", "--out", str(out)])
    assert result.exit_code == 0, result.output
    log = (out / "progress.log").read_text().splitlines()
    assert [line.split(" ", 2)[2] for line in log] == [
        "iteration 1/3 · reward 0.50 · train 25%",
        "iteration 2/3 · reward 0.50 · train 25%",
        "iteration 3/3 · reward 0.50 · train 25% · held 50%",
    ]
    assert "+25.0" in result.output


def test_ctrl_c_in_training_says_it_does_not_resume(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = _fake_training(1, then=KeyboardInterrupt())
    monkeypatch.setattr("transfer_eval.training.run_training", fake)
    result = CliRunner().invoke(_parent(), ["train", "--out", str(tmp_path / "ckpt")])
    assert result.exit_code == 130
    said = " ".join(result.output.split())
    assert "stopped by Ctrl-C" in said and "training is not resumable" in said


def _checkpoint(folder: Path) -> dict[str, bytes]:
    """A checkpoint folder as training leaves it (its bytes, to see nothing changed)."""
    folder.mkdir(parents=True)
    (folder / "weights.npy").write_bytes(b"old weights")
    (folder / "config.json").write_text("{}")
    return {p.name: p.read_bytes() for p in folder.iterdir()}


def _error_line(output: str) -> str:
    lines = [line for line in output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), output
    return lines[0]


def test_train_refuses_a_checkpoint_folder_unless_told_to_replace_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    started: list[TrainOptions] = []
    fake = _fake_training(1)

    async def recorded(options: TrainOptions, on_iteration: object) -> object:
        started.append(options)
        return await fake(options, on_iteration)  # type: ignore[operator]

    monkeypatch.setattr("transfer_eval.training.run_training", recorded)
    out, base = tmp_path / "trained", tmp_path / "base"
    kept = _checkpoint(out)
    result = CliRunner().invoke(_parent(), ["train", "--iters", "1", "--out", str(out)])
    assert result.exit_code == 1
    assert _error_line(result.output) == (
        f"error: --out {out} already holds a checkpoint (weights.npy, config.json); give "
        "--replace to write over it, or another --out"
    )
    kept_base = _checkpoint(base)
    args = ["train", "--iters", "1", "--out", str(tmp_path / "new"), "--save-init", str(base)]
    result = CliRunner().invoke(_parent(), args)
    assert result.exit_code == 1
    assert _error_line(result.output).startswith(f"error: --save-init {base} already holds a")
    assert started == []  # refused before any work
    assert {p.name: p.read_bytes() for p in out.iterdir()} == kept
    assert {p.name: p.read_bytes() for p in base.iterdir()} == kept_base
    same = ["train", "--out", str(tmp_path / "x"), "--save-init", str(tmp_path / "x")]
    assert "are the same folder" in _error_line(CliRunner().invoke(_parent(), same).output)
    args = ["train", "--iters", "1", "--out", str(out), "--save-init", str(base), "--replace"]
    replaced = CliRunner().invoke(_parent(), args)
    assert replaced.exit_code == 0, replaced.output
    assert [options.replace for options in started] == [True]


def test_run_training_refuses_an_existing_checkpoint_before_the_simulator_starts(
    tmp_path: Path,
) -> None:
    import asyncio

    from transfer_eval.errors import CheckpointExists
    from transfer_eval.training import run_training

    out = tmp_path / "trained"
    _checkpoint(out)
    with pytest.raises(CheckpointExists, match="--replace"):
        asyncio.run(run_training(TrainOptions(split="settings-l1", out=out)))


def test_the_reproduce_command_of_the_checkpoints_writes_outside_the_shipped_ones() -> None:
    """checkpoints/README.md's command must not overwrite what it is compared with."""
    readme = Path(__file__).resolve().parents[2] / "checkpoints" / "README.md"
    text = readme.read_text(encoding="utf-8")
    block = text.split("## Reproduce", 1)[1].split("```", 2)[1]
    command = " ".join(block.replace("\\\n", " ").split("\n")[1].split())
    assert command.startswith("mgb train ")
    options = dict(re.findall(r"--(out|save-init) (\S+)", command))
    assert set(options) == {"out", "save-init"}
    for folder in options.values():
        assert not folder.startswith("checkpoints"), f"{command} writes into {folder}"
    for shipped in ("base", "trained"):
        digest = hashlib.md5((readme.parent / shipped / "weights.npy").read_bytes()).hexdigest()
        assert digest in text, f"the README does not name the md5 of {shipped}/weights.npy"
        assert f"md5sum {options['out' if shipped == 'trained' else 'save-init']}" in block
