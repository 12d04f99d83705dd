"""benchmarks/record.py: a benchmark's figures land beside their date and machine, and the
page's recorded part is regenerated in place."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest

from benchmarks import record


def test_a_recorded_benchmark_shows_its_date_machine_and_figures(tmp_path: Path) -> None:
    results, target = tmp_path / "results", tmp_path / "benchmarks.md"
    target.write_text("# Dated figures\n\nwritten by hand\n", encoding="utf-8")
    made = record.run("cli_startup", ["--runs", "1"], results=results)
    assert made["date"].startswith(datetime.now(timezone.utc).date().isoformat())
    assert made["machine"]["cores"] and made["figures"]["benchmark"] == "cli_startup"
    record.page(results, target)
    record.page(results, target)  # again: replaced in place, never appended twice
    text = target.read_text(encoding="utf-8")
    assert text.startswith("# Dated figures\n\nwritten by hand\n")
    assert text.count(record.BEGIN) == 1 and text.count(record.END) == 1
    assert f"**{made['date'][:10]}** on {made['machine']['cpu']}" in text
    assert "| commands.mgb --help.total_s |" in text and "arguments: `--runs 1`" in text


def test_an_unknown_benchmark_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="no benchmark 'sim_bnech'; benchmarks are api_soak"):
        record.run("sim_bnech", [], results=tmp_path)
    assert not tmp_path.joinpath("sim_bnech.jsonl").exists()
