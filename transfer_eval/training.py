"""GRPO training of the learned policy in the simulator (the composition root of ``mgb train``).

The trainer (:mod:`policies.grpo`) knows only bridge's ``ForkableEnv``; this module starts a
:class:`~sim.simulator.Simulator`, instantiates a split's train and held-out task instances,
hands the trainer a factory of screenshot-free sim envs, and writes the checkpoint and its
curve.

Splits (:func:`transfer_eval.suites.load_split`, files in ``transfer_eval/splits/``) keep
train and test *instances* apart: training instances use seeds ``0..199``, held-out ones
seeds ``1000..``; even seeds are posed in English, odd ones in Chinese. ``*-unseen`` splits
also hold out whole templates. With few parameters (on/off x language), held-out instances
of a seen template can repeat a trained configuration under a new seed; the ``-unseen``
split measures transfer to templates never trained on.
"""

from __future__ import annotations

import random
import shlex
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from bridge.records import TaskInstance
from policies.grpo import CurveRow, EvalResult, GRPOConfig, TrainResult, train
from policies.learned.checkpoint import CONFIG_FILE, WEIGHTS_FILE, CheckpointConfig
from policies.learned.curve import draw_curve_png, write_curve_csv
from policies.learned.policy import LearnedPolicy
from policies.learned.prior import INITS, initial_weights
from sim.skins import DEFAULT_SKIN, SkinName
from sim.tasks.registry import TaskRegistry
from transfer_eval.errors import CheckpointExists
from transfer_eval.sim_source import SimSource, sim_envs
from transfer_eval.suites import Split, Suite, load_split

__all__ = [
    "TrainOptions",
    "TrainReport",
    "check_targets",
    "init_policy",
    "run_training",
    "split_instances",
]

_CURVE_FILES = ("curve.csv", "curve.png")


def split_instances(
    split: Split, registry: TaskRegistry
) -> tuple[list[TaskInstance], list[TaskInstance]]:
    """The (train, test) task instances of ``split`` (their seeds never overlap)."""

    def make(suite: Suite) -> list[TaskInstance]:
        return [
            registry.instantiate(entry.task_id, entry.seed, entry.lang)
            for entry in suite.instances()
        ]

    return make(split.train), make(split.test)


class TrainOptions(BaseModel):
    """Everything ``mgb train`` needs; :func:`run_training` runs it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    split: str = "all-l1"
    out: Path
    init: str = "prior"
    save_init: Path | None = None
    pages: int = Field(default=4, ge=1, le=64)
    grpo: GRPOConfig = Field(default_factory=GRPOConfig)
    source: SimSource = SimSource()
    """Where the envs live (``--ray`` / ``--hosts``); the trained weights do not depend on it."""
    replace: bool = False
    """Write over a checkpoint already in ``out`` or ``save_init`` (refused otherwise)."""
    skins: tuple[SkinName, ...] = Field(default=(DEFAULT_SKIN,), min_length=1)
    """The skins episodes are played in: each group's (and each evaluation episode's) drawn
    from these, seeded by the run's seed, so a policy learns more than one look."""

    def command(self) -> str:
        """The ``mgb train`` command line that reproduces this run."""
        g = self.grpo
        parts = ["mgb", "train", "--tasks", self.split, "--envs", str(g.envs), "--group",
                 str(g.group), "--iters", str(g.iters), "--seed", str(g.seed), "--lr",
                 str(g.lr), "--init", self.init, "--out", str(self.out)]  # fmt: skip
        defaults = GRPOConfig()
        if g.entropy_coef != defaults.entropy_coef:
            parts += ["--entropy", str(g.entropy_coef)]
        if g.eval_every:
            parts += ["--eval-every", str(g.eval_every)]
        if self.pages != 4:
            parts += ["--pages", str(self.pages)]
        if self.save_init is not None:
            parts += ["--save-init", str(self.save_init)]
        if self.skins != (DEFAULT_SKIN,):
            parts += ["--skins", ",".join(self.skins)]
        return shlex.join(parts)


class TrainReport(BaseModel):
    """What a training run produced and measured."""

    model_config = ConfigDict(extra="forbid")

    split: str
    command: str
    checkpoint: Path
    curve_csv: Path
    curve_png: Path
    init_success: float | None
    trained_success: float | None
    gain: float | None
    eval_episodes: int
    improved: int
    """Held-out instances failed by the initialization and solved after training."""
    worsened: int
    """Held-out instances solved by the initialization and failed after training."""
    init_goal: float | None = None
    """Held-out episodes whose goal held at the end (however they ended), before training."""
    trained_goal: float | None = None
    """The same after training."""
    goal_improved: int = 0
    """Held-out instances whose goal the initialization missed and the trained policy met."""
    goal_worsened: int = 0
    """Held-out instances whose goal the initialization met and the trained policy missed."""
    train_instances: int
    test_instances: int
    train_steps: int
    eval_steps: int
    train_wall_s: float
    wall_s: float


def _held(folder: Path, names: Sequence[str]) -> list[str]:
    return [name for name in names if (folder / name).exists()]


