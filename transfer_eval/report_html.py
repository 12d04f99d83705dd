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

import html
from collections.abc import Mapping
from importlib import resources
from string import Template

from transfer_eval.report import GroupRow, Report, TaskRow
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
from transfer_eval.stats import POLICIES, WORLDS

__all__ = ["render_html"]

_COLUMNS = [f"{p}/{w}" for p in POLICIES for w in WORLDS]


def _table(header: list[str], rows: list[list[str]]) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>" for row in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


def _groups(rows: list[GroupRow]) -> str:
    return _table(
        ["group", "tasks", *map(cell_label, _COLUMNS)],
        [
            [html.escape(r.group), str(r.tasks), *(percent(r.rates.get(c)) for c in _COLUMNS)]
            for r in rows
        ],
    )


def _dropped(report: Report) -> str:
    """The entry-repeats the statistics leave out, one row per missing cell."""
    if not report.dropped:
        return '<p class="meta">None: every entry-repeat finished in all four cells.</p>'
    rows = [
        [
            html.escape(f"{d.task_id} (seed {d.seed}, {d.lang})"),
            str(d.repeat),
            html.escape(f"{cell.policy}/{world_label(cell.world)}"),
            cell.reason,
            html.escape(cell.error or ""),
        ]
        for d in report.dropped
        for cell in d.cells
    ]
    note = (
        f'<p class="meta">{len(report.dropped)} entry-repeat(s) left out of every figure '
        f"({report.dropped_episodes} finished episode(s) with them), so that both policies "
        "and both worlds are compared on the same tasks.</p>"
    )
    return note + _table(["entry", "repeat", "cell", "reason", "error"], rows)


def _ci(text: str, degenerate: bool) -> str:
    flag = ' <span class="flag">zero width</span>' if degenerate else ""
    return f"95% CI {html.escape(text)}{flag}"


def _cards(report: Report) -> str:
    r, sim, phone = report.retention, report.sim_gain_interval, report.real_gain_interval
    where = "virtual phone" if report.device_backend == "virtual" else "real phone"
    pts = "—" if report.real_gain is None else f"{100 * report.real_gain:+.1f} pt"
    cards = [
        (
            "sim gain",
            "—" if report.sim_gain is None else f"{100 * report.sim_gain:+.1f} pt",
            _ci(gain_interval(sim), sim is not None and sim.degenerate),
            "trained − base, simulator",
        ),
        (
            "phone gain",
            pts,
            _ci(gain_interval(phone), phone is not None and phone.degenerate),
            f"trained − base, {where}",
        ),
        (
            "retention",
            "undefined" if r.value is None else f"{100 * r.value:.1f}%",
            html.escape(retention_interval(r))
            if r.value is None
            else _ci(retention_interval(r), r.degenerate),
            "phone gain / sim gain",
        ),
        (
            "sim–phone agreement",
            percent(report.agreement),
            ""
            if report.class_agreement is None
            else f"{percent(report.class_agreement)} in the same outcome class",
            "paired episodes that succeed in both worlds or neither",
        ),
        (
            "start-state parity",
            "—"
            if report.start_parity is None or report.start_parity.rate is None
            else f"{100 * report.start_parity.rate:.0f}%",
            ""
            if report.start_parity is None
            else f"{report.start_parity.same} of {report.start_parity.compared} pairs",
            "pairs whose cells started from the same phone",
        ),
    ]
    return "".join(
        f'<div class="card"><div class="k">{k}</div><div class="v">{v}</div>'
        f'<div class="ci">{ci}</div><div class="sub">{html.escape(sub)}</div></div>'
        for k, v, ci, sub in cards
    )


def _endings(report: Report) -> str:
    """How each policy's episodes ended in each world, success first."""
    rows = [
        [html.escape(policy), world_label(world), *ending_cells(report, key)]
        for key in _COLUMNS
        for policy, _, world in [key.partition("/")]
    ]
    note = f'<p class="meta">{html.escape(ENDING_NOTE)}</p>'
    return (
        _table(["policy", "world", *ENDING_COLUMNS], rows).replace(
            "<table>", '<table class="endings">', 1
        )
        + note
    )


