"""Statistics of a paired sim/real evaluation: rates, gains, retention and how sure we are.

The unit is the **suite entry** (task id x seed x language, :attr:`Outcome.entry`) and one
repeat of it: four cells, base and trained in sim and on the phone. Input is one
:class:`~transfer_eval.cells.Outcome` per finished cell; :func:`complete_entries` keeps only
the entry-repeats whose four cells all finished and lists the others as
:class:`~transfer_eval.cells.DroppedEntry` (a cell that ended as ``infra_error`` after its
retries, or never ran). Every function below assumes complete entry-repeats — the report
never passes anything else — because a missing cell would shrink one side of a comparison
only: a rate, a gain or a retention would then divide numbers measured on different task
sets. Everything is a pure function of the outcomes and a seed, so a report is
reproducible.

Definitions:
    * success: as :mod:`bridge.outcome` defines it — the goal holds, the agent said it was
      done, and nothing else changed where the world can tell (an :class:`Outcome` carries
      the episode's class; every figure below counts ``success`` only);
    * success rate of a policy in a world: successes / episodes, with a Wilson 95% interval;
      beside it (:func:`endings`) the other classes' counts, the episodes in which something
      else changed (``clean`` False, whatever their class) and those in which the world
      could not tell (``clean`` None);
    * gain in a world: rate(trained) - rate(base);
    * retention: real gain / sim gain — *undefined* when the sim gain is smaller than
      ``min_sim_gain`` (a ratio of near-zero numbers is noise, not a finding);
    * intervals of both gains and of retention: one percentile bootstrap
      (:func:`paired_bootstrap`) that resamples *entries* with replacement, an entry's cells
      (all repeats, both policies, both worlds) moving together (the design is paired); the
      three statistics are read off the same resamples. An interval of zero width
      (:attr:`Interval.degenerate`) means every resample gave the same number — all entries
      moved alike — which is a property of a small sample, not certainty;
    * McNemar: exact two-sided binomial test on the discordant (entry, repeat) pairs of base
      vs trained within one world;
    * buckets (as the MobileGym paper's, by simulator rates, plus one for the never
      solved): ``stable-fail`` (no success by either policy in either world),
      ``stable-pass`` (base and trained both >= 0.8 in sim), ``uplift`` (trained - base >=
      0.5 in sim), ``mid`` (the rest);
    * sim-real agreement: the fraction of (entry, policy, repeat) pairs that succeed in
      both worlds or in neither (:func:`agreement`), and, stricter, the fraction that end
      in the same outcome class (:func:`class_agreement`).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence

import numpy as np
from pydantic import BaseModel, ConfigDict

from bridge.outcome import OUTCOME_CLASSES
from transfer_eval.cells import DroppedEntry, EntryKey, MissingCell, Outcome

__all__ = [
    "BUCKETS",
    "BootstrapSummary",
    "EndingSummary",
    "Interval",
    "McNemar",
    "RateSummary",
    "RetentionSummary",
    "agreement",
    "bootstrap_retention",
    "bucket",
    "class_agreement",
    "complete_entries",
    "endings",
    "gain",
    "mcnemar_p",
    "paired_bootstrap",
    "rate",
    "retention",
    "wilson",
]

POLICIES = ("base", "trained")
WORLDS = ("sim", "real")
BUCKETS = ("uplift", "stable-pass", "stable-fail", "mid")
"""Every bucket :func:`bucket` gives, in the order reports list them."""


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Interval(_Frozen):
    """A point estimate with a 95% interval."""

    value: float
    low: float
    high: float

    @property
    def degenerate(self) -> bool:
        """Whether the interval has zero width (every resample gave the same number)."""
        return _zero_width(self.low, self.high)


def _zero_width(low: float | None, high: float | None) -> bool:
    return low is not None and high is not None and abs(high - low) < 1e-12


class RateSummary(_Frozen):
    """Successes, episodes and the rate with its Wilson interval."""

    successes: int
    episodes: int
    rate: Interval


class RetentionSummary(_Frozen):
    """Retention with a bootstrap interval, or why it is undefined."""

    value: float | None
    low: float | None
    high: float | None
    undefined_reason: str | None = None
    bootstrap_undefined_share: float = 0.0

    @property
    def degenerate(self) -> bool:
        """Whether the interval has zero width (every defined resample gave the same ratio)."""
        return _zero_width(self.low, self.high)


class EndingSummary(_Frozen):
    """How the episodes of one policy in one world ended: ``classes`` counts each outcome
    class (every class but ``infra_error``, zeros included); ``side_effects`` the episodes in
    which the world saw something else change (``clean`` False, whatever their class) and
    ``clean_unknown`` those in which it could not tell (``clean`` None)."""

    episodes: int
    classes: dict[str, int]
    side_effects: int
    clean_unknown: int

    def share(self, count: int) -> float | None:
        """``count`` as a share of the episodes (None without any)."""
        return count / self.episodes if self.episodes else None


class McNemar(_Frozen):
    """Trained vs base in one world over paired cells (:func:`mcnemar_p`)."""

    world: str
    base_only: int
    trained_only: int
    p_value: float


class BootstrapSummary(_Frozen):
    """Both gains and retention, each with its interval from the same entry-level paired
    resamples (a gain is None when a policy has no episode)."""

    sim_gain: Interval | None
    real_gain: Interval | None
    retention: RetentionSummary


def wilson(successes: int, n: int, z: float = 1.959964) -> Interval:
    """The Wilson score interval of a binomial proportion (0/0 gives [0, 1] around 0)."""
    if n == 0:
        return Interval(value=0.0, low=0.0, high=1.0)
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return Interval(value=p, low=max(0.0, centre - half), high=min(1.0, centre + half))


def _select(outcomes: Iterable[Outcome], policy: str, world: str) -> list[Outcome]:
    return [o for o in outcomes if o.policy == policy and o.world == world]


def rate(outcomes: Iterable[Outcome], policy: str, world: str) -> RateSummary:
    """Success rate of ``policy`` in ``world``."""
    chosen = _select(outcomes, policy, world)
    wins = sum(o.success for o in chosen)
    return RateSummary(successes=wins, episodes=len(chosen), rate=wilson(wins, len(chosen)))


def endings(outcomes: Iterable[Outcome], policy: str, world: str) -> EndingSummary:
    """How the episodes of ``policy`` in ``world`` ended (see :class:`EndingSummary`)."""
    chosen = _select(outcomes, policy, world)
    return EndingSummary(
        episodes=len(chosen),
        classes={
            name: sum(o.outcome_class == name for o in chosen)
            for name in OUTCOME_CLASSES
            if name != "infra_error"
        },
        side_effects=sum(o.clean is False for o in chosen),
        clean_unknown=sum(o.clean is None for o in chosen),
    )


def _mean(outcomes: Sequence[Outcome], policy: str, world: str) -> float | None:
    chosen = _select(outcomes, policy, world)
    return sum(o.success for o in chosen) / len(chosen) if chosen else None


def gain(outcomes: Sequence[Outcome], world: str) -> float | None:
    """rate(trained) - rate(base) in ``world``; None when either has no episode."""
    base, trained = _mean(outcomes, "base", world), _mean(outcomes, "trained", world)
    return None if base is None or trained is None else trained - base


def retention(outcomes: Sequence[Outcome], min_sim_gain: float = 0.05) -> float | None:
    """Real gain / sim gain, or None when the sim gain is too small to divide by."""
    return _ratio(gain(outcomes, "sim"), gain(outcomes, "real"), min_sim_gain)


def _ratio(sim: float | None, real: float | None, min_sim_gain: float) -> float | None:
    if sim is None or real is None or abs(sim) < min_sim_gain:
        return None
    return real / sim


def complete_entries(
    outcomes: Sequence[Outcome], gaps: Iterable[MissingCell] = ()
) -> tuple[list[Outcome], list[DroppedEntry]]:
    """Split the outcomes into those of complete entry-repeats and the dropped rest.

    An entry-repeat is complete when all four cells (base and trained, sim and real) have an
    outcome. Kept outcomes stay in their input order; dropped entry-repeats come sorted,
    each with its missing cells: the matching ``gaps`` (why the cell has no outcome), else a
    ``missing`` cell.
    """
    present: dict[tuple[EntryKey, int], set[tuple[str, str]]] = defaultdict(set)
    for o in outcomes:
        present[(o.entry, o.repeat)].add((o.policy, o.world))
    why = {(g.entry, g.repeat, g.policy, g.world): g for g in gaps}
    units = set(present) | {(entry, repeat) for entry, repeat, _, _ in why}
    dropped = []
    for entry, repeat in sorted(units):
        cells = [
            why.get((entry, repeat, policy, world)) or _missing(entry, repeat, policy, world)
            for policy in POLICIES
            for world in WORLDS
            if (policy, world) not in present.get((entry, repeat), set())
        ]
        if cells:
            task_id, seed, lang = entry
            dropped.append(
                DroppedEntry(task_id=task_id, seed=seed, lang=lang, repeat=repeat, cells=cells)
            )
    gone = {((d.task_id, d.seed, d.lang), d.repeat) for d in dropped}
    return [o for o in outcomes if (o.entry, o.repeat) not in gone], dropped


def _missing(entry: EntryKey, repeat: int, policy: str, world: str) -> MissingCell:
    task_id, seed, lang = entry
    return MissingCell(
        task_id=task_id,
        seed=seed,
        lang=lang,
        policy=policy,
        world=world,
        repeat=repeat,
        reason="missing",
    )


def _by_entry(outcomes: Iterable[Outcome]) -> dict[EntryKey, list[Outcome]]:
    entries: dict[EntryKey, list[Outcome]] = defaultdict(list)
    for outcome in outcomes:
        entries[outcome.entry].append(outcome)
    return dict(entries)


def _resamples(outcomes: Sequence[Outcome], count: int, seed: int) -> Iterator[list[Outcome]]:
    """``count`` resamples of the entries with replacement, each entry's cells together."""
    entries = list(_by_entry(outcomes).values())
    rng = np.random.default_rng(seed)
    for _ in range(count):
        picks = rng.integers(0, len(entries), size=len(entries))
        yield [o for index in picks for o in entries[index]]


