"""``mgb device virtual``: the virtual phone as an adb device, in the foreground or detached
(the detached phones' records: :mod:`device.virtual.daemon`)."""

from __future__ import annotations

import os
import signal
import sys
import threading
from pathlib import Path
from typing import Annotated

import typer

from transfer_eval.commands.common import GuardedGroup, console, fail, option_error, usage
from transfer_eval.commands.options import (
    AnimationMs,
    FontScale,
    LatencyMs,
    PhoneProfile,
    PopupRate,
)

__all__ = ["virtual_app"]

_START = (sys.executable, "-m", "transfer_eval.commands", "device", "virtual", "start")
"""The command a detached phone runs (this one, in the foreground, in its own session)."""


virtual_app = typer.Typer(
    cls=GuardedGroup,
    help=(
        "The virtual phone: a simulator instance served as an adb device, attached to a "
        "private adb server (never the one on 5037). `start` runs in the foreground until "
        "Ctrl-C; `start --detach` returns and `stop` ends it."
    ),
    no_args_is_help=True,
    add_completion=False,
)


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
    profile: PhoneProfile = "virtual",
    ready: Annotated[
        bool,
        typer.Option(
            help="Start it set up for runs (a Redmi's USB debugging (Security settings) on); "
            "by default it is as from the box, and `mgb device doctor` says what to do."
        ),
    ] = False,
    detach: Annotated[
        bool, typer.Option(help="Run in the background; `mgb device virtual stop` ends it.")
    ] = False,
    record: Annotated[Path | None, typer.Option(hidden=True)] = None,
) -> None:
    """Start the virtual phone and a private adb server, and connect them.

    Runs until Ctrl-C, or with --detach returns and leaves them running until
    `mgb device virtual stop`.

    The reality-gap options (all off by default) make it behave more like a real phone.
    """
    from pydantic import ValidationError

    from device.errors import DeviceError
    from device.host_process import HostProcess
    from device.virtual import daemon as virtual_daemon
    from device.virtual.attach import attach_virtual_phone
    from device.virtual.phone import Perturbations

    try:
        knobs = Perturbations(
            latency_ms=latency_ms,
            popup_rate=popup_rate,
            animation_ms=animation_ms,
            font_scale=font_scale,
            profile=profile,
        )
    except ValidationError as exc:
        raise usage(option_error(exc)) from exc  # before a background phone is started with them

    if detach:
        args = [f"--port={port}", f"--adb-port={adb_port}", f"--seed={seed}",
                f"--latency-ms={latency_ms}", f"--popup-rate={popup_rate}",
                f"--animation-ms={animation_ms}", f"--profile={profile}"]  # fmt: skip
        args += [] if font_scale is None else [f"--font-scale={font_scale}"]
        args += ["--ready"] if ready else []
        with console.status("starting the virtual phone in the background"):
            try:
                started = virtual_daemon.start_detached([*_START, *args])
            except virtual_daemon.DetachError as exc:
                raise fail(str(exc)) from exc
        console.print(
            f"virtual phone [bold]{started.serial}[/] is online on the adb server at "
            f"127.0.0.1:{started.adb_port} (pid {started.pid}, log {started.log})",
            highlight=False,
        )
        command = started.adb_command("shell", "wm", "size")
        console.print(f"  {command}", markup=False, highlight=False, soft_wrap=True)
        console.print("`mgb device list` shows it; `mgb device virtual stop` stops it.")
        return

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    # SIGTERM (and SIGINT even where the shell ignored it) ends the wait and cleans up.
    signal.signal(signal.SIGTERM, interrupt)
    signal.signal(signal.SIGINT, interrupt)
    try:
        with attach_virtual_phone(
            seed=seed, port=port, adb_port=adb_port, perturbations=knobs, ready=ready
        ) as attached:
            if record is not None:
                virtual_daemon.remember(
                    record,
                    virtual_daemon.VirtualRecord(
                        serial=attached.serial, adb_port=attached.adb_port,
                        adb_path=attached.adb.adb_path, pid=os.getpid(),
                        seed=seed, profile=profile, log=str(record.with_suffix(".log")),
                        uid=os.getuid(), process=HostProcess.of(os.getpid()),
                        adb_server=attached.adb.process,
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
    from rich.table import Table

    from device.virtual import daemon as virtual_daemon

    phones = virtual_daemon.running()
    if not phones:
        console.print("no detached virtual phone is running")
        return
    table = Table(title="detached virtual phones")
    for column in ("serial", "plays", "adb port", "pid", "seed", "log"):
        table.add_column(column, no_wrap=column != "log")  # the log's path may fold
    for _, phone in phones:
        table.add_row(
            phone.serial, phone.profile, str(phone.adb_port), str(phone.pid), str(phone.seed),
            phone.log,
        )  # fmt: skip
    console.print(table)


@virtual_app.command("stop")
def virtual_stop_command(
    serial: Annotated[str | None, typer.Argument(help="Which phone (default: every one).")] = None,
) -> None:
    """Stop virtual phones started with --detach (and their private adb servers)."""
    from device.virtual import daemon as virtual_daemon

    try:
        stopped = virtual_daemon.stop(serial)
    except virtual_daemon.DetachError as exc:
        raise fail(str(exc)) from exc
    for phone in stopped:
        console.print(f"stopped {phone.serial} (pid {phone.pid})", highlight=False)
