"""``mgb replay RUN``: look at any run directory from the command line.

A transfer-eval run (its manifest holds a paired config): without ``--task`` it lists the
run's tasks with each policy's outcome in both worlds and where their replay pages are; with
``--task`` it (re)writes that task's side-by-side page and, with ``--mp4``, renders the same
pairing into a video.

A single-world run (``mgb sim run``, ``mgb device run``, ``mgb console``): it (re)writes the
episode pages and lists the episodes with where their pages are; ``--episode ID`` (or
``--task`` when one episode has that task) names one page, which ``--mp4`` renders.

``--json`` lists the same as one JSON object per line (a task's outcomes, or an episode).
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from transfer_eval.commands.common import console, fail, usage

if TYPE_CHECKING:
    from rich.table import Table

    from bridge.records import EpisodeRecord
    from bridge.trajectory import RunStore
    from transfer_eval.episode_view import EpisodeSummary
    from transfer_eval.paired import PairedConfig

__all__ = ["replay_command"]


_PAIRED_KEYS = frozenset({"base", "trained", "suite"})
"""Keys of every transfer-eval manifest (it stores its PairedConfig) and of no other run's."""


def _is_paired(store: RunStore) -> bool:
    """A transfer-eval run; any other run directory holds episodes of one world."""
    return store.manifest.config.keys() >= _PAIRED_KEYS


def _labels(records: dict[str, EpisodeRecord]) -> list[str]:
    """Suite entry labels of the run's episodes (``settings.SetWifi-v1__base__sim__r0``)."""
    return sorted({episode_id.split("__")[0] for episode_id in records})


_MARK = {"success": "✓", "failure": "✗", "infra_error": "infra"}


def _outcomes(
    records: dict[str, EpisodeRecord], damaged: dict[str, str], label: str, role: str
) -> str:
    """``✓ / ✗``: the role's repeat-0 outcome in the simulator and on the phone (``damaged``
    where the episode's files are)."""
    by_world = _world_outcomes(records, damaged, label, role)
    return " / ".join(_MARK.get(outcome, outcome) for outcome in by_world.values())


def _world_outcomes(
    records: dict[str, EpisodeRecord], damaged: dict[str, str], label: str, role: str
) -> dict[str, str]:
    """The role's repeat-0 outcome per world (``sim``, ``real``): ``success``, ``failure``,
    ``infra_error``, ``damaged`` (its files are), or ``—`` (not run yet)."""
    from transfer_eval.paired import cell_id

    outcomes: dict[str, str] = {}
    for world in ("sim", "real"):
        episode_id = cell_id(label, role, world, 0)
        record = records.get(episode_id)
        outcome = "—" if record is None else record.outcome
        outcomes[world] = "damaged" if episode_id in damaged else outcome
    return outcomes


def _damage_line(episode_id: str, problem: str, more: int = 0) -> str:
    """One line on a damaged episode: what is wrong, and what helps."""
    from bridge.run_files import RERUN_FIX

    others = f" ({more} more damaged episodes)" if more else ""
    return f"episode {episode_id} cannot be shown: {problem}{others}; {RERUN_FIX}"


def _refuse_damaged(damaged: dict[str, str], ids: Iterable[str]) -> None:
    """Fail with one line if any of ``ids`` is damaged."""
    hit = [episode_id for episode_id in ids if episode_id in damaged]
    if hit:
        raise fail(_damage_line(hit[0], damaged[hit[0]], len(hit) - 1))


def _paired_config(store: RunStore) -> PairedConfig:
    """The run's PairedConfig; a manifest this version cannot read is one line."""
    from pydantic import ValidationError

    from transfer_eval.paired import RECORDED, PairedConfig

    try:
        config = {**store.manifest.config, "out": store.root}
        return PairedConfig.model_validate(config, context={RECORDED: True})
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "config"
        raise fail(
            f"{store.root / 'manifest.json'}: its config is not one this mobilegym-bridge "
            f"reads ({where}: {first['msg']}); open the run with the version that wrote it, "
            "or restore manifest.json from a copy"
        ) from exc


def _device_title(store: RunStore, records: dict[str, EpisodeRecord]) -> str:
    from mobilegym.source import is_mobilegym
    from transfer_eval.finalize import device_title

    config = _paired_config(store)
    phone = [r.backend for k, r in records.items() if r.backend and "__real__" in k]
    if phone:
        backend = phone[0].kind
    elif is_mobilegym(config.device):
        backend = "mobilegym"
    else:
        backend = "virtual" if config.device == "virtual" else "device"
    return device_title(config, backend, phone[0].model if phone else None)