def _percentiles(values: Sequence[float]) -> tuple[float, float]:
    if not values:
        return math.nan, math.nan
    low, high = np.percentile(values, [2.5, 97.5])
    return float(low), float(high)


def _gain_interval(point: float | None, values: Sequence[float]) -> Interval | None:
    if point is None:
        return None
    low, high = _percentiles(values)
    return Interval(value=point, low=low, high=high)


def _retention_summary(
    sim: float | None, real: float | None, ratios: Sequence[float | None], min_sim_gain: float
) -> RetentionSummary:
    point = _ratio(sim, real, min_sim_gain)
    if point is None:
        reason = (
            "no paired episodes"
            if sim is None
            else (f"the sim gain ({sim:+.3f}) is below {min_sim_gain}: nothing to retain")
        )
        return RetentionSummary(value=None, low=None, high=None, undefined_reason=reason)
    defined = [value for value in ratios if value is not None]
    low, high = _percentiles(defined)
    undefined = (len(ratios) - len(defined)) / len(ratios) if ratios else 0.0
    return RetentionSummary(value=point, low=low, high=high, bootstrap_undefined_share=undefined)


def paired_bootstrap(
    outcomes: Sequence[Outcome],
    *,
    resamples: int = 2000,
    seed: int = 0,
    min_sim_gain: float = 0.05,
) -> BootstrapSummary:
    """The sim gain, the real gain and retention with entry-level paired percentile
    bootstrap intervals, all three read off the same ``resamples`` resamples."""
    sim, real = gain(outcomes, "sim"), gain(outcomes, "real")
    draws = []
    if sim is not None or real is not None:
        for sample in _resamples(outcomes, resamples, seed):
            s, r = gain(sample, "sim"), gain(sample, "real")
            draws.append((s, r, _ratio(s, r, min_sim_gain)))
    return BootstrapSummary(
        sim_gain=_gain_interval(sim, [d[0] for d in draws if d[0] is not None]),
        real_gain=_gain_interval(real, [d[1] for d in draws if d[1] is not None]),
        retention=_retention_summary(sim, real, [d[2] for d in draws], min_sim_gain),
    )


