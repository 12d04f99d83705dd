"""``mgb train``: GRPO for the learned policy in the simulator (:mod:`transfer_eval.training`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from transfer_eval.commands.common import ProgressLog, console, fail, interrupted, usage
from transfer_eval.commands.options import (
    HostsOption,
    HostsTokenOption,
    RayHostsOption,
    RayOption,
    shipped,
    sim_source,
)

if TYPE_CHECKING:
    from rich.progress import Progress

    from policies.grpo import CurveRow
    from transfer_eval.training import TrainOptions, TrainReport

__all__ = ["train_command"]


def _progress() -> Progress:
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

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
    from rich.table import Table

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


def train_command(
    out: Annotated[Path, typer.Option(help="Checkpoint directory to write (with curve.csv/png).")],
    tasks: Annotated[
        str, typer.Option(help=f"Split: {', '.join(shipped('splits'))}, or a split .json path.")
    ] = "all-l1",
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
    replace: Annotated[
        bool, typer.Option(help="Write over a checkpoint already in --out or --save-init.")
    ] = False,
    ray: RayOption = None,
    ray_hosts: RayHostsOption = None,
    hosts: HostsOption = None,
    token: HostsTokenOption = None,
    skins: Annotated[
        str,
        typer.Option(
            help="Comma-separated skins to train in (aosp, hyperos): each group's drawn from "
            "them, seeded, so the policy sees more than one look.",
        ),
    ] = "aosp",
) -> None:
    """Train the learned policy with GRPO in the simulator.

    Trains on a split's training instances and evaluates greedily on its held-out ones
    before and after; prints where the checkpoint and its curve are.
    """
    from policies.errors import CheckpointError
    from policies.grpo import GRPOConfig
    from sim.skins import SKINS
    from transfer_eval.errors import CheckpointExists, SuiteError
    from transfer_eval.suites import load_split
    from transfer_eval.training import TrainOptions, check_targets, init_policy

    try:
        load_split(tasks)
    except SuiteError as exc:
        raise typer.BadParameter(str(exc), param_hint="--tasks") from exc
    source = sim_source(ray, ray_hosts, hosts, token)
    looks = tuple(part.strip() for part in skins.split(",") if part.strip())
    if not looks or any(look not in SKINS for look in looks):
        raise usage(f"--skins {skins!r}: skins are {', '.join(SKINS)}")
    try:
        grpo = GRPOConfig(envs=envs, group=group, iters=iters, seed=seed, lr=lr,
                          entropy_coef=entropy, eval_every=eval_every)  # fmt: skip
        options = TrainOptions(split=tasks, out=out, init=init, save_init=save_init, pages=pages,
                               grpo=grpo, source=source, replace=replace,
                               skins=looks)  # fmt: skip
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from exc
    try:
        check_targets(options)  # before the initialization is read or the simulator starts
    except CheckpointExists as exc:
        raise fail(str(exc)) from exc
    try:
        init_policy(init)  # a bad checkpoint fails here, before the simulator starts
    except CheckpointError as exc:
        raise typer.BadParameter(str(exc), param_hint="--init") from exc
    if not source.local:
        console.print(source.describe())
    _print_report(_train_with_progress(options))


def _train_with_progress(options: TrainOptions) -> TrainReport:
    import asyncio

    from transfer_eval.training import run_training

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

        try:
            return asyncio.run(run_training(options, advance))
        except KeyboardInterrupt:
            raise interrupted(
                f"training is not resumable and no checkpoint was written to {options.out}; "
                "run the command again to train from the start"
            ) from None
