"""`mgb mobilegym run --native`: MobileGym's own tasks, posed by their setup and judged by
their judge, recorded in our run format, which `mgb replay` lists and renders; and bad input,
one line each before any work.

One run of ``clock.ToggleAlarm`` with ``random:1`` is made for the module (the build and the
checkout beside the repository, or ``MOBILEGYM_DIST`` / ``MOBILEGYM_URL`` and
``MOBILEGYM_CHECKOUT``); the other cases refuse before a browser starts.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from bridge.trajectory import RunStore
from mobilegym.native_harness import EXTRA
from mobilegym.native_verdict import JUDGE_NOTE
from tests.mobilegym.conftest import SHARED_DIST, build_source
from transfer_eval.commands import mgb_app

runner = CliRunner()
WIDE = {"COLUMNS": "220"}
CHECKOUT = Path(os.environ.get("MOBILEGYM_CHECKOUT") or SHARED_DIST.parent)
SHARED_COMMIT = "093a329"
"""The commit the shared copy's PROVENANCE.md names (it is no git checkout)."""
EPISODE = "clock.ToggleAlarm_s0_zh"


def _mgb(*args: str, env: dict[str, str] | None = None) -> Result:
    return runner.invoke(mgb_app, list(args), env={**WIDE, **(env or {})})


def _error_line(result: Result) -> str:
    """The one ``error:`` line a refused command printed (and that it printed only one)."""
    lines = [line for line in result.output.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("error: ")]
    assert len(errors) == 1, result.output
    return errors[0]


@pytest.fixture(scope="module")
def checkout() -> Path:
    """The MobileGym checkout, or a skip saying how to point at one."""
    if not (CHECKOUT / "bench_env" / "__init__.py").is_file():
        pytest.skip(f"no MobileGym checkout: set MOBILEGYM_CHECKOUT (looked in {CHECKOUT})")
    return CHECKOUT


