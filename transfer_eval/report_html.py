"""``report.html``: a self-contained page (inline SVG charts, no scripts, no network).

It shows the headline with intervals, a bar chart of success per policy and world, a
scatter of each task's sim gain against its real gain, the bucket table, a link per task
to its side-by-side replay, and the suite entry-repeats left out of every figure (a cell
that ended as ``infra_error`` or never ran), with the cell and its error. A run on the
virtual phone says so in a banner.
"""

from __future__ import annotations

import html
from importlib import resources
from string import Template

from transfer_eval.report import GroupRow, Report
from transfer_eval.report_md import backend_label, headline
from transfer_eval.stats import POLICIES, WORLDS

__all__ = ["render_html"]

_COLORS = {"base": "#9aa5b1", "trained": "#1f6feb"}
_COLUMNS = [f"{p}/{w}" for p in POLICIES for w in WORLDS]


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.1f}%"


def _bars(report: Report) -> str:
    """Grouped bars: for each world, base and trained with their Wilson intervals."""
    width, height, top, bottom = 460, 260, 20, 40
    plot = height - top - bottom
    parts = [
        f'<svg viewBox="0 0 {width} {height}" width="100%" role="img" aria-label="success rates">'
    ]
    for tick in (0, 25, 50, 75, 100):
        y = top + plot * (1 - tick / 100)
        parts.append(
            f'<line x1="40" x2="{width - 10}" y1="{y:.1f}" y2="{y:.1f}" stroke="#e6e8eb"/>'
            f'<text x="34" y="{y + 4:.1f}" font-size="11" text-anchor="end">{tick}%</text>'
        )
    for w_index, world in enumerate(WORLDS):
        for p_index, policy in enumerate(POLICIES):
            summary = report.rates[f"{policy}/{world}"]
            x = 70 + w_index * 200 + p_index * 70
            value, low, high = summary.rate.value, summary.rate.low, summary.rate.high
            y = top + plot * (1 - value)
            parts.append(
                f'<rect x="{x}" y="{y:.1f}" width="56" height="{top + plot - y:.1f}" '
                f'fill="{_COLORS[policy]}"><title>{policy} {world}: {_pct(value)}</title></rect>'
                f'<line x1="{x + 28}" x2="{x + 28}" y1="{top + plot * (1 - high):.1f}" '
                f'y2="{top + plot * (1 - low):.1f}" stroke="#222" stroke-width="2"/>'
                f'<text x="{x + 28}" y="{top + plot * (1 - high) - 5:.1f}" font-size="12" '
                f'text-anchor="middle">{_pct(value)}</text>'
                f'<text x="{x + 28}" y="{height - 22}" font-size="11" text-anchor="middle">'
                f"{policy}</text>"
            )
        label = "simulator" if world == "sim" else "phone"
        parts.append(
            f'<text x="{133 + w_index * 200}" y="{height - 6}" font-size="13" '
            f'font-weight="700" text-anchor="middle">{label}</text>'
        )
    return "".join(parts) + "</svg>"


