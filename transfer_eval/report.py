"""The paired-evaluation report as data: every number of ``report.json``, from the outcomes.

:func:`build_report` is pure: same outcomes, same seed → the same report, which is what
makes a resumed run's report identical to an uninterrupted one. Every figure is computed
over the *complete* suite entry-repeats only (all four cells finished, see
:func:`transfer_eval.stats.complete_entries`); the others are listed in ``dropped`` with
the cells they lack and why. Rendering to Markdown and HTML lives in ``report_md.py`` /
``report_html.py``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from transfer_eval.stats import (
    POLICIES,
    WORLDS,
    DroppedEntry,
    EntryKey,
    MissingCell,
    Outcome,
    RateSummary,
    RetentionSummary,
    agreement,
    bootstrap_retention,
    bucket,
    complete_entries,
    gain,
    mcnemar_p,
    rate,
)

__all__ = ["BucketRow", "GroupRow", "McNemar", "Report", "TaskRow", "build_report"]


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class McNemar(_Frozen):
    """Trained vs base in one world over paired cells."""

    world: str
    base_only: int
    trained_only: int
    p_value: float


class GroupRow(_Frozen):
    """Success rates of one level or app, per policy and world (None: no episode);
    ``tasks`` counts suite entries."""

    group: str
    tasks: int
    rates: dict[str, float | None]


class BucketRow(_Frozen):
    """A MobileGym-style bucket: how many suite entries, and the four rates."""

    bucket: str
    tasks: int
    rates: dict[str, float | None]


class TaskRow(_Frozen):
    """One suite entry: its four rates, gains, bucket, sim-real agreement, replay link.
    ``task_id`` is the entry's label (the task id unless the suite holds it twice)."""

    task_id: str
    seed: int = 0
    lang: str = "en"
    level: str | None
    app: str | None
    rates: dict[str, float | None]
    sim_gain: float | None
    real_gain: float | None
    bucket: str
    agreement: float | None
    replay: str | None = None


class Report(_Frozen):
    """Everything a paired evaluation concluded, machine-readable."""

    device_backend: str
    """``virtual`` or ``device``: virtual results are never presented as hardware."""
    device_model: str | None
    device_gap: str = ""
    """Reality-gap perturbations the virtual phone ran with, in words ("" for none)."""
    base: str
    trained: str
    suite: str
    repeats: int
    tasks: int
    """Suite entries with at least one complete repeat (the rows of ``per_task``)."""
    episodes: int
    """Episodes the statistics count: those of complete entry-repeats."""
    infra_errors: int
    """Cells that ended as ``infra_error`` after their retries."""
    dropped_episodes: int = 0
    """Finished episodes left out because another cell of their entry-repeat is missing."""
    rates: dict[str, RateSummary]
    """Keyed ``"<policy>/<world>"``, e.g. ``"trained/real"``."""
    sim_gain: float | None
    real_gain: float | None
    retention: RetentionSummary
    mcnemar: list[McNemar]
    agreement: float | None
    levels: list[GroupRow]
    apps: list[GroupRow]
    buckets: list[BucketRow]
    per_task: list[TaskRow]
    dropped: list[DroppedEntry] = Field(default_factory=list)
    """Entry-repeats left out of every figure, each with its missing cells and why."""


def _key(policy: str, world: str) -> str:
    return f"{policy}/{world}"


def _rates(outcomes: Sequence[Outcome]) -> dict[str, float | None]:
    out: dict[str, float | None] = {}
    for policy in POLICIES:
        for world in WORLDS:
            summary = rate(outcomes, policy, world)
            out[_key(policy, world)] = summary.rate.value if summary.episodes else None
    return out


def _groups(outcomes: Sequence[Outcome], attribute: str) -> list[GroupRow]:
    groups: dict[str, list[Outcome]] = defaultdict(list)
    for outcome in outcomes:
        groups[getattr(outcome, attribute) or "?"].append(outcome)
    return [
        GroupRow(group=name, tasks=len({o.entry for o in chosen}), rates=_rates(chosen))
        for name, chosen in sorted(groups.items())
    ]


def _task_rows(outcomes: Sequence[Outcome], replays: dict[str, str]) -> list[TaskRow]:
    entries: dict[EntryKey, list[Outcome]] = defaultdict(list)
    for outcome in outcomes:
        entries[outcome.entry].append(outcome)
    return [
        TaskRow(
            task_id=task_id,
            seed=seed,
            lang=lang,
            level=chosen[0].level,
            app=chosen[0].app,
            rates=_rates(chosen),
            sim_gain=gain(chosen, "sim"),
            real_gain=gain(chosen, "real"),
            bucket=bucket(chosen),
            agreement=agreement(chosen),
            replay=replays.get(task_id),
        )
        for (task_id, seed, lang), chosen in sorted(entries.items())
    ]


def _buckets(rows: Sequence[TaskRow], outcomes: Sequence[Outcome]) -> list[BucketRow]:
    result = []
    for name in ("uplift", "stable-pass", "mid"):
        keys = {(row.task_id, row.seed, row.lang) for row in rows if row.bucket == name}
        chosen = [o for o in outcomes if o.entry in keys]
        result.append(BucketRow(bucket=name, tasks=len(keys), rates=_rates(chosen)))
    return result


def build_report(
    outcomes: Sequence[Outcome],
    *,
    device_backend: str,
    device_model: str | None,
    base: str,
    trained: str,
    suite: str,
    repeats: int,
    gaps: Sequence[MissingCell] = (),
    replays: dict[str, str] | None = None,
    seed: int = 0,
    device_gap: str = "",
) -> Report:
    """Every figure of the report from the finished cells (``outcomes``) and the cells
    without one (``gaps``: infra errors after their retries, cells never run).

    Only entry-repeats whose four cells all finished count, in every figure; the rest are
    listed in ``Report.dropped``. ``replays`` maps an entry's label to its replay page.
    """
    kept, dropped = complete_entries(outcomes, gaps)
    rows = _task_rows(kept, replays or {})
    return Report(
        device_backend=device_backend,
        device_model=device_model,
        device_gap=device_gap,
        base=base,
        trained=trained,
        suite=suite,
        repeats=repeats,
        tasks=len(rows),
        episodes=len(kept),
        infra_errors=sum(gap.reason == "infra_error" for gap in gaps),
        dropped_episodes=len(outcomes) - len(kept),
        rates={_key(p, w): rate(kept, p, w) for p in POLICIES for w in WORLDS},
        sim_gain=gain(kept, "sim"),
        real_gain=gain(kept, "real"),
        retention=bootstrap_retention(kept, seed=seed),
        mcnemar=[
            McNemar(world=w, base_only=b, trained_only=c, p_value=p)
            for w in WORLDS
            for b, c, p in [mcnemar_p(kept, w)]
        ],
        agreement=agreement(kept),
        levels=_groups(kept, "level"),
        apps=_groups(kept, "app"),
        buckets=_buckets(rows, kept),
        per_task=rows,
        dropped=dropped,
    )