@pytest.fixture(scope="module")
def run(mobilegym_build: str, checkout: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One native episode recorded by the command as a user types it."""
    out = tmp_path_factory.mktemp("native") / "run"
    result = _mgb(
        "mobilegym", "run", "--build", mobilegym_build, "--checkout", str(checkout),
        "--native", "clock.ToggleAlarm", "--policy", "random:1", "--out", str(out),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "1 episode: 1 judged, 0 infra errors" in result.output
    return out


@pytest.mark.browser
def test_the_episode_is_recorded_and_replay_renders_it(run: Path) -> None:
    store = RunStore.open(run)
    record = store.completed()[EPISODE]
    task = record.task
    # the task is what their setup sampled on the phone: a filled instruction, their params
    assert task.task_id == "clock.ToggleAlarm" and task.lang == "zh" and task.max_steps == 15
    assert "{" not in task.instruction and str(task.params["time"]) in task.instruction
    assert record.backend is not None and record.backend.kind == "mobilegym"
    steps = store.read_steps(EPISODE)
    assert len(steps) == record.steps > 0
    assert steps[0].observation.foreground.package == "com.android.deskclock"  # their start
    folder = store.episode_dir(EPISODE)
    assert steps[0].frame and (folder / steps[0].frame).read_bytes()[:2] == b"\xff\xd8"
    assert steps[0].tree and b"<hierarchy" in (folder / steps[0].tree).read_bytes()

    listed = _mgb("replay", str(run))
    assert listed.exit_code == 0, listed.output
    assert EPISODE in listed.output and record.outcome in listed.output
    (folder / "index.html").unlink()
    page = _mgb("replay", str(run), "--episode", EPISODE)
    assert page.exit_code == 0, page.output
    html = (folder / "index.html").read_text(encoding="utf-8")
    assert "clock.ToggleAlarm (seed 0, zh)" in html and task.instruction in html


@pytest.mark.browser
def test_the_verdict_is_their_judges(run: Path) -> None:
    record = RunStore.open(run).completed()[EPISODE]
    verdict, params = record.verdict, record.task.params
    assert verdict is not None and verdict.kind == "state"
    # ToggleAlarm's one criterion, as their task declares it: the sampled alarm's switch
    [check] = verdict.checks
    assert check.name == f"alarms[id={params['alarm_id']}].enabled"
    assert check.expected == params["toggle"]
    assert check.evidence == f"{JUDGE_NOTE} (clock.ToggleAlarm)"
    assert verdict.success == check.passed == (check.actual == check.expected)


@pytest.mark.browser
def test_the_manifest_names_their_commit_and_the_build(run: Path, checkout: Path) -> None:
    manifest = json.loads((run / "manifest.json").read_text(encoding="utf-8"))
    versions, config = manifest["versions"], manifest["config"]
    source = build_source()
    assert source is not None and versions["mobilegym-build"] == source.build_id()
    if checkout.resolve() == SHARED_DIST.parent.resolve():
        assert versions["mobilegym-commit"] == SHARED_COMMIT
        assert versions["mobilegym-commit-from"] == "PROVENANCE.md"
        assert versions["mobilegym-dirty"] == "unknown"
    else:
        assert versions["mobilegym-commit-from"] in {"git", "PROVENANCE.md", "unknown"}
    assert config["tasks"] == ["clock.ToggleAlarm"] and config["langs"] == ["zh"]
    assert config["checkout"] == str(checkout.resolve()) and config["answer_mode"] == "action"


@pytest.mark.browser
def test_reusing_the_out_with_other_settings_or_another_mobilegym_is_refused(
    run: Path, mobilegym_build: str, checkout: Path, tmp_path: Path
) -> None:
    args = ["mobilegym", "run", "--build", mobilegym_build, "--checkout", str(checkout),
            "--native", "clock.ToggleAlarm", "--out"]  # fmt: skip
    results = (run / "results.jsonl").read_bytes()
    other = _mgb(*args, str(run), "--policy", "random:2")
    assert other.exit_code == 1
    assert "holds a run with other settings (policy 'random:1' → 'random:2')" in _error_line(other)
    # the same settings, but the run was judged by another commit of theirs
    copy = tmp_path / "copy"
    shutil.copytree(run, copy)
    manifest = json.loads((copy / "manifest.json").read_text(encoding="utf-8"))
    manifest["versions"]["mobilegym-commit"] = "f00ba47"
    (copy / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    judged = _mgb(*args, str(copy), "--policy", "random:1")
    assert judged.exit_code == 1
    assert "judged by another MobileGym (mobilegym-commit 'f00ba47' →" in _error_line(judged)
    assert (run / "results.jsonl").read_bytes() == results


def test_the_listing_of_their_tasks(checkout: Path) -> None:
    listed = _mgb("mobilegym", "tasks", "--native", "--checkout", str(checkout), "--app", "clock")
    assert listed.exit_code == 0, listed.output
    rows = [line for line in listed.output.splitlines() if line.startswith("│ ")]
    assert any(row.split()[1] == "clock.ToggleAlarm" for row in rows)
    assert f"{len(rows)} MobileGym tasks" in listed.output
    as_json = _mgb("mobilegym", "tasks", "--native", "--checkout", str(checkout), "--json")
    ids = [json.loads(line)["task_id"] for line in as_json.output.splitlines()]
    assert "calendar.ChangeDefaultReminder" in ids and len(ids) == len(set(ids)) > len(rows)


NATIVE = ["--checkout", "CHECKOUT", "--native", "clock.ToggleAlarm"]
"""A native run's options; ``CHECKOUT`` stands for the checkout."""


@pytest.mark.parametrize(
    ("options", "option", "says"),
    [
        ([*NATIVE[:3], "clock.ToggleAlarms"], "--native", "did you mean clock.ToggleAlarm"),
        ([*NATIVE, "--lang", "en"], "--native", "has no en instruction"),
        ([*NATIVE, "--policy", "scripted"], "--policy", "MobileGym's own tasks have none"),
        ([*NATIVE, "--answer-mode", "text"], "--answer-mode", "'action' or 'sheet'"),
        (["--task", "settings/SetWifi-v1", "--checkout", "."], "--checkout", "with --native"),
        ([*NATIVE, "--task", "settings/SetWifi-v1"], "--task", "or --native"),
        ([], "--task", "or --native"),
    ],
    ids=["typo", "language", "scripted", "answer-mode", "checkout-alone", "both", "neither"],
)
def test_bad_input_is_one_line_before_any_work(
    checkout: Path, mobilegym_build: str, tmp_path: Path, options: list[str], option: str, says: str
) -> None:
    out = tmp_path / "run"
    given = [str(checkout) if value == "CHECKOUT" else value for value in options]
    result = _mgb("mobilegym", "run", "--build", mobilegym_build, "--out", str(out), *given)
    assert result.exit_code == 2
    line = _error_line(result)
    assert option in line and says in line
    assert not out.exists()


def test_a_checkout_that_is_not_one_is_named(tmp_path: Path, mobilegym_build: str) -> None:
    args = [
        "mobilegym",
        "run",
        "--build",
        mobilegym_build,
        "--native",
        "clock.ToggleAlarm",
        "--out",
    ]
    nowhere = _mgb(*args, str(tmp_path / "run"), env={"MOBILEGYM_CHECKOUT": ""})
    assert nowhere.exit_code == 2 and "or set MOBILEGYM_CHECKOUT" in _error_line(nowhere)
    wrong = _mgb(*args, str(tmp_path / "run"), "--checkout", str(tmp_path))
    assert wrong.exit_code == 2
    assert f"--checkout: {tmp_path.resolve()}: no bench_env/ here" in _error_line(wrong)
    assert not (tmp_path / "run").exists()


def test_missing_python_needs_name_the_extra(tmp_path: Path, mobilegym_build: str) -> None:
    """In a fresh process (``bench_env`` is one module tree per process): a checkout whose
    ``bench_env`` imports a package that is not installed."""
    (tmp_path / "bench_env").mkdir()
    (tmp_path / "bench_env" / "__init__.py").write_text("import opencc_not_installed_here\n")
    mgb = Path(sys.executable).parent / "mgb"
    done = subprocess.run(
        [str(mgb), "mobilegym", "run", "--build", mobilegym_build, "--checkout", str(tmp_path),
         "--native", "clock.ToggleAlarm", "--out", str(tmp_path / "run")],
        capture_output=True, text=True, check=False, env={**os.environ, **WIDE},
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("error: --checkout: ")
    assert "opencc_not_installed_here" in done.stderr and EXTRA in done.stderr
    assert not (tmp_path / "run").exists()
