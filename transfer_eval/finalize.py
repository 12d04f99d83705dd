"""From a finished run directory to ``report.json``, ``report.md``, ``report.html`` and the
side-by-side replays. Pure with respect to the run directory: finishing a resumed run gives
byte-identical reports."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from bridge.durable import write_atomic
from bridge.schema import EpisodeRecord
from bridge.trajectory import RunStore
from transfer_eval.paired import ROLES, Cell, PairedConfig, cell_id
from transfer_eval.replay import Side, replay_page
from transfer_eval.report import Report, build_report
from transfer_eval.report_html import render_html
from transfer_eval.report_md import render_markdown
from transfer_eval.stats import MissingCell, Outcome

__all__ = [
    "collect_outcomes",
    "device_title",
    "pairing",
    "write_replay",
    "write_replays",
    "write_reports",
]


def collect_outcomes(
    store: RunStore, cells: Sequence[Cell]
) -> tuple[list[Outcome], list[MissingCell]]:
    """Outcomes of the grid's finished cells, in grid order, and the cells without one
    (``infra_error`` after the retries, with its error; or never run)."""
    done = store.completed()
    outcomes, gaps = [], []
    for cell in cells:
        record = done.get(cell.episode_id)
        where = {
            "task_id": cell.label,
            "seed": cell.task.seed,
            "lang": cell.task.lang,
            "policy": cell.role,
            "world": cell.world,
            "repeat": cell.repeat,
        }
        if record is None:
            gaps.append(MissingCell(**where, reason="missing"))
        elif record.outcome == "infra_error":
            gaps.append(MissingCell(**where, reason="infra_error", error=record.error))
        else:
            success = record.outcome == "success"
            app = cell.template.apps[0]
            outcomes.append(Outcome(**where, success=success, level=cell.template.level, app=app))
    return outcomes, gaps


def pairing(
    store: RunStore, records: Mapping[str, EpisodeRecord], label: str, role: str
) -> tuple[Side, Side]:
    """A suite entry's repeat-0 episodes of one policy: (simulator side, phone side)."""

    def side(world: str) -> Side:
        episode_id = cell_id(label, role, world, 0)
        record = records.get(episode_id)
        return Side(store, record, store.read_steps(episode_id) if record else [])

    return side("sim"), side("real")


def write_replay(store: RunStore, sim: Side, real: Side, label: str, role: str, title: str) -> Path:
    """Write the side-by-side page of one pairing; its path (``RUN/replays/...html``)."""
    folder = store.root / "replays"
    folder.mkdir(exist_ok=True)
    page = folder / f"{label.replace('/', '.')}__{role}.html"
    write_atomic(page, replay_page(sim, real, folder, title).encode())
    return page


def write_replays(store: RunStore, cells: Sequence[Cell], device_title: str) -> dict[str, str]:
    """One page per (suite entry, policy) pairing repeat 0 in both worlds; label -> link."""
    records = store.completed()
    links: dict[str, str] = {}
    for label in sorted({cell.label for cell in cells}):
        for role in ROLES:
            sim, real = pairing(store, records, label, role)
            if sim.record is None and real.record is None:
                continue
            page = write_replay(store, sim, real, label, role, device_title)
            if role == "trained" or label not in links:
                links[label] = f"replays/{page.name}"
    return links


def device_title(config: PairedConfig, backend: str, device_model: str | None) -> str:
    """How replay pages name the phone side: virtual (and its perturbations) or hardware."""
    if backend != "virtual":
        return f"Phone ({device_model or config.device})"
    gap = config.gap.describe()
    return f"Virtual phone ({gap})" if gap else "Virtual phone"


def write_reports(
    store: RunStore,
    cells: Sequence[Cell],
    config: PairedConfig,
    backend: str,
    device_model: str | None,
) -> Report:
    """Write every report file into the run directory and return the report."""
    gap = config.gap.describe() if backend == "virtual" else ""
    links = write_replays(store, cells, device_title(config, backend, device_model))
    outcomes, gaps = collect_outcomes(store, cells)
    report = build_report(
        outcomes,
        device_backend=backend,
        device_model=device_model,
        base=config.base,
        trained=config.trained,
        suite=config.suite,
        repeats=config.repeats,
        gaps=gaps,
        replays=links,
        device_gap=gap,
    )
    root: Path = store.root
    write_atomic(root / "report.json", report.model_dump_json(indent=2).encode())
    write_atomic(root / "report.md", render_markdown(report).encode())
    write_atomic(root / "report.html", render_html(report).encode())
    return report