def check_targets(options: TrainOptions) -> None:
    """Refuse, before any work, to write over a checkpoint in ``--out`` or ``--save-init``
    unless ``options.replace`` says to (a run's weights are not written again by accident).

    Raises:
        CheckpointExists: one line naming the folder and the flag.
    """
    targets: list[tuple[str, Path, tuple[str, ...]]] = [
        ("--out", options.out, (WEIGHTS_FILE, CONFIG_FILE, *_CURVE_FILES))
    ]
    if options.save_init is not None:
        if options.save_init.resolve() == options.out.resolve():
            raise CheckpointExists(
                f"--save-init and --out are the same folder ({options.out}): the trained "
                "weights would overwrite the initialization; give two folders"
            )
        targets.append(("--save-init", options.save_init, (WEIGHTS_FILE, CONFIG_FILE)))
    for option, folder, names in targets:
        if folder.exists() and not folder.is_dir():
            raise CheckpointExists(f"{option} {folder} is a file, not a folder; give a folder")
        held = _held(folder, names)
        if held and not options.replace:
            raise CheckpointExists(
                f"{option} {folder} already holds a checkpoint ({', '.join(held)}); give "
                f"--replace to write over it, or another {option}"
            )


def init_policy(init: str, apps: Sequence[str] | None = None) -> LearnedPolicy:
    """The initial policy: a named initialization that may open ``apps`` (every simulated
    app when None), or a checkpoint directory (which keeps its own)."""
    if init in INITS:
        config = None if apps is None else CheckpointConfig(apps=list(apps))
        return LearnedPolicy(initial_weights(init), config)
    return LearnedPolicy.load(init)


def _eval_dict(result: EvalResult | None) -> dict[str, Any] | None:
    if result is None:
        return None
    return {"episodes": result.episodes, "successes": result.successes,
            "infra_errors": result.infra_errors, "success_rate": result.success_rate}  # fmt: skip


def _report(options: TrainOptions, result: TrainResult, sizes: tuple[int, int]) -> TrainReport:
    start = result.init_eval.success_rate if result.init_eval else None
    end = result.final_eval.success_rate if result.final_eval else None
    before = result.init_eval.outcomes if result.init_eval else ()
    pairs = list(zip(before, result.final_eval.outcomes if result.final_eval else (), strict=False))
    goals = list(
        zip(
            result.init_eval.goals if result.init_eval else (),
            result.final_eval.goals if result.final_eval else (),
            strict=False,
        )
    )
    return TrainReport(
        split=options.split,
        command=options.command(),
        checkpoint=options.out,
        curve_csv=options.out / "curve.csv",
        curve_png=options.out / "curve.png",
        init_success=start,
        trained_success=end,
        gain=None if start is None or end is None else end - start,
        eval_episodes=result.final_eval.episodes if result.final_eval else 0,
        improved=sum(b and not a for a, b in pairs),
        worsened=sum(a and not b for a, b in pairs),
        init_goal=result.init_eval.goal_rate if result.init_eval else None,
        trained_goal=result.final_eval.goal_rate if result.final_eval else None,
        goal_improved=sum(b and not a for a, b in goals),
        goal_worsened=sum(a and not b for a, b in goals),
        train_instances=sizes[0],
        test_instances=sizes[1],
        train_steps=result.train_steps,
        eval_steps=result.eval_steps,
        train_wall_s=result.train_wall_s,
        wall_s=result.wall_s,
    )


def _metadata(options: TrainOptions, result: TrainResult, report: TrainReport) -> dict[str, Any]:
    split = load_split(options.split)
    return {
        "command": report.command,
        "split": split.model_dump(mode="json"),
        "init": options.init,
        "skins": list(options.skins),
        "grpo": options.grpo.model_dump(mode="json"),
        "init_eval": _eval_dict(result.init_eval),
        "final_eval": _eval_dict(result.final_eval),
        "train_steps": result.train_steps,
        "train_wall_s": round(result.train_wall_s, 1),
    }


def skin_draw(options: TrainOptions) -> Callable[[], str]:
    """The skin of each new env, drawn from ``options.skins`` by a generator seeded with the
    run's seed: envs are asked for in task order (a group's root env first), so the same
    options give every group the same skin again."""
    draw = random.Random(f"skins:{options.grpo.seed}")
    return lambda: draw.choice(options.skins)


async def run_training(
    options: TrainOptions, on_iteration: Callable[[CurveRow], None] | None = None
) -> TrainReport:
    """Train on fresh simulator envs (no screenshots; here, or on the hosts of
    ``options.source``) and write checkpoint, curve CSV and PNG.

    Raises:
        CheckpointExists: ``out`` or ``save_init`` holds a checkpoint and ``replace`` is
            not set (checked before anything starts).
    """
    check_targets(options)
    split = load_split(options.split)
    init = init_policy(options.init, split.apps)
    if options.save_init is not None:
        init.save(options.save_init, training={"init": options.init, "role": "initialization"})
    async with sim_envs(options.source, pages=options.pages) as sims:
        train_tasks, test_tasks = split_instances(split, sims.tasks)

        next_skin = skin_draw(options)

        async def make_env() -> Any:
            return await sims.env(screenshot=False, skin=next_skin())

        result = await train(init, train_tasks, test_tasks, make_env, options.grpo, on_iteration)
    report = _report(options, result, (len(train_tasks), len(test_tasks)))
    config = init.config.model_copy(update={"seed": options.grpo.seed})
    trained = LearnedPolicy(result.weights, config, path=options.out)
    trained.save(options.out, training=_metadata(options, result, report))
    write_curve_csv(result.curve, report.curve_csv)
    draw_curve_png(result.curve, report.curve_png, title=f"GRPO on {options.split}")
    return report
