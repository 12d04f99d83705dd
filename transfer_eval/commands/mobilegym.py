"""``mgb mobilegym``: a user's MobileGym build as a world — which of our task templates it
can pose (and why not the rest), MobileGym's own tasks from the user's checkout, and running
either there into a run directory ``mgb replay`` reads."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Coroutine, Iterable
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
    from bridge.records import EpisodeRecord
    from mobilegym.native import NativeTasks
    from sim.tasks.base import TaskTemplate
    from transfer_eval.mobilegym_run import MobileGymRunConfig, NativeRunConfig

__all__ = ["mobilegym_app"]

mobilegym_app = typer.Typer(
    cls=GuardedGroup,
    help="A MobileGym build as a world: which of our tasks it poses, its own tasks, runs there.",
    no_args_is_help=True,
    add_completion=False,
)

_TASK_HELP = "Our task id (repeatable); 'all' runs every one MobileGym can pose."
_NATIVE_HELP = (
    "One of MobileGym's own task ids (repeatable), e.g. clock.ToggleAlarm: posed by their "
    "setup, judged by their judge; `mgb mobilegym tasks --native` lists them. Needs "
    "--checkout."
)
_CHECKOUT_HELP = (
    "With --native: the root of your MobileGym checkout (the folder holding bench_env/); "
    "default $MOBILEGYM_CHECKOUT. Its Python needs: pip install 'mobilegym-bridge\\[mobilegym]'."
)
_LANG_HELP = (
    "Comma-separated languages (en, zh); default en, or zh with --native (every MobileGym "
    "task has a Chinese instruction, about a quarter also an English one)."
)
_ANSWER_HELP = (
    "With --native: how an answer reaches their judge: 'action' (our answer action, their "
    "text mode) or 'sheet' (their AnswerSheet app filled in on the screen, their grounded mode)."
)
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


def _checkout(checkout: Path | None) -> Path:
    """The checkout option, or the environment's; a usage error when there is none."""
    chosen = checkout or os.environ.get("MOBILEGYM_CHECKOUT")
    if not chosen:
        raise usage(
            "--checkout: name the root of your MobileGym checkout (the folder holding "
            "bench_env/), or set MOBILEGYM_CHECKOUT"
        )
    return Path(chosen)


def _native_tasks(checkout: Path | None) -> NativeTasks:
    """MobileGym's tasks from the checkout; one usage line when it has no usable bench_env
    (its Python needs missing: the extra to install)."""
    from mobilegym.errors import MobileGymSourceError
    from mobilegym.native import NativeTasks

    try:
        return NativeTasks(_checkout(checkout))
    except MobileGymSourceError as exc:
        raise usage(f"--checkout: {exc}") from exc


@mobilegym_app.command("tasks")
def tasks_command(
    app: Annotated[str | None, typer.Option(help="Only tasks of this app.")] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="One JSON object per template, for scripts.")
    ] = False,
    native: Annotated[
        bool, typer.Option("--native", help="MobileGym's own tasks, from --checkout.")
    ] = False,
    checkout: Annotated[Path | None, typer.Option(help=_CHECKOUT_HELP)] = None,
) -> None:
    """List our task templates and whether MobileGym can pose each at seed 0 (and why not);
    with --native, MobileGym's own tasks from your checkout."""
    if native:
        _native_listing(_native_tasks(checkout), app, as_json)
        return
    if checkout is not None:
        raise usage("--checkout goes with --native (our templates need no checkout)")
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


def _native_listing(native: NativeTasks, app: str | None, as_json: bool) -> None:
    """Their tasks (of one app or suite), as a table or JSON lines, and the suites of the
    checkout that did not load."""
    from rich.table import Table

    infos = native.list()
    names = sorted({name for info in infos for name in (info.suite, *info.apps)})
    if app is not None and app not in names:
        raise usage(f"--app {app!r}: no MobileGym task uses it; apps are {', '.join(names)}")
    chosen = [info for info in infos if app is None or app in (info.suite, *info.apps)]
    if as_json:
        for info in chosen:
            print(json.dumps(info.model_dump(mode="json"), ensure_ascii=False))
        return
    console.print(f"MobileGym's own tasks in {native.root}", highlight=False)
    table = Table()
    for column in ("id", "level", "languages", "answers", "max steps", "splits"):
        table.add_column(column, no_wrap=column != "splits")
    for info in chosen:
        table.add_row(info.task_id, info.level, ", ".join(sorted(info.templates)),
                      "yes" if info.answers else "", str(info.max_steps),
                      ", ".join(info.splits))  # fmt: skip
    console.print(table)
    console.print(f"{len(chosen)} MobileGym tasks", highlight=False)
    for suite, why in sorted(native.unloadable().items()):
        console.print(f"suite {suite} did not load: {why}", highlight=False, soft_wrap=True)


