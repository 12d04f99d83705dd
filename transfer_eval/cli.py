"""Command lines: ``mgb`` (the toolkit) and ``transfer-eval`` (paired sim/real evaluation).

Thin by design: parse options, call a library function, render what it returns.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated

import typer
from pydantic import ValidationError
from rich.progress import Progress
from rich.table import Table

from bridge.errors import BridgeError
from bridge.jsonschema import write_json_schemas
from bridge.uitree import parse_hierarchy
from transfer_eval.cli_common import (
    GuardedCommand,
    GuardedGroup,
    console,
    fail,
    interrupted,
    option_error,
)
from transfer_eval.console_cli import console_command
from transfer_eval.demo import DemoReport, run_dump_demo
from transfer_eval.device_cli import device_app
from transfer_eval.dump_view import render_wireframes, wireframe_html
from transfer_eval.gap_options import AnimationMs, FontScale, LatencyMs, PopupRate
from transfer_eval.guard_options import AllowOption, GuardMode
from transfer_eval.paired import PairedConfig, VirtualGap
from transfer_eval.replay_cli import replay_command
from transfer_eval.sim_cli import sim_app
from transfer_eval.suites import suite_names
from transfer_eval.train_cli import train_command

__all__ = ["mgb_app", "transfer_eval_app"]

mgb_app = typer.Typer(
    cls=GuardedGroup,
    name="mgb",
    help="mobilegym-bridge: one mobile GUI agent, in the simulator and on a real phone.",
    no_args_is_help=True,
    add_completion=False,
)
mgb_app.add_typer(sim_app, name="sim")
mgb_app.add_typer(device_app, name="device")
mgb_app.command("train")(train_command)  # one command: its help shows no COMMAND
mgb_app.command("replay")(replay_command)
mgb_app.command("console")(console_command)
transfer_eval_app = typer.Typer(
    name="transfer-eval",
    help="Measure how much of a simulator gain carries over to a real phone.",
    add_completion=False,
)


@mgb_app.command("schema")
def schema_command(
    out: Annotated[Path, typer.Option(help="Directory for the .schema.json files.")] = Path(
        "docs/schema"
    ),
) -> None:
    """Write the JSON Schema of the contract (actions, observations, records) to OUT."""
    for path in write_json_schemas(out):
        console.print(f"wrote {path}")


@mgb_app.command("inspect")
def inspect_command(
    dump: Annotated[Path, typer.Argument(help="A uiautomator hierarchy XML file.")],
    xpath: Annotated[list[str], typer.Option(help="XPath query to run (repeatable).")] = [],  # noqa: B006
    at: Annotated[str | None, typer.Option(help="Hit-test a device pixel, e.g. 540,1200.")] = None,
    png: Annotated[Path | None, typer.Option(help="Write a set-of-marks wireframe PNG.")] = None,
) -> None:
    """Parse a UI dump and show the compact tree a text-only policy would be given."""
    try:
        tree = parse_hierarchy(dump.read_bytes())
    except (OSError, BridgeError) as exc:
        raise fail(str(exc)) from exc
    console.print(tree.render_text(), markup=False, highlight=False)
    console.print(
        f"[dim]{len(tree.nodes)} nodes, {len(tree.roots())} window(s), rotation {tree.rotation}[/]"
    )
    for query in xpath:
        try:
            hits = tree.xpath(query)
        except BridgeError as exc:
            raise fail(f"--xpath: {exc}") from exc
        console.print(f"xpath {query!r}: {[node.id for node in hits]}", markup=False)
    if at is not None:
        x, comma, y = at.partition(",")
        try:
            point = (float(x), float(y)) if comma else None
        except ValueError:
            point = None
        if point is None:
            raise fail(f"--at {at!r}: give a device pixel as X,Y, e.g. 540,1200")
        hit = tree.hit_test(*point)
        console.print(f"hit {at}: {hit.id if hit else None} {hit.class_name if hit else ''}")
    if png is not None:
        asyncio.run(render_wireframes([(wireframe_html(tree.nodes, dump.name), png)]))
        console.print(f"wrote {png}")


def _demo_table(report: DemoReport) -> Table:
    table = Table(title="real UI dumps parsed")
    table.add_column("dump", no_wrap=True, overflow="ellipsis", max_width=28)
    for column in ("nodes", "win", "act.", "rot", "ms", "round trip"):
        table.add_column(column, justify="right", no_wrap=True, min_width=len(column))
    for d in report.dumps:
        table.add_row(
            d.name,
            str(d.nodes),
            str(d.windows),
            str(d.actionable),
            str(d.rotation),
            f"{d.parse_ms:.1f}",
            "ok" if d.round_trip_ok else "[red]LOST[/]",
        )
    return table


def _gallery(dumps: Path, out: Path) -> DemoReport:
    with Progress(console=console, transient=True) as progress:
        task = progress.add_task("parsing dumps", total=len(list(dumps.glob("*.xml"))))
        try:
            report = asyncio.run(
                run_dump_demo(dumps, out, on_parsed=lambda _: progress.advance(task))
            )
        except (FileNotFoundError, BridgeError) as exc:
            raise fail(str(exc)) from exc
    console.print(_demo_table(report))
    if not report.cjk_renders:
        console.print(
            "[yellow]warning:[/] Chinese text renders as empty boxes: install a CJK "
            "font (Debian: apt-get install fonts-noto-cjk)"
        )
    if not all(d.round_trip_ok for d in report.dumps):
        raise fail("a dump did not survive XML -> nodes -> XML -> nodes")
    console.print(f"gallery: [bold]{report.gallery.resolve()}[/] (open it in a browser)")
    return report


_DUMPS = Path("tests/fixtures/real_dumps")


@mgb_app.command("gallery")
def gallery_command(
    dumps: Annotated[Path, typer.Option(help="Directory of uiautomator dumps.")] = _DUMPS,
    out: Annotated[Path, typer.Option(help="Where the gallery is written.")] = Path(
        "demo-out/dumps"
    ),
) -> None:
    """Parse real phones' UI dumps, draw them in Chromium, and write a gallery page."""
    _gallery(dumps, out)


