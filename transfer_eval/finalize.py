"""From a finished run directory to ``report.json``, ``report.md``, ``report.html`` and the
side-by-side replays. Pure with respect to the run directory: finishing a resumed run gives
byte-identical reports.

Each (suite entry, policy) pairing gets a page in ``RUN/replays/`` that links back to the
report and to the other policy's page of the same entry; the report links both. The run's
provenance (commit, command, checkpoint hashes) comes from the manifest's ``versions`` and
goes in the footers of report.md and report.html — not in report.json, whose figures are a
function of the outcomes alone (two runs of the same grid give the same report.json).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TypedDict

from bridge.durable import write_atomic
from bridge.records import EpisodeRecord
from bridge.trajectory import RunStore
from mobilegym.source import is_mobilegym
from sim.pages import SimProfile
from sim.skins import DEFAULT_SKIN, SKINS
from transfer_eval.cells import MissingCell, Outcome
from transfer_eval.paired import ROLES, WORLDS, Cell, PairedConfig, cell_id
from transfer_eval.policy_factory import report_fingerprints
from transfer_eval.replay import ReplayLinks, Side, replay_page
from transfer_eval.report import Report, build_report
from transfer_eval.report_html import render_html
from transfer_eval.report_md import render_markdown
from transfer_eval.start_parity import start_parity

__all__ = [
    "collect_outcomes",
    "device_title",
    "page_name",
    "pairing",
    "write_replay",
    "write_replays",
    "write_reports",
]


class _Where(TypedDict):
    """The fields that place a cell in the grid (those of ``transfer_eval.cells._Cell``)."""

    task_id: str
    seed: int
    lang: str
    policy: str
    world: str
    repeat: int


def collect_outcomes(
    store: RunStore, cells: Sequence[Cell]
) -> tuple[list[Outcome], list[MissingCell]]:
    """Outcomes of the grid's finished cells, in grid order, and the cells without one
    (``infra_error`` after the retries, with its error; or never run)."""
    done = store.completed()
    outcomes, gaps = [], []
    for cell in cells:
        record = done.get(cell.episode_id)
        where: _Where = {
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
            clean = record.verdict.clean if record.verdict is not None else None
            outcome = Outcome(
                **where,
                outcome_class=record.outcome_class,  # bridge.outcome's, also for old records
                clean=clean,
                level=cell.template.level,
                app=cell.template.apps[0],
            )
            outcomes.append(outcome)
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


def page_name(label: str, role: str) -> str:
    """The file name of a pairing's replay page in ``RUN/replays``."""
    return f"{label.replace('/', '.')}__{role}.html"


def _links(records: Mapping[str, EpisodeRecord], label: str, role: str) -> ReplayLinks:
    """Where a pairing's page links: the report, and the other policy's page if it ran."""
    other = next(r for r in ROLES if r != role)
    theirs = [records.get(cell_id(label, other, world, 0)) for world in WORLDS]
    spec = next((r.policy for r in theirs if r is not None), None)
    return ReplayLinks(
        role=role,
        report="../report.html",
        other_role=other,
        other=page_name(label, other) if spec is not None else None,
        other_policy=spec,
    )


def write_replay(store: RunStore, sim: Side, real: Side, label: str, role: str, title: str) -> Path:
    """Write the side-by-side page of one pairing; its path (``RUN/replays/...html``)."""
    folder = store.root / "replays"
    folder.mkdir(exist_ok=True)
    page = folder / page_name(label, role)
    links = _links(store.completed(), label, role)
    write_atomic(page, replay_page(sim, real, folder, title, links).encode())
    return page


def write_replays(
    store: RunStore, cells: Sequence[Cell], device_title: str
) -> dict[str, dict[str, str]]:
    """One page per (suite entry, policy) pairing repeat 0 in both worlds; label -> policy
    -> link (relative to the run directory)."""
    records = store.completed()
    links: dict[str, dict[str, str]] = {}
    for label in sorted({cell.label for cell in cells}):
        for role in ROLES:
            sim, real = pairing(store, records, label, role)
            if sim.record is None and real.record is None:
                continue
            page = write_replay(store, sim, real, label, role, device_title)
            links.setdefault(label, {})[role] = f"replays/{page.name}"
    return links


def device_title(config: PairedConfig, backend: str, device_model: str | None) -> str:
    """How replay pages name the checked side: MobileGym, virtual (and its perturbations)
    or hardware."""
    if backend == "mobilegym":
        return "MobileGym"
    if backend != "virtual":
        return f"Phone ({device_model or config.device})"
    gap = config.gap.describe()
    return f"Virtual phone ({gap})" if gap else "Virtual phone"


def looks_apart(config: PairedConfig, backend: str) -> str | None:
    """How the checked world's screens look other than the simulator's, so that a first
    screen is compared by its app and not node by node; None when both draw the same (the
    virtual phone in AOSP's skin at the simulator's density, its text unscaled)."""
    if backend == "mobilegym" or is_mobilegym(config.sim):
        return "MobileGym draws its own screens"
    if backend != "virtual":
        return "a phone draws its own screens"
    gap, drawn = config.gap, []
    if gap.skin != DEFAULT_SKIN or gap.screen != SimProfile():
        drawn.append(f"{SKINS[gap.skin].system} screens at {gap.screen.density_dpi} dpi")
    if gap.font_scale is not None:
        drawn.append(f"text x{gap.font_scale:g}")
    return f"the virtual phone draws {' with '.join(drawn)}" if drawn else None


def _pairs(cells: Sequence[Cell]) -> list[tuple[str, str, int, str, str]]:
    """Each pair of the grid: (label, policy, repeat, simulator cell, phone cell)."""
    return [
        (c.label, c.role, c.repeat, c.episode_id, cell_id(c.label, c.role, "real", c.repeat))
        for c in cells
        if c.world == "sim"
    ]


def write_reports(
    store: RunStore,
    cells: Sequence[Cell],
    config: PairedConfig,
    backend: str,
    device_model: str | None,
    not_posed: Mapping[str, str] | None = None,
) -> Report:
    """Write every report file into the run directory and return the report
    (``not_posed``: the suite entries left out of both worlds, with why)."""
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
        fingerprint=report_fingerprints(store),
        start=start_parity(store, _pairs(cells), looks_apart(config, backend)),
        sim_backend="mobilegym" if is_mobilegym(config.sim) else "sim",
        not_posed=not_posed,
    )
    root: Path = store.root
    versions = store.manifest.versions
    write_atomic(root / "report.json", report.model_dump_json(indent=2).encode())
    write_atomic(root / "report.md", render_markdown(report, versions).encode())
    write_atomic(root / "report.html", render_html(report, versions).encode())
    return report
