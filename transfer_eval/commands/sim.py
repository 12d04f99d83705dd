"""``mgb sim``: serve the simulator, list its tasks, run episodes, benchmark it, and shoot
and check the gallery of its apps' screens."""

from __future__ import annotations

import json
import secrets
import socket
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from transfer_eval.commands.common import (
    GuardedGroup,
    ProgressLog,
    check_policy,
    console,
    fail,
    interrupted,
    one_at_a_time,
    option_error,
    refuse_a_locked_run,
    run_progress,
    stop_on_signals,
    usage,
)
from transfer_eval.commands.options import (
    HostsOption,
    HostsTokenOption,
    InfraStreakOption,
    RayHostsOption,
    RayOption,
    SkinOption,
    parse_ints,
    sim_source,
)

if TYPE_CHECKING:
    from rich.table import Table

    from sim.gallery import GalleryReport
    from sim.simulator import SimConfig

__all__ = ["sim_app"]


sim_app = typer.Typer(
    cls=GuardedGroup,
    help="The simulator: serve it, list tasks, run episodes, benchmark, check its apps' gallery.",
    no_args_is_help=True,
    add_completion=False,
)


async def _serve(config: SimConfig) -> None:
    import asyncio

    from sim.simulator import Simulator

    async with Simulator(config) as sim:
        demo = sim.create_instance(seed=0)
        console.print(f"simulator on [bold]{sim.base_url}[/]")
        console.print(f"  play an instance in a browser: {sim.base_url}/play/{demo.id}")
        console.print(f"  env API docs:                  {sim.base_url}/docs (and /redoc)")
        if config.token:
            console.print(f"  token for non-loopback clients: [bold]{config.token}[/]")
        console.print("Ctrl-C stops it.")
        await asyncio.Event().wait()


@sim_app.command("serve")
def serve_command(
    host: Annotated[str, typer.Option(help="Address to bind; not loopback needs a token.")] = (
        "127.0.0.1"
    ),
    port: Annotated[int, typer.Option(help="Port (0 picks a free one).")] = 8765,
    pages: Annotated[int, typer.Option(help="Chromium pages rendering instances.")] = 2,
    token: Annotated[
        str | None, typer.Option(help="Token for non-loopback clients (16+ characters).")
    ] = None,
    max_envs: Annotated[int, typer.Option(help="Envs the env API holds at once.")] = 1024,
    idle_expiry: Annotated[
        float, typer.Option(help="Seconds an unused env lives (0: forever).")
    ] = 3600.0,
    allow_host: Annotated[
        list[str] | None,
        typer.Option(help="Another name this server may be called by (repeatable)."),
    ] = None,
) -> None:
    """Serve the apps, the interactive player and the HTTP env API."""
    import asyncio

    config = _serve_config(host, port, pages, token, max_envs, idle_expiry, allow_host or [])
    _check_listenable(host, port)
    try:
        asyncio.run(_serve(config))
    except KeyboardInterrupt:
        console.print("stopped")


