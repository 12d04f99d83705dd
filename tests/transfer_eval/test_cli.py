"""The `mgb` command line: schema export, dump inspection, and the demo gallery."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import cv2
import pytest
from typer.testing import CliRunner

from bridge.jsonschema import json_schemas
from transfer_eval.commands import mgb_app, transfer_eval_app

DUMPS = Path(__file__).resolve().parents[1] / "fixtures" / "real_dumps"
runner = CliRunner()


def test_schema_writes_every_file(tmp_path: Path) -> None:
    result = runner.invoke(mgb_app, ["schema", "--out", str(tmp_path / "schema")])
    assert result.exit_code == 0, result.output
    written = {p.name: p.read_text(encoding="utf-8") for p in (tmp_path / "schema").iterdir()}
    assert written == json_schemas()
    action = json.loads(written["action.schema.json"])
    assert set(action["discriminator"]["mapping"]) >= {"tap", "type", "answer", "finish"}


def test_inspect_prints_the_compact_tree_xpath_and_hit() -> None:
    dump = DUMPS / "15_aosp_launcher3_1080x1776.xml"
    result = runner.invoke(
        mgb_app,
        ["inspect", str(dump), "--xpath", '//node[@text="Clock"]', "--at", "663,727"],
        env={"COLUMNS": "200"},
    )
    assert result.exit_code == 0, result.output
    assert '"Clock" clickable' in result.output
    assert "29 nodes, 1 window(s), rotation 0" in result.output
    clock_line = next(line for line in result.output.splitlines() if '"Clock"' in line)
    clock_id = clock_line.split("]")[0].split("[")[1]
    assert f"xpath '//node[@text=\"Clock\"]': [{clock_id}]" in result.output
    assert f"hit 663,727: {clock_id} " in result.output


def test_inspect_reports_a_broken_dump(tmp_path: Path) -> None:
    broken = tmp_path / "broken.xml"
    broken.write_text("<hierarchy rotation='0'><node bounds='[0,0][1,1]'>", encoding="utf-8")
    result = runner.invoke(mgb_app, ["inspect", str(broken)])
    assert result.exit_code == 1
    assert "error:" in result.output


def test_transfer_eval_rejects_a_bad_suite_and_a_bad_policy(tmp_path: Path) -> None:
    result = runner.invoke(transfer_eval_app, ["--suite", "nope", "--out", str(tmp_path / "r")])
    assert result.exit_code == 1 and "shipped suites: paired, paired-all, smoke" in result.output
    result = runner.invoke(transfer_eval_app, ["--base", "rando", "--out", str(tmp_path / "r")])
    assert result.exit_code == 1 and "random[:SEED]" in result.output


@pytest.mark.browser
def test_gallery_draws_dumps_in_chromium(tmp_path: Path) -> None:
    dumps = tmp_path / "dumps"
    dumps.mkdir()
    for name in ("02_douyin_feed_1080x2032.xml", "36_systemui_quick_settings_320x439.xml"):
        shutil.copy(DUMPS / name, dumps / name)
    out = tmp_path / "out"
    result = runner.invoke(
        mgb_app, ["gallery", "--dumps", str(dumps), "--out", str(out)], env={"COLUMNS": "200"}
    )
    assert result.exit_code == 0, result.output
    assert "warning" not in result.output, "CJK glyphs do not render: install fonts-noto-cjk"
    page = (out / "index.html").read_text(encoding="utf-8")
    assert "02_douyin_feed_1080x2032.xml" in page and "nodes</span> 90" in page
    image = cv2.imread(str(out / "wireframes" / "02_douyin_feed_1080x2032.png"))
    assert image is not None
    height, width = image.shape[:2]
    assert width == 720  # 360 CSS px at device scale 2
    assert abs(height / width - 2032 / 1080) < 0.01
    assert image.std() > 10, "the wireframe is blank"


def test_gallery_without_dumps_is_a_clear_error(tmp_path: Path) -> None:
    result = runner.invoke(mgb_app, ["gallery", "--dumps", str(tmp_path), "--out", str(tmp_path)])
    assert result.exit_code == 1 and "no *.xml dumps" in result.output
