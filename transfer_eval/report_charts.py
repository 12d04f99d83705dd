"""The report page's charts as data for the SVG macros of ``templates/charts.html`` (no
scripts, no network): success per policy and world with Wilson intervals, and every task's
sim gain against its phone gain (tasks on the same point drawn as one larger dot with their
count) with the overall gains' intervals. Coordinates are in the SVG's own units.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass

from transfer_eval.report import Report, TaskRow
from transfer_eval.report_md import gain_interval, percent, world_label
from transfer_eval.stats import POLICIES, WORLDS, Interval

__all__ = ["BarChart", "ScatterChart", "bars", "scatter"]

_COLORS = {"base": "#9aa5b1", "trained": "#1f6feb"}
_MEAN = "#d9480f"


@dataclass(frozen=True)
class Bar:
    """One policy's bar in one world: its top ``y``, its interval's ``high`` and ``low``
    ends (as y), its value in words and its tooltip."""

    x: int
    y: float
    high: float
    low: float
    colour: str
    policy: str
    value: str
    title: str


@dataclass(frozen=True)
class BarGroup:
    """A world's bars and its label under them at ``x``."""

    label: str
    x: int
    bars: tuple[Bar, ...]


@dataclass(frozen=True)
class BarChart:
    """Grouped bars of success, a group per world; ``base``: the y of 0%."""

    width: int
    height: int
    base: float
    ticks: tuple[tuple[float, int], ...]
    """(y, percent) of each grid line."""
    groups: tuple[BarGroup, ...]


def _bar(report: Report, policy: str, world: str, x: int, top: int, plot: int) -> Bar:
    summary = report.rates[f"{policy}/{world}"]
    value, low, high = summary.rate.value, summary.rate.low, summary.rate.high
    return Bar(
        x=x,
        y=top + plot * (1 - value),
        high=top + plot * (1 - high),
        low=top + plot * (1 - low),
        colour=_COLORS[policy],
        policy=policy,
        value=percent(value),
        title=f"{policy} {world_label(report, world)}: {percent(value)} "
        f"({summary.successes}/{summary.episodes})",
    )


def _group_label(report: Report, world: str) -> str:
    """``simulator``, ``phone`` or ``MobileGym`` under a world's bars."""
    name = report.names.name(world)
    return "simulator" if name == "sim" else name


def bars(report: Report) -> BarChart:
    """Grouped bars: for each world, base and trained with their Wilson intervals."""
    width, height, top, bottom = 460, 260, 20, 40
    plot = height - top - bottom
    groups = tuple(
        BarGroup(
            label=_group_label(report, world),
            x=133 + w_index * 200,
            bars=tuple(
                _bar(report, policy, world, 70 + w_index * 200 + p_index * 70, top, plot)
                for p_index, policy in enumerate(POLICIES)
            ),
        )
        for w_index, world in enumerate(WORLDS)
    )
    ticks = tuple((top + plot * (1 - tick / 100), tick) for tick in (0, 25, 50, 75, 100))
    return BarChart(width, height, top + plot, ticks, groups)


_SIZE, _PAD = 280, 40
_SCALE = (_SIZE - 2 * _PAD) / 2


def _px(value: float) -> float:
    """A gain in [-1, 1] as an x coordinate (``_SIZE - _px(v)`` for y)."""
    return _PAD + (max(-1.0, min(1.0, value)) + 1) * _SCALE


def _tick(value: float) -> str:
    return "0" if value == 0 else f"{100 * value:+.0f}"


@dataclass(frozen=True)
class Spot:
    """The tasks at one distinct point, as one dot whose area grows with their count."""

    x: float
    y: float
    radius: float
    count: int
    title: str


@dataclass(frozen=True)
class MeanMark:
    """The overall gains as a diamond at (x, y) with their bootstrap intervals as whiskers."""

    x: float
    y: float
    left: float
    right: float
    bottom: float
    top: float
    title: str


@dataclass(frozen=True)
class ScatterChart:
    """Every task's sim gain (x) against its phone gain (y), both in [-1, 1]."""

    size: int
    pad: int
    low: float
    """Where -1 is (x; ``size - low`` is its y), the plot's corner."""
    high: float
    """Where +1 is."""
    ticks: tuple[tuple[float, str], ...]
    """(x of the gain, its label); the y of a gain is ``size - x``."""
    spots: tuple[Spot, ...]
    mean: MeanMark | None
    x_name: str
    """The world of the x axis's gain, as the pages name it; ``y_name`` the y axis's."""
    y_name: str
    legend_x: int
    mean_colour: str = _MEAN


def _spots(rows: list[TaskRow]) -> dict[tuple[float, float], list[str]]:
    """The tasks at each distinct (sim gain, phone gain)."""
    spots: dict[tuple[float, float], list[str]] = defaultdict(list)
    for row in rows:
        if row.sim_gain is not None and row.real_gain is not None:
            spots[(round(row.sim_gain, 6), round(row.real_gain, 6))].append(row.task_id)
    return dict(sorted(spots.items()))


def _radius(count: int) -> float:
    return min(22.0, 6 + 4 * math.sqrt(count - 1))


def _spot(sim: float, phone: float, names: list[str]) -> Spot:
    """One dot per distinct point, so that no task hides behind another (the tooltip names
    them; the chart writes how many above a shared point)."""
    count = len(names)
    shown = ", ".join(names[:12]) + (f" and {count - 12} more" if count > 12 else "")
    title = (
        f"{count} task{'s' if count != 1 else ''} at sim {100 * sim:+.0f} pt, "
        f"phone {100 * phone:+.0f} pt: {shown}"
    )
    return Spot(_px(sim), _SIZE - _px(phone), _radius(count), count, title)


def _mean_mark(sim: Interval | None, phone: Interval | None) -> MeanMark | None:
    if sim is None or phone is None or math.isnan(sim.low) or math.isnan(phone.low):
        return None
    return MeanMark(
        x=_px(sim.value),
        y=_SIZE - _px(phone.value),
        left=_px(sim.low),
        right=_px(sim.high),
        bottom=_SIZE - _px(phone.low),
        top=_SIZE - _px(phone.high),
        title=f"overall: sim {100 * sim.value:+.1f} pt ({gain_interval(sim)}), "
        f"phone {100 * phone.value:+.1f} pt ({gain_interval(phone)})",
    )


def scatter(report: Report) -> ScatterChart:
    """Every task's sim gain (x) against its phone gain (y), both in [-1, 1], and the
    overall gains with their intervals."""
    spots = _spots(report.per_task)
    return ScatterChart(
        size=_SIZE,
        pad=_PAD,
        low=_px(-1),
        high=_px(1),
        ticks=tuple((_px(t), _tick(t)) for t in (-1.0, -0.5, 0.0, 0.5, 1.0)),
        spots=tuple(_spot(sim, phone, names) for (sim, phone), names in spots.items()),
        mean=_mean_mark(report.sim_gain_interval, report.real_gain_interval),
        legend_x=_SIZE + 14,
        x_name=report.names.name("sim"),
        y_name=report.names.name("real"),
    )
