"""The commands as a careless user meets them: one line naming the option, exit 1, nothing
started; a run that measured nothing exits non-zero."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from bridge.schema import EpisodeRecord, TaskInstance
from device.adb import AdbTarget, adb_binary
from device.errors import DeviceError
from transfer_eval.cli import mgb_app, transfer_eval_app
from transfer_eval.episode_table import nothing_measured

runner = CliRunner()


def _error_line(output: str) -> str:
    lines = [line for line in output.splitlines() if line.startswith("error:")]
    assert len(lines) == 1 and "Traceback" not in output, output
    return lines[0]


def test_transfer_eval_names_the_option_it_refuses(tmp_path: Path) -> None:
    result = runner.invoke(transfer_eval_app, ["--repeats", "0", "--out", str(tmp_path / "r")])
    assert result.exit_code == 1
    assert _error_line(result.output) == (
        "error: --repeats 0: Input should be greater than or equal to 1"
    )


def test_device_run_refuses_an_unknown_language_before_touching_adb(tmp_path: Path) -> None:
    args = ["device", "run", "--device", "NOPE", "--task", "settings/SetWifi-v1",
            "--lang", "fr", "--out", str(tmp_path / "r")]  # fmt: skip
    result = runner.invoke(mgb_app, args)
    assert result.exit_code == 1
    assert _error_line(result.output) == "error: --lang 'fr': Input should be 'en' or 'zh'"


def test_no_adb_server_names_the_bundled_adb() -> None:
    with pytest.raises(DeviceError) as caught:
        AdbTarget(port=9, serial="x").check_server()
    assert adb_binary() in str(caught.value) and "-P 9 start-server" in str(caught.value)
    assert Path(adb_binary()).name == "adb"


def _record(episode_id: str, outcome: str) -> EpisodeRecord:
    task = TaskInstance(task_id="settings/SetWifi-v1", instruction="Turn off Wi-Fi.")
    if outcome == "infra_error":
        return EpisodeRecord(
            episode_id=episode_id, task=task, policy="scripted", outcome="infra_error",
            termination="infra_error", steps=0, error="adb: device offline",
        )  # fmt: skip
    from bridge.schema import Verdict

    return EpisodeRecord(
        episode_id=episode_id, task=task, policy="scripted", outcome="failure",
        termination="finish", steps=1, verdict=Verdict(success=False, progress=0.0),
    )  # fmt: skip


def test_a_run_of_only_infra_errors_measured_nothing() -> None:
    failed = nothing_measured([_record("a", "infra_error"), _record("b", "infra_error")])
    assert failed is not None and "every one of the 2 episodes" in failed
    assert "adb: device offline" in failed and "resumes" in failed
    assert nothing_measured([_record("a", "infra_error"), _record("b", "failure")]) is None
    assert nothing_measured([]) is None