def _caveats(report: Report) -> str:
    if not report.caveats:
        return ""
    items = "".join(
        f"<li><b>{CAVEAT_TITLES[c.kind]}.</b> {html.escape(c.text)}</li>" for c in report.caveats
    )
    title = '<div class="title">Read with care</div>'
    return f'<div class="caveats" id="caveats">{title}<ul>{items}</ul></div>'


def _replay_links(row: TaskRow) -> str:
    return " · ".join(
        f'<a href="{html.escape(row.replays[role])}">{role}</a>'
        for role in POLICIES
        if role in row.replays
    )


def _tasks(report: Report) -> str:
    rows = [
        [
            html.escape(t.task_id),
            f'<span class="bucket {t.bucket}">{t.bucket}</span>',
            *(percent(t.rates.get(c)) for c in _COLUMNS),
            percent(t.agreement),
            _replay_links(t),
        ]
        for t in report.per_task
    ]
    return _table(["task", "bucket", *map(cell_label, _COLUMNS), "agreement", "replays"], rows)


def _fingerprint(report: Report) -> str:
    """Base and trained harness details side by side; rows that differ are marked."""
    if not report.fingerprint:
        return '<p class="meta">Not recorded (a run made before fingerprints).</p>'
    rows = "".join(
        f'<tr class="{"same" if same else "differs"}"><td>{html.escape(what)}</td>'
        f"<td><code>{html.escape(base)}</code></td><td><code>{html.escape(trained)}</code></td>"
        "</tr>"
        for what, base, trained, same in fingerprint_rows(report)
    )
    head = "<tr><th>what</th><th>base</th><th>trained</th></tr>"
    return f'<table class="fingerprint">{head}{rows}</table>'


def _footer(versions: Mapping[str, str] | None) -> str:
    rows = "".join(
        f"<tr><td>{html.escape(what)}</td><td><code>{html.escape(value)}</code></td></tr>"
        for what, value in provenance(versions)
    )
    return f'<table class="provenance">{rows}</table>'


def _start_parity(report: Report) -> str:
    """The start-state parity sentence and the pairs that did not start the same."""
    parity = report.start_parity
    if parity is None:
        return '<p class="meta">Not recorded (a run made before start states were).</p>'
    sentence = parity.sentence()
    text = f"<p>{html.escape(sentence[0].upper() + sentence[1:])}</p>"
    rows = [[html.escape(cell) for cell in row] for row in parity.rows()]
    return text + (_table(["pair", "observable state", "first screen"], rows) if rows else "")


def render_html(report: Report, versions: Mapping[str, str] | None = None) -> str:
    """The whole report page; ``versions`` (the run manifest's) make its footer."""
    template = resources.files(__package__).joinpath("templates", "report.html").read_text("utf-8")
    virtual = report.device_backend == "virtual"
    return Template(template).substitute(
        meta=html.escape(
            f"base {report.base} · trained {report.trained} · suite {report.suite}"
            f" · {report.tasks} tasks × {report.repeats} "
            f"repeat{'s' if report.repeats != 1 else ''} · "
            f"{report.episodes} episodes · {report.infra_errors} infra errors · "
            f"{len(report.dropped)} entry-repeats dropped"
        ),
        backend_class="virtual" if virtual else "device",
        backend_banner=html.escape(f"Phone side: {backend_label(report)}"),
        headline=html.escape(headline(report)),
        definition=html.escape(report.success_means),
        endings=_endings(report),
        caveats=_caveats(report),
        cards=_cards(report),
        bars=bars(report),
        scatter=scatter(report),
        buckets=_table(
            ["bucket", "tasks", *map(cell_label, _COLUMNS)],
            [
                [
                    f'<span class="bucket {b.bucket}">{b.bucket}</span>',
                    str(b.tasks),
                    *(percent(b.rates.get(c)) for c in _COLUMNS),
                ]
                for b in report.buckets
            ],
        ),
        mcnemar=_table(
            ["world", "base only", "trained only", "p (exact)"],
            [
                [world_label(m.world), str(m.base_only), str(m.trained_only), f"{m.p_value:.4f}"]
                for m in report.mcnemar
            ],
        ),
        start_parity=_start_parity(report),
        levels=_groups(report.levels),
        apps=_groups(report.apps),
        tasks=_tasks(report),
        dropped=_dropped(report),
        fingerprint=_fingerprint(report),
        footer=_footer(versions),
    )
