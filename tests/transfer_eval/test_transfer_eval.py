"""transfer-eval end to end on the simulator and the virtual phone (through the real adb
server): the report's numbers, resume after a kill, the pages in headless Chromium, and the
harness fingerprint of the run (in its manifest, report.json, .md and .html; a resume whose
harness differs is refused in one line)."""

from __future__ import annotations

import asyncio
import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from bridge.browser import launch_chromium
from bridge.errors import TrajectoryError
from device.virtual.perturb import Perturbations
from transfer_eval.commands import transfer_eval_app
from transfer_eval.evaluate import evaluate
from transfer_eval.paired import PairedConfig
from transfer_eval.policy_factory import (
    checkpoint_hash,
    fingerprint_changes,
    harness_versions,
    policy_fingerprint,
)

pytestmark = [pytest.mark.browser, pytest.mark.device_virtual]
REPO = Path(__file__).resolve().parents[2]


def _suite(tmp: Path, *task_ids: str) -> Path:
    path = tmp / "suite.json"
    path.write_text(
        json.dumps({"lang": "en", "tasks": [{"task_id": t, "seed": 0} for t in task_ids]})
    )
    return path


def _quiet() -> Console:
    return Console(file=io.StringIO(), width=120)


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[PairedConfig, Path]:
    """One paired run on the virtual phone, shared by this file's tests (the fingerprint's
    too: a second run would cost as much again)."""
    tmp = tmp_path_factory.mktemp("te")
    suite = _suite(tmp, "settings/SetWifi-v1", "settings/SetDarkTheme-v1")
    config = PairedConfig(base="random:1", trained="scripted", suite=str(suite), out=tmp / "run")
    evaluate(config, _quiet())
    return config, tmp / "run"


@pytest.fixture(scope="module")
def run_dir(run: tuple[PairedConfig, Path]) -> Path:
    return run[1]


def test_report_has_the_paired_numbers_and_labels_the_virtual_phone(run_dir: Path) -> None:
    report = json.loads((run_dir / "report.json").read_text())
    assert report["device_backend"] == "virtual" and report["tasks"] == 2
    assert report["episodes"] == 8 and report["infra_errors"] == 0
    assert report["rates"]["trained/sim"]["successes"] == 2
    assert report["rates"]["trained/real"]["successes"] == 2
    assert report["sim_gain"] > 0.5 and report["real_gain"] > 0.5
    assert report["retention"]["value"] is not None
    log = (run_dir / "progress.log").read_text().splitlines()  # off a terminal too
    assert len(log) == 8 and log[-1].split(" ", 1)[1].startswith("cells 8/8 · ")
    md = (run_dir / "report.md").read_text()
    assert "VIRTUAL" in md.splitlines()[2]
    assert {p.name for p in (run_dir / "replays").iterdir()} >= {
        "settings.SetWifi-v1__trained.html",
        "settings.SetDarkTheme-v1__base.html",
    }


def test_pages_load_show_numbers_and_the_slider_moves(run_dir: Path, tmp_path: Path) -> None:
    async def look() -> tuple[str, str, str, int]:
        async with launch_chromium() as browser:
            page = await browser.new_page(viewport={"width": 1200, "height": 900})
            await page.goto((run_dir / "report.html").as_uri())
            headline = await page.locator("#headline").inner_text()
            await page.screenshot(path=str(tmp_path / "report.png"), full_page=True)
            await page.goto((run_dir / "replays" / "settings.SetWifi-v1__trained.html").as_uri())
            before = await page.locator("#step-label").inner_text()
            await page.keyboard.press("ArrowRight")
            after = await page.locator("#step-label").inner_text()
            visible = await page.locator("[data-step='1']:not([hidden]) img").count()
            await page.screenshot(path=str(tmp_path / "replay.png"))
            return headline, before, after, visible

    headline, before, after, visible = asyncio.run(look())
    assert "retained" in headline and "VIRTUAL" in headline
    assert before.startswith("step 0") and after.startswith("step 1")
    assert visible == 2  # the simulator's and the phone's frame of step 1
    assert (tmp_path / "report.png").stat().st_size > 20_000


