"""``mgb replay RUN``: the side-by-side replays of a transfer-eval run, from the command line.

Without ``--task`` it lists the run's tasks with each policy's outcome in both worlds and
where their replay pages are; with ``--task`` it (re)writes that task's page and, with
``--mp4``, renders the same pairing into a video.
"""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from bridge.errors import BridgeError
from bridge.schema import EpisodeRecord
from bridge.trajectory import RunStore
from transfer_eval.finalize import device_title, pairing, write_replay
from transfer_eval.paired import ROLES, PairedConfig, cell_id
from transfer_eval.replay import replay_video

__all__ = ["replay_command"]

console = Console()


def _fail(message: str) -> typer.Exit:
    console.print(f"[red]error:[/] {message}", highlight=False)
    return typer.Exit(code=1)


def _labels(records: dict[str, EpisodeRecord]) -> list[str]:
    """Suite entry labels of the run's episodes (``settings.SetWifi-v1__base__sim__r0``)."""
    return sorted({episode_id.split("__")[0] for episode_id in records})


_MARK = {"success": "✓", "failure": "✗", "infra_error": "infra"}


def _outcomes(records: dict[str, EpisodeRecord], label: str, role: str) -> str:
    """``✓ / ✗``: the role's repeat-0 outcome in the simulator and on the phone."""
    marks = []
    for world in ("sim", "real"):
        record = records.get(cell_id(label, role, world, 0))
        marks.append("—" if record is None else _MARK[record.outcome])
    return " / ".join(marks)


def _device_title(store: RunStore, records: dict[str, EpisodeRecord]) -> str:
    config = PairedConfig.model_validate({**store.manifest.config, "out": store.root})
    phone = [r.backend for r in records.values() if r.backend and r.backend.kind != "sim"]
    backend = phone[0].kind if phone else ("virtual" if config.device == "virtual" else "device")
    return device_title(config, backend, phone[0].model if phone else None)


def _table(store: RunStore, records: dict[str, EpisodeRecord], labels: list[str]) -> Table:
    table = Table(title=f"replays in {store.root}")
    table.add_column("task", no_wrap=True)
    for role in ROLES:
        table.add_column(f"{role} sim / phone")
    for label in labels:
        table.add_row(label, *(_outcomes(records, label, role) for role in ROLES))
    return table


def replay_command(
    run: Annotated[Path, typer.Argument(help="A transfer-eval run directory.")],
    task: Annotated[
        str | None, typer.Option(help="Task label (as listed), e.g. settings/SetWifi-v1.")
    ] = None,
    policy: Annotated[str, typer.Option(help="Whose episodes: 'trained' or 'base'.")] = "trained",
    mp4: Annotated[Path | None, typer.Option(help="Also write the pairing as an MP4.")] = None,
) -> None:
    """List a transfer-eval run's side-by-side replays, or write one (and an MP4)."""
    if policy not in ROLES:
        raise _fail(f"--policy is one of {', '.join(ROLES)}, not {policy!r}")
    try:
        store = RunStore.open(run)
    except (BridgeError, OSError) as exc:
        raise _fail(
            f"{run} is not a run directory ({exc}); give a transfer-eval --out path"
        ) from exc
    records = store.completed()
    labels = _labels(records)
    if task is None:
        console.print(_table(store, records, labels))
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
        raise _fail(f"no task {task!r} in {run}{hint}")
    sim, real = pairing(store, records, label, policy)
    page = write_replay(store, sim, real, label, policy, _device_title(store, records))
    console.print(f"replay: [bold]{page}[/]", highlight=False)
    if mp4 is not None:
        try:
            written = replay_video(sim, real, mp4)
        except OSError as exc:
            raise _fail(str(exc)) from exc
        console.print(f"video: [bold]{written}[/]", highlight=False)