def _table(
    store: RunStore, records: dict[str, EpisodeRecord], labels: list[str], damaged: dict[str, str]
) -> Table:
    from rich.table import Table

    from mobilegym.source import is_mobilegym
    from transfer_eval.paired import ROLES
    from transfer_eval.world_names import PairNames

    config = _paired_config(store)
    names = PairNames(
        "mobilegym" if is_mobilegym(config.sim) else "sim",
        "mobilegym" if is_mobilegym(config.device) else "device",
    )
    sim, real = names.name("sim"), names.name("real")
    table = Table(title=f"replays in {store.root}")
    table.add_column("task", no_wrap=True)
    for role in ROLES:
        table.add_column(f"{role} {sim} / {real}")
    for label in labels:
        table.add_row(label, *(_outcomes(records, damaged, label, role) for role in ROLES))
    return table


def _paired_rows(
    store: RunStore, records: dict[str, EpisodeRecord], labels: list[str], damaged: dict[str, str]
) -> None:
    """A transfer-eval run's tasks as JSON lines: each policy's outcome in both worlds, and
    where its replay page is (once written)."""
    from transfer_eval.finalize import page_name
    from transfer_eval.paired import ROLES

    for label in labels:
        row: dict[str, object] = {"task": label}
        for role in ROLES:
            page = store.root / "replays" / page_name(label, role)
            row[role] = {**_world_outcomes(records, damaged, label, role),
                         "page": str(page) if page.exists() else None}  # fmt: skip
        print(json.dumps(row, ensure_ascii=False))


def _replay_paired(
    store: RunStore, run: Path, task: str | None, policy: str, mp4: Path | None, as_json: bool
) -> None:
    """List a transfer-eval run's pairings, or write one's page (and an MP4)."""
    from transfer_eval.finalize import pairing, write_replay
    from transfer_eval.paired import cell_id
    from transfer_eval.replay import replay_video

    records, damaged = store.completed(), store.damaged()
    labels = _labels(records)
    if task is None and as_json:
        _paired_rows(store, records, labels, damaged)
        return
    if task is None:
        console.print(_table(store, records, labels, damaged))
        for episode_id, problem in damaged.items():
            console.print(f"damaged: {_damage_line(episode_id, problem)}", soft_wrap=True)
        console.print(
            f"pages: {store.root / 'replays'}/TASK__POLICY.html; "
            "`mgb replay RUN --task TASK [--policy base] [--mp4 OUT.mp4]` writes one",
            highlight=False,
        )
        report = store.root / "report.html"
        if report.exists():
            console.print(f"report: [bold]{report}[/]", highlight=False)
        return
    label = task.replace("/", ".")
    if label not in labels:
        near = difflib.get_close_matches(label, labels, n=1)
        hint = f"; did you mean {near[0]}?" if near else f"; the run has: {', '.join(labels)}"
        raise usage(f"no task {task!r} in {run}{hint}")
    _refuse_damaged(damaged, (cell_id(label, policy, world, 0) for world in ("sim", "real")))
    sim, real = pairing(store, records, label, policy)
    page = write_replay(store, sim, real, label, policy, _device_title(store, records))
    console.print(f"replay: [bold]{page}[/]", highlight=False)
    if mp4 is not None:
        try:
            written = replay_video(sim, real, mp4)
        except OSError as exc:
            raise fail(str(exc)) from exc
        console.print(f"video: [bold]{written}[/]", highlight=False)


def _hint(wanted: str, names: Iterable[str]) -> str:
    """``; did you mean X?`` for the nearest of ``names``, else the first few of them."""
    names = sorted(names)
    near = difflib.get_close_matches(wanted, names, n=1)
    if near:
        return f"; did you mean {near[0]}?"
    more = f" and {len(names) - 8} more" if len(names) > 8 else ""
    return f"; the run has: {', '.join(names[:8])}{more}"


def _episode_of_task(records: dict[str, EpisodeRecord], task: str, run: Path) -> str:
    """The one episode of ``task`` (``settings/SetWifi-v1`` or ``settings.SetWifi-v1``)."""
    wanted = task.replace("/", ".")
    matches = sorted(i for i, r in records.items() if r.task.task_id.replace("/", ".") == wanted)
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise usage(
            f"task {task!r} has {len(matches)} episodes in {run}: {', '.join(matches)}; "
            "pick one with --episode ID"
        )
    tasks = {record.task.task_id for record in records.values()}
    raise usage(f"no episode of task {task!r} in {run}{_hint(task, tasks)}")


def _chosen(
    records: dict[str, EpisodeRecord], run: Path, episode: str | None, task: str | None
) -> str | None:
    """The episode ``--episode`` or ``--task`` names (None: neither was given)."""
    if episode is not None and task is not None:
        raise usage("give --episode or --task, not both")
    if task is not None:
        return _episode_of_task(records, task, run)
    if episode is not None and episode not in records:
        raise usage(f"no episode {episode!r} in {run}{_hint(episode, records)}")
    return episode


