"""Damaged run directories, made by a real ``mgb sim run`` and then damaged as a disk, a
power loss or a person would: ``mgb replay`` says what is wrong in one line, a resume re-runs
what it must and says so, a lost last line is repaired, and nothing committed is lost. The
run itself is written under an explicit umask, and every file it wrote follows it."""

from __future__ import annotations

import json
import os
import shutil
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import Result
from typer.testing import CliRunner

from bridge.trajectory import RunStore
from tests.transfer_eval.test_replay_cli import _one_line_error
from transfer_eval.commands import mgb_app
from transfer_eval.paired import PairedConfig

pytestmark = pytest.mark.browser

TASK = "settings/SetWifi-v1"
FIRST, SECOND = "settings.SetWifi-v1_s0_en", "settings.SetWifi-v1_s1_en"
RUN_ARGS = ["sim", "run", "--task", TASK, "--seeds", "0,1"]
UMASK = 0o027


def _mgb(*args: str) -> Result:
    return CliRunner().invoke(mgb_app, list(args), env={"COLUMNS": "220"})


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real two-episode simulator run (and its MP4), written under umask 027."""
    out = tmp_path_factory.mktemp("damaged") / "run"
    previous = os.umask(UMASK)
    try:
        result = _mgb(*RUN_ARGS, "--out", str(out))
        video = _mgb("replay", str(out), "--episode", FIRST, "--mp4", str(out / "first.mp4"))
    finally:
        os.umask(previous)
    assert result.exit_code == 0, result.output
    assert video.exit_code == 0, video.output
    return out


@pytest.fixture
def run(pristine: Path, tmp_path: Path) -> Iterator[Path]:
    """A copy of the pristine run for one test to damage."""
    copy = tmp_path / "run"
    shutil.copytree(pristine, copy)
    yield copy


def test_every_file_the_run_writes_follows_the_umask(pristine: Path) -> None:
    files = [path for path in pristine.rglob("*") if path.is_file()]
    names = {path.name for path in files}
    assert {"manifest.json", "results.jsonl", "index.html", "progress.log"} <= names
    assert {"episode.json", "steps.jsonl", "0000.jpg", "0000.xml", "first.mp4"} <= names
    modes = {path.relative_to(pristine).as_posix(): stat.S_IMODE(path.stat().st_mode)
             for path in files}  # fmt: skip
    assert set(modes.values()) == {0o666 & ~UMASK}, modes  # 0640, not mkstemp's 0600


def test_a_corrupt_steps_file_is_one_line_naming_file_line_and_the_fix(run: Path) -> None:
    steps = run / "episodes" / FIRST / "steps.jsonl"
    lines = steps.read_bytes().splitlines(keepends=True)
    steps.write_bytes(lines[0] + b'{"step": 1, "observ\n' + b"".join(lines[2:]))
    for args in ([], ["--episode", FIRST], ["--episode", SECOND]):
        error = _one_line_error(_mgb("replay", str(run), *args))
        assert f"{steps}, line 2 is " in error  # unreadable (the check), corrupt (the parse)
        assert "resume the run" in error and "re-run the episode" in error


def test_a_manifest_with_an_unknown_key_is_one_line(run: Path) -> None:
    manifest = run / "manifest.json"
    data = json.loads(manifest.read_text())
    manifest.write_text(json.dumps({**data, "colour": "red"}))
    error = _one_line_error(_mgb("replay", str(run)))
    assert f"{manifest} has a key this mobilegym-bridge does not know ('colour')" in error
    assert "is not a run directory" not in error
    # a transfer-eval config with a key this version does not know
    config = PairedConfig(out=run).model_dump(mode="json", exclude={"out"})
    manifest.write_text(json.dumps({**data, "config": {**config, "colour": "red"}}))
    error = _one_line_error(_mgb("replay", str(run), "--task", FIRST))
    assert f"{manifest}: its config is not one this mobilegym-bridge reads (colour:" in error


def test_a_corrupt_results_line_says_how_to_put_it_back(run: Path) -> None:
    results = run / "results.jsonl"
    first, second = results.read_bytes().splitlines(keepends=True)
    results.write_bytes(first[:100] + b"\n" + second)
    error = _one_line_error(_mgb("replay", str(run)))
    assert f"{results}, line 1 is corrupt" in error
    lost = json.loads(first)["episode_id"]
    assert f"(episodes without a line: {lost})" in error and "put that record on line 1" in error
    assert "delete the damaged episode directory" not in error  # the old advice did not help


def test_resume_reruns_deleted_and_unreadable_episodes_and_says_so(run: Path) -> None:
    results = run / "results.jsonl"
    committed = results.read_bytes()
    (run / "episodes" / FIRST / "episode.json").write_bytes(b"\0garbage")
    shutil.rmtree(run / "episodes" / SECOND)
    refused = _one_line_error(_mgb("replay", str(run)))
    assert f"{FIRST} cannot be shown" in refused and "episode.json is corrupt" in refused
    assert "(1 more damaged episodes)" in refused

    resumed = _mgb(*RUN_ARGS, "--out", str(run))
    assert resumed.exit_code == 0, resumed.output
    said = [line for line in resumed.output.splitlines() if "re-running" in line]
    assert len(said) == 2 and FIRST in said[0] and "episode.json is corrupt" in said[0]
    assert SECOND in said[1] and "is missing (the episode directory was deleted)" in said[1]
    logged = [line for line in (run / "progress.log").read_text().splitlines() if "re-run" in line]
    assert logged == said  # the log's lines, printed off a terminal as they are written

    store = RunStore.open(run)
    assert store.damaged() == {}
    assert {i: r.outcome for i, r in store.completed().items()} == {
        FIRST: "success",
        SECOND: "success",
    }
    assert results.read_bytes().startswith(committed)  # the old results are all still there
    assert len(results.read_bytes().splitlines()) == 4
    aside = (run / "damaged" / "set_aside.jsonl").read_text().splitlines()
    assert [json.loads(line)["episode_id"] for line in aside] == [FIRST, SECOND]
    assert (run / "damaged" / f"{FIRST}.1" / "episode.json").read_bytes() == b"\0garbage"
    listed = _mgb("replay", str(run))
    assert listed.exit_code == 0, listed.output


def test_a_nul_last_line_of_results_is_repaired_and_reported(run: Path) -> None:
    results = run / "results.jsonl"
    committed = results.read_bytes()
    results.write_bytes(committed + b"\0" * 300 + b"\n")  # what a power loss leaves
    listed = _mgb("replay", str(run))
    assert listed.exit_code == 0, listed.output
    assert FIRST in listed.output and SECOND in listed.output

    resumed = _mgb(*RUN_ARGS, "--out", str(run))
    assert resumed.exit_code == 0, resumed.output
    said = [line for line in resumed.output.splitlines() if "is not JSON" in line]
    assert len(said) == 1 and f"{results}, line 3 is not JSON" in said[0]
    assert "kept in damaged/" in said[0]
    assert "is not JSON" in (run / "progress.log").read_text()
    assert results.read_bytes() == committed  # cut, and nothing was re-run
    assert (run / "damaged" / "results-tail.1.bin").read_bytes() == b"\0" * 300 + b"\n"
