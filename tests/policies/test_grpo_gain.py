"""The measured gain, short version: GRPO in the simulator must beat its initialization on
held-out task instances (the full version is ``benchmarks/train_bench.py``).

Setup: split ``settings-l1-hard`` (airplane mode, ring volume, model and Android-version
queries: the Settings L1 templates the reading prior fails most), 8 iterations of 4
instances x 8 forks, seed 0; evaluation on 24 held-out instances (seeds 1000-1005, never
trained on, English and Chinese), greedy, before and after. About 5 minutes on the 2-core
machine with the rest of the suite running alongside.

Why the gain cannot be luck: the evaluation has no randomness (greedy policy, deterministic
simulator), and the run is seeded, so this test gives the same numbers every time: it
cannot pass by a lucky draw on one run and fail on the next. Whether the improvement is
systematic rather than a few instances flipping is checked with an exact sign test on the
paired outcomes: init and trained play the very same 24 instances, and if training did
not help, each instance that changed outcome would be equally likely to change either way.
We require at least 15 points of gain *and* a one-sided sign-test p-value below 0.10 (for
example 6 of 6 changed instances improving gives p = 1/64; why not lower, see the test).
"""

from __future__ import annotations

import asyncio
import csv
import math
from pathlib import Path

import pytest

from policies.grpo import GRPOConfig
from policies.learned import LearnedPolicy
from transfer_eval.training import TrainOptions, run_training

pytestmark = pytest.mark.browser


def sign_test_p(improved: int, worsened: int) -> float:
    """One-sided exact sign test: P(at least ``improved`` of the changed pairs improve)."""
    changed = improved + worsened
    tail = sum(math.comb(changed, k) for k in range(improved, changed + 1))
    return tail / 2**changed if changed else 1.0


def test_sign_test() -> None:
    assert sign_test_p(6, 0) == pytest.approx(1 / 64)
    assert sign_test_p(0, 0) == 1.0
    assert sign_test_p(5, 5) > 0.5


def test_grpo_beats_its_initialization_on_held_out_instances(tmp_path: Path) -> None:
    grpo = GRPOConfig(envs=4, group=8, iters=8, seed=0)
    options = TrainOptions(split="settings-l1-hard", out=tmp_path / "trained", grpo=grpo)
    report = asyncio.run(run_training(options))
    assert report.eval_episodes >= 20
    assert report.init_success is not None and report.trained_success is not None
    gain = report.trained_success - report.init_success
    result = f"held-out success {report.init_success:.0%} -> {report.trained_success:.0%}"
    assert gain >= 0.15, result
    assert report.improved - report.worsened == round(gain * report.eval_episodes)
    # 10%, one-sided: with seven apps on the home screen this run improves 9 held-out
    # instances and worsens 3 (p = 0.073; it was 12 and 3 with five apps, 18 and 0 with
    # three). 8 environments give 6 and 0 (p = 0.016) and 12 iterations 10 and 3 (p = 0.046),
    # at twice and one and a half times the cost, more than make test can spend: the
    # significance claim is the benchmark's (benchmarks/train_bench.py; the shipped
    # checkpoint's run: 14 improved, 2 worsened, p = 0.002). A run that learns nothing
    # improves about as many as it worsens (p near 0.5) and fails here.
    assert sign_test_p(report.improved, report.worsened) < 0.10, (
        f"{result}: {report.improved} instances improved, {report.worsened} worsened"
    )
    trained = LearnedPolicy.load(report.checkpoint)
    assert trained.config.training["final_eval"]["successes"] > 0  # type: ignore[index]
    with open(report.curve_csv, encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert [int(row["iteration"]) for row in rows] == list(range(9))
    assert report.curve_png.read_bytes().startswith(b"\x89PNG")
