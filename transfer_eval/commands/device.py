"""``mgb device``: list the phones of an adb server, describe one, run episodes on it.

Every command talks to the adb server at ``--adb-host``/``--adb-port`` (default: the usual
server on 127.0.0.1:5037); the virtual phone's private server is just another port.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated

import typer
from pydantic import ValidationError
from rich.table import Table

from device.adb import AdbTarget
from device.errors import DeviceError, ProfileError, TaskUnsupported
from sim.tasks.registry import UnknownTask, default_registry
from transfer_eval.commands.common import (
    console,
    fail,
    interrupted,
    option_error,
    refuse_a_locked_run,
    run_progress,
    stop_on_signals,
)
from transfer_eval.commands.options import (
    AdbHost,
    AdbPort,
    AllowOption,
    GuardOption,
    InfraStreakOption,
    parse_ints,
)
from transfer_eval.commands.virtual import virtual_app
from transfer_eval.device_run import (
    DeviceRunConfig,
    check_tasks,
    describe_device,
    list_devices,
    run_device,
)
from transfer_eval.episode_table import closing_line, episodes_table, nothing_measured

__all__ = ["device_app"]

device_app = typer.Typer(
    help="Real (or virtual) phones over adb: list, describe, run episodes.",
    no_args_is_help=True,
    add_completion=False,
)
device_app.add_typer(virtual_app, name="virtual")


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
    infra_streak: InfraStreakOption = 3,
) -> None:
    """Run episodes on a phone and write a trajectory with frames, trees and verdicts.

    With --guard, an episode that leaves its task's apps (or, with `all`, touches something
    marked sending, calling, paying, deleting or installing) ends there with the reason.
    """
    stop_on_signals()
    task = default_registry().ids() if task == ["all"] else task
    try:
        check_tasks(task)  # a typo is one clear line before anything else happens
    except UnknownTask as exc:
        raise typer.BadParameter(str(exc), param_hint="--task") from exc
    try:
        config = DeviceRunConfig(
            target=AdbTarget(host=adb_host, port=adb_port, serial=device),
            tasks=task,
            seeds=parse_ints(seeds),
            langs=lang.split(","),
            policy=policy,
            out=out,
            profile=profile,
            guard=guard,
            allow=allow or [],
            infra_errors_in_a_row=infra_streak,
        )
    except ValidationError as exc:
        raise fail(option_error(exc)) from exc
    refuse_a_locked_run(out)
    with run_progress(policy, out, config.episode_ids()) as done:
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
    console.print(closing_line(records), highlight=False)
    failed = nothing_measured(records)
    if failed is not None:
        console.print(f"[red]error:[/] {failed}", highlight=False)
        raise typer.Exit(code=1)
