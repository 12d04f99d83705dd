"""``mgb console``: start the live debugging console and print its URL (the composition root
is :mod:`transfer_eval.console.launch`; this module parses options and reports)."""

from __future__ import annotations

import logging
import signal
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from transfer_eval.commands.common import console, fail, option_error, usage

if TYPE_CHECKING:
    from transfer_eval.console.launch import ConsoleConfig, RunningConsole

__all__ = ["console_command"]


async def _serve(config: ConsoleConfig) -> Path:
    """Serve until Ctrl-C or SIGTERM (handled here, whatever the shell left them set to:
    a background job ignores SIGINT), then shut down in order."""
    import asyncio

    from transfer_eval.console.launch import open_console

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    try:
        async with open_console(config) as running:
            _announce(running)
            stopping = asyncio.create_task(stop.wait())
            await asyncio.wait([running.serving, stopping], return_when=asyncio.FIRST_COMPLETED)
            stopping.cancel()
            console.print("stopping: the episode in progress is kept …")
            return running.run_dir
    finally:
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(signum)


def _announce(running: RunningConsole) -> None:
    session = running.session
    console.print(f"console on [bold]{running.url}[/]", highlight=False)
    world = session.frozen.backend if session.frozen else None
    if world is not None:
        console.print(f"  world: {world.kind} {world.model or ''} {world.serial or ''}".rstrip())
    console.print(f"  task: {session.task.task_id} · policy: {session.policy_name or 'none'}")
    if session.human:
        console.print("  you are the policy: decide every step on the page (recorded as human)")
    console.print(f"  recording to {running.run_dir}", highlight=False)
    if session.attended:
        console.print("  a real phone: step mode; the guard asks before consequential actions")
    console.print("Ctrl-C stops it (the episode in progress is kept).")


def console_command(
    device: Annotated[
        str,
        typer.Option(
            help="'sim', 'virtual', a MobileGym build (mobilegym:PATH, mobilegym:URL), or the "
            "serial of an adb device."
        ),
    ] = "virtual",
    policy: Annotated[
        str | None,
        typer.Option(
            help="Policy spec (scripted, learned:..., vlm:...); human: you decide every step "
            "on the page, recorded as the policy human; none: you drive."
        ),
    ] = None,
    task: Annotated[str | None, typer.Option(help="Task id, e.g. settings/SetWifi-v1.")] = None,
    seed: Annotated[int, typer.Option(help="Task seed.")] = 0,
    lang: Annotated[str, typer.Option(help="Task language: en or zh.")] = "en",
    instruction: Annotated[
        str | None, typer.Option(help="Instruction to give the policy instead of the task's.")
    ] = None,
    out: Annotated[
        Path | None, typer.Option(help="Run directory (a console run is added to).")
    ] = None,
    host: Annotated[str, typer.Option(help="Address to bind; not loopback needs a token.")] = (
        "127.0.0.1"
    ),
    port: Annotated[int, typer.Option(help="Port (0 picks a free one).")] = 8770,
    token: Annotated[str | None, typer.Option(help="Token for non-loopback clients.")] = None,
    guard: Annotated[
        str,
        typer.Option(
            help="auto (on a real phone: all), off, apps (stay in the task's apps), all (and "
            "ask before sending, calling, paying, deleting, installing)."
        ),
    ] = "auto",
    allow: Annotated[
        list[str] | None, typer.Option(help="More app ids or packages the guard allows.")
    ] = None,
    profile: Annotated[
        str | None,
        typer.Option(
            help="Force a device profile; with --device virtual, the phone it plays "
            "(redmi_note_12_turbo: the virtual Redmi)."
        ),
    ] = None,
    adb_host: Annotated[str, typer.Option(help="adb server host (real phones).")] = "127.0.0.1",
    adb_port: Annotated[int, typer.Option(help="adb server port (real phones).")] = 5037,
) -> None:
    """Watch a policy act step by step, approve, override, record (a web page)."""
    import asyncio

    from pydantic import ValidationError

    from bridge.errors import BridgeError
    from device.errors import DeviceError
    from policies.errors import PolicySpecError
    from sim.errors import UnknownTask
    from transfer_eval.console.launch import ConsoleConfig, check_config
    from transfer_eval.errors import ConsoleSetupError

    try:
        config = ConsoleConfig.model_validate(  # the options as typed: pydantic checks them
            {"device": device, "policy": policy, "task": task, "seed": seed, "lang": lang,
             "instruction": instruction, "out": out, "host": host, "port": port,
             "token": token, "guard": guard, "allow": allow or [], "profile": profile,
             "adb_host": adb_host, "adb_port": adb_port}
        )  # fmt: skip
    except ValidationError as exc:
        raise usage(option_error(exc)) from exc
    config = config.model_copy(update={"out": config.run_dir()})
    try:
        check_config(config)
    except UnknownTask as exc:
        raise usage(f"--task: {exc}") from exc
    except PolicySpecError as exc:
        raise usage(f"--policy: {exc}") from exc
    except ConsoleSetupError as exc:
        raise fail(str(exc)) from exc
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        run_dir = asyncio.run(_serve(config))
    except KeyboardInterrupt:
        console.print(f"stopped; the run is in {config.out}", highlight=False)
        console.print(f"open it with: mgb replay {config.out}", highlight=False)
        return
    except ConsoleSetupError as exc:
        raise fail(str(exc)) from exc
    except DeviceError as exc:
        raise fail(f"--device {device}: {exc}") from exc
    except BridgeError as exc:
        raise fail(str(exc)) from exc
    console.print(f"stopped; the run is in {run_dir}", highlight=False)
    console.print(f"open it with: mgb replay {run_dir}", highlight=False)
