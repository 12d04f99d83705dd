"""The paired-evaluation report as data: every number of ``report.json``, from the outcomes.

:func:`build_report` is pure: same outcomes, same seed → the same report, which is what
makes a resumed run's report identical to an uninterrupted one. Success is
:mod:`bridge.outcome`'s (``success_means`` says it in words); ``endings`` gives, beside it,
how else each policy's episodes ended in each world. Every figure is computed
over the *complete* suite entry-repeats only (all four cells finished, see
:func:`transfer_eval.stats.complete_entries`); the others are listed in ``dropped`` with
the cells they lack and why. ``caveats`` say in words when the figures are weaker than
they look (few entries, a difference McNemar does not find significant, an interval of zero
width, episodes whose side effects the world could not see, a phone side that is the
virtual phone). Rendering to Markdown and HTML lives in
``report_md.py`` / ``report_html.py``; the JSON keys say ``real`` for the phone side, the
pages say "phone".
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from bridge.outcome import SUCCESS_MEANS
from transfer_eval.caveats import Caveat, caveats
from transfer_eval.cells import DroppedEntry, EntryKey, MissingCell, Outcome
from transfer_eval.start_parity import StartParity, StartParitySummary
from transfer_eval.stats import (
    BUCKETS,
    POLICIES,
    WORLDS,
    EndingSummary,
    Interval,
    McNemar,
    RateSummary,
    RetentionSummary,
    agreement,
    bucket,
    class_agreement,
    complete_entries,
    endings,
    gain,
    mcnemar_p,
    paired_bootstrap,
    rate,
)
from transfer_eval.world_names import PairNames

__all__ = ["BucketRow", "GroupRow", "Report", "TaskRow", "build_report"]


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


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
    """One suite entry: its four rates, gains, bucket, sim-real agreement, replay links.
    ``task_id`` is the entry's label (the task id unless the suite holds it twice);
    ``replays`` maps each policy (``base``, ``trained``) to its side-by-side page, and
    ``replay`` is the trained policy's (as in reports before there were two)."""

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
    replays: dict[str, str] = Field(default_factory=dict)


class Report(_Frozen):
    """Everything a paired evaluation concluded, machine-readable."""

    device_backend: str
    """Where the gain was checked: ``virtual``, ``device`` or ``mobilegym`` (virtual results
    are never presented as hardware)."""
    sim_backend: str = "sim"
    """Where the gain was made: ``sim`` (our simulator) or ``mobilegym``."""
    not_posed: dict[str, str] = Field(default_factory=dict)
    """Suite entries left out of both worlds because one of them cannot pose them: label ->
    why."""
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
    success_means: str = SUCCESS_MEANS
    """What a success is, in one sentence (:mod:`bridge.outcome` has the whole rule)."""
    rates: dict[str, RateSummary]
    """Success rates, keyed ``"<policy>/<world>"``, e.g. ``"trained/real"``."""
    endings: dict[str, EndingSummary] = Field(default_factory=dict)
    """How the episodes ended, by outcome class, with the side-effect and clean-unknown
    counts; keyed as ``rates``."""
    sim_gain: float | None
    real_gain: float | None
    sim_gain_interval: Interval | None = None
    """The sim gain with its entry-level paired bootstrap interval (the same resamples as
    retention's)."""
    real_gain_interval: Interval | None = None
    """The phone gain with its interval, from the same resamples."""
    retention: RetentionSummary
    mcnemar: list[McNemar]
    agreement: float | None
    """Share of paired (entry, policy, repeat) episodes that succeed in both worlds or in
    neither."""
    class_agreement: float | None = None
    """Share of them that end in the same outcome class in both worlds."""
    levels: list[GroupRow]
    apps: list[GroupRow]
    buckets: list[BucketRow]
    per_task: list[TaskRow]
    dropped: list[DroppedEntry] = Field(default_factory=list)
    """Entry-repeats left out of every figure, each with its missing cells and why."""
    caveats: list[Caveat] = Field(default_factory=list)
    """What to keep in mind reading the figures (empty when nothing stands out)."""
    start_parity: StartParitySummary | None = None
    """Whether each pair's two cells started from the same phone (:mod:`transfer_eval.
    start_parity`); None for reports of runs that predate it."""
    fingerprint: dict[str, dict[str, JsonValue]] = Field(default_factory=dict)
    """Each policy's harness fingerprint (``base``, ``trained``): spec, adapter, prompt hash,
    image, history, sampling, parser, judge, simulator and app versions, the phone, and what
    its episodes met in each world (``observed``); empty for runs made before fingerprints."""

    @property
    def names(self) -> PairNames:
        """How pages name the two worlds (``names.name("real")`` is ``phone`` or
        ``MobileGym``; the JSON keys stay ``sim`` and ``real``)."""
        return PairNames(self.sim_backend, self.device_backend)


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