@mobilegym_app.command("run")
def run_command(
    out: Annotated[Path, typer.Option(help="Run directory (resumed if it exists).")],
    task: Annotated[list[str] | None, typer.Option(help=_TASK_HELP)] = None,
    native: Annotated[list[str] | None, typer.Option(help=_NATIVE_HELP)] = None,
    build: Annotated[str | None, typer.Option(help=_BUILD_HELP)] = None,
    checkout: Annotated[Path | None, typer.Option(help=_CHECKOUT_HELP)] = None,
    policy: Annotated[str, typer.Option(help="Policy spec.")] = "random:1",
    seeds: Annotated[str, typer.Option(help="Comma-separated seeds.")] = "0",
    lang: Annotated[str | None, typer.Option(help=_LANG_HELP)] = None,
    answer_mode: Annotated[str, typer.Option(help=_ANSWER_HELP)] = "action",
    concurrency: Annotated[int, typer.Option(help="Episodes at once.")] = 1,
) -> None:
    """Run our task templates (--task) or MobileGym's own tasks (--native) in a MobileGym
    build and write a trajectory with a page."""
    stop_on_signals()
    if bool(task) == bool(native):
        raise usage("name what to run: --task (our templates) or --native (MobileGym's own)")
    chosen_build = _build(build)
    settings: dict[str, Any] = {
        "seeds": parse_ints(seeds),
        "policy": policy,
        "out": out,
        "build": chosen_build,
        "concurrency": one_at_a_time(policy, concurrency),
    }
    if native:
        _run_native(native, checkout, (lang or "zh").split(","), answer_mode, settings)
        return
    if checkout is not None or answer_mode != "action":
        raise usage("--checkout and --answer-mode go with --native")
    _run_ours(task or [], (lang or "en").split(","), settings)


def _run_ours(task: list[str], langs: list[str], settings: dict[str, Any]) -> None:
    """Our templates: every episode MobileGym can pose, or one line on the first it cannot."""
    from sim.errors import UnknownTask
    from sim.tasks.registry import default_registry
    from transfer_eval.mobilegym_run import MobileGymRunConfig, not_poseable, run_mobilegym

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
    grid = [(t, s, lang_) for t in ids for s in settings["seeds"] for lang_ in langs]
    refused = not_poseable(registry, grid)
    if refused:
        (task_id, seed, lang_), reason = next(iter(refused.items()))
        more = f" (and {len(refused) - 1} more episodes)" if len(refused) > 1 else ""
        raise usage(
            f"--task {task_id} (seed {seed}, {lang_}): MobileGym cannot pose it: {reason}"
            f"{more}; `mgb mobilegym tasks` lists what it can"
        )
    config = _config(MobileGymRunConfig, {"tasks": ids, "langs": langs, **settings})
    _run_and_report(config, lambda done: run_mobilegym(config, on_done=done))


def _run_native(
    ids: list[str],
    checkout: Path | None,
    langs: list[str],
    answer_mode: str,
    settings: dict[str, Any],
) -> None:
    """MobileGym's own tasks: the checkout, every id and language and the policy checked in
    one line each before anything starts."""
    from mobilegym.errors import MobileGymSourceError, NativeTaskError
    from policies.errors import PolicySpecError
    from transfer_eval.mobilegym_run import NativeRunConfig, check_native, run_native

    fields = {"tasks": ids, "langs": langs, "checkout": _checkout(checkout), **settings}
    config = _config(NativeRunConfig, {**fields, "answer_mode": answer_mode})
    try:
        tasks = check_native(config)
    except MobileGymSourceError as exc:
        raise usage(f"--checkout: {exc}") from exc
    except NativeTaskError as exc:
        raise typer.BadParameter(str(exc), param_hint="--native") from exc
    except PolicySpecError as exc:
        raise typer.BadParameter(str(exc), param_hint="--policy") from exc
    _run_and_report(config, lambda done: run_native(config, on_done=done, native=tasks))


def _config(model: type[MobileGymRunConfig] | type[NativeRunConfig], fields: dict[str, Any]) -> Any:
    """The run config, or one line on the first option it refuses."""
    from pydantic import ValidationError

    try:
        return model.model_validate(fields)
    except ValidationError as exc:
        raise usage(option_error(exc, {"checkout": "--checkout"})) from exc


def _run_and_report(
    config: MobileGymRunConfig,
    run: Callable[[Callable[[EpisodeRecord], None]], Coroutine[Any, Any, list[EpisodeRecord]]],
) -> None:
    """Run with a progress bar, then the episodes' table, where the page is, and one closing
    line; Ctrl-C keeps what finished and says how to go on."""
    import asyncio

    from policies.errors import PolicySpecError
    from transfer_eval.episode_table import closing_line, episodes_table, nothing_measured

    out = config.out
    refuse_a_locked_run(out)
    check_policy(config.policy)
    with run_progress(config.policy, out, config.episode_ids()) as done:
        try:
            records = asyncio.run(run(done))
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