def _adb_servers(tag: str) -> set[int]:
    """Pids of the private adb servers (``adb -P PORT server nodaemon``) started by a run
    whose environment holds ``MGB_TEST_RUN=tag``: they run in a session of their own, but
    inherit its environment (so other tests' servers, running at once, are not ours)."""
    found = set()
    marker = f"MGB_TEST_RUN={tag}".encode()
    for entry in Path("/proc").iterdir():
        try:
            args = (entry / "cmdline").read_bytes().split(b"\0")
            env = (entry / "environ").read_bytes().split(b"\0")
        except (OSError, ValueError):
            continue
        if b"server" in args and args[0].endswith(b"adb") and marker in env:
            found.add(int(entry.name))
    return found


def test_resume_after_a_kill_gives_the_same_report(tmp_path: Path) -> None:
    suite = _suite(tmp_path, "settings/SetWifi-v1")
    args = ["--suite", str(suite), "--base", "scripted", "--trained", "scripted"]
    whole = PairedConfig(
        base="scripted", trained="scripted", suite=str(suite), out=tmp_path / "whole"
    )
    evaluate(whole, _quiet())
    killed = tmp_path / "killed"
    command = [sys.executable, "-m", "transfer_eval", *args, "--out", str(killed)]
    tag = uuid.uuid4().hex
    child = subprocess.Popen(
        command,
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        env={**os.environ, "MGB_TEST_RUN": tag},
    )
    deadline = time.monotonic() + 240
    results = killed / "results.jsonl"
    while time.monotonic() < deadline and child.poll() is None:
        if results.exists() and len(results.read_text().splitlines()) >= 2:
            break
        time.sleep(0.2)  # polling for a condition with a deadline
    os.killpg(child.pid, signal.SIGKILL)
    child.wait(timeout=30)
    left = _adb_servers(tag)  # a SIGKILLed run cannot stop its adb server ...
    assert len(left) == 1 and (killed / "adb-server.json").exists()
    finished = len(results.read_text().splitlines())
    assert 1 <= finished < 4, "the kill should land mid-run"
    evaluate(
        PairedConfig(base="scripted", trained="scripted", suite=str(suite), out=killed), _quiet()
    )
    assert len(results.read_text().splitlines()) == 4
    assert not any(Path(f"/proc/{pid}").exists() for pid in left)  # ... the resume stops it
    assert not (killed / "adb-server.json").exists()
    a = json.loads((tmp_path / "whole" / "report.json").read_text())
    b = json.loads((killed / "report.json").read_text())
    assert a == b


def test_sigterm_stops_a_run_and_everything_it_started(tmp_path: Path) -> None:
    suite = _suite(tmp_path, "settings/SetWifi-v1")
    out = tmp_path / "terminated"
    command = [
        sys.executable,
        "-m",
        "transfer_eval",
        "--suite",
        str(suite),
        "--base",
        "scripted",
        "--trained",
        "scripted",
        "--out",
        str(out),
    ]
    tag = uuid.uuid4().hex
    child = subprocess.Popen(
        command,
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        env={**os.environ, "MGB_TEST_RUN": tag},
    )
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and child.poll() is None:
        if (out / "adb-server.json").exists() and (out / "results.jsonl").exists():
            break
        time.sleep(0.2)  # polling for a condition with a deadline
    assert _adb_servers(tag), "the run should be on the phone side by now"
    child.send_signal(signal.SIGTERM)  # to the run alone, as `kill PID` does
    said, _ = child.communicate(timeout=120)
    assert child.returncode == 130, said
    assert f"transfer-eval --resume {out}" in said.decode()
    assert _adb_servers(tag) == set()
    assert not (out / "adb-server.json").exists()

    def session() -> str:  # the run's other processes (Chromium exits a moment after)
        found = subprocess.run(["pgrep", "-s", str(child.pid)], capture_output=True, text=True)
        return found.stdout.strip()

    deadline = time.monotonic() + 20
    while session() and time.monotonic() < deadline:
        time.sleep(0.2)  # polling for a condition with a deadline
    assert session() == "", "a process of the run's session outlived it"


