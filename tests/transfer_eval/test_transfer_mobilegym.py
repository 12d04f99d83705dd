"""transfer-eval between our simulator and MobileGym (the build beside the repository): the
grid runs in both worlds, the entries MobileGym cannot pose are left out of both with why,
and every page names both worlds; the command refuses pairings that make no sense in one
line before any work."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from bridge.trajectory import RunStore
from transfer_eval.commands import mgb_app, transfer_eval_app
from transfer_eval.evaluate import evaluate
from transfer_eval.paired import PairedConfig

pytestmark = pytest.mark.browser

POSED = ("settings/SetWifi-v1", "settings/SetDarkTheme-v1")
NOT_POSED = "settings/SetScreenTimeout-v1"  # MobileGym has no screen timeout


def _suite(tmp: Path, *task_ids: str) -> Path:
    path = tmp / "suite.json"
    path.write_text(
        json.dumps({"lang": "en", "tasks": [{"task_id": t, "seed": 0} for t in task_ids]})
    )
    return path


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory, mobilegym_build: str) -> Path:
    """One paired run, our simulator → MobileGym, shared by this file's tests."""
    tmp = tmp_path_factory.mktemp("te-mg")
    suite = _suite(tmp, *POSED, NOT_POSED)
    config = PairedConfig(
        device=mobilegym_build,
        base="random:1",
        trained="scripted",
        suite=str(suite),
        out=tmp / "run",
    )
    evaluate(config, Console(file=io.StringIO(), width=120))
    return tmp / "run"


def test_the_grid_runs_in_both_worlds_and_leaves_out_what_mobilegym_cannot_pose(
    run_dir: Path,
) -> None:
    report = json.loads((run_dir / "report.json").read_text())
    assert (report["sim_backend"], report["device_backend"]) == ("sim", "mobilegym")
    assert report["tasks"] == 2 and report["episodes"] == 8 and report["infra_errors"] == 0
    assert list(report["not_posed"]) == [NOT_POSED]
    assert "screen timeout" in report["not_posed"][NOT_POSED]
    assert report["rates"]["trained/sim"]["successes"] == 2  # our oracle, in our simulator
    kinds = {
        record.episode_id.split("__")[2]: record.backend.kind
        for record in RunStore.open(run_dir).completed().values()
        if record.backend is not None
    }
    assert kinds == {"sim": "sim", "real": "mobilegym"}
    assert not any(NOT_POSED.replace("/", ".") in p.name for p in (run_dir / "episodes").iterdir())
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["versions"]["mobilegym-build-real"].startswith("sha256:")
    assert "sim" not in manifest["config"] or manifest["config"]["sim"] == "sim"


def test_every_page_names_both_worlds(run_dir: Path) -> None:
    md = (run_dir / "report.md").read_text()
    assert md.startswith("# Transfer report: simulator → MobileGym\n")
    assert "| MobileGym gain |" in md and "| retention (MobileGym gain / sim gain) |" in md
    assert "## Not posed (left out of both worlds)" in md and NOT_POSED in md
    assert "**MobileGym.**" in md  # the caveat: its starts are its own, its tree derived
    html = (run_dir / "report.html").read_text()
    assert "<h1>Transfer report: simulator → MobileGym</h1>" in html
    assert "Checked in: MobileGym" in html and "MobileGym gain (pt)" in html
    replay = (run_dir / "replays" / "settings.SetWifi-v1__trained.html").read_text()
    assert "<th>Simulator</th><th>MobileGym</th>" in replay


def test_replay_lists_the_pairs_without_the_build(run_dir: Path, tmp_path: Path) -> None:
    moved = tmp_path / "run"  # elsewhere, and its build's path no longer there
    shutil.copytree(run_dir, moved)
    manifest = json.loads((moved / "manifest.json").read_text())
    manifest["config"]["device"] = "mobilegym:/no/longer/here"
    (moved / "manifest.json").write_text(json.dumps(manifest))
    listed = CliRunner().invoke(mgb_app, ["replay", str(moved)])
    assert listed.exit_code == 0, listed.output
    assert "sim / MobileGym" in listed.output and "settings.SetWifi-v1" in listed.output
    page = CliRunner().invoke(
        mgb_app, ["replay", str(moved), "--task", "settings/SetWifi-v1", "--policy", "base"]
    )
    assert page.exit_code == 0, page.output
    written = (moved / "replays" / "settings.SetWifi-v1__base.html").read_text()
    assert "<th>Simulator</th><th>MobileGym</th>" in written
    resumed = CliRunner().invoke(transfer_eval_app, ["--resume", str(moved)])
    assert resumed.exit_code == 1
    assert "cannot resume" in resumed.output and "mobilegym:/no/longer/here" in resumed.output


def test_pairing_mobilegym_with_itself_or_remote_hosts_is_refused_in_one_line(
    tmp_path: Path, mobilegym_build: str
) -> None:
    runner = CliRunner()
    both = runner.invoke(
        transfer_eval_app,
        ["--sim", mobilegym_build, "--device", mobilegym_build, "--out", str(tmp_path / "a")],
    )
    assert both.exit_code == 2 and "both name MobileGym" in both.output
    hosts = runner.invoke(
        transfer_eval_app,
        ["--sim", mobilegym_build, "--hosts", "http://127.0.0.1:9", "--out", str(tmp_path / "b")],
    )
    assert hosts.exit_code == 2 and "--sim names MobileGym" in hosts.output
    typo = runner.invoke(transfer_eval_app, ["--sim", "mobilegym:/no/such/dist"])
    assert typo.exit_code == 2 and "--sim mobilegym:/no/such/dist: no folder" in typo.output
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()
