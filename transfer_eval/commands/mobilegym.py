"""``mgb mobilegym``: our task templates in a user's MobileGym build — which of them it can
pose (and why not the rest), and running episodes there."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from transfer_eval.commands.common import (
    GuardedGroup,
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
from transfer_eval.commands.options import parse_ints

if TYPE_CHECKING:
    from sim.tasks.base import TaskTemplate

__all__ = ["mobilegym_app"]

mobilegym_app = typer.Typer(
    cls=GuardedGroup,
    help="A MobileGym build as a world: which of our tasks it poses, run episodes there.",
    no_args_is_help=True,
    add_completion=False,
)

_TASK_HELP = "Task id (repeatable); 'all' runs every one MobileGym can pose."
_BUILD_HELP = (
    "The MobileGym build: mobilegym:PATH (a built dist/, served on loopback for the run) or "
    "mobilegym:URL (a served build); default $MOBILEGYM_DIST or $MOBILEGYM_URL."
)


def _build(build: str | None) -> str:
    """The build option, or the environment's; a usage error when there is none or it is
    not a build (said before any work)."""
    from mobilegym.errors import MobileGymSourceError
    from mobilegym.source import parse_source

    chosen = build or os.environ.get("MOBILEGYM_DIST") or os.environ.get("MOBILEGYM_URL")
    if not chosen:
        raise usage(
            "--build: name a MobileGym build (mobilegym:PATH to a built dist/, or "
            "mobilegym:URL), or set MOBILEGYM_DIST"
        )
    try:
        parse_source(chosen)
    except MobileGymSourceError as exc:
        raise usage(f"--build: {exc}") from exc
    return chosen


def _seed0(templates: Iterable[TaskTemplate]) -> list[tuple[str, int, str]]:
    return [(template.id, 0, "en") for template in templates]


@mobilegym_app.command("tasks")
def tasks_command(
    app: Annotated[str | None, typer.Option(help="Only tasks of this app.")] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="One JSON object per template, for scripts.")
    ] = False,
) -> None:
    """List our task templates and whether MobileGym can pose each at seed 0 (and why not)."""
    if not as_json:
        console.print("our task templates in MobileGym", highlight=False)
    from rich.table import Table

    from sim.tasks.registry import default_registry
    from transfer_eval.mobilegym_run import not_poseable

    registry = default_registry()
    templates = sorted(registry, key=lambda t: (t.apps, t.level, t.id))
    apps = sorted({a for t in templates for a in t.apps})
    if app is not None and app not in apps:
        raise usage(f"--app {app!r}: no template uses it; apps are {', '.join(apps)}")
    chosen = [t for t in templates if app is None or app in t.apps]
    refused = {key[0]: why for key, why in not_poseable(registry, _seed0(chosen)).items()}
    rows: list[dict[str, Any]] = [
        {"id": t.id, "apps": list(t.apps), "level": t.level, "poseable": t.id not in refused,
         "why_not": refused.get(t.id)}
        for t in chosen
    ]  # fmt: skip
    if as_json:
        for row in rows:
            print(json.dumps(row, ensure_ascii=False))
        return
    table = Table()
    table.add_column("id", no_wrap=True)
    table.add_column("level", no_wrap=True)
    table.add_column("in MobileGym", no_wrap=True)
    table.add_column("why not", overflow="fold")
    for row in rows:
        table.add_row(row["id"], row["level"], "yes" if row["poseable"] else "no",
                      row["why_not"] or "")  # fmt: skip
    console.print(table)
    poseable = sum(row["poseable"] for row in rows)
    console.print(f"{poseable} of {len(rows)} templates can be posed in MobileGym")


@mobilegym_app.command("run")
def run_command(
    task: Annotated[list[str], typer.Option(help=_TASK_HELP)],
    out: Annotated[Path, typer.Option(help="Run directory (resumed if it exists).")],
    build: Annotated[str | None, typer.Option(help=_BUILD_HELP)] = None,
    policy: Annotated[str, typer.Option(help="Policy spec.")] = "random:1",
    seeds: Annotated[str, typer.Option(help="Comma-separated seeds.")] = "0",
    lang: Annotated[str, typer.Option(help="Comma-separated languages (en, zh).")] = "en",
    concurrency: Annotated[int, typer.Option(help="Episodes at once.")] = 1,
) -> None:
    """Run our task templates in a MobileGym build and write a trajectory with a page."""
    import asyncio

    from pydantic import ValidationError

    from policies.errors import PolicySpecError
    from sim.errors import UnknownTask
    from sim.tasks.registry import default_registry
    from transfer_eval.episode_table import closing_line, episodes_table, nothing_measured
    from transfer_eval.mobilegym_run import MobileGymRunConfig, not_poseable, run_mobilegym

    stop_on_signals()
    chosen_build = _build(build)
    registry = default_registry()
    if task == ["all"]:
        templates = [registry.get(task_id) for task_id in registry.ids()]
        seed0 = not_poseable(registry, _seed0(templates))
        ids = [t.id for t in templates if (t.id, 0, "en") not in seed0]
    else:
        ids = task
        try:
            for task_id in ids:
                registry.get(task_id)
        except UnknownTask as exc:
            raise typer.BadParameter(str(exc), param_hint="--task") from exc
    grid = [(t, s, lang_) for t in ids for s in parse_ints(seeds) for lang_ in lang.split(",")]
    refused = not_poseable(registry, grid)
    if refused:
        (task_id, seed, lang_), reason = next(iter(refused.items()))
        more = f" (and {len(refused) - 1} more episodes)" if len(refused) > 1 else ""
        raise usage(
            f"--task {task_id} (seed {seed}, {lang_}): MobileGym cannot pose it: {reason}"
            f"{more}; `mgb mobilegym tasks` lists what it can"
        )
    try:
        config = MobileGymRunConfig.model_validate(
            {
                "tasks": ids,
                "seeds": parse_ints(seeds),
                "langs": lang.split(","),
                "policy": policy,
                "out": out,
                "build": chosen_build,
                "concurrency": one_at_a_time(policy, concurrency),
            }
        )
    except ValidationError as exc:
        raise usage(option_error(exc)) from exc
    refuse_a_locked_run(out)
    check_policy(policy)
    with run_progress(policy, out, config.episode_ids()) as done:
        try:
            records = asyncio.run(run_mobilegym(config, on_done=done))
        except KeyboardInterrupt:
            hint = f"what finished is kept in {out}: run the same command again to resume"
            raise interrupted(hint) from None
        except PolicySpecError as exc:
            raise typer.BadParameter(str(exc), param_hint="--policy") from exc
    console.print(episodes_table(records))
    console.print(f"trajectory: [bold]{(out / 'index.html').resolve()}[/]")
    console.print(closing_line(records), highlight=False)
    failed = nothing_measured(records)
    if failed is not None:
        raise fail(failed)