def test_a_reality_gap_on_the_virtual_phone_costs_the_phone_side(tmp_path: Path) -> None:
    """Pop-ups after every input: the oracle still solves the task in the simulator, but on
    the phone its taps land on a modal dialog; the report names the perturbation."""
    suite = _suite(tmp_path, "settings/SetWifi-v1")
    config = PairedConfig(
        base="scripted",
        trained="scripted",
        suite=str(suite),
        out=tmp_path / "gap",
        gap=Perturbations(popup_rate=1.0),
    )
    evaluate(config, _quiet())
    report = json.loads((tmp_path / "gap" / "report.json").read_text())
    assert report["device_gap"] == "system pop-ups after 100% of inputs"
    assert report["rates"]["trained/sim"]["successes"] == 1
    assert report["rates"]["trained/real"]["successes"] == 0
    assert "with system pop-ups" in (tmp_path / "gap" / "report.md").read_text()


def test_reality_gap_options_are_refused_for_a_real_phone() -> None:
    with pytest.raises(ValueError, match="apply to --device virtual only"):
        PairedConfig(device="SERIAL123", out=Path("x"), gap=Perturbations(animation_ms=300))
    gap = Perturbations(popup_rate=0.05, animation_ms=400, latency_ms=250, font_scale=1.15)
    assert gap.describe() == (
        "system pop-ups after 5% of inputs, 400 ms animations, 250 ms input latency, text x1.15"
    )
    assert not Perturbations().active and Perturbations().describe() == ""


def test_mgb_replay_lists_writes_a_page_and_an_mp4(run_dir: Path, tmp_path: Path) -> None:
    import cv2
    from typer.testing import CliRunner

    from bridge.trajectory import RunStore
    from transfer_eval.commands import mgb_app

    runner = CliRunner()
    listed = runner.invoke(mgb_app, ["replay", str(run_dir)], terminal_width=200)
    assert listed.exit_code == 0, listed.output
    assert "settings.SetWifi-v1" in listed.output and "settings.SetDarkTheme-v1" in listed.output
    assert "✓ / ✓" in listed.output  # the oracle, in both worlds
    video = tmp_path / "wifi.mp4"
    args = ["replay", str(run_dir), "--task", "settings/SetWifi-v1", "--mp4", str(video)]
    written = runner.invoke(mgb_app, args, terminal_width=200)
    assert written.exit_code == 0, written.output
    assert (run_dir / "replays" / "settings.SetWifi-v1__trained.html").exists()
    store = RunStore.open(run_dir)
    steps = max(
        len(store.read_steps(f"settings.SetWifi-v1__trained__{w}__r0")) for w in ("sim", "real")
    )
    capture = cv2.VideoCapture(str(video))
    assert int(capture.get(cv2.CAP_PROP_FRAME_COUNT)) == steps
    assert int(capture.get(cv2.CAP_PROP_FRAME_WIDTH)) == 720
    capture.release()
    typo = runner.invoke(mgb_app, ["replay", str(run_dir), "--task", "settings/SetWfi-v1"])
    said = " ".join(typo.output.split())
    assert typo.exit_code == 2 and "did you mean settings.SetWifi-v1" in said
    missing = runner.invoke(mgb_app, ["replay", str(tmp_path / "nope")])
    assert missing.exit_code == 1 and "is not a run directory" in " ".join(missing.output.split())


