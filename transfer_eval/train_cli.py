"""``mgb train``: GRPO for the learned policy in the simulator (the composition root).

The trainer (:mod:`policies.grpo`) knows only bridge's ``ForkableEnv``; this module starts a
:class:`~sim.simulator.Simulator`, builds the task instances of a named split, hands the
trainer a factory of screenshot-free sim envs, and writes the checkpoint and its curve.

Splits (``--tasks``) name task-id lists and keep train and test *instances* apart:
training instances use seeds ``0..199``, held-out ones seeds ``1000..``; even seeds are
posed in English, odd ones in Chinese. ``*-unseen`` splits also hold out whole templates.
With few parameters (on/off x language), held-out instances of a seen template can repeat
a trained configuration under a new seed; the ``-unseen`` split measures transfer to
templates never trained on.
"""

from __future__ import annotations

import asyncio
import shlex
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Annotated, Any

import typer
from pydantic import BaseModel, ConfigDict, Field
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from bridge.schema import TaskInstance
from policies.grpo import CurveRow, EvalResult, GRPOConfig, TrainResult, train
from policies.learned.checkpoint import CheckpointError
from policies.learned.curve import draw_curve_png, write_curve_csv
from policies.learned.policy import LearnedPolicy
from policies.learned.prior import INITS, initial_weights
from sim.simulator import SimConfig, Simulator
from sim.tasks.registry import TaskRegistry
from transfer_eval.cli_common import ProgressLog, console

__all__ = [
    "SPLITS",
    "Split",
    "TrainOptions",
    "TrainReport",
    "run_training",
    "split_instances",
    "train_app",
    "train_command",
]

_TOGGLES = tuple(
    f"settings/{name}-v1"
    for name in ("SetWifi", "SetAirplaneMode", "SetBluetooth", "SetMobileData", "SetDarkTheme",
                 "SetDoNotDisturb")
)  # fmt: skip
_L1 = (
    *_TOGGLES,
    "settings/MuteRingVolume-v1",
    "settings/QueryDeviceModel-v1",
    "settings/QueryAndroidVersion-v1",
    "contacts/QueryPhoneNumber-v1",
)

_HARD = (
    "settings/SetAirplaneMode-v1",
    "settings/MuteRingVolume-v1",
    "settings/QueryDeviceModel-v1",
    "settings/QueryAndroidVersion-v1",
)


class Split(BaseModel):
    """Which templates and seeds are trained on and which are held out."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    description: str
    train_tasks: tuple[str, ...]
    test_tasks: tuple[str, ...]
    train_seeds: tuple[int, int] = (0, 200)
    """``(first, count)``: training instances draw from these seeds."""
    test_seeds: tuple[int, int] = (1000, 4)
    """``(first, count)``: every test template is played once per seed."""


SPLITS: dict[str, Split] = {
    split.name: split
    for split in (
        Split(
            name="settings-l1",
            description="the 6 Settings L1 on/off toggles; held-out seeds",
            train_tasks=_TOGGLES,
            test_tasks=_TOGGLES,
            test_seeds=(1000, 8),
        ),
        Split(
            name="all-l1",
            description="every L1 template (toggles, ring volume, 3 queries); held-out seeds",
            train_tasks=_L1,
            test_tasks=_L1,
        ),
        Split(
            name="settings-l1-hard",
            description="the Settings L1 templates the reading prior fails most (airplane "
            "mode, ring volume, model and Android version queries); held-out seeds",
            train_tasks=_HARD,
            test_tasks=_HARD,
            test_seeds=(1000, 6),
        ),
        Split(
            name="settings-l1-unseen",
            description="train on 4 toggles, test on Airplane mode and Mobile data (unseen)",
            train_tasks=tuple(t for t in _TOGGLES if "Airplane" not in t and "Mobile" not in t),
            test_tasks=tuple(t for t in _TOGGLES if "Airplane" in t or "Mobile" in t),
            test_seeds=(1000, 12),
        ),
    )
}
"""Named splits for ``--tasks``."""


def split_instances(
    split: Split, registry: TaskRegistry, world: Mapping[str, Mapping[str, Any]]
) -> tuple[list[TaskInstance], list[TaskInstance]]:
    """The (train, test) task instances of ``split``; their seeds never overlap."""
    train_range = range(split.train_seeds[0], sum(split.train_seeds))
    test_range = range(split.test_seeds[0], sum(split.test_seeds))
    if set(train_range) & set(test_range):
        raise ValueError(f"split {split.name}: train and test seeds overlap")

    def make(ids: tuple[str, ...], seeds: range) -> list[TaskInstance]:
        lang = ("en", "zh")
        return [registry.instantiate(t, s, world, lang[s % 2]) for s in seeds for t in ids]

    return make(split.train_tasks, train_range), make(split.test_tasks, test_range)


class TrainOptions(BaseModel):
    """Everything ``mgb train`` needs; :func:`run_training` runs it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    split: str = "all-l1"
    out: Path
    init: str = "prior"
    save_init: Path | None = None
    pages: int = Field(default=4, ge=1, le=64)
    grpo: GRPOConfig = Field(default_factory=GRPOConfig)

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
    train_instances: int
    test_instances: int
    train_steps: int
    eval_steps: int
    train_wall_s: float
    wall_s: float


