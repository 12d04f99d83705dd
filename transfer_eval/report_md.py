"""``report.md``: the headline first, then the tables, for a terminal or a pull request."""

from __future__ import annotations

from transfer_eval.report import GroupRow, Report
from transfer_eval.stats import POLICIES, WORLDS

__all__ = ["backend_label", "headline", "render_markdown"]

_COLUMNS = [f"{p}/{w}" for p in POLICIES for w in WORLDS]


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.1f}%"


def _pts(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:+.1f} pt"


def backend_label(report: Report) -> str:
    """Where the "real" world ran, said plainly."""
    if report.device_backend == "virtual":
        gap = f", with {report.device_gap}" if report.device_gap else ""
        return f"the VIRTUAL phone (a simulator instance behind adb{gap} — not hardware)"
    return f"a real phone ({report.device_model or 'unknown model'})"


def headline(report: Report) -> str:
    """One sentence with the retention and its interval."""
    r = report.retention
    if r.value is None:
        retained = f"retention is undefined: {r.undefined_reason}"
    else:
        retained = (
            f"{100 * r.value:.1f}% of the simulator gain was retained "
            f"(95% CI {100 * (r.low or 0):.1f}%–{100 * (r.high or 0):.1f}%, "
            "entry-level bootstrap)"
        )
    return (
        f"Trained vs base gained {_pts(report.sim_gain)} in the simulator and "
        f"{_pts(report.real_gain)} on {backend_label(report)}: {retained}."
    )


def _group_table(title: str, rows: list[GroupRow]) -> list[str]:
    lines = [
        f"## {title}",
        "",
        "| group | tasks | " + " | ".join(_COLUMNS) + " |",
        "|---|---|" + "---|" * len(_COLUMNS),
    ]
    for row in rows:
        cells = " | ".join(_pct(row.rates.get(c)) for c in _COLUMNS)
        lines.append(f"| {row.group} | {row.tasks} | {cells} |")
    return [*lines, ""]


def render_markdown(report: Report) -> str:
    """The whole report as Markdown."""
    lines = [
        "# Sim-to-real transfer report",
        "",
        headline(report),
        "",
        f"- base: `{report.base}`; trained: `{report.trained}`; suite `{report.suite}`, "
        f"{report.tasks} tasks x {report.repeats} repeat(s), {report.episodes} episodes; "
        f"{report.infra_errors} infra error(s) retried or excluded (never counted as "
        "failures)",
        "",
    ]
    lines += [
        "## Success rates (Wilson 95% intervals)",
        "",
        "| policy | world | rate | interval | episodes |",
        "|---|---|---|---|---|",
    ]
    for key, summary in report.rates.items():
        policy, world = key.split("/")
        interval = f"{_pct(summary.rate.low)}–{_pct(summary.rate.high)}"
        lines.append(
            f"| {policy} | {world} | {_pct(summary.rate.value)} | {interval} | {summary.episodes} |"
        )
    lines += [
        "",
        "## Trained vs base (McNemar, exact)",
        "",
        "| world | base only | trained only | p |",
        "|---|---|---|---|",
    ]
    lines += [
        f"| {m.world} | {m.base_only} | {m.trained_only} | {m.p_value:.4f} |"
        for m in report.mcnemar
    ]
    lines += ["", f"Sim–real agreement: {_pct(report.agreement)} of paired outcomes.", ""]
    lines += [
        "## Buckets (by simulator rates, as in the MobileGym paper)",
        "",
        "| bucket | tasks | " + " | ".join(_COLUMNS) + " |",
        "|---|---|" + "---|" * 4,
    ]
    for row in report.buckets:
        lines.append(
            f"| {row.bucket} | {row.tasks} | "
            + " | ".join(_pct(row.rates.get(c)) for c in _COLUMNS)
            + " |"
        )
    lines += ["", *_group_table("By level", report.levels), *_group_table("By app", report.apps)]
    lines += [
        "## Per task",
        "",
        "| task | bucket | sim gain | real gain | agreement | replay |",
        "|---|---|---|---|---|---|",
    ]
    for row in report.per_task:
        replay = f"[replay]({row.replay})" if row.replay else ""
        lines.append(
            f"| {row.task_id} | {row.bucket} | {_pts(row.sim_gain)} | "
            f"{_pts(row.real_gain)} | {_pct(row.agreement)} | {replay} |"
        )
    return "\n".join([*lines, *_dropped(report)]) + "\n"


def _dropped(report: Report) -> list[str]:
    """The entry-repeats left out of every statistic, with the cell and why."""
    if not report.dropped:
        return []
    lines = [
        "",
        "## Left out of the statistics (incomplete entries)",
        "",
        "| entry | repeat | cell | reason | error |",
        "|---|---|---|---|---|",
    ]
    for entry in report.dropped:
        for cell in entry.cells:
            error = (cell.error or "").replace("|", "\\|").replace("\n", " ")
            lines.append(
                f"| {entry.task_id} (seed {entry.seed}, {entry.lang}) | {entry.repeat} | "
                f"{cell.policy}/{cell.world} | {cell.reason} | {error} |"
            )
    return lines