def test_resume_from_the_command_line_keeps_the_runs_own_settings(run_dir: Path) -> None:
    """`transfer-eval --resume RUN` alone finishes RUN as it began (its base was random:1,
    not the default checkpoint), its bar starting at what RUN holds; an option that
    contradicts the run is refused."""
    from typer.testing import CliRunner

    from transfer_eval.commands import transfer_eval_app

    before = (run_dir / "report.json").read_bytes()
    runner = CliRunner()
    resumed = runner.invoke(transfer_eval_app, ["--resume", str(run_dir)])
    assert resumed.exit_code == 0, resumed.output
    assert (run_dir / "report.json").read_bytes() == before
    rates = json.loads(before)["rates"]
    cells = sum(rate["episodes"] for rate in rates.values())
    wins = sum(rate["successes"] for rate in rates.values())
    assert wins > 0 and re.search(rf"cells \S* ?{cells}/{cells} ", resumed.output)
    assert f"{wins} succeeded" in resumed.output, resumed.output
    clash = runner.invoke(transfer_eval_app, ["--resume", str(run_dir), "--trained", "random"])
    said = " ".join(clash.output.split())
    assert clash.exit_code == 2 and "--trained random (the run has scripted)" in said


# ---------------------------------------------------------------- the harness fingerprint

APPS = Path(__file__).resolve().parents[2] / "sim" / "apps"


def test_the_manifest_records_each_policys_fingerprint(run: tuple[PairedConfig, Path]) -> None:
    _, out = run
    manifest = json.loads((out / "manifest.json").read_text())
    prints = manifest["fingerprints"]
    assert set(prints) == {"base", "trained"}
    assert prints["base"]["spec"] == "random:1" and prints["trained"]["spec"] == "scripted"
    assert prints["trained"]["phone"] == {"device": "virtual", "gap": "none"}
    assert prints["base"]["judge"] == prints["trained"]["judge"] == harness_versions()["judge"]
    assert set(prints["base"]["apps"]) == {p.name for p in APPS.iterdir()
                                           if p.is_dir() and p.name != "__pycache__"}  # fmt: skip
    assert "fingerprint" not in manifest["config"]  # resume rebuilds PairedConfig from config


def test_report_json_has_a_fingerprint_per_policy_with_what_each_world_gave(
    run: tuple[PairedConfig, Path],
) -> None:
    _, out = run
    report = json.loads((out / "report.json").read_text())
    prints = report["fingerprint"]
    assert prints["trained"]["spec"] == "scripted" and prints["base"]["kind"] == "random"
    sim, real = prints["trained"]["observed"]["sim"], prints["trained"]["observed"]["real"]
    assert len(sim["backend"]) == 1 and sim["backend"][0].startswith("sim, ")
    assert len(real["backend"]) == 1 and real["backend"][0].startswith("virtual, ")
    assert "serial" not in real["backend"][0]  # a fresh loopback port per session
    for images in (sim["image"], real["image"]):
        assert len(images) == 1 and images[0].split()[1] in ("jpg", "png", "webp")
        width, height = (int(v) for v in images[0].split()[0].split("x"))
        assert width > 0 and height > width
    md = (out / "report.md").read_text()
    assert "## Harness" in md and "| spec | `random:1` | `scripted` |" in md


def test_report_html_shows_the_fingerprint_as_a_table(
    run: tuple[PairedConfig, Path], tmp_path: Path
) -> None:
    _, out = run

    async def look() -> tuple[list[str], list[str], int]:
        async with launch_chromium() as browser:
            page = await browser.new_page(viewport={"width": 1200, "height": 900})
            await page.goto((out / "report.html").as_uri())
            table = page.locator("table.fingerprint")
            await table.scroll_into_view_if_needed()
            await page.screenshot(path=str(tmp_path / "harness.png"))
            await table.screenshot(path=str(tmp_path / "table.png"))
            differs = await table.locator("tr.differs td:first-child").all_inner_texts()
            same = await table.locator("tr.same td:first-child").all_inner_texts()
            return differs, same, await table.locator("tr").count()

    differs, same, rows = asyncio.run(look())
    assert {"spec", "kind"} <= set(differs)
    assert {"judge", "simulator", "phone › device", "apps › settings"} <= set(same)
    assert rows == 1 + len(differs) + len(same) and rows > 10
    assert (tmp_path / "table.png").stat().st_size > 5_000


