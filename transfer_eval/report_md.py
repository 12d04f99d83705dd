"""``report.md``: the headline first, then the tables, for a terminal or a pull request.

Also what the HTML page and the terminal share with it: how the two worlds are named
(:class:`~transfer_eval.world_names.PairNames`: "sim" or "MobileGym", "phone" or "MobileGym"
— the JSON keys say ``sim`` and ``real``), the headline, what success means and how
else the episodes ended, the caveat titles, the run's provenance and the policies' harness
fingerprints side by side.
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import JsonValue

from transfer_eval.report import GroupRow, Report
from transfer_eval.stats import POLICIES, WORLDS, Interval, RetentionSummary

__all__ = [
    "CAVEAT_TITLES",
    "ENDING_COLUMNS",
    "ENDING_NOTE",
    "backend_label",
    "cell_label",
    "ending_cells",
    "fingerprint_rows",
    "gain_interval",
    "headline",
    "percent",
    "provenance",
    "render_markdown",
    "retention_interval",
    "terminal_headline",
    "world_label",
]

_COLUMNS = [f"{p}/{w}" for p in POLICIES for w in WORLDS]
CAVEAT_TITLES = {
    "few_tasks": "Few tasks",
    "not_significant": "Not significant",
    "degenerate_interval": "Zero-width interval",
    "clean_unknown": "Clean unknown",
    "start_differs": "Different starts",
    "virtual_phone": "Virtual phone",
    "mobilegym": "MobileGym",
}
"""A short title per :class:`~transfer_eval.caveats.Caveat` kind."""

ENDING_COLUMNS = (
    "success (95% CI)",
    "goal at budget",
    "false complete",
    "side effects",
    "clean unknown",
    "episodes",
)
"""The columns of :func:`ending_cells`, after the policy and the world."""
ENDING_NOTE = (
    "Goal at budget: the goal held but the step budget ended the episode. False complete: "
    "the agent said it was done and the goal did not hold. Side effects: the world saw "
    "something else change (in any episode). Clean unknown: episodes in which the world "
    "could not tell (not penalised). Shares of each row's episodes; infra errors are not "
    "episodes here."
)
"""What the columns after success count, in words (pages and report.md)."""


def world_label(report: Report, world: str) -> str:
    """``sim``, ``phone`` or ``MobileGym`` for a world key (``sim``, ``real``) of ``report``."""
    return report.names.name(world)


def cell_label(report: Report, key: str) -> str:
    """``trained/phone`` for a rates key such as ``trained/real``."""
    policy, _, world = key.partition("/")
    return f"{policy}/{world_label(report, world)}"


def percent(value: float | None) -> str:
    """``53.8%`` for a share (``—`` for None), as every page of the report writes one."""
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
    return f"{percent(summary.low)}–{percent(summary.high)}"


def backend_label(report: Report) -> str:
    """Where the checked side ran, said plainly."""
    if report.device_backend == "mobilegym":
        return "MobileGym (a MobileGym build, written by others; its tree derived from the page)"
    if report.device_backend == "virtual":
        gap = f", with {report.device_gap}" if report.device_gap else ""
        return f"the VIRTUAL phone (a simulator instance behind adb{gap} — not hardware)"
    return f"a real phone ({report.device_model or 'unknown model'})"


def ending_cells(report: Report, key: str) -> list[str]:
    """How the episodes of one ``policy/world`` key ended, as :data:`ENDING_COLUMNS`."""
    rate, ending = report.rates.get(key), report.endings.get(key)
    if rate is None or ending is None or not ending.episodes:
        return ["—"] * (len(ENDING_COLUMNS) - 1) + ["0"]
    success = f"{percent(rate.rate.value)} ({percent(rate.rate.low)}–{percent(rate.rate.high)})"
    return [
        success,
        percent(ending.share(ending.classes.get("goal_at_budget", 0))),
        percent(ending.share(ending.classes.get("false_complete", 0))),
        percent(ending.share(ending.side_effects)),
        str(ending.clean_unknown),
        str(ending.episodes),
    ]


def terminal_headline(report: Report) -> str:
    """What a terminal prints when a run is done: the headline, what success means, how
    each policy's episodes ended in each world, and the caveats' titles (their text is in
    report.md)."""
    lines = [headline(report), report.success_means]
    width = max(14, *(len(cell_label(report, key)) + 1 for key in _COLUMNS))
    for key in _COLUMNS:
        success, budget, false, effects, unknown, episodes = ending_cells(report, key)
        lines.append(
            f"  {cell_label(report, key):<{width}} success {success} · goal at budget {budget} · "
            f"false complete {false} · side effects {effects} · clean unknown {unknown} "
            f"· {episodes} episodes"
        )
    if report.start_parity is not None and report.start_parity.rate is not None:
        sentence = report.start_parity.sentence()
        lines.append(sentence[0].upper() + sentence[1:])
    if report.caveats:
        titles = "; ".join(CAVEAT_TITLES[c.kind].lower() for c in report.caveats)
        lines.append(f"Read with care ({len(report.caveats)}, see report.md): {titles}.")
    return "\n".join(lines)


def headline(report: Report) -> str:
    """One sentence with the success gains, the retention and its interval."""
    r = report.retention
    gained = "simulator" if report.sim_backend == "sim" else "MobileGym"
    if r.value is None:
        retained = f"retention is undefined: {r.undefined_reason}"
    else:
        retained = (
            f"{100 * r.value:.1f}% of the {gained} gain was retained "
            f"(95% CI {retention_interval(r)}, entry-level bootstrap)"
        )
    checked = backend_label(report)
    where = "in" if report.device_backend == "mobilegym" else "on"
    return (
        f"Trained vs base gained {_pts(report.sim_gain)} of success {report.names.place('sim')} "
        f"and {_pts(report.real_gain)} {where} {checked}: {retained}."
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

    def label(key: str) -> str:  # the pages name the worlds (the JSON says sim and real)
        key = key.replace("observed › sim", f"observed › {report.names.name('sim')}", 1)
        return key.replace("observed › real", f"observed › {report.names.name('real')}", 1)

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


def _group_table(report: Report, title: str, rows: list[GroupRow]) -> list[str]:
    lines = [
        f"## {title}",
        "",
        "| group | tasks | " + " | ".join(cell_label(report, c) for c in _COLUMNS) + " |",
        "|---|---|" + "---|" * len(_COLUMNS),
    ]
    for row in rows:
        cells = " | ".join(percent(row.rates.get(c)) for c in _COLUMNS)
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
    sim, real = (f"{report.names.name(world)} gain" for world in ("sim", "real"))
    return [
        "## Gains (trained − base; entry-level paired bootstrap, 95% intervals)",
        "",
        "| | value | 95% interval |",
        "|---|---|---|",
        f"| {sim} | {_pts(report.sim_gain)} | {gain_interval(report.sim_gain_interval)} |",
        f"| {real} | {_pts(report.real_gain)} | {gain_interval(report.real_gain_interval)} |",
        f"| retention ({real} / {sim}) | {percent(r.value)} | {retention_interval(r)} |",
        "",
    ]


def _endings(report: Report) -> list[str]:
    """What success means, and how each policy's episodes ended in each world."""
    lines = [
        f"**{report.success_means}** How the episodes ended (success with its Wilson 95% "
        "interval):",
        "",
        "| policy | world | " + " | ".join(ENDING_COLUMNS) + " |",
        "|---|---|" + "---|" * len(ENDING_COLUMNS),
    ]
    for key in _COLUMNS:
        policy, _, world = key.partition("/")
        lines.append(
            f"| {policy} | {world_label(report, world)} | {' | '.join(ending_cells(report, key))} |"
        )
    return [*lines, "", ENDING_NOTE, ""]