def _scatter(report: Report) -> str:
    """Each task's sim gain (x) against real gain (y), both in [-1, 1]."""
    size, pad = 260, 34
    scale = (size - 2 * pad) / 2

    def px(v: float) -> float:
        return pad + (v + 1) * scale

    parts = [
        f'<svg viewBox="0 0 {size + 200} {size}" width="100%" role="img" aria-label="gains">',
        f'<rect x="{pad}" y="{pad}" width="{2 * scale}" height="{2 * scale}" fill="none" '
        'stroke="#ccc"/>',
        f'<line x1="{px(-1)}" y1="{size - px(-1)}" x2="{px(1)}" y2="{size - px(1)}" '
        'stroke="#bbb" stroke-dasharray="4 3"/>',
        f'<text x="{size / 2}" y="{size - 6}" font-size="12" text-anchor="middle">sim gain</text>',
        f'<text x="10" y="{size / 2}" font-size="12" transform="rotate(-90 10 {size / 2})" '
        'text-anchor="middle">real gain</text>',
    ]
    for tick in (-1.0, 0.0, 1.0):
        parts.append(
            f'<line x1="{px(tick):.1f}" x2="{px(tick):.1f}" y1="{pad}" y2="{size - pad}" '
            f'stroke="#eee"/><line y1="{size - px(tick):.1f}" y2="{size - px(tick):.1f}" '
            f'x1="{pad}" x2="{size - pad}" stroke="#eee"/>'
            f'<text x="{px(tick):.1f}" y="{size - pad + 14}" font-size="10" '
            f'text-anchor="middle">{100 * tick:+.0f}</text>'
            f'<text x="{pad - 4}" y="{size - px(tick) + 3:.1f}" font-size="10" '
            f'text-anchor="end">{100 * tick:+.0f}</text>'
        )
    for row in report.per_task:
        if row.sim_gain is None or row.real_gain is None:
            continue
        parts.append(
            f'<circle cx="{px(row.sim_gain):.1f}" cy="{size - px(row.real_gain):.1f}" '
            f'r="5" fill="#1f6feb" fill-opacity="0.6"><title>{html.escape(row.task_id)}'
            f": sim {row.sim_gain:+.2f}, real {row.real_gain:+.2f}</title></circle>"
        )
    parts.append(
        f'<text x="{size + 10}" y="{pad + 12}" font-size="12">dashed: full retention</text>'
    )
    return "".join(parts) + "</svg>"


def _table(header: list[str], rows: list[list[str]]) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>" for row in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


def _groups(rows: list[GroupRow]) -> str:
    return _table(
        ["group", "tasks", *_COLUMNS],
        [
            [html.escape(r.group), str(r.tasks), *(_pct(r.rates.get(c)) for c in _COLUMNS)]
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
            html.escape(f"{cell.policy}/{cell.world}"),
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


def _cards(report: Report) -> str:
    r = report.retention
    retention = "undefined" if r.value is None else f"{100 * r.value:.1f}%"
    ci = (
        html.escape(r.undefined_reason or "")
        if r.value is None
        else f"95% CI {100 * (r.low or 0):.1f}%–{100 * (r.high or 0):.1f}%"
    )
    cards = [
        ("sim gain", f"{100 * (report.sim_gain or 0):+.1f} pt", "trained − base"),
        ("real gain", f"{100 * (report.real_gain or 0):+.1f} pt", backend_label(report)),
        ("retention", retention, ci),
        ("sim–real agreement", _pct(report.agreement), "of paired outcomes"),
    ]
    return "".join(
        f'<div class="card"><div class="k">{k}</div><div class="v">{v}</div>'
        f'<div class="ci">{html.escape(c) if k != "retention" else c}</div></div>'
        for k, v, c in cards
    )


def render_html(report: Report) -> str:
    """The whole report page."""
    template = resources.files(__package__).joinpath("templates", "report.html").read_text("utf-8")
    virtual = report.device_backend == "virtual"
    tasks = [
        [
            html.escape(t.task_id),
            t.bucket,
            *(_pct(t.rates.get(c)) for c in _COLUMNS),
            _pct(t.agreement),
            f'<a href="{html.escape(t.replay)}">replay</a>' if t.replay else "",
        ]
        for t in report.per_task
    ]
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
        cards=_cards(report),
        bars=_bars(report),
        scatter=_scatter(report),
        buckets=_table(
            ["bucket", "tasks", *_COLUMNS],
            [
                [b.bucket, str(b.tasks), *(_pct(b.rates.get(c)) for c in _COLUMNS)]
                for b in report.buckets
            ],
        ),
        mcnemar=_table(
            ["world", "base only", "trained only", "p (exact)"],
            [
                [m.world, str(m.base_only), str(m.trained_only), f"{m.p_value:.4f}"]
                for m in report.mcnemar
            ],
        ),
        levels=_groups(report.levels),
        apps=_groups(report.apps),
        tasks=_table(["task", "bucket", *_COLUMNS, "agreement", ""], tasks),
        dropped=_dropped(report),
    )
