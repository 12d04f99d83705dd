"""GRPO benchmark: the measured gain of the learned policy; prints one JSON object.

    .venv/bin/python benchmarks/train_bench.py [--quick] [--out DIR] [--virtual]
        [--skins aosp,hyperos] [--profile redmi_note_12_turbo]
    .venv/bin/python benchmarks/train_bench.py --virtual-only INIT TRAINED [--quick]

The full version is the acceptance run: split ``all-l1`` (every L1 template, English and
Chinese), 30 iterations of 8 instances x 8 forks, seed 0, from the reading prior; greedy
evaluation on 40 held-out instances before and after. ``--quick`` is the test suite's
short version (``settings-l1-hard``, 8 iterations of 4 x 8). Wall times include starting
Chromium; on a shared machine they are pessimistic. ``--virtual`` also plays the same
held-out instances greedily with the initialization and the trained weights on the virtual
phone behind the real adb server (one episode at a time, as on a phone): the gain measured
in the other world. ``--virtual-only INIT TRAINED`` measures that for two existing
checkpoints (the shipped ones: ``checkpoints/base checkpoints/trained``) without training.
``--skins`` trains (and evaluates) across skins, each group's drawn per episode, seeded;
``--profile`` names the device profile the virtual phone plays (``redmi_note_12_turbo``: the
virtual Redmi, in HyperOS's skin). The paired number for a trained checkpoint against the
shipped base is ``transfer-eval --trained learned:DIR``.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from device.adb import AdbTarget
from device.env import AndroidEnv, AndroidEnvConfig
from device.profiles import VIRTUAL_PROFILE
from device.virtual.attach import attach_virtual_phone
from device.virtual.perturb import Perturbations
from policies.grpo import EvalResult, GRPOConfig, evaluate
from policies.learned import LearnedPolicy
from policies.learned.prior import initial_weights
from sim.tasks.registry import default_registry
from transfer_eval.suites import load_split
from transfer_eval.training import TrainOptions, run_training, split_instances

FULL = TrainOptions(split="all-l1", out=Path("train-bench"), grpo=GRPOConfig(envs=8, iters=30))
QUICK = TrainOptions(
    split="settings-l1-hard", out=Path("train-bench"), grpo=GRPOConfig(envs=4, iters=8)
)


def run(quick: bool, out: Path, skins: tuple[str, ...] = ("aosp",)) -> dict[str, Any]:
    """Train and evaluate (in ``skins``); the figures of the run as a JSON-ready dict."""
    options = (QUICK if quick else FULL).model_copy(update={"out": out, "skins": skins})
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


def on_virtual_phone(
    split: str, init: Path, trained: Path, profile: str = VIRTUAL_PROFILE
) -> dict[str, Any]:
    """Held-out success of both checkpoints on the virtual phone playing ``profile``
    (through adb)."""
    _, held_out = split_instances(load_split(split), default_registry())
    started = time.perf_counter()
    knobs = Perturbations(profile=profile)
    with attach_virtual_phone(seed=0, perturbations=knobs) as phone:
        target = AdbTarget(port=phone.adb_port, serial=phone.serial)

        async def make_env() -> AndroidEnv:
            return AndroidEnv(AndroidEnvConfig(target=target, screenshot=False))

        async def both() -> tuple[EvalResult, EvalResult]:
            results = []
            for directory in (init, trained):
                policy = LearnedPolicy.load(directory)
                results.append(await evaluate(policy.weights, policy.config, held_out, make_env, 1))
            return results[0], results[1]

        before, after = asyncio.run(both())
    pairs = list(zip(before.outcomes, after.outcomes, strict=True))
    return {
        "init_success": before.success_rate,
        "trained_success": after.success_rate,
        "gain_points": round(100 * (after.success_rate - before.success_rate), 1),
        "held_out_episodes": after.episodes,
        "improved": sum(1 for b, a in pairs if a and not b),
        "worsened": sum(1 for b, a in pairs if b and not a),
        "infra_errors": before.infra_errors + after.infra_errors,
        "wall_s": round(time.perf_counter() - started, 1),
    }


def _value(argv: list[str], option: str) -> str | None:
    return argv[argv.index(option) + 1] if option in argv else None


def main(argv: list[str]) -> None:
    """Parse ``--quick``, ``--out DIR`` (default: a temporary directory), ``--virtual``,
    ``--skins`` and ``--profile``."""
    quick, virtual = "--quick" in argv, "--virtual" in argv
    split = (QUICK if quick else FULL).split
    skins = tuple((_value(argv, "--skins") or "aosp").split(","))
    profile = _value(argv, "--profile") or VIRTUAL_PROFILE
    if "--virtual-only" in argv:
        at = argv.index("--virtual-only")
        init, trained = Path(argv[at + 1]), Path(argv[at + 2])
        figures = {"virtual_phone": on_virtual_phone(split, init, trained, profile)}
        print(json.dumps(figures, indent=2))
        return
    with tempfile.TemporaryDirectory(prefix="train-bench-") as tmp:
        given = _value(argv, "--out")
        out = Path(given) if given is not None else Path(tmp) / "trained"
        figures = run(quick, out, skins)
        if virtual:
            init = out.parent / f"{out.name}-init"
            LearnedPolicy(initial_weights("prior")).save(init, training={"init": "prior"})
            figures["virtual_phone"] = on_virtual_phone(split, init, out, profile)
        print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main(sys.argv[1:])