def _agreement(report: Report) -> str:
    """The agreement of the two worlds in words: on success, and on the outcome class."""
    same = (
        ""
        if report.class_agreement is None
        else f"; {percent(report.class_agreement)} end in the same outcome class"
    )
    return (
        f"{_agreement_name(report)}: {percent(report.agreement)} of paired episodes succeed "
        f"in both worlds or in neither{same}."
    )


def _agreement_name(report: Report) -> str:
    """``Sim–phone agreement`` (or the worlds' names: ``Sim–MobileGym agreement``)."""
    sim, real = report.names.name("sim"), report.names.name("real")
    return f"{sim[0].upper()}{sim[1:]}–{real} agreement"


def _not_posed(report: Report) -> list[str]:
    """The suite entries one world cannot pose, left out of both, with why."""
    if not report.not_posed:
        return []
    lines = [
        "## Not posed (left out of both worlds)",
        "",
        "| entry | why |",
        "|---|---|",
    ]
    lines += [f"| {label} | {_cell(why)} |" for label, why in sorted(report.not_posed.items())]
    return [*lines, ""]


def _rates(report: Report) -> list[str]:
    lines = [
        "## Trained vs base (McNemar, exact)",
        "",
        "| world | base only | trained only | p |",
        "|---|---|---|---|",
    ]
    lines += [
        f"| {world_label(report, m.world)} | {m.base_only} | {m.trained_only} | {m.p_value:.4f} |"
        for m in report.mcnemar
    ]
    return [*lines, "", _agreement(report), ""]


