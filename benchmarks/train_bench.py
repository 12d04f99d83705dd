"""GRPO benchmark: the measured gain of the learned policy; prints one JSON object.

    .venv/bin/python benchmarks/train_bench.py [--quick] [--out DIR]

The full version is the acceptance run: split ``all-l1`` (every L1 template, English and
Chinese), 30 iterations of 8 instances x 8 forks, seed 0, from the reading prior; greedy
evaluation on 40 held-out instances before and after. ``--quick`` is the test suite's
short version (``settings-l1-hard``, 8 iterations of 4 x 8). Wall times include starting
Chromium; on a shared machine they are pessimistic.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from policies.grpo import GRPOConfig
from transfer_eval.train_cli import TrainOptions, run_training

FULL = TrainOptions(split="all-l1", out=Path("train-bench"), grpo=GRPOConfig(envs=8, iters=30))
QUICK = TrainOptions(
    split="settings-l1-hard", out=Path("train-bench"), grpo=GRPOConfig(envs=4, iters=8)
)


def run(quick: bool, out: Path) -> dict[str, Any]:
    """Train and evaluate; the figures of the run as a JSON-ready dict."""
    options = (QUICK if quick else FULL).model_copy(update={"out": out})
    report = asyncio.run(run_training(options))
    steps = report.train_steps + report.eval_steps
    return {
        "split": report.split,
        "command": report.command,
        "init_success": report.init_success,
        "trained_success": report.trained_success,
        "gain_points": None if report.gain is None else round(100 * report.gain, 1),
        "held_out_episodes": report.eval_episodes,
        "improved": report.improved,
        "worsened": report.worsened,
        "train_instances": report.train_instances,
        "train_wall_s": round(report.train_wall_s, 1),
        "wall_s": round(report.wall_s, 1),
        "train_steps": report.train_steps,
        "eval_steps": report.eval_steps,
        "steps_per_s": round(steps / report.wall_s, 1) if report.wall_s else None,
        "checkpoint": str(report.checkpoint),
        "curve_csv": str(report.curve_csv),
    }


def main(argv: list[str]) -> None:
    """Parse ``--quick`` and ``--out DIR`` (default: a temporary directory) and run."""
    quick = "--quick" in argv
    if "--out" in argv:
        print(json.dumps(run(quick, Path(argv[argv.index("--out") + 1])), indent=2))
        return
    with tempfile.TemporaryDirectory(prefix="train-bench-") as tmp:
        print(json.dumps(run(quick, Path(tmp) / "trained"), indent=2))


if __name__ == "__main__":
    main(sys.argv[1:])
