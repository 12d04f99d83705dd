"""The report page's charts as inline SVG (no scripts, no network): success per policy and
world with Wilson intervals, and every task's sim gain against its phone gain (tasks on the
same point drawn as one larger dot with their count) with the overall gains' intervals.
"""

from __future__ import annotations

import html
import math
from collections import defaultdict

from transfer_eval.report import Report, TaskRow
from transfer_eval.report_md import gain_interval, percent, world_label
from transfer_eval.stats import POLICIES, WORLDS, Interval

__all__ = ["bars", "scatter"]

_COLORS = {"base": "#9aa5b1", "trained": "#1f6feb"}
_MEAN = "#d9480f"


def bars(report: Report) -> str:
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
                f'fill="{_COLORS[policy]}"><title>{policy} {world_label(world)}: {percent(value)} '
                f"({summary.successes}/{summary.episodes})</title></rect>"
                f'<line x1="{x + 28}" x2="{x + 28}" y1="{top + plot * (1 - high):.1f}" '
                f'y2="{top + plot * (1 - low):.1f}" stroke="#222" stroke-width="2"/>'
                f'<text x="{x + 28}" y="{top + plot * (1 - high) - 5:.1f}" font-size="12" '
                f'text-anchor="middle">{percent(value)}</text>'
                f'<text x="{x + 28}" y="{height - 22}" font-size="11" text-anchor="middle">'
                f"{policy}</text>"
            )
        label = "simulator" if world == "sim" else "phone"
        parts.append(
            f'<text x="{133 + w_index * 200}" y="{height - 6}" font-size="13" '
            f'font-weight="700" text-anchor="middle">{label}</text>'
        )
    return "".join(parts) + "</svg>"


_SIZE, _PAD = 280, 40
_SCALE = (_SIZE - 2 * _PAD) / 2


def _px(value: float) -> float:
    """A gain in [-1, 1] as an x coordinate (``_SIZE - _px(v)`` for y)."""
    return _PAD + (max(-1.0, min(1.0, value)) + 1) * _SCALE


def _tick(value: float) -> str:
    return "0" if value == 0 else f"{100 * value:+.0f}"


def _scatter_frame() -> list[str]:
    size, pad = _SIZE, _PAD
    parts = [
        f'<rect x="{pad}" y="{pad}" width="{2 * _SCALE}" height="{2 * _SCALE}" fill="none" '
        'stroke="#ccc"/>',
        f'<line x1="{_px(-1)}" y1="{size - _px(-1)}" x2="{_px(1)}" y2="{size - _px(1)}" '
        'stroke="#bbb" stroke-dasharray="4 3"/>',
        f'<text x="{size / 2}" y="{size - 6}" font-size="12" text-anchor="middle">'
        "sim gain (pt)</text>",
        f'<text x="12" y="{size / 2}" font-size="12" transform="rotate(-90 12 {size / 2})" '
        'text-anchor="middle">phone gain (pt)</text>',
    ]
    for tick in (-1.0, -0.5, 0.0, 0.5, 1.0):
        parts.append(
            f'<line x1="{_px(tick):.1f}" x2="{_px(tick):.1f}" y1="{pad}" y2="{size - pad}" '
            f'stroke="#eee"/><line y1="{size - _px(tick):.1f}" y2="{size - _px(tick):.1f}" '
            f'x1="{pad}" x2="{size - pad}" stroke="#eee"/>'
            f'<text x="{_px(tick):.1f}" y="{size - pad + 14}" font-size="10" '
            f'text-anchor="middle">{_tick(tick)}</text>'
            f'<text x="{pad - 4}" y="{size - _px(tick) + 3:.1f}" font-size="10" '
            f'text-anchor="end">{_tick(tick)}</text>'
        )
    return parts


def _spots(rows: list[TaskRow]) -> dict[tuple[float, float], list[str]]:
    """The tasks at each distinct (sim gain, phone gain)."""
    spots: dict[tuple[float, float], list[str]] = defaultdict(list)
    for row in rows:
        if row.sim_gain is not None and row.real_gain is not None:
            spots[(round(row.sim_gain, 6), round(row.real_gain, 6))].append(row.task_id)
    return dict(sorted(spots.items()))


