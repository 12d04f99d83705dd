"""The simulator benchmark runs end to end in quick mode and reports sane, complete figures.

No timing assertions: figures are printed by the benchmark, not judged by the tests.
"""

from __future__ import annotations

import pytest

from sim.bench import run_bench

EXPECTED = {
    "cold_start_to_first_observation_s",
    "instance_create_to_first_observation_ms",
    "reset_ms_p50",
    "snapshot_ms",
    "snapshot_bytes",
    "restore_ms",
    "fork8_ms",
    "step_ms_p50",
    "step_ms_p95",
    "step8_ms_p50",
    "step8_ms_p95",
    "rss_bytes_per_idle_instance_50",
    "steps_per_s_1_pages",
    "steps_per_s_4_pages",
}


@pytest.mark.browser
def test_quick_benchmark_reports_every_figure() -> None:
    stages: list[str] = []
    result = run_bench(quick=True, on_stage=stages.append)
    assert stages[0].startswith("cold start") and stages[-1] == "throughput, 4 page(s)"
    assert any(stage.startswith("memory") for stage in stages), stages
    assert set(result) >= EXPECTED, EXPECTED - set(result)
    assert 0 < result["snapshot_bytes"] < 20_000
    assert result["step_ms_p50"] > 0 and result["step_ms_p95"] >= result["step_ms_p50"]
    assert result["step8_ms_p95"] >= result["step8_ms_p50"] > 0
    assert result["steps_per_s_1_pages"] > 0 and result["steps_per_s_4_pages"] > 0