def _list_episodes(store: RunStore, summaries: list[EpisodeSummary], as_json: bool) -> None:
    from transfer_eval.episode_table import run_table

    if as_json:
        for summary in summaries:
            record = summary.record
            row = {"episode_id": record.episode_id, "task": record.task.task_id,
                   "outcome": record.outcome, "steps": record.steps,
                   "termination": record.termination, "page": str(summary.page)}  # fmt: skip
            if summary.decided:
                row.update(overridden=summary.overridden, approved=summary.approved)
            print(json.dumps(row, ensure_ascii=False))
        return
    console.print(run_table(summaries, f"episodes in {store.root}"))
    console.print(f"index: [bold]{store.root / 'index.html'}[/]", highlight=False, soft_wrap=True)
    console.print("pages:", highlight=False)
    for summary in summaries:
        console.print(f"  {summary.page}", highlight=False, soft_wrap=True)
    console.print(
        "`mgb replay RUN --episode ID [--mp4 OUT.mp4]` rewrites one page (and renders it)",
        highlight=False,
    )


def _replay_single(
    store: RunStore,
    run: Path,
    episode: str | None,
    task: str | None,
    mp4: Path | None,
    export: Path | None = None,
    as_json: bool = False,
) -> None:
    """List a single-world run's episodes, or write one's page (and an MP4)."""
    from bridge.errors import BridgeError
    from transfer_eval.demonstrations import export_demonstrations
    from transfer_eval.episode_view import write_run_index
    from transfer_eval.replay import Side, episode_video

    records = store.completed()
    if not records:
        raise fail(
            f"{run} has no finished episodes yet; run or resume it (the same command with "
            f"--out {run}) and try again"
        )
    chosen = _chosen(records, run, episode, task)
    if chosen is None and mp4 is not None:
        raise usage("--mp4 renders one episode: add --episode ID (or --task TASK)")
    _refuse_damaged(store.damaged(), [chosen] if chosen else sorted(records))
    try:
        if export is not None:
            ids = [chosen] if chosen is not None else sorted(records)
            count = export_demonstrations(store, ids, export)
            console.print(f"demonstration: {count} executed steps in [bold]{export}[/]")
        summaries = write_run_index(store)
        if chosen is None:
            _list_episodes(store, summaries, as_json)
            return
        page = next(s.page for s in summaries if s.record.episode_id == chosen)
        console.print(f"page: [bold]{page}[/]", highlight=False, soft_wrap=True)
        if mp4 is not None:
            side = Side(store, records[chosen], store.read_steps(chosen))
            written = episode_video(side, mp4)
            console.print(f"video: [bold]{written}[/]", highlight=False, soft_wrap=True)
    except (BridgeError, OSError) as exc:
        raise fail(str(exc)) from exc


def replay_command(
    run: Annotated[
        Path,
        typer.Argument(
            help="A run directory: of transfer-eval, mgb sim run, mgb device run or mgb console."
        ),
    ],
    task: Annotated[
        str | None, typer.Option(help="Task label (as listed), e.g. settings/SetWifi-v1.")
    ] = None,
    policy: Annotated[
        str, typer.Option(help="Whose episodes (transfer-eval): 'trained' or 'base'.")
    ] = "trained",
    episode: Annotated[
        str | None, typer.Option(help="An episode id (as listed) of a single-world run.")
    ] = None,
    mp4: Annotated[Path | None, typer.Option(help="Also write the replay as an MP4.")] = None,
    export: Annotated[
        Path | None,
        typer.Option(help="Write the executed steps (a corrected demonstration) as JSONL."),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="List as one JSON object per line, for scripts.")
    ] = False,
) -> None:
    """List a run's episodes, or write one episode's page (and an MP4).

    Any run: mgb sim run, mgb device run, mgb console, and transfer-eval (whose episodes
    are its side-by-side replays).
    """
    from bridge.errors import BridgeError
    from bridge.trajectory import RunStore
    from transfer_eval.paired import ROLES

    if policy not in ROLES:
        raise usage(f"--policy is one of {', '.join(ROLES)}, not {policy!r}")
    try:
        store = RunStore.open(run)
    except (BridgeError, OSError) as exc:
        if (run / "manifest.json").is_file():  # a run, damaged: the error says what helps
            raise fail(str(exc)) from exc
        raise fail(
            f"{run} is not a run directory ({exc}); give the --out path of a run "
            "(transfer-eval, mgb sim run, mgb device run, mgb console)"
        ) from exc
    if not _is_paired(store):
        _replay_single(store, run, episode, task, mp4, export, as_json)
    elif export is not None:
        raise usage("--export writes the episodes of a single-world run (a console run, say)")
    elif episode is not None:
        raise usage(
            f"{run} is a transfer-eval run: pick its replays with --task TASK [--policy base]"
        )
    else:
        _replay_paired(store, run, task, policy, mp4, as_json)
