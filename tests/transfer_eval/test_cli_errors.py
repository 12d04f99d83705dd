"""The commands as a careless user meets them: one line naming the option, exit 1, nothing
started; a run that measured nothing exits non-zero."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from bridge.records import EpisodeRecord, TaskInstance
from device.adb import AdbTarget, adb_binary
from device.errors import DeviceError
from transfer_eval.commands import mgb_app, transfer_eval_app
from transfer_eval.episode_table import nothing_measured

runner = CliRunner()


def _error_line(output: str) -> str:
    lines = [line for line in output.splitlines() if line.startswith("error:")]
    assert len(lines) == 1 and "Traceback" not in output, output
    return lines[0]


def test_transfer_eval_names_the_option_it_refuses(tmp_path: Path) -> None:
    result = runner.invoke(transfer_eval_app, ["--repeats", "0", "--out", str(tmp_path / "r")])
    assert result.exit_code == 2
    assert _error_line(result.output) == (
        "error: --repeats 0: Input should be greater than or equal to 1"
    )


def test_device_run_refuses_an_unknown_language_before_touching_adb(tmp_path: Path) -> None:
    args = ["device", "run", "--device", "NOPE", "--task", "settings/SetWifi-v1",
            "--lang", "fr", "--out", str(tmp_path / "r")]  # fmt: skip
    result = runner.invoke(mgb_app, args)
    assert result.exit_code == 2
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


DUMP = Path(__file__).resolve().parents[1] / "fixtures" / "real_dumps"


def test_inspect_refuses_a_bad_xpath_or_point_in_one_line() -> None:
    dump = str(DUMP / "09_vivo_launcher_home_720x1608.xml")
    bad_xpath = runner.invoke(mgb_app, ["inspect", dump, "--xpath", "//node["])
    assert bad_xpath.exit_code == 2 and _error_line(bad_xpath.output).startswith(
        "error: --xpath: invalid XPath '//node['"
    )
    bad_point = runner.invoke(mgb_app, ["inspect", dump, "--at", "540x400"])
    assert bad_point.exit_code == 2
    assert _error_line(bad_point.output) == (
        "error: --at '540x400': give a device pixel as X,Y, e.g. 540,1200"
    )


def test_resuming_a_run_of_another_kind_says_what_it_is(tmp_path: Path) -> None:
    from bridge.trajectory import RunManifest, RunStore

    run = tmp_path / "sim"
    RunStore.create(run, RunManifest(config={"tasks": ["settings/SetWifi-v1"], "pages": 2}))
    result = runner.invoke(transfer_eval_app, ["--resume", str(run)])
    assert result.exit_code == 1
    assert "it is not a transfer-eval run (its manifest has pages, tasks)" in result.output


def test_a_known_error_anywhere_is_one_line(
    tmp_path: Path,
) -> None:
    from bridge.trajectory import RunManifest, RunStore

    run = tmp_path / "run"
    RunStore.create(run, RunManifest(config={"policy": "scripted", "tasks": ["x"]}))
    args = ["sim", "run", "--task", "settings/SetWifi-v1", "--policy", "random:1",
            "--out", str(run)]  # fmt: skip
    result = runner.invoke(mgb_app, args)  # the TrajectoryError of a reused --out
    assert result.exit_code == 1
    assert "holds a run with other settings (" in result.output
    assert "policy 'scripted' → 'random:1'" in result.output
    assert "Traceback" not in result.output
    assert isinstance(result.exception, SystemExit)  # a clean exit, not a crash


def test_the_boundary_lets_bugs_through_with_their_traceback() -> None:
    import typer

    from bridge.errors import EnvUsageError, TrajectoryError
    from transfer_eval.commands.common import _guarded

    def known(_ctx: object) -> None:
        raise TrajectoryError("the run is damaged")

    def bug(_ctx: object) -> None:
        raise EnvUsageError("step before reset")

    with pytest.raises(typer.Exit):
        _guarded(known, None)  # type: ignore[arg-type]
    with pytest.raises(EnvUsageError):
        _guarded(bug, None)  # type: ignore[arg-type]
    with pytest.raises(KeyError):
        _guarded(lambda _ctx: {}["x"], None)  # type: ignore[arg-type]


def test_a_folder_that_is_not_a_run_is_refused_before_anything_starts(tmp_path: Path) -> None:
    out = tmp_path / "photos"
    out.mkdir()
    (out / "holiday.jpg").write_bytes(b"\xff\xd8")
    args = ["sim", "run", "--task", "settings/SetWifi-v1", "--out", str(out)]
    result = runner.invoke(mgb_app, args)
    assert result.exit_code == 1
    line = " ".join(_error_line(result.output).split())
    assert str(out) in line and "not a run" in line, line
    assert sorted(p.name for p in out.iterdir()) == ["holiday.jpg"]  # nothing written


def _commands(app: object, *path: str) -> list[tuple[str, ...]]:
    import typer.main

    group = typer.main.get_command(app)  # type: ignore[arg-type]
    found = []

    def walk(command: object, at: tuple[str, ...]) -> None:
        found.append(at)
        for name, sub in getattr(command, "commands", {}).items():
            walk(sub, (*at, name))

    walk(group, path)
    return found


def test_every_help_page_lists_what_it_has_and_single_commands_show_no_command() -> None:
    for path in _commands(mgb_app):
        shown = runner.invoke(mgb_app, [*path, "--help"], env={"COLUMNS": "100"})
        assert shown.exit_code == 0, (path, shown.output)
        usage = shown.output.split("Usage:")[1].splitlines()[0]
        has_subcommands = "Commands" in shown.output
        assert ("COMMAND" in usage) == has_subcommands, (path, usage)
    help_text = runner.invoke(transfer_eval_app, ["--help"], env={"COLUMNS": "100"}).output
    flat = " ".join(help_text.replace("│", " ").split())
    assert "paired, paired-all, smoke" in flat
    assert "learned:checkpoints/trained" in flat and "…" not in help_text