def bootstrap_retention(
    outcomes: Sequence[Outcome],
    *,
    resamples: int = 2000,
    seed: int = 0,
    min_sim_gain: float = 0.05,
) -> RetentionSummary:
    """Retention with its entry-level paired percentile bootstrap interval (the retention
    part of :func:`paired_bootstrap`)."""
    summary = paired_bootstrap(outcomes, resamples=resamples, seed=seed, min_sim_gain=min_sim_gain)
    return summary.retention


def mcnemar_p(outcomes: Sequence[Outcome], world: str) -> tuple[int, int, float]:
    """(base-only wins b, trained-only wins c, exact two-sided p) over paired cells."""
    cells: dict[tuple[EntryKey, int], dict[str, bool]] = defaultdict(dict)
    for o in outcomes:
        if o.world == world:
            cells[(o.entry, o.repeat)][o.policy] = o.success
    pairs = [c for c in cells.values() if "base" in c and "trained" in c]
    b = sum(c["base"] and not c["trained"] for c in pairs)
    c = sum(c["trained"] and not c["base"] for c in pairs)
    n = b + c
    if n == 0:
        return b, c, 1.0
    tail = sum(math.comb(n, k) for k in range(min(b, c) + 1)) / 2**n
    return b, c, min(1.0, 2 * tail)