def _init_policy(init: str) -> LearnedPolicy:
    if init in INITS:
        return LearnedPolicy(initial_weights(init))
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
        train_instances=sizes[0],
        test_instances=sizes[1],
        train_steps=result.train_steps,
        eval_steps=result.eval_steps,
        train_wall_s=result.train_wall_s,
        wall_s=result.wall_s,
    )


def _metadata(options: TrainOptions, result: TrainResult, report: TrainReport) -> dict[str, Any]:
    split = SPLITS[options.split]
    return {
        "command": report.command,
        "split": split.model_dump(mode="json"),
        "init": options.init,
        "grpo": options.grpo.model_dump(mode="json"),
        "init_eval": _eval_dict(result.init_eval),
        "final_eval": _eval_dict(result.final_eval),
        "train_steps": result.train_steps,
        "train_wall_s": round(result.train_wall_s, 1),
    }


async def run_training(
    options: TrainOptions, on_iteration: Callable[[CurveRow], None] | None = None
) -> TrainReport:
    """Train in a fresh simulator (no screenshots) and write checkpoint, curve CSV and PNG."""
    if options.split not in SPLITS:
        raise ValueError(f"unknown split {options.split!r}; known: {', '.join(SPLITS)}")
    init = _init_policy(options.init)
    if options.save_init is not None:
        init.save(options.save_init, training={"init": options.init, "role": "initialization"})
    async with Simulator(SimConfig(pages=options.pages)) as sim:
        world = {app_id: app.world for app_id, app in sim.phone.apps.items()}
        train_tasks, test_tasks = split_instances(SPLITS[options.split], sim.tasks, world)

        async def make_env() -> Any:
            return await sim.env(screenshot=False)

        result = await train(init, train_tasks, test_tasks, make_env, options.grpo, on_iteration)
    report = _report(options, result, (len(train_tasks), len(test_tasks)))
    config = init.config.model_copy(update={"seed": options.grpo.seed})
    trained = LearnedPolicy(result.weights, config, path=options.out)
    trained.save(options.out, training=_metadata(options, result, report))
    write_curve_csv(result.curve, report.curve_csv)
    draw_curve_png(result.curve, report.curve_png, title=f"GRPO on {options.split}")
    return report


# --------------------------------------------------------------------------- command line

train_app = typer.Typer(
    help="Train the learned policy with GRPO in the simulator.", add_completion=False
)


