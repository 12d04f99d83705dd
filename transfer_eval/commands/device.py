"""``mgb device``: list the phones of an adb server, describe one, run episodes on it.

Every command talks to the adb server at ``--adb-host``/``--adb-port`` (default: the usual
server on 127.0.0.1:5037); the virtual phone's private server is just another port.
``list`` also shows the virtual phones started with ``mgb device virtual start --detach``,
each on its own private adb server.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from transfer_eval.commands.common import (
    GuardedGroup,
    check_policy,
    console,
    fail,
    interrupted,
    option_error,
    refuse_a_locked_run,
    run_progress,
    stop_on_signals,
    usage,
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

if TYPE_CHECKING:
    from device.adb import AdbTarget, AttachedDevice
    from device.virtual.daemon import VirtualRecord

__all__ = ["ListedDevice", "device_app"]

device_app = typer.Typer(
    cls=GuardedGroup,
    help="Real (or virtual) phones over adb: list, describe, run episodes.",
    no_args_is_help=True,
    add_completion=False,
)
device_app.add_typer(virtual_app, name="virtual")


@dataclass(frozen=True)
class ListedDevice:
    """One phone as ``mgb device list`` shows it (a line of its ``--json``)."""

    serial: str
    state: str
    """adb's word for it (``device``, ``offline``, ``unauthorized``, …)."""
    adb_server: str
    """``HOST:PORT`` of the adb server that has it (a virtual phone's private one)."""
    virtual: bool
    """A virtual phone started with ``mgb device virtual start --detach``."""
    model: str = ""
    product: str = ""
    device: str = ""
    pid: int | None = None
    """A virtual phone's process (``mgb device virtual stop`` ends it)."""

    @classmethod
    def of(
        cls, found: AttachedDevice | None, server: str, phone: VirtualRecord | None = None
    ) -> ListedDevice:
        """The row of a device an adb server lists (``found``) and of a detached virtual
        phone (``phone``) that its private server does not (``found`` None)."""
        serial = found.serial if found is not None else phone.serial if phone else ""
        return cls(
            serial=serial,
            state=found.state if found is not None else "not attached",
            adb_server=server,
            virtual=phone is not None,
            model=found.model if found is not None else "",
            product=found.product if found is not None else "",
            device=found.device if found is not None else "",
            pid=phone.pid if phone is not None else None,
        )


def _listed(adb_host: str, adb_port: int) -> tuple[list[ListedDevice], str | None]:
    """The devices of the adb server, then the detached virtual phones it does not have
    (asked of their private servers; the records of phones whose process is gone are
    dropped); and why the adb server could not be asked, if it could not."""
    from device.adb import AdbTarget
    from device.errors import DeviceError
    from device.virtual import daemon

    phones = {record.serial: record for _, record in daemon.running()}
    server = f"{adb_host}:{adb_port}"
    try:
        attached, problem = AdbTarget(host=adb_host, port=adb_port).devices(), None
    except DeviceError as exc:
        attached, problem = [], str(exc)
    rows = []
    for found in attached:
        phone = phones.get(found.serial)
        if phone is not None and phone.adb_port == adb_port:
            del phones[found.serial]  # the phone's private server is the one asked
        else:
            phone = None
        rows.append(ListedDevice.of(found, server, phone))
    for phone in phones.values():
        private = AdbTarget(port=phone.adb_port)
        try:
            on = next((d for d in private.devices() if d.serial == phone.serial), None)
        except DeviceError:
            on = None  # its server is going away with it
        rows.append(ListedDevice.of(on, f"127.0.0.1:{phone.adb_port}", phone))
    return rows, problem


@device_app.command("list")
def list_command(
    adb_host: AdbHost = "127.0.0.1",
    adb_port: AdbPort = 5037,
    as_json: Annotated[
        bool, typer.Option("--json", help="One JSON object per device, for scripts.")
    ] = False,
) -> None:
    """List the devices the adb server knows, in any state, and the virtual phones started
    with `mgb device virtual start --detach`."""
    from rich.table import Table

    rows, problem = _listed(adb_host, adb_port)
    if as_json:
        for row in rows:
            print(json.dumps(asdict(row)))
    elif rows or problem is None:
        table = Table(title=f"adb server {adb_host}:{adb_port}")
        for column in ("serial", "state", "kind", "adb server", "model", "product", "device"):
            table.add_column(column, no_wrap=column in ("serial", "adb server"))
        for d in rows:
            state = d.state if d.state == "device" else f"[yellow]{d.state}[/]"
            kind = f"virtual (pid {d.pid})" if d.virtual else "phone"
            table.add_row(d.serial, state, kind, d.adb_server, d.model, d.product, d.device)
        console.print(table)
    if problem is not None:
        raise fail(problem)
    if not rows and not as_json:
        console.print(
            "no devices: plug a phone in (USB debugging on), `adb connect HOST:PORT`, or "
            "start a virtual phone with `mgb device virtual start --detach`",
            highlight=False,
            soft_wrap=True,
        )