def _points(spots: dict[tuple[float, float], list[str]]) -> list[str]:
    """One dot per distinct point, its area growing with the tasks on it, so that no task
    hides behind another (the tooltip names them; :func:`_counts` writes how many)."""
    parts = []
    for (sim, phone), names in spots.items():
        count = len(names)
        shown = ", ".join(names[:12]) + (f" and {count - 12} more" if count > 12 else "")
        parts.append(
            f'<g class="spot"><circle cx="{_px(sim):.1f}" cy="{_SIZE - _px(phone):.1f}" '
            f'r="{_radius(count):.1f}" fill="#1f6feb" fill-opacity="0.55" stroke="#1f6feb"/>'
            f"<title>{count} task{'s' if count != 1 else ''} at sim {100 * sim:+.0f} pt, "
            f"phone {100 * phone:+.0f} pt: {html.escape(shown)}</title></g>"
        )
    return parts


def _radius(count: int) -> float:
    return min(22.0, 6 + 4 * math.sqrt(count - 1))


def _counts(spots: dict[tuple[float, float], list[str]]) -> list[str]:
    """The number of tasks on each shared point, above its dot, drawn last so that nothing
    covers it."""
    return [
        f'<text x="{_px(sim):.1f}" y="{_SIZE - _px(phone) - _radius(len(names)) - 4:.1f}" '
        f'font-size="12" font-weight="700" fill="#1a4fa0" text-anchor="middle">'
        f"{len(names)}</text>"
        for (sim, phone), names in spots.items()
        if len(names) > 1
    ]


def _mean_mark(sim: Interval | None, phone: Interval | None) -> list[str]:
    """The overall gains as a diamond with their bootstrap intervals as whiskers."""
    if sim is None or phone is None or math.isnan(sim.low) or math.isnan(phone.low):
        return []
    x, y = _px(sim.value), _SIZE - _px(phone.value)
    return [
        f'<g class="mean"><line x1="{_px(sim.low):.1f}" x2="{_px(sim.high):.1f}" y1="{y:.1f}" '
        f'y2="{y:.1f}" stroke="{_MEAN}" stroke-width="2"/>'
        f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{_SIZE - _px(phone.low):.1f}" '
        f'y2="{_SIZE - _px(phone.high):.1f}" stroke="{_MEAN}" stroke-width="2"/>'
        f'<rect x="{x - 7:.1f}" y="{y - 7:.1f}" width="14" height="14" fill="none" '
        f'stroke="{_MEAN}" stroke-width="2.5" transform="rotate(45 {x:.1f} {y:.1f})"/>'
        f"<title>overall: sim {100 * sim.value:+.1f} pt ({gain_interval(sim)}), "
        f"phone {100 * phone.value:+.1f} pt ({gain_interval(phone)})</title></g>"
    ]


def scatter(report: Report) -> str:
    """Every task's sim gain (x) against its phone gain (y), both in [-1, 1], and the
    overall gains with their intervals."""
    legend_x = _SIZE + 14
    spots = _spots(report.per_task)
    legend = (
        f'<circle cx="{legend_x + 6}" cy="{_PAD + 8}" r="6" fill="#1f6feb" fill-opacity="0.55"/>'
        f'<text x="{legend_x + 18}" y="{_PAD + 12}" font-size="12">a task (a number: that many'
        "</text>"
        f'<text x="{legend_x + 18}" y="{_PAD + 27}" font-size="12">tasks on one point)</text>'
        f'<rect x="{legend_x + 1}" y="{_PAD + 42}" width="10" height="10" fill="none" '
        f'stroke="{_MEAN}" stroke-width="2" '
        f'transform="rotate(45 {legend_x + 6} {_PAD + 47})"/>'
        f'<text x="{legend_x + 18}" y="{_PAD + 51}" font-size="12">overall gain, 95% CI</text>'
        f'<line x1="{legend_x}" x2="{legend_x + 12}" y1="{_PAD + 70}" y2="{_PAD + 70}" '
        'stroke="#bbb" stroke-dasharray="4 3"/>'
        f'<text x="{legend_x + 18}" y="{_PAD + 74}" font-size="12">full retention</text>'
    )
    return (
        f'<svg viewBox="0 0 {_SIZE + 190} {_SIZE}" width="100%" role="img" '
        'aria-label="sim gain against phone gain per task">'
        + "".join(_scatter_frame())
        + "".join(_points(spots))
        + "".join(_mean_mark(report.sim_gain_interval, report.real_gain_interval))
        + "".join(_counts(spots))
        + legend
        + "</svg>"
    )
