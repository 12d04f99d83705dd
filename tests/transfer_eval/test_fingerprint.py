"""The harness fingerprint of a transfer-eval run: in its manifest, in report.json, .md and
.html (looked at in headless Chromium), and a resume whose harness differs is refused in
one line."""

from __future__ import annotations

import asyncio
import io
import json
import shutil
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from bridge.errors import TrajectoryError
from sim.browser import launch_chromium
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
APPS = Path(__file__).resolve().parents[2] / "sim" / "apps"


def _config(tmp: Path, out: Path) -> PairedConfig:
    suite = tmp / "suite.json"
    suite.write_text(json.dumps({"lang": "en", "tasks": [{"task_id": "settings/SetWifi-v1",
                                                          "seed": 0}]}))  # fmt: skip
    return PairedConfig(base="random:1", trained="scripted", suite=str(suite), out=out)


def _quiet() -> Console:
    return Console(file=io.StringIO(), width=120)


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[PairedConfig, Path]:
    tmp = tmp_path_factory.mktemp("fp")
    config = _config(tmp, tmp / "run")
    evaluate(config, _quiet())
    return config, tmp / "run"


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