@device_app.command("info")
def info_command(
    serial: Annotated[str, typer.Argument(help="The device's serial (see `mgb device list`).")],
    profile: Annotated[str | None, typer.Option(help="Force a device profile.")] = None,
    adb_host: AdbHost = "127.0.0.1",
    adb_port: AdbPort = 5037,
) -> None:
    """Describe one device: model, Android version, profile, screen, foreground app."""
    import asyncio

    from rich.table import Table

    from device.adb import AdbTarget
    from device.errors import DeviceError
    from transfer_eval.device_run import describe_device

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


@device_app.command("doctor")
def doctor_command(
    serial: Annotated[str, typer.Argument(help="The device's serial (see `mgb device list`).")],
    profile: Annotated[str | None, typer.Option(help="Force a device profile.")] = None,
    adb_host: AdbHost = "127.0.0.1",
    adb_port: AdbPort = 5037,
) -> None:
    """Check that a phone is ready for runs, and say what to do about what is not.

    Injected input, secure settings, content queries, the uiautomator2 server, a screen that
    stays on, no lock-screen credential, the clock and zone, the device profile. `device
    run`, `console` and `transfer-eval` run the same checks before they start.
    """
    import asyncio

    from rich.table import Table

    from device.adb import AdbTarget
    from device.doctor import doctor
    from device.errors import DeviceError

    _check_phone(AdbTarget(host=adb_host, port=adb_port, serial=serial), profile, "SERIAL")
    target = AdbTarget(host=adb_host, port=adb_port, serial=serial)
    with console.status(f"checking {serial}"):
        try:
            report = asyncio.run(doctor(target, profile))
        except DeviceError as exc:
            raise fail(str(exc)) from exc
    table = Table(title=f"{serial}: {report.os}, profile {report.profile}", title_justify="left")
    table.add_column("")
    table.add_column("check")
    table.add_column("found")
    for check in report.checks:
        mark = "[green]ok[/]" if check.ok else "[red]FAILED[/]"
        table.add_row(mark, check.name, check.found)
    console.print(table)
    fixes: dict[str, list[str]] = {}  # one fix may cure several checks (a Xiaomi's switch)
    for check in report.failures():
        fixes.setdefault(check.fix, []).append(check.name)
    for fix, names in fixes.items():
        console.print(f"[red]{', '.join(names)}[/]: {fix}", highlight=False, soft_wrap=True)
    if not report.ok:
        raise typer.Exit(1)
    console.print("ready for runs", highlight=False)


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
    import asyncio

    from pydantic import ValidationError

    from device.adb import AdbTarget
    from device.errors import DeviceError, PhoneNotReady, ProfileError, TaskUnsupported
    from sim.errors import UnknownTask
    from sim.tasks.registry import default_registry
    from transfer_eval.device_run import DeviceRunConfig, check_tasks, run_device
    from transfer_eval.episode_table import closing_line, episodes_table, nothing_measured

    stop_on_signals()
    task = default_registry().ids() if task == ["all"] else task
    try:
        check_tasks(task)  # a typo is one clear line before anything else happens
    except UnknownTask as exc:
        raise typer.BadParameter(str(exc), param_hint="--task") from exc
    try:
        config = DeviceRunConfig.model_validate(  # the options as typed: pydantic checks them
            {
                "target": AdbTarget(host=adb_host, port=adb_port, serial=device),
                "tasks": task,
                "seeds": parse_ints(seeds),
                "langs": lang.split(","),
                "policy": policy,
                "out": out,
                "profile": profile,
                "guard": guard,
                "allow": allow or [],
                "infra_errors_in_a_row": infra_streak,
            }
        )
    except ValidationError as exc:
        raise usage(option_error(exc)) from exc
    refuse_a_locked_run(out)
    _check_phone(config.target, profile)
    check_policy(policy)
    with run_progress(policy, out, config.episode_ids()) as done:
        try:
            records = asyncio.run(run_device(config, on_done=done))
        except KeyboardInterrupt:
            hint = f"what finished is kept in {out}: run the same command again to resume"
            raise interrupted(hint) from None
        except (UnknownTask, TaskUnsupported) as exc:
            raise typer.BadParameter(str(exc), param_hint="--task") from exc
        except PhoneNotReady as exc:
            raise fail(str(exc)) from exc
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
        raise fail(failed)


def _check_phone(target: AdbTarget, profile: str | None, device_hint: str = "--device") -> None:
    """One line and exit 2, before anything is drawn, for a ``--profile`` that does not
    exist or a ``--device`` the adb server does not have (the run checks both again)."""
    from device.errors import DeviceError, ProfileError
    from device.profiles import load_profile

    if profile is not None:
        try:
            load_profile(profile)
        except ProfileError as exc:
            raise typer.BadParameter(str(exc), param_hint="--profile") from exc
    try:
        target.resolve()
    except DeviceError as exc:
        raise typer.BadParameter(str(exc), param_hint=device_hint) from exc