def _start_parity(report: Report) -> list[str]:
    """Whether each pair started from the same state, and the pairs that did not."""
    parity = report.start_parity
    if parity is None:
        return []
    sentence = parity.sentence()
    lines = ["## Start-state parity", "", sentence[0].upper() + sentence[1:], ""]
    rows = parity.rows()
    if rows:
        lines += ["| pair | observable state | first screen |", "|---|---|---|"]
        lines += [f"| {' | '.join(_cell(text) for text in row)} |" for row in rows]
        lines.append("")
    return lines


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _buckets(report: Report) -> list[str]:
    lines = [
        f"## Buckets (by {report.names.name('sim')} rates, as in the MobileGym paper; "
        "stable-fail: never solved)",
        "",
        "| bucket | tasks | " + " | ".join(cell_label(report, c) for c in _COLUMNS) + " |",
        "|---|---|" + "---|" * len(_COLUMNS),
    ]
    for row in report.buckets:
        cells = " | ".join(percent(row.rates.get(c)) for c in _COLUMNS)
        lines.append(f"| {row.bucket} | {row.tasks} | {cells} |")
    return [*lines, ""]


def _per_task(report: Report) -> list[str]:
    lines = [
        "## Per task",
        "",
        f"| task | bucket | {report.names.name('sim')} gain | {report.names.name('real')} gain "
        "| agreement | replays |",
        "|---|---|---|---|---|---|",
    ]
    for row in report.per_task:
        links = " · ".join(
            f"[{role}]({row.replays[role]})" for role in POLICIES if role in row.replays
        )
        lines.append(
            f"| {row.task_id} | {row.bucket} | {_pts(row.sim_gain)} | "
            f"{_pts(row.real_gain)} | {percent(row.agreement)} | {links} |"
        )
    return lines


def _footer(versions: Mapping[str, str] | None) -> list[str]:
    lines = ["", "---", "", "## Run", ""]
    return lines + [f"- {what}: `{value}`" for what, value in provenance(versions)]


def render_markdown(report: Report, versions: Mapping[str, str] | None = None) -> str:
    """The whole report as Markdown; ``versions`` (the run manifest's) make its footer."""
    lines = [
        f"# {report.names.title}",
        "",
        headline(report),
        "",
        *_endings(report),
        *_caveats(report),
        f"- base: `{report.base}`; trained: `{report.trained}`; suite `{report.suite}`, "
        f"{report.tasks} tasks x {report.repeats} repeat(s), {report.episodes} episodes; "
        f"{report.infra_errors} infra error(s) retried or excluded (never counted as "
        "failures)",
        "",
        *_gains(report),
        *_rates(report),
        *_start_parity(report),
        *_buckets(report),
        *_group_table(report, "By level", report.levels),
        *_group_table(report, "By app", report.apps),
        *_not_posed(report),
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
                f"{cell.policy}/{world_label(report, cell.world)} | {cell.reason} | {error} |"
            )
    return lines