def bucket(task_outcomes: Sequence[Outcome]) -> str:
    """One of :data:`BUCKETS` for one entry: ``stable-fail`` when neither policy ever
    succeeded in either world, else by its simulator rates (``stable-pass``, ``uplift``,
    ``mid``)."""
    base = _mean(task_outcomes, "base", "sim")
    trained = _mean(task_outcomes, "trained", "sim")
    if base is None or trained is None:
        return "mid"
    if not any(o.success for o in task_outcomes):
        return "stable-fail"
    if base >= 0.8 and trained >= 0.8:
        return "stable-pass"
    if trained - base >= 0.5:
        return "uplift"
    return "mid"


def agreement(outcomes: Sequence[Outcome]) -> float | None:
    """Share of (entry, policy, repeat) pairs that succeed in both worlds or in neither
    (what the gains and retention are made of); None without any pair."""
    return _agreeing(outcomes, lambda o: o.success)


def class_agreement(outcomes: Sequence[Outcome]) -> float | None:
    """Share of (entry, policy, repeat) pairs that end in the same outcome class in both
    worlds (a goal reached at the budget in one and a plain failure in the other differ
    here, not in :func:`agreement`); None without any pair."""
    return _agreeing(outcomes, lambda o: o.outcome_class)


def _agreeing(outcomes: Sequence[Outcome], key: Callable[[Outcome], object]) -> float | None:
    cells: dict[tuple[EntryKey, str, int], dict[str, object]] = defaultdict(dict)
    for o in outcomes:
        cells[(o.entry, o.policy, o.repeat)][o.world] = key(o)
    pairs = [c for c in cells.values() if "sim" in c and "real" in c]
    if not pairs:
        return None
    return sum(c["sim"] == c["real"] for c in pairs) / len(pairs)
