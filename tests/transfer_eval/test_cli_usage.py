"""A command line that is wrong in its shape, as a newcomer types it: one line on stderr
naming the problem and what to do, exit 2, nothing on stdout and nothing started; a failed
piece of work stays one line with exit 1."""

from __future__ import annotations

from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from transfer_eval.commands import mgb_app, transfer_eval_app

runner = CliRunner()
TASK = "settings/SetWifi-v1"


def _usage_error(app: typer.Typer, args: list[str]) -> str:
    """The one line a usage error prints; fails unless exit 2 with stdout left empty."""
    result = runner.invoke(app, args, env={"COLUMNS": "80"})
    assert result.exit_code == 2, result.output
    assert result.stdout == "", result.stdout
    (line,) = result.stderr.splitlines()
    assert line.startswith("error: ") and "Traceback" not in result.output
    return line


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["sim", "run", "--tsk", TASK], ["No such option: --tsk", "--task", "mgb sim run --help"]),
        (["sim", "rnu"], ["No such command 'rnu'", "Did you mean 'run'?", "mgb sim --help"]),
        (["trian"], ["No such command 'trian'", "mgb --help"]),
        (["device", "virtual", "strat"], ["No such command 'strat'", "mgb device virtual --help"]),
        (["sim", "run", "--out", "x"], ["Missing option '--task'", "mgb sim run --help"]),
        (["replay"], ["Missing argument", "mgb replay --help"]),
        (["sim", "run", "--task", TASK, "--out", "x", "--concurrency", "many"],
         ["Invalid value for '--concurrency'", "integer"]),
        (["device", "list", "--adb-port", "nope"], ["Invalid value for '--adb-port'"]),
        (["sim", "gallery", "--out", "x", "--pages", "0"], ["'--pages'", "greater than or equal"]),
        (["sim", "tasks", "extra"], ["unexpected extra argument", "mgb sim tasks --help"]),
    ],
)  # fmt: skip
def test_mgb_usage_errors_are_one_line(args: list[str], says: list[str]) -> None:
    line = _usage_error(mgb_app, args)
    assert all(part in line for part in says), line


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--frob"], ["No such option: --frob", "transfer-eval --help"]),
        (["--repeats", "x"], ["Invalid value for '--repeats'"]),
        (["--guard", "everything"], ["'everything' is not one of 'off', 'apps', 'all'"]),
    ],
)
def test_transfer_eval_usage_errors_are_one_line(args: list[str], says: list[str]) -> None:
    line = _usage_error(transfer_eval_app, args)
    assert all(part in line for part in says), line
    assert "Value error" not in line  # pydantic's prefix, through Typer


def test_a_policy_that_cannot_play_is_refused_before_any_progress(tmp_path: Path) -> None:
    out = tmp_path / "run"
    line = _usage_error(
        mgb_app, ["sim", "run", "--task", TASK, "--policy", "rando", "--out", str(out)]
    )
    assert line.startswith("error: Invalid value for --policy:") and "random[:SEED]" in line
    assert not out.exists()


def test_a_failed_piece_of_work_is_one_line_and_exit_1(tmp_path: Path) -> None:
    result = runner.invoke(mgb_app, ["replay", str(tmp_path / "nowhere")])
    assert result.exit_code == 1 and result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert line.startswith("error: ") and "is not a run directory" in line


def test_no_arguments_still_shows_the_help_page() -> None:
    result = runner.invoke(mgb_app, ["sim"])
    assert "Usage:" in result.output and "error:" not in result.output
    assert "tasks" in result.output and "run" in result.output