def _task_rows(
    outcomes: Sequence[Outcome], replays: Mapping[str, Mapping[str, str]]
) -> list[TaskRow]:
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
            replay=replays.get(task_id, {}).get("trained"),
            replays=dict(replays.get(task_id, {})),
        )
        for (task_id, seed, lang), chosen in sorted(entries.items())
    ]


def _buckets(rows: Sequence[TaskRow], outcomes: Sequence[Outcome]) -> list[BucketRow]:
    result = []
    for name in BUCKETS:
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
    replays: Mapping[str, Mapping[str, str]] | None = None,
    seed: int = 0,
    device_gap: str = "",
    fingerprint: Mapping[str, Mapping[str, JsonValue]] | None = None,
    start: StartParity | None = None,
    sim_backend: str = "sim",
    not_posed: Mapping[str, str] | None = None,
) -> Report:
    """Every figure of the report from the finished cells (``outcomes``) and the cells
    without one (``gaps``: infra errors after their retries, cells never run).

    Only entry-repeats whose four cells all finished count, in every figure; the rest are
    listed in ``Report.dropped``. ``replays`` maps an entry's label to its replay pages,
    by policy. The bootstrap (both gains, retention) is seeded by ``seed``. ``fingerprint``
    (by policy), ``start`` (each pair's start-state parity) and ``not_posed`` (entries
    one world cannot pose) are carried in as given.
    """
    kept, dropped = complete_entries(outcomes, gaps)
    rows = _task_rows(kept, replays or {})
    boot = paired_bootstrap(kept, seed=seed)
    mcnemar = [
        McNemar(world=w, base_only=b, trained_only=c, p_value=p)
        for w in WORLDS
        for b, c, p in [mcnemar_p(kept, w)]
    ]
    return Report(
        device_backend=device_backend,
        sim_backend=sim_backend,
        not_posed=dict(not_posed or {}),
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
        endings={_key(p, w): endings(kept, p, w) for p in POLICIES for w in WORLDS},
        sim_gain=gain(kept, "sim"),
        real_gain=gain(kept, "real"),
        sim_gain_interval=boot.sim_gain,
        real_gain_interval=boot.real_gain,
        retention=boot.retention,
        mcnemar=mcnemar,
        agreement=agreement(kept),
        class_agreement=class_agreement(kept),
        levels=_groups(kept, "level"),
        apps=_groups(kept, "app"),
        buckets=_buckets(rows, kept),
        per_task=rows,
        dropped=dropped,
        caveats=caveats(
            len(rows),
            mcnemar,
            boot,
            device_backend,
            device_gap,
            names=PairNames(sim_backend, device_backend),
            agreed=agreement(kept),
            unseen=_clean_unknown(kept),
            start=(start.same, start.compared) if start is not None else None,
        ),
        start_parity=StartParitySummary.of(start) if start is not None else None,
        fingerprint={role: dict(value) for role, value in (fingerprint or {}).items()},
    )


def _clean_unknown(outcomes: Sequence[Outcome]) -> dict[str, tuple[int, int]]:
    """Per world: (episodes whose side effects the world could not see, episodes)."""
    return {
        world: (sum(o.clean is None for o in chosen), len(chosen))
        for world in WORLDS
        for chosen in [[o for o in outcomes if o.world == world]]
    }
