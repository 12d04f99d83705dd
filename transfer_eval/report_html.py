"""``report.html``: a self-contained page (inline SVG charts, no scripts, no network).

It shows the headline, what success means and how else each policy's episodes ended in
each world (goal reached only at the step budget, false complete, side effects, clean
unknown), what to keep in mind reading it (few tasks, a difference that is not significant,
an interval of zero width, side effects a world could not see, the virtual phone), the
gains and retention
with their bootstrap intervals, a bar chart of success per policy and world, a scatter of
every task's sim gain against its phone gain (tasks on the same point drawn as one larger
dot with their count), the bucket table, links per task to both policies' side-by-side
replays, the suite entry-repeats left out of every figure, the harness fingerprint of both
policies side by side (rows where they differ marked), and in the footer where the run came
from (commit, command, checkpoint hashes). The phone side is called "phone"
throughout; a run on the virtual phone says so in a banner.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from transfer_eval.pages import page_template
from transfer_eval.report import Report
from transfer_eval.report_charts import bars, scatter
from transfer_eval.report_md import (
    CAVEAT_TITLES,
    ENDING_COLUMNS,
    ENDING_NOTE,
    backend_label,
    cell_label,
    ending_cells,
    fingerprint_rows,
    gain_interval,
    headline,
    percent,
    provenance,
    retention_interval,
    world_label,
)
from transfer_eval.stats import POLICIES, WORLDS, Interval

__all__ = ["render_html"]

_COLUMNS = [f"{p}/{w}" for p in POLICIES for w in WORLDS]


@dataclass(frozen=True)
class _Card:
    """One headline figure: its name, value, interval line and what it is. ``interval``:
    the line is a 95% interval (``zero_width`` flags one of no width)."""

    key: str
    value: str
    ci: str
    sub: str
    interval: bool = False
    zero_width: bool = False


def _gain_card(key: str, gain: float | None, interval: Interval | None, sub: str) -> _Card:
    value = "—" if gain is None else f"{100 * gain:+.1f} pt"
    degenerate = interval is not None and interval.degenerate
    return _Card(key, value, gain_interval(interval), sub, True, degenerate)


def _cards(report: Report) -> list[_Card]:
    r, parity, names = report.retention, report.start_parity, report.names
    sim, real = (f"{names.name(world)} gain" for world in ("sim", "real"))
    gained = "simulator" if report.sim_backend == "sim" else "MobileGym"
    where = {"virtual": "virtual phone", "mobilegym": "MobileGym"}.get(
        report.device_backend, "real phone"
    )
    same = "state" if names.mobilegym else "phone"
    return [
        _gain_card(sim, report.sim_gain, report.sim_gain_interval, f"trained − base, {gained}"),
        _gain_card(real, report.real_gain, report.real_gain_interval, f"trained − base, {where}"),
        _Card(
            "retention",
            "undefined" if r.value is None else f"{100 * r.value:.1f}%",
            retention_interval(r),
            f"{real} / {sim}",
            interval=r.value is not None,
            zero_width=r.value is not None and r.degenerate,
        ),
        _Card(
            f"{names.name('sim')}–{names.name('real')} agreement",
            percent(report.agreement),
            ""
            if report.class_agreement is None
            else f"{percent(report.class_agreement)} in the same outcome class",
            "paired episodes that succeed in both worlds or neither",
        ),
        _Card(
            "start-state parity",
            "—" if parity is None or parity.rate is None else f"{100 * parity.rate:.0f}%",
            "" if parity is None else f"{parity.same} of {parity.compared} pairs",
            f"pairs whose cells started from the same {same}",
        ),
    ]


def _meta(report: Report) -> str:
    return (
        f"base {report.base} · trained {report.trained} · suite {report.suite}"
        f" · {report.tasks} tasks × {report.repeats} "
        f"repeat{'s' if report.repeats != 1 else ''} · "
        f"{report.episodes} episodes · {report.infra_errors} infra errors · "
        f"{len(report.dropped)} entry-repeats dropped"
    )


def _endings(report: Report) -> list[list[str]]:
    """How each policy's episodes ended in each world, success first."""
    return [
        [policy, world_label(report, world), *ending_cells(report, key)]
        for key in _COLUMNS
        for policy, _, world in [key.partition("/")]
    ]


def _dropped(report: Report) -> list[list[object]]:
    """The entry-repeats the statistics leave out, one row per missing cell."""
    return [
        [
            f"{d.task_id} (seed {d.seed}, {d.lang})",
            d.repeat,
            f"{cell.policy}/{world_label(report, cell.world)}",
            cell.reason,
            cell.error or "",
        ]
        for d in report.dropped
        for cell in d.cells
    ]


def _parity_sentence(report: Report) -> str | None:
    if report.start_parity is None:
        return None
    sentence = report.start_parity.sentence()
    return sentence[0].upper() + sentence[1:]


def render_html(report: Report, versions: Mapping[str, str] | None = None) -> str:
    """The whole report page; ``versions`` (the run manifest's) make its footer."""
    return page_template("report.html").render(
        report=report,
        meta=_meta(report),
        virtual=report.device_backend == "virtual",
        backend=backend_label(report),
        headline=headline(report),
        columns=_COLUMNS,
        column_labels=[cell_label(report, c) for c in _COLUMNS],
        percent=percent,
        world_label=lambda world: world_label(report, world),
        names=report.names,
        not_posed=sorted(report.not_posed.items()),
        ending_columns=ENDING_COLUMNS,
        endings=_endings(report),
        dropped=_dropped(report),
        ending_note=ENDING_NOTE,
        caveats=[(CAVEAT_TITLES[c.kind], c.text) for c in report.caveats],
        cards=_cards(report),
        bars=bars(report),
        scatter=scatter(report),
        parity_sentence=_parity_sentence(report),
        parity_rows=report.start_parity.rows() if report.start_parity else [],
        fingerprint=fingerprint_rows(report),
        provenance=provenance(versions),
        policies=POLICIES,
    )