def _progress() -> Progress:
    return Progress(
        TextColumn("GRPO"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("reward {task.fields[reward]}  train {task.fields[train]}"),
        TextColumn("held-out {task.fields[held]}"),
        console=console,
    )


def _print_report(report: TrainReport) -> None:
    table = Table(title=f"GRPO on {report.split}")
    table.add_column("measure")
    table.add_column("value")

    def percent(value: float | None) -> str:
        return "-" if value is None else f"{value:.1%}"

    rows = {
        "held-out success, init": percent(report.init_success),
        "held-out success, trained": percent(report.trained_success),
        "gain (points)": "-" if report.gain is None else f"{100 * report.gain:+.1f}",
        "held-out episodes (improved / worsened)": (
            f"{report.eval_episodes} ({report.improved} / {report.worsened})"
        ),
        "train / eval env steps": f"{report.train_steps} / {report.eval_steps}",
        "wall time (train / total)": f"{report.train_wall_s:.0f} s / {report.wall_s:.0f} s",
    }
    for key, value in rows.items():
        table.add_row(key, value)
    console.print(table)
    console.print(f"checkpoint: [bold]{report.checkpoint.resolve()}[/]")
    console.print(f"curve:      {report.curve_csv.resolve()}  {report.curve_png.resolve()}")


@train_app.callback(invoke_without_command=True)
def train_command(
    out: Annotated[Path, typer.Option(help="Checkpoint directory to write (with curve.csv/png).")],
    tasks: Annotated[str, typer.Option(help=f"Split: {', '.join(SPLITS)}.")] = "all-l1",
    envs: Annotated[int, typer.Option(help="Task instances per iteration (each forked).")] = 8,
    group: Annotated[int, typer.Option(help="Rollouts per instance (GRPO group size).")] = 8,
    iters: Annotated[int, typer.Option(help="GRPO iterations.")] = 30,
    seed: Annotated[int, typer.Option(help="Seed of batches and sampling.")] = 0,
    init: Annotated[str, typer.Option(help="'prior', 'zeros' or a checkpoint directory.")] = (
        "prior"
    ),
    lr: Annotated[float, typer.Option(help="Adam learning rate.")] = 0.1,
    entropy: Annotated[float, typer.Option(help="Entropy bonus coefficient.")] = 0.01,
    eval_every: Annotated[int, typer.Option(help="Held-out evaluation every N iters.")] = 0,
    pages: Annotated[int, typer.Option(help="Chromium pages rendering instances.")] = 4,
    save_init: Annotated[Path | None, typer.Option(help="Also save the initialization here.")] = (
        None
    ),
) -> None:
    """Train the learned policy with GRPO on a split's training instances and evaluate it
    greedily on the held-out ones before and after; prints where checkpoint and curve are."""
    if tasks not in SPLITS:
        raise typer.BadParameter(f"unknown split {tasks!r}; known: {', '.join(SPLITS)}")
    try:
        grpo = GRPOConfig(envs=envs, group=group, iters=iters, seed=seed, lr=lr,
                          entropy_coef=entropy, eval_every=eval_every)  # fmt: skip
        options = TrainOptions(split=tasks, out=out, init=init, save_init=save_init, pages=pages,
                               grpo=grpo)  # fmt: skip
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from exc
    try:
        _init_policy(init)  # a bad checkpoint fails here, before the simulator starts
    except CheckpointError as exc:
        raise typer.BadParameter(str(exc), param_hint="--init") from exc
    _print_report(_train_with_progress(options))


def _train_with_progress(options: TrainOptions) -> TrainReport:
    with _progress() as progress:
        bar = progress.add_task("train", total=options.grpo.iters, reward="-", train="-", held="-")

        log = ProgressLog(options.out / "progress.log", "GRPO")

        def advance(row: CurveRow) -> None:
            fields: dict[str, Any] = {}
            if row.mean_reward is not None:
                fields.update(reward=f"{row.mean_reward:.2f}", train=f"{row.train_success:.0%}")
            if row.eval_success is not None:
                fields["held"] = f"{row.eval_success:.0%}"
            progress.update(bar, completed=row.iteration, **fields)
            said = " · ".join(f"{key} {value}" for key, value in fields.items())
            log.line(f"iteration {row.iteration}/{options.grpo.iters} · {said or 'evaluating'}")

        return asyncio.run(run_training(options, advance))
