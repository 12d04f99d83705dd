"""``transfer-eval``: the paired base/trained evaluation in the simulator and on a phone
(the composition root is :mod:`transfer_eval.evaluate`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from transfer_eval.commands.common import (
    console,
    exit_after_interrupt,
    fail,
    fail_with,
    interrupted,
    option_error,
    refuse_a_locked_run,
    stop_on_signals,
    usage,
)
from transfer_eval.commands.options import (
    AllowOption,
    AnimationMs,
    FontScale,
    GuardMode,
    HostsOption,
    HostsTokenOption,
    InfraStreakOption,
    LatencyMs,
    PhoneProfile,
    PopupRate,
    RayHostsOption,
    RayOption,
    shipped,
    sim_source,
)

if TYPE_CHECKING:
    from transfer_eval.paired import PairedConfig
    from transfer_eval.sim_source import SimSource

__all__ = ["transfer_eval_command"]


PairedGuard = Annotated[
    GuardMode,
    typer.Option(
        help="End an episode that leaves its task's apps (apps), or that also touches "
        "something marked sending/calling/paying/deleting/installing (all). Applied to the "
        "simulator's cells and the phone's alike, so the comparison stays fair.",
    ),
]


def transfer_eval_command(
    ctx: typer.Context,
    device: Annotated[
        str,
        typer.Option(
            help="Where the gain is checked: an adb serial, 'virtual', or a MobileGym build "
            "(mobilegym:PATH to a built dist/, mobilegym:URL)."
        ),
    ] = "virtual",
    sim: Annotated[
        str,
        typer.Option(
            help="Where the gain was made: 'sim' (our simulator) or a MobileGym build "
            "(mobilegym:PATH, mobilegym:URL)."
        ),
    ] = "sim",
    base: Annotated[str, typer.Option(help="Policy spec of the base model.")] = (
        "learned:checkpoints/base"
    ),
    trained: Annotated[str, typer.Option(help="Policy spec of the trained model.")] = (
        "learned:checkpoints/trained"
    ),
    suite: Annotated[
        str, typer.Option(help=f"Suite: {', '.join(shipped('suites'))}, or a .json path.")
    ] = "paired",
    repeats: Annotated[int, typer.Option(help="Episodes per (task, policy, world).")] = 1,
    out: Annotated[Path, typer.Option(help="Run directory.")] = Path("runs/transfer-eval"),
    resume: Annotated[
        Path | None, typer.Option(help="Finish an earlier run, with the settings it began with.")
    ] = None,
    adb_port: Annotated[int, typer.Option(help="The adb server of a real phone.")] = 5037,
    popup_rate: PopupRate = 0.0,
    animation_ms: AnimationMs = 0.0,
    latency_ms: LatencyMs = 0.0,
    font_scale: FontScale = None,
    profile: PhoneProfile = "virtual",
    guard: PairedGuard = "off",
    allow: AllowOption = None,
    ray: RayOption = None,
    ray_hosts: RayHostsOption = None,
    hosts: HostsOption = None,
    token: HostsTokenOption = None,
    infra_streak: InfraStreakOption = 3,
) -> None:
    """Paired base/trained evaluation in two worlds (the simulator and a phone by
    default; either may be a MobileGym build), with a report.

    With --device virtual, the reality-gap options perturb the virtual phone (pop-ups,
    animations, latency, larger text) or make it play another phone (--profile
    redmi_note_12_turbo: HyperOS's screens, a Redmi's packages and ways) to see how much of
    a gain survives them. --guard
    ends episodes of both worlds alike, so pairs stay comparable.
    """
    from pydantic import ValidationError

    from bridge.errors import BridgeError
    from device.virtual.perturb import Perturbations
    from transfer_eval.evaluate import evaluate
    from transfer_eval.paired import PairedConfig

    stop_on_signals()
    source = sim_source(ray, ray_hosts, hosts, token)  # where, not what: resumable with another
    if resume is not None:
        config = _resumed(ctx, resume)
    else:
        try:
            gap = Perturbations(
                popup_rate=popup_rate,
                animation_ms=animation_ms,
                latency_ms=latency_ms,
                font_scale=font_scale,
                profile=profile,
            )
            config = PairedConfig(
                device=device,
                sim=sim,
                base=base,
                trained=trained,
                suite=suite,
                repeats=repeats,
                out=out,
                adb_port=adb_port,
                gap=gap,
                guard=guard,
                allow=allow or [],
            )
        except ValidationError as exc:
            raise usage(option_error(exc)) from exc
    config = _watched(config, source, infra_streak)
    _refuse_a_person(config)
    refuse_a_locked_run(config.out)
    try:
        evaluate(config, console)
    except BridgeError as exc:
        raise fail_with(exc) from exc
    except ValueError as exc:
        raise fail(str(exc)) from exc
    except KeyboardInterrupt:
        interrupted(f"what finished is kept: transfer-eval --resume {config.out}")
        exit_after_interrupt()


def _watched(config: PairedConfig, source: SimSource, infra_streak: int) -> PairedConfig:
    """``config`` with how this run is carried out (not in the manifest: a resumed run
    takes them from the command line), or one line naming the option it refuses."""
    from pydantic import ValidationError

    from transfer_eval.paired import PairedConfig

    try:
        return PairedConfig.model_validate(
            {
                **config.model_dump(),
                "source": source,
                "infra_errors_in_a_row": infra_streak,
            }
        )
    except ValidationError as exc:
        raise usage(option_error(exc)) from exc


def _refuse_a_person(config: PairedConfig) -> None:
    """One line, before any work, for ``human`` as either policy: transfer-eval plays
    simulator and phone cells at the same time, and a person plays one episode at a time."""
    from transfer_eval.jobs import attended

    for option, spec in (("--base", config.base), ("--trained", config.trained)):
        if attended(spec):
            raise usage(
                f"{option} {spec.strip()}: transfer-eval plays simulator and phone episodes at "
                "the same time, and a person plays one at a time; measure a person with "
                "`mgb sim run --policy human` and `mgb device run --policy human` on the suite's "
                "tasks"
            )


_GAP_OPTIONS = ("popup_rate", "animation_ms", "latency_ms", "font_scale", "profile")


def _resumed(ctx: typer.Context, run: Path) -> PairedConfig:
    """The configuration ``run`` began with; an option given now that contradicts it is an
    error (a resumed run must finish the grid it started, or its report would mix two)."""
    from pydantic import ValidationError

    from bridge.errors import BridgeError
    from bridge.trajectory import RunStore
    from transfer_eval.paired import RECORDED, PairedConfig

    try:
        store = RunStore.open(run)
    except BridgeError as exc:
        raise fail(f"cannot resume {run}: {exc}") from exc
    recorded = {**store.manifest.config, "out": run}
    try:
        PairedConfig.model_validate(recorded, context={RECORDED: True})
    except ValidationError as exc:
        raise fail(
            f"cannot resume {run}: it is not a transfer-eval run (its manifest has "
            f"{', '.join(sorted(store.manifest.config)) or 'no settings'}); resume it with "
            "the command that made it, or open it with `mgb replay`"
        ) from exc
    try:
        config = PairedConfig.model_validate(recorded)  # its MobileGym build is still there
    except ValidationError as exc:
        raise fail(f"cannot resume {run}: {option_error(exc)}") from exc
    original = config.model_dump()
    original.update(original.pop("gap"))
    clashes = [
        f"--{name.replace('_', '-')} {ctx.params[name]} (the run has {original[name]})"
        for name in ctx.params
        if name in original
        and name != "out"
        and getattr(ctx.get_parameter_source(name), "name", "") == "COMMANDLINE"
        and ctx.params[name] != original[name]
    ]
    if clashes:
        raise usage(
            f"{run} was started with other settings: {'; '.join(clashes)}. Drop those options "
            "to finish it as it began, or start a new run with --out"
        )
    return config
