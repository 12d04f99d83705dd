"""What the command lines print off a terminal (``| cat``, ``> file``, CI): tables as wide
as their rows, never squeezed to 80 columns; ``--json`` where a command prints a table; and
help pages that show their text as written (Rich takes no ``[ray]`` for markup)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import typer.main
from typer.testing import CliRunner

from bridge.records import EpisodeRecord, StepRecord, TaskInstance
from bridge.schema import FinishAction, PolicyOutput, StepResult, Verdict
from bridge.trajectory import RunManifest, RunStore
from tests.bridge.toy_env import BACKEND, screen_observation
from transfer_eval.commands import mgb_app, transfer_eval_app

REPO = Path(__file__).resolve().parents[2]
EPISODE = "toy.CounterWithAVeryLongTemplateNameForWrapping-v1_s12345_en"
TASK = "toy/CounterWithAVeryLongTemplateNameForWrapping-v1"


def _piped(*argv: str) -> subprocess.CompletedProcess[str]:
    """``mgb ARGV | cat``: a fresh process whose stdout is a pipe, no COLUMNS set."""
    env = {key: value for key, value in os.environ.items() if key != "COLUMNS"}
    return subprocess.run(
        [sys.executable, "-m", "transfer_eval.commands", *argv],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def _run_of_one_long_episode(root: Path) -> Path:
    """A single-world run whose one episode's id and task are too long for 80 columns."""
    store = RunStore.create(root, RunManifest(config={"policy": "scripted"}))
    writer = store.begin_episode(EPISODE)
    seen = screen_observation(0, step=0, image_format="jpeg")
    writer.write_step(
        StepRecord(step=0, observation=seen, output=PolicyOutput(action=FinishAction()),
                   result=StepResult(observation=seen, done=True))
    )  # fmt: skip
    task = TaskInstance(task_id=TASK, instruction="Tap + once, then finish.")
    writer.finish(
        EpisodeRecord(episode_id=EPISODE, task=task, policy="scripted", backend=BACKEND,
                      outcome="success", termination="finish", steps=1,
                      verdict=Verdict(success=True, progress=1.0))
    )  # fmt: skip
    return root


def test_replay_piped_keeps_every_cell_on_its_row(tmp_path: Path) -> None:
    run = _run_of_one_long_episode(tmp_path / "run")
    listed = _piped("replay", str(run))
    assert listed.returncode == 0, listed.stderr
    (row,) = [line for line in listed.stdout.splitlines() if f"│ {EPISODE} " in line]
    cells = [cell.strip() for cell in row.split("│")[1:-1]]
    assert cells == [EPISODE, TASK, "success", "1", "finish"], listed.stdout
    as_json = _piped("replay", str(run), "--json")
    (line,) = as_json.stdout.splitlines()
    assert json.loads(line) == {
        "episode_id": EPISODE, "task": TASK, "outcome": "success", "steps": 1,
        "termination": "finish", "page": str(run / "episodes" / EPISODE / "index.html"),
    }  # fmt: skip


def test_replay_json_of_a_transfer_eval_run_gives_each_policys_outcomes(tmp_path: Path) -> None:
    from transfer_eval.paired import PairedConfig

    config = PairedConfig(out=tmp_path / "paired").model_dump(mode="json", exclude={"out"})
    store = RunStore.create(tmp_path / "paired", RunManifest(config=config))
    writer = store.begin_episode("settings.SetWifi-v1__trained__sim__r0")
    task = TaskInstance(task_id="settings/SetWifi-v1", instruction="Turn off Wi-Fi.")
    writer.finish(
        EpisodeRecord(episode_id="settings.SetWifi-v1__trained__sim__r0", task=task,
                      policy="scripted", outcome="failure", termination="finish", steps=0,
                      verdict=Verdict(success=False, progress=0.0))
    )  # fmt: skip
    listed = CliRunner().invoke(mgb_app, ["replay", str(tmp_path / "paired"), "--json"])
    assert listed.exit_code == 0, listed.output
    (line,) = listed.stdout.splitlines()
    assert json.loads(line) == {
        "task": "settings.SetWifi-v1",
        "base": {"sim": "—", "real": "—", "page": None},
        "trained": {"sim": "failure", "real": "—", "page": None},
    }


def test_sim_tasks_into_a_file_keeps_every_column() -> None:
    table = _piped("sim", "tasks")
    assert table.returncode == 0, table.stderr
    assert table.stdout.splitlines()[0] == "simulator tasks"
    assert "instruction (en)" in table.stdout
    rows = [json.loads(line) for line in _piped("sim", "tasks", "--json").stdout.splitlines()]
    for row in rows:  # whole: no cell cut short nor wrapped onto another line
        (line,) = [line for line in table.stdout.splitlines() if f"│ {row['id']} " in line]
        assert row["instruction"] in line, line


def test_a_console_still_takes_the_width_it_is_given() -> None:
    """``COLUMNS`` (a person's choice, or a narrow terminal) still decides."""
    result = CliRunner().invoke(mgb_app, ["sim", "tasks"], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    assert max(len(line) for line in result.output.splitlines()) <= 80


_TAG = re.compile(r"\\?\[([a-z][^\[\]]*)\]")
"""``[word]`` in help text, escaped or not: what Rich would take for a markup tag."""


def _help_texts(app: typer.Typer) -> list[tuple[tuple[str, ...], str]]:
    """Every help text of ``app``'s commands, with the command's path."""
    found: list[tuple[tuple[str, ...], str]] = []

    def walk(command: object, at: tuple[str, ...]) -> None:
        texts = [getattr(command, "help", None) or ""]
        texts += [getattr(p, "help", None) or "" for p in getattr(command, "params", [])]
        found.extend((at, text) for text in texts if text)
        for name, sub in getattr(command, "commands", {}).items():
            walk(sub, (*at, name))

    walk(typer.main.get_command(app), ())
    return found


def test_help_pages_show_square_brackets_as_written() -> None:
    shown = CliRunner().invoke(mgb_app, ["sim", "run", "--help"], env={"COLUMNS": "300"})
    assert "(needs the [ray] extra)" in " ".join(shown.output.replace("│", " ").split())
    for app in (mgb_app, transfer_eval_app):
        for path, text in _help_texts(app):
            words = _TAG.findall(text)
            if not words:
                continue
            page = CliRunner().invoke(app, [*path, "--help"], env={"COLUMNS": "1000"})
            for word in words:
                assert f"[{word}]" in page.output, (path, word)
