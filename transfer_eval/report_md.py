"""``report.md``: the headline first, then the tables, for a terminal or a pull request.

Also what the HTML page shares with it: how the phone side is named (always "phone" — the
JSON keys say ``real``), the headline, the caveat titles, the run's provenance and the
policies' harness fingerprints side by side.
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import JsonValue

from transfer_eval.report import GroupRow, Report
from transfer_eval.stats import POLICIES, WORLDS, Interval, RetentionSummary

__all__ = [
    "CAVEAT_TITLES",
    "backend_label",
    "cell_label",
    "fingerprint_rows",
    "gain_interval",
    "headline",
    "provenance",
    "render_markdown",
    "retention_interval",
    "world_label",
]

_COLUMNS = [f"{p}/{w}" for p in POLICIES for w in WORLDS]
_WORLD_LABELS = {"sim": "sim", "real": "phone"}
CAVEAT_TITLES = {
    "few_tasks": "Few tasks",
    "not_significant": "Not significant",
    "degenerate_interval": "Zero-width interval",
    "virtual_phone": "Virtual phone",
}
"""A short title per :class:`~transfer_eval.report.Caveat` kind."""


def world_label(world: str) -> str:
    """``sim`` or ``phone`` for a world key (``sim``, ``real``)."""
    return _WORLD_LABELS.get(world, world)


def cell_label(key: str) -> str:
    """``trained/phone`` for a rates key such as ``trained/real``."""
    policy, _, world = key.partition("/")
    return f"{policy}/{world_label(world)}"


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.1f}%"


def _pts(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:+.1f} pt"


def gain_interval(interval: Interval | None) -> str:
    """``+50.0 to +100.0 pt`` (``—`` without one)."""
    if interval is None:
        return "—"
    return f"{100 * interval.low:+.1f} to {100 * interval.high:+.1f} pt"


def retention_interval(summary: RetentionSummary) -> str:
    """``40.0%–120.0%``, or why retention is undefined."""
    if summary.value is None:
        return summary.undefined_reason or "undefined"
    return f"{_pct(summary.low)}–{_pct(summary.high)}"


def backend_label(report: Report) -> str:
    """Where the phone side ran, said plainly."""
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
            f"(95% CI {retention_interval(r)}, entry-level bootstrap)"
        )
    return (
        f"Trained vs base gained {_pts(report.sim_gain)} in the simulator and "
        f"{_pts(report.real_gain)} on {backend_label(report)}: {retained}."
    )


def provenance(versions: Mapping[str, str] | None) -> list[tuple[str, str]]:
    """The run's provenance from its manifest's ``versions``: (what, value) pairs."""
    versions = dict(versions or {})
    missing = "not recorded"
    checkpoints = [
        f"{key.removeprefix('checkpoint_')} {versions.pop(key)}"
        for key in sorted(versions)
        if key.startswith("checkpoint_")
    ]
    commit = versions.pop("git_commit", missing)
    if versions.pop("git_dirty", "no") == "yes":
        commit += " (with uncommitted changes)"
    command = versions.pop("command", None)
    learned = ", ".join(checkpoints) or ("none (no learned policy)" if command else missing)
    software = ", ".join(f"{name} {value}" for name, value in sorted(versions.items()))
    return [
        ("commit", commit),
        ("command", command or missing),
        ("checkpoints", learned),
        ("software", software or missing),
    ]


def _leaves(value: JsonValue, prefix: str = "") -> dict[str, str]:
    """Nested fingerprint values as ``a › b`` keys and display text (lists joined)."""
    if isinstance(value, dict):
        out: dict[str, str] = {}
        for key, item in value.items():
            out.update(_leaves(item, f"{prefix} › {key}" if prefix else key))
        return out
    if isinstance(value, list):
        return {prefix: "; ".join(str(item) for item in value) or "—"}
    if isinstance(value, bool):
        return {prefix: "yes" if value else "no"}
    return {prefix: "—" if value is None else str(value)}


def fingerprint_rows(report: Report) -> list[tuple[str, str, str, bool]]:
    """The fingerprints as (what, base, trained, same) rows, in key order: the spec and kind
    first, the observed worlds last."""
    base = _leaves(report.fingerprint.get("base", {}))
    trained = _leaves(report.fingerprint.get("trained", {}))

    def order(key: str) -> tuple[int, str]:
        head = key.split(" › ")[0]
        return ({"spec": 0, "kind": 1, "observed": 3}.get(head, 2), key)

    def label(key: str) -> str:  # the pages call the phone side "phone"
        return key.replace("observed › real", "observed › phone", 1)

    return [
        (label(key), base.get(key, "—"), trained.get(key, "—"), base.get(key) == trained.get(key))
        for key in sorted(base.keys() | trained.keys(), key=order)
    ]


def _fingerprint(report: Report) -> list[str]:
    if not report.fingerprint:
        return ["", "## Harness", "", "Not recorded (a run made before fingerprints)."]
    lines = ["", "## Harness", "", "| | base | trained |", "|---|---|---|"]
    for what, base, trained, _same in fingerprint_rows(report):
        base, trained = base.replace("|", "\\|"), trained.replace("|", "\\|")
        lines.append(f"| {what} | `{base}` | `{trained}` |")
    return lines


def _group_table(title: str, rows: list[GroupRow]) -> list[str]:
    lines = [
        f"## {title}",
        "",
        "| group | tasks | " + " | ".join(map(cell_label, _COLUMNS)) + " |",
        "|---|---|" + "---|" * len(_COLUMNS),
    ]
    for row in rows:
        cells = " | ".join(_pct(row.rates.get(c)) for c in _COLUMNS)
        lines.append(f"| {row.group} | {row.tasks} | {cells} |")
    return [*lines, ""]


def _caveats(report: Report) -> list[str]:
    if not report.caveats:
        return []
    lines = ["> **Read with care.**", ">"]
    lines += [f"> - **{CAVEAT_TITLES[c.kind]}.** {c.text}" for c in report.caveats]
    return [*lines, ""]


def _gains(report: Report) -> list[str]:
    r = report.retention
    return [
        "## Gains (trained − base; entry-level paired bootstrap, 95% intervals)",
        "",
        "| | value | 95% interval |",
        "|---|---|---|",
        f"| sim gain | {_pts(report.sim_gain)} | {gain_interval(report.sim_gain_interval)} |",
        f"| phone gain | {_pts(report.real_gain)} | {gain_interval(report.real_gain_interval)} |",
        f"| retention (phone gain / sim gain) | {_pct(r.value)} | {retention_interval(r)} |",
        "",
    ]


def _rates(report: Report) -> list[str]:
    lines = [
        "## Success rates (Wilson 95% intervals)",
        "",
        "| policy | world | rate | interval | episodes |",
        "|---|---|---|---|---|",
    ]
    for key, summary in report.rates.items():
        policy, world = key.split("/")
        interval = f"{_pct(summary.rate.low)}–{_pct(summary.rate.high)}"
        lines.append(
            f"| {policy} | {world_label(world)} | {_pct(summary.rate.value)} | {interval} | "
            f"{summary.episodes} |"
        )
    lines += [
        "",
        "## Trained vs base (McNemar, exact)",
        "",
        "| world | base only | trained only | p |",
        "|---|---|---|---|",
    ]
    lines += [
        f"| {world_label(m.world)} | {m.base_only} | {m.trained_only} | {m.p_value:.4f} |"
        for m in report.mcnemar
    ]
    return [*lines, "", f"Sim–phone agreement: {_pct(report.agreement)} of paired outcomes.", ""]


def _buckets(report: Report) -> list[str]:
    lines = [
        "## Buckets (by simulator rates, as in the MobileGym paper; stable-fail: never solved)",
        "",
        "| bucket | tasks | " + " | ".join(map(cell_label, _COLUMNS)) + " |",
        "|---|---|" + "---|" * len(_COLUMNS),
    ]
    for row in report.buckets:
        cells = " | ".join(_pct(row.rates.get(c)) for c in _COLUMNS)
        lines.append(f"| {row.bucket} | {row.tasks} | {cells} |")
    return [*lines, ""]


def _per_task(report: Report) -> list[str]:
    lines = [
        "## Per task",
        "",
        "| task | bucket | sim gain | phone gain | agreement | replays |",
        "|---|---|---|---|---|---|",
    ]
    for row in report.per_task:
        links = " · ".join(
            f"[{role}]({row.replays[role]})" for role in POLICIES if role in row.replays
        )
        lines.append(
            f"| {row.task_id} | {row.bucket} | {_pts(row.sim_gain)} | "
            f"{_pts(row.real_gain)} | {_pct(row.agreement)} | {links} |"
        )
    return lines


def _footer(versions: Mapping[str, str] | None) -> list[str]:
    lines = ["", "---", "", "## Run", ""]
    return lines + [f"- {what}: `{value}`" for what, value in provenance(versions)]


def render_markdown(report: Report, versions: Mapping[str, str] | None = None) -> str:
    """The whole report as Markdown; ``versions`` (the run manifest's) make its footer."""
    lines = [
        "# Sim-to-real transfer report",
        "",
        headline(report),
        "",
        *_caveats(report),
        f"- base: `{report.base}`; trained: `{report.trained}`; suite `{report.suite}`, "
        f"{report.tasks} tasks x {report.repeats} repeat(s), {report.episodes} episodes; "
        f"{report.infra_errors} infra error(s) retried or excluded (never counted as "
        "failures)",
        "",
        *_gains(report),
        *_rates(report),
        *_buckets(report),
        *_group_table("By level", report.levels),
        *_group_table("By app", report.apps),
        *_per_task(report),
        *_dropped(report),
        *_fingerprint(report),
        *_footer(versions),
    ]
    return "\n".join(lines) + "\n"


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
                f"{cell.policy}/{world_label(cell.world)} | {cell.reason} | {error} |"
            )
    return lines