def test_a_resume_with_another_harness_is_refused_in_one_line(
    run: tuple[PairedConfig, Path], tmp_path: Path
) -> None:
    config, out = run
    copy = tmp_path / "copy"
    shutil.copytree(out, copy)
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest["fingerprints"]["trained"]["judge"] = "sha256:0000000000000000"
    (copy / "manifest.json").write_text(json.dumps(manifest))
    before = (copy / "results.jsonl").read_bytes()
    with pytest.raises(TrajectoryError) as caught:
        evaluate(config.model_copy(update={"out": copy}), _quiet())
    said = str(caught.value)
    assert "\n" not in said and "another harness" in said
    assert f"trained judge sha256:0000000000000000 → {harness_versions()['judge']}" in said
    assert "new --out" in said
    assert (copy / "results.jsonl").read_bytes() == before  # nothing ran
    cli = CliRunner().invoke(transfer_eval_app, ["--resume", str(copy)])
    assert cli.exit_code == 1 and "another harness" in " ".join(cli.output.split())


def test_a_run_made_before_fingerprints_resumes_and_says_so(
    run: tuple[PairedConfig, Path], tmp_path: Path
) -> None:
    config, out = run
    copy = tmp_path / "old"
    shutil.copytree(out, copy)
    manifest = json.loads((copy / "manifest.json").read_text())
    del manifest["fingerprints"]
    (copy / "manifest.json").write_text(json.dumps(manifest))
    report = evaluate(config.model_copy(update={"out": copy}), _quiet())
    assert report.fingerprint == {}
    assert "Not recorded (a run made before fingerprints)" in (copy / "report.html").read_text()


def test_resuming_a_finished_run_starts_no_world(
    run: tuple[PairedConfig, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every cell is done: the reports are written again without a phone or a simulator."""
    import transfer_eval.paired as paired

    def refused(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("a finished run started a world")

    monkeypatch.setattr(paired, "_phone", refused)
    monkeypatch.setattr(paired, "gain_side", refused)
    config, out = run
    copy = tmp_path / "finished"
    shutil.copytree(out, copy)
    report = evaluate(config.model_copy(update={"out": copy}), _quiet())
    assert report.device_backend == "virtual"
    assert json.loads((copy / "report.json").read_text()) == json.loads(
        (out / "report.json").read_text()
    )


def test_fingerprint_changes_name_each_leaf_that_differs() -> None:
    old = {"trained": {"spec": "x", "vlm": {"sampling": {"temperature": 0.0}}}, "base": {"a": 1}}
    new = {"trained": {"spec": "x", "vlm": {"sampling": {"temperature": 0.7, "seed": 3}}},
           "base": {"a": 1}}  # fmt: skip
    assert fingerprint_changes(old, new) == [
        "trained vlm.sampling.seed (none) → 3",
        "trained vlm.sampling.temperature 0.0 → 0.7",
    ]
    assert fingerprint_changes(old, old) == []


def test_policy_fingerprints_by_kind(tmp_path: Path) -> None:
    checkpoint = tmp_path / "ckpt"
    checkpoint.mkdir()
    (checkpoint / "weights.npz").write_bytes(b"weights")
    learned = policy_fingerprint(f"learned:{checkpoint}")
    assert learned["checkpoint"] == checkpoint_hash(checkpoint) and "vlm" not in learned
    vlm = policy_fingerprint("vlm:autoglm,temperature=0.5@http://127.0.0.1:9/v1#glm")
    assert vlm["kind"] == "vlm" and vlm["vlm"]["sampling"]["temperature"] == 0.5  # type: ignore[index]
    assert vlm["judge"] == learned["judge"] and vlm["simulator"] == learned["simulator"]
    replay = policy_fingerprint(f"replay:{tmp_path}/nope")
    assert replay["recording"] == "missing"