def _check_listenable(host: str, port: int) -> None:
    """Fail in one line, before Chromium starts, when ``host:port`` cannot be listened on
    (not this machine's address, a port in use, a privileged port)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:  # the address: not this machine's, in use, not permitted
            shown = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
            raise fail(
                f"--host/--port: cannot listen on {shown} ({exc.strerror or exc}); give an "
                "address of this machine (127.0.0.1 by default) and a free port (--port 0 "
                "picks one)",
                2,
            ) from None


def _serve_config(
    host: str,
    port: int,
    pages: int,
    token: str | None,
    max_envs: int,
    idle_expiry: float,
    allow_host: list[str],
) -> SimConfig:
    """The serve options as a config, or one line naming the bad option (exit 2)."""
    from pydantic import ValidationError

    from sim.server import is_loopback
    from sim.simulator import SimConfig

    if token is not None and len(token) < 16:
        raise usage(
            f"--token: {len(token)} characters is too short to guard a server; give at "
            "least 16 (or leave --token out and one is generated)",
        )
    if not is_loopback(host) and token is None:
        token = secrets.token_urlsafe(24)
    try:
        return SimConfig(
            host=host,
            port=port,
            pages=pages,
            token=token,
            max_envs=max_envs,
            idle_expiry_s=idle_expiry or None,
            allowed_hosts=tuple(allow_host),
        )
    except ValidationError as exc:
        options = {"idle_expiry_s": "--idle-expiry", "allowed_hosts": "--allow-host"}
        raise usage(option_error(exc, options)) from None


@sim_app.command("tasks")
def tasks_command(
    app: Annotated[str | None, typer.Option(help="Only tasks of this app.")] = None,
    level: Annotated[str | None, typer.Option(help="Only this level (L1-L4).")] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="One JSON object per template, for scripts.")
    ] = False,
) -> None:
    """List the task templates."""
    if not as_json:  # at once: loading the templates takes a moment
        console.print("simulator tasks", highlight=False)
    from rich.table import Table

    from sim.tasks.registry import default_registry

    registry = default_registry()
    templates = sorted(registry, key=lambda t: (t.apps, t.level, t.id))
    levels = sorted({t.level for t in templates})
    apps = sorted({a for t in templates for a in t.apps})
    if level is not None and level not in levels:
        raise usage(f"--level {level!r}: no template has it; levels are {', '.join(levels)}")
    if app is not None and app not in apps:
        raise usage(f"--app {app!r}: no template uses it; apps are {', '.join(apps)}")
    rows: list[dict[str, Any]] = []
    for template in templates:
        if (app and app not in template.apps) or (level and template.level != level):
            continue
        task = registry.instantiate(template.id, 0, "en")
        rows.append(
            {
                "id": template.id,
                "apps": list(template.apps),
                "level": template.level,
                "kind": template.kind,
                "max_steps": template.budget(),
                "instruction": task.instruction,
            }
        )
    if as_json:
        for row in rows:
            print(json.dumps(row, ensure_ascii=False))
        return
    table = Table()
    fixed = {
        "id": max((len(row["id"]) for row in rows), default=2),  # whole, to copy into --task
        "app": max((len(",".join(row["apps"])) for row in rows), default=3),
        "level": 5,
        "kind": 7,
        "steps": 5,
    }
    for column, width in fixed.items():
        table.add_column(column, no_wrap=True, min_width=width)
    room = console.width - sum(fixed.values()) - 3 * (len(fixed) + 1) - 1
    if room >= 10:  # the instruction only where it fits (--json has everything)
        table.add_column("instruction (en)", no_wrap=True, overflow="ellipsis", max_width=room)
    for row in rows:
        cells = [row["id"], ",".join(row["apps"]), row["level"], row["kind"],
                 str(row["max_steps"]), row["instruction"]]  # fmt: skip
        table.add_row(*cells[: len(table.columns)])
    console.print(table)
    console.print(f"{len(rows)} of {len(registry)} templates")


@sim_app.command("run")
def run_command(
    task: Annotated[list[str], typer.Option(help="Task id (repeatable); 'all' runs every one.")],
    out: Annotated[Path, typer.Option(help="Run directory (resumed if it exists).")],
    policy: Annotated[str, typer.Option(help="Policy spec.")] = "scripted",
    seeds: Annotated[str, typer.Option(help="Comma-separated seeds.")] = "0",
    lang: Annotated[str, typer.Option(help="Comma-separated languages (en, zh).")] = "en",
    answer_mode: Annotated[str, typer.Option(help="'action' or 'sheet'.")] = "action",
    skin: SkinOption = "aosp",
    concurrency: Annotated[int, typer.Option(help="Episodes at once.")] = 2,
    ray: RayOption = None,
    ray_hosts: RayHostsOption = None,
    hosts: HostsOption = None,
    token: HostsTokenOption = None,
    infra_streak: InfraStreakOption = 3,
) -> None:
    """Run episodes in the simulator and write a trajectory with frames, trees and a page."""
    import asyncio

    from pydantic import ValidationError

    from policies.errors import PolicySpecError
    from sim.errors import UnknownTask
    from sim.tasks.registry import default_registry
    from transfer_eval.episode_table import closing_line, episodes_table, nothing_measured
    from transfer_eval.sim_run import SimRunConfig, run_sim

    stop_on_signals()
    registry = default_registry()
    ids = registry.ids() if task == ["all"] else task
    try:
        for task_id in ids:
            registry.get(task_id)
    except UnknownTask as exc:
        raise typer.BadParameter(str(exc), param_hint="--task") from exc
    try:
        config = SimRunConfig.model_validate(  # the options as typed: pydantic checks them
            {
                "tasks": ids,
                "seeds": parse_ints(seeds),
                "langs": lang.split(","),
                "policy": policy,
                "out": out,
                "answer_mode": answer_mode,
                "skin": skin,
                "concurrency": one_at_a_time(policy, concurrency),
                "source": sim_source(ray, ray_hosts, hosts, token),
                "infra_errors_in_a_row": infra_streak,
            }
        )
    except ValidationError as exc:
        raise usage(option_error(exc)) from exc
    refuse_a_locked_run(out)
    check_policy(policy)
    if not config.source.local:
        console.print(config.source.describe())
    with run_progress(policy, out, config.episode_ids()) as done:
        try:
            records = asyncio.run(run_sim(config, on_done=done))
        except KeyboardInterrupt:
            hint = f"what finished is kept in {out}: run the same command again to resume"
            raise interrupted(hint) from None
        except PolicySpecError as exc:  # checked above; an endpoint can go down since
            raise typer.BadParameter(str(exc), param_hint="--policy") from exc
    console.print(episodes_table(records))
    console.print(f"trajectory: [bold]{(out / 'index.html').resolve()}[/]")
    console.print(closing_line(records), highlight=False)
    failed = nothing_measured(records)
    if failed is not None:
        raise fail(failed)


@sim_app.command("bench")
def bench_command(
    quick: Annotated[bool, typer.Option(help="Small counts (a smoke run).")] = False,
) -> None:
    """Benchmark the simulator; prints one JSON object (see benchmarks/sim_bench.py).

    Each stage is announced on the terminal, and as a timestamped line on stderr when
    stdout is not one (the JSON stays alone on stdout).
    """
    from sim.bench import run_bench

    log = ProgressLog(None, "bench")
    with console.status("benchmarking the simulator") as status:

        def stage(name: str) -> None:
            status.update(f"benchmarking the simulator: {name}")
            log.line(name)

        try:
            result = run_bench(quick=quick, on_stage=stage)
        except KeyboardInterrupt:
            raise interrupted("nothing was measured; run it again to start over") from None
    print(json.dumps(result, indent=2))


def _gallery_table(report: GalleryReport) -> Table:
    """One row per screen: its app and name, and per language ✓ or its problem count."""
    from rich.table import Table

    table = Table(title="gallery")
    table.add_column("app", no_wrap=True)
    table.add_column("screen", no_wrap=True)
    for lang in report.langs:
        table.add_column(lang, justify="center")
    for section in report.sections:
        for screen in section.screens:
            cells = [f"[red]{len(s.problems)}[/]" if s.problems else "✓" for s in screen.shots]
            table.add_row(section.app, screen.name, *cells)
    return table


@sim_app.command("gallery")
def gallery_command(
    out: Annotated[Path, typer.Option(help="Folder for the page (index.html) and screens/.")],
    lang: Annotated[str, typer.Option(help="Comma-separated languages (en, zh).")] = "en,zh",
    app: Annotated[
        list[str] | None,
        typer.Option(help="Only this app (repeatable); 'system' is the system UI."),
    ] = None,
    pages: Annotated[int, typer.Option(min=1, max=16, help="Chromium pages at once.")] = 2,
    skin: Annotated[
        str, typer.Option(help="Comma-separated skins (aosp, hyperos); default every skin.")
    ] = "",
) -> None:
    """Render every app's main screens in each language and skin, check them (string keys and
    untranslated English, text overflow, missing CJK glyphs) and write a gallery page.

    Exits 1, listing the problems, when any check failed.
    """
    import asyncio

    from sim.gallery import LOCALES, SYSTEM, run_gallery
    from sim.simulator import installed_apps
    from sim.skins import SKINS

    langs = [part.strip() for part in lang.split(",") if part.strip()]
    unknown = [part for part in langs if part not in LOCALES]
    if not langs or unknown:
        raise usage(f"--lang {lang!r}: languages are {', '.join(LOCALES)}")
    skins = [part.strip() for part in skin.split(",") if part.strip()] or list(SKINS)
    unknown = [part for part in skins if part not in SKINS]
    if unknown:
        raise usage(f"--skin {skin!r}: skins are {', '.join(SKINS)}")
    known = [a.id for a in installed_apps()] + [SYSTEM]
    for name in app or []:
        if name not in known:
            raise usage(f"--app {name!r}: not installed; apps are {', '.join(known)}")
    log = ProgressLog(None, "gallery")
    shots = 0
    with console.status("rendering the gallery") as status:

        def shot(name: str) -> None:
            nonlocal shots
            shots += 1
            status.update(f"rendering the gallery: {shots} shots, last {name}")
            log.line(f"{shots} {name}")

        try:
            made = run_gallery(out, langs, app or None, pages, on_shot=shot, skins=skins)
            report = asyncio.run(made)
        except KeyboardInterrupt:
            raise interrupted("no page was written; run the command again") from None
    console.print(_gallery_table(report))
    console.print(f"gallery: [bold]{(out / 'index.html').resolve()}[/]")
    problems = list(report.problems())
    if problems:
        for section, screen, shot_lang, problem in problems:
            console.print(
                f"[red]{section}/{screen}/{shot_lang}[/] {problem.check}: {problem.message}",
                highlight=False,
                soft_wrap=True,
            )
        raise fail(f"{len(problems)} problem(s) on {report.shot_count} screenshots")
    console.print(f"{report.shot_count} screenshots, every check passed")