@mgb_app.command("demo")
def demo_command(
    out: Annotated[Path, typer.Option(help="Where the demo writes.")] = Path("demo-out"),
) -> None:
    """transfer-eval --device virtual with its defaults: the whole sim-to-phone loop.

    The shipped base and GRPO-trained checkpoints play the default paired suite in the
    simulator and on the virtual phone behind the real adb server; the report (rates,
    gains, retention with its bootstrap interval, buckets, side-by-side replays) lands in
    OUT/transfer-eval. The run is resumable: running the demo again finishes it.
    """
    from transfer_eval.evaluate import evaluate

    config = PairedConfig(device="virtual", out=out / "transfer-eval")
    console.rule(
        f"transfer-eval --device virtual --base {config.base} --trained {config.trained} "
        f"--suite {config.suite}"
    )
    try:
        evaluate(config, console)
    except (BridgeError, ValueError) as exc:
        raise fail(str(exc)) from exc


PairedGuard = Annotated[
    GuardMode,
    typer.Option(
        help="End an episode that leaves its task's apps (apps), or that also touches "
        "something marked sending/calling/paying/deleting/installing (all). Applied to the "
        "simulator's cells and the phone's alike, so the comparison stays fair.",
    ),
]


@transfer_eval_app.command(cls=GuardedCommand)
def transfer_eval_command(
    ctx: typer.Context,
    device: Annotated[str, typer.Option(help="An adb serial, or 'virtual'.")] = "virtual",
    base: Annotated[str, typer.Option(help="Policy spec of the base model.")] = (
        "learned:checkpoints/base"
    ),
    trained: Annotated[str, typer.Option(help="Policy spec of the trained model.")] = (
        "learned:checkpoints/trained"
    ),
    suite: Annotated[
        str, typer.Option(help=f"Suite: {', '.join(suite_names())}, or a .json path.")
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
    guard: PairedGuard = "off",
    allow: AllowOption = None,
) -> None:
    """Paired base/trained evaluation in the simulator and on a phone, with a report.

    With --device virtual, the reality-gap options perturb the virtual phone (pop-ups,
    animations, latency, larger text) to see how much of a gain survives them. --guard
    ends episodes of both worlds alike, so pairs stay comparable.
    """
    from transfer_eval.evaluate import evaluate

    if resume is not None:
        config = _resumed(ctx, resume)
        try:
            evaluate(config, console)
        except (BridgeError, ValueError) as exc:
            raise fail(str(exc)) from exc
        except KeyboardInterrupt:
            raise interrupted(f"what finished is kept: transfer-eval --resume {resume}") from None
        return
    run_dir = out
    try:
        gap = VirtualGap(
            popup_rate=popup_rate,
            animation_ms=animation_ms,
            latency_ms=latency_ms,
            font_scale=font_scale,
        )
        config = PairedConfig(
            device=device,
            base=base,
            trained=trained,
            suite=suite,
            repeats=repeats,
            out=run_dir,
            adb_port=adb_port,
            gap=gap,
            guard=guard,
            allow=allow or [],
        )
    except ValidationError as exc:
        raise fail(option_error(exc)) from exc
    try:
        evaluate(config, console)
    except (BridgeError, ValueError) as exc:
        raise fail(str(exc)) from exc
    except KeyboardInterrupt:
        raise interrupted(f"what finished is kept: transfer-eval --resume {run_dir}") from None


_GAP_OPTIONS = ("popup_rate", "animation_ms", "latency_ms", "font_scale")


def _resumed(ctx: typer.Context, run: Path) -> PairedConfig:
    """The configuration ``run`` began with; an option given now that contradicts it is an
    error (a resumed run must finish the grid it started, or its report would mix two)."""
    from bridge.trajectory import RunStore

    try:
        store = RunStore.open(run)
    except BridgeError as exc:
        raise fail(f"cannot resume {run}: {exc}") from exc
    try:
        config = PairedConfig.model_validate({**store.manifest.config, "out": run})
    except ValidationError as exc:
        raise fail(
            f"cannot resume {run}: it is not a transfer-eval run (its manifest has "
            f"{', '.join(sorted(store.manifest.config)) or 'no settings'}); resume it with "
            "the command that made it, or open it with `mgb replay`"
        ) from exc
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
        raise fail(
            f"{run} was started with other settings: {'; '.join(clashes)}. Drop those options "
            "to finish it as it began, or start a new run with --out"
        )
    return config
