"""``mgb device``: list the phones of an adb server, describe one, run episodes on it.

Every command talks to the adb server at ``--adb-host``/``--adb-port`` (default: the usual
server on 127.0.0.1:5037); the virtual phone's private server is just another port.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Annotated

import typer
from pydantic import ValidationError
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from bridge.schema import EpisodeRecord
from device.adb import AdbTarget
from device.errors import DeviceError, ProfileError, TaskUnsupported
from sim.tasks.registry import UnknownTask, default_registry
from transfer_eval.cli_common import ProgressLog, console, fail, interrupted, option_error
from transfer_eval.device_run import (
    DeviceRunConfig,
    check_tasks,
    describe_device,
    list_devices,
    run_device,
)
from transfer_eval.episode_table import episodes_table, nothing_measured
from transfer_eval.gap_options import AnimationMs, FontScale, LatencyMs, PopupRate
from transfer_eval.guard_options import AllowOption, GuardOption

__all__ = ["device_app"]

device_app = typer.Typer(
    help="Real (or virtual) phones over adb: list, describe, run episodes.",
    no_args_is_help=True,
    add_completion=False,
)

AdbHost = Annotated[str, typer.Option("--adb-host", help="Host of the adb server.")]
AdbPort = Annotated[int, typer.Option("--adb-port", help="Port of the adb server.")]


@device_app.command("list")
def list_command(adb_host: AdbHost = "127.0.0.1", adb_port: AdbPort = 5037) -> None:
    """List the devices the adb server knows, in any state."""
    try:
        devices = list_devices(AdbTarget(host=adb_host, port=adb_port))
    except DeviceError as exc:
        raise fail(str(exc)) from exc
    table = Table(title=f"adb server {adb_host}:{adb_port}")
    for column in ("serial", "state", "model", "product", "device"):
        table.add_column(column)
    for d in devices:
        state = d.state if d.state == "device" else f"[yellow]{d.state}[/]"
        table.add_row(d.serial, state, d.model, d.product, d.device)
    console.print(table)
    if not devices:
        console.print("no devices: plug a phone in (USB debugging on) or `adb connect HOST:PORT`")


@device_app.command("info")
def info_command(
    serial: Annotated[str, typer.Argument(help="The device's serial (see `mgb device list`).")],
    profile: Annotated[str | None, typer.Option(help="Force a device profile.")] = None,
    adb_host: AdbHost = "127.0.0.1",
    adb_port: AdbPort = 5037,
) -> None:
    """Describe one device: model, Android version, profile, screen, foreground app."""
    target = AdbTarget(host=adb_host, port=adb_port, serial=serial)
    try:
        report = asyncio.run(describe_device(target, profile))
    except DeviceError as exc:
        raise fail(str(exc)) from exc
    props, screen, fg = report.props, report.screen, report.foreground
    table = Table(show_header=False, title=f"device {serial}")
    table.add_row("kind", report.backend.kind)
    table.add_row("model", f"{props.brand} {props.model} ({props.device})")
    table.add_row("android", f"{props.android_version} (sdk {props.sdk})")
    fallback = " [yellow](fallback)[/]" if report.profile.fallback else ""
    table.add_row("profile", f"{report.profile.profile.name}{fallback}: {report.profile.reason}")
    table.add_row(
        "screen",
        f"{screen.width_px}x{screen.height_px} px, {screen.density_dpi} dpi, "
        f"rotation {screen.orientation}",
    )
    table.add_row("foreground", f"{fg.package or '-'} {fg.activity or ''} (app {fg.app or '-'})")
    console.print(table)


def _parse_ints(text: str) -> list[int]:
    try:
        return [int(part) for part in text.split(",") if part.strip()]
    except ValueError as exc:
        raise typer.BadParameter(f"{text!r} is not a comma-separated list of integers") from exc


@device_app.command("run")
def run_command(
    device: Annotated[str, typer.Option("--device", help="Serial of the phone to drive.")],
    task: Annotated[list[str], typer.Option(help="Task id (repeatable); 'all' runs every one.")],
    out: Annotated[Path, typer.Option(help="Run directory (resumed if it exists).")],
    policy: Annotated[str, typer.Option(help="Policy spec.")] = "scripted",
    seeds: Annotated[str, typer.Option(help="Comma-separated seeds.")] = "0",
    lang: Annotated[str, typer.Option(help="Comma-separated languages (en, zh).")] = "en",
    profile: Annotated[str | None, typer.Option(help="Force a device profile.")] = None,
    guard: GuardOption = "off",
    allow: AllowOption = None,
    adb_host: AdbHost = "127.0.0.1",
    adb_port: AdbPort = 5037,
) -> None:
    """Run episodes on a phone and write a trajectory with frames, trees and verdicts.

    With --guard, an episode that leaves its task's apps (or, with `all`, touches something
    marked sending, calling, paying, deleting or installing) ends there with the reason.
    """
    task = default_registry().ids() if task == ["all"] else task
    try:
        check_tasks(task)  # a typo is one clear line before anything else happens
    except UnknownTask as exc:
        raise typer.BadParameter(str(exc), param_hint="--task") from exc
    try:
        config = DeviceRunConfig(
            target=AdbTarget(host=adb_host, port=adb_port, serial=device),
            tasks=task,
            seeds=_parse_ints(seeds),
            langs=lang.split(","),
            policy=policy,
            out=out,
            profile=profile,
            guard=guard,
            allow=allow or [],
        )
    except ValidationError as exc:
        raise fail(option_error(exc)) from exc
    total = len(task) * len(config.seeds) * len(config.langs)
    columns = (TextColumn("episodes"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console) as progress:
        bar = progress.add_task("run", total=total)
        log = ProgressLog(out / "progress.log", "episodes")
        finished: list[EpisodeRecord] = []

        def done(record: EpisodeRecord) -> None:
            finished.append(record)
            progress.advance(bar)
            wins = sum(r.outcome == "success" for r in finished)
            log.line(f"{len(finished)}/{total} · {wins} succeeded · {record.episode_id} "
                     f"{record.outcome}")  # fmt: skip

        try:
            records = asyncio.run(run_device(config, on_done=done))
        except KeyboardInterrupt:
            hint = f"what finished is kept in {out}: run the same command again to resume"
            raise interrupted(hint) from None
        except (UnknownTask, TaskUnsupported) as exc:
            raise typer.BadParameter(str(exc), param_hint="--task") from exc
        except ProfileError as exc:
            raise typer.BadParameter(str(exc), param_hint="--profile") from exc
        except DeviceError as exc:
            raise typer.BadParameter(str(exc), param_hint="--device") from exc
        except ValueError as exc:
            raise typer.BadParameter(str(exc), param_hint="--policy") from exc
    console.print(episodes_table(records))
    console.print(f"trajectory: [bold]{(out / 'index.html').resolve()}[/]")
    failed = nothing_measured(records)
    if failed is not None:
        console.print(f"[red]error:[/] {failed}", highlight=False)
        raise typer.Exit(code=1)


# ---- mgb device virtual: the virtual phone as an adb device

virtual_app = typer.Typer(
    help=(
        "The virtual phone: a simulator instance served as an adb device, attached to a "
        "private adb server (never the one on 5037). `start` runs in the foreground until "
        "Ctrl-C; `start --detach` returns and `stop` ends it."
    ),
    no_args_is_help=True,
    add_completion=False,
)
device_app.add_typer(virtual_app, name="virtual")


@virtual_app.command("start")
def virtual_start_command(
    port: Annotated[int, typer.Option(help="The phone's adbd port (0: a free one).")] = 0,
    adb_port: Annotated[
        int, typer.Option("--adb-port", help="The private adb server's port (0: a free one).")
    ] = 0,
    seed: Annotated[int, typer.Option(help="Seed of the simulated phone.")] = 0,
    latency_ms: LatencyMs = 0.0,
    popup_rate: PopupRate = 0.0,
    animation_ms: AnimationMs = 0.0,
    font_scale: FontScale = None,
    detach: Annotated[
        bool, typer.Option(help="Run in the background; `mgb device virtual stop` ends it.")
    ] = False,
    record: Annotated[Path | None, typer.Option(hidden=True)] = None,
) -> None:
    """Start the virtual phone and a private adb server, connect them, wait for Ctrl-C
    (or, with --detach, return and leave them running until `mgb device virtual stop`).

    The reality-gap options (all off by default) make it behave more like a real phone.
    """
    import signal
    import threading

    from device.virtual.attach import attach_virtual_phone
    from device.virtual.phone import Perturbations
    from transfer_eval import virtual_daemon

    if detach:
        args = [f"--port={port}", f"--adb-port={adb_port}", f"--seed={seed}",
                f"--latency-ms={latency_ms}", f"--popup-rate={popup_rate}",
                f"--animation-ms={animation_ms}"]  # fmt: skip
        args += [] if font_scale is None else [f"--font-scale={font_scale}"]
        with console.status("starting the virtual phone in the background"):
            try:
                started = virtual_daemon.start_detached(args)
            except virtual_daemon.DetachError as exc:
                raise fail(str(exc)) from exc
        console.print(
            f"virtual phone [bold]{started.serial}[/] is online on the adb server at "
            f"127.0.0.1:{started.adb_port} (pid {started.pid}, log {started.log})",
            highlight=False,
        )
        command = started.adb_command("shell", "wm", "size")
        console.print(f"  {command}", markup=False, highlight=False, soft_wrap=True)
        console.print("`mgb device virtual stop` stops it.")
        return

    knobs = Perturbations(
        latency_ms=latency_ms,
        popup_rate=popup_rate,
        animation_ms=animation_ms,
        font_scale=font_scale,
    )

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    # SIGTERM (and SIGINT even where the shell ignored it) ends the wait and cleans up.
    signal.signal(signal.SIGTERM, interrupt)
    signal.signal(signal.SIGINT, interrupt)
    try:
        with attach_virtual_phone(
            seed=seed, port=port, adb_port=adb_port, perturbations=knobs
        ) as attached:
            if record is not None:
                virtual_daemon.remember(
                    record,
                    virtual_daemon.VirtualRecord(
                        serial=attached.serial, adb_port=attached.adb_port,
                        adb_path=attached.adb.adb_path, pid=os.getpid(),
                        seed=seed, log=str(record.with_suffix(".log")),
                    ),
                )  # fmt: skip
            console.print(
                f"virtual phone [bold]{attached.serial}[/] is online on the adb "
                f"server at 127.0.0.1:{attached.adb_port}",
                highlight=False,
            )
            console.print("try:", highlight=False)
            console.print(
                f"  {attached.adb_command('shell', 'wm', 'size')}",
                highlight=False,
                markup=False,
                soft_wrap=True,
            )
            console.print(
                f"  adbutils: AdbClient(host='127.0.0.1', port={attached.adb_port})"
                f".device('{attached.serial}')",
                highlight=False,
                markup=False,
            )
            console.print("Ctrl-C stops the phone and the adb server.")
            threading.Event().wait()
    except KeyboardInterrupt:
        console.print("stopped")
    except DeviceError as exc:
        raise fail(str(exc)) from exc
    finally:
        if record is not None:
            virtual_daemon.forget(record)


@virtual_app.command("list")
def virtual_list_command() -> None:
    """The virtual phones started with --detach that are running."""
    from transfer_eval import virtual_daemon

    phones = virtual_daemon.running()
    if not phones:
        console.print("no detached virtual phone is running")
        return
    table = Table(title="detached virtual phones")
    for column in ("serial", "adb port", "pid", "seed", "log"):
        table.add_column(column)
    for _, phone in phones:
        table.add_row(phone.serial, str(phone.adb_port), str(phone.pid), str(phone.seed), phone.log)
    console.print(table)


@virtual_app.command("stop")
def virtual_stop_command(
    serial: Annotated[str | None, typer.Argument(help="Which phone (default: every one).")] = None,
) -> None:
    """Stop virtual phones started with --detach (and their private adb servers)."""
    from transfer_eval import virtual_daemon

    try:
        stopped = virtual_daemon.stop(serial)
    except virtual_daemon.DetachError as exc:
        raise fail(str(exc)) from exc
    for phone in stopped:
        console.print(f"stopped {phone.serial} (pid {phone.pid})", highlight=False)
