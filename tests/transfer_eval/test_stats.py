"""Statistics against values computed by hand, and which entry-repeats they count."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from bridge.outcome import OutcomeClass
from transfer_eval.cells import MissingCell, Outcome
from transfer_eval.stats import (
    agreement,
    bootstrap_retention,
    bucket,
    class_agreement,
    complete_entries,
    endings,
    gain,
    mcnemar_p,
    paired_bootstrap,
    rate,
    retention,
    wilson,
)

Ending = bool | OutcomeClass
"""How a hand-built cell ended: True is a success, False a failure, else the class."""


def _outcome(task: str, policy: str, world: str, ending: Ending, **more: object) -> Outcome:
    name = ending if isinstance(ending, str) else ("success" if ending else "failure")
    clean = more.pop("clean", name != "side_effect")
    return Outcome.model_validate(
        {"task_id": task, "policy": policy, "world": world, "outcome_class": name,
         "clean": clean, **more}
    )  # fmt: skip


def _cells(
    task: str,
    base_sim: Ending,
    trained_sim: Ending,
    base_real: Ending,
    trained_real: Ending,
    repeat: int = 0,
) -> list[Outcome]:
    values = {
        ("base", "sim"): base_sim,
        ("trained", "sim"): trained_sim,
        ("base", "real"): base_real,
        ("trained", "real"): trained_real,
    }
    return [_outcome(task, p, w, s, repeat=repeat) for (p, w), s in values.items()]


def test_wilson_known_values() -> None:
    half = wilson(5, 10)
    assert (round(half.low, 4), round(half.high, 4)) == (0.2366, 0.7634)
    none = wilson(0, 10)
    assert none.low == 0.0 and round(none.high, 4) == 0.2775
    assert wilson(0, 0).high == 1.0
    full = wilson(20, 20)
    assert full.high == 1.0 and round(full.low, 4) == 0.8389


# 4 tasks: sim 0.25 -> 1.00 (gain 0.75), real 0.50 -> 0.75 (gain 0.25): retention 1/3
TABLE = [
    *_cells("t1", False, True, False, True),
    *_cells("t2", False, True, False, True),
    *_cells("t3", False, True, True, True),
    *_cells("t4", True, True, True, False),
]


def test_rates_gains_and_retention() -> None:
    assert rate(TABLE, "base", "sim").rate.value == 0.25
    assert rate(TABLE, "trained", "real").successes == 3
    assert gain(TABLE, "sim") == pytest.approx(0.75)
    assert gain(TABLE, "real") == pytest.approx(0.25)
    assert retention(TABLE) == pytest.approx(1 / 3)


def test_retention_is_undefined_without_a_sim_gain() -> None:
    flat = [*_cells("t1", True, True, False, True), *_cells("t2", False, False, False, True)]
    assert gain(flat, "sim") == 0.0 and retention(flat) is None
    summary = bootstrap_retention(flat)
    assert summary.value is None and "below" in (summary.undefined_reason or "")


def test_bootstrap_is_paired_seeded_and_covers_the_point() -> None:
    first = bootstrap_retention(TABLE, resamples=500, seed=3)
    again = bootstrap_retention(TABLE, resamples=500, seed=3)
    assert first == again
    assert first.low is not None and first.high is not None
    assert first.low <= first.value <= first.high  # type: ignore[operator]
    # every task moves its four cells together: identical tasks give a degenerate interval
    same = [o for i in range(6) for o in _cells(f"t{i}", False, True, False, True)]
    exact = bootstrap_retention(same, resamples=200)
    assert (exact.value, exact.low, exact.high) == (1.0, 1.0, 1.0)


def test_mcnemar_exact() -> None:
    outcomes = []
    for i in range(8):  # trained-only wins
        outcomes += [
            _outcome(f"t{i}", "base", "sim", False),
            _outcome(f"t{i}", "trained", "sim", True),
        ]
    outcomes += [_outcome("x", "base", "sim", True), _outcome("x", "trained", "sim", False)]
    b, c, p = mcnemar_p(outcomes, "sim")
    assert (b, c) == (1, 8) and p == pytest.approx(20 / 512)
    assert mcnemar_p(outcomes, "real") == (0, 0, 1.0)


def test_buckets_and_agreement() -> None:
    assert bucket(_cells("a", True, True, True, True)) == "stable-pass"
    assert bucket(_cells("b", False, True, False, False)) == "uplift"
    assert bucket(_cells("c", True, False, True, True)) == "mid"
    # sim == real for base/trained of t1, t2 (4 pairs); t3 base differs; t4 trained differs
    assert agreement(TABLE) == pytest.approx(6 / 8)
    assert agreement([]) is None


def test_entries_are_task_seed_and_language() -> None:
    # one task id, two seeds: two entries, paired within each (not across)
    two = [
        *[o.model_copy(update={"seed": 1}) for o in _cells("t", False, True, False, True)],
        *[o.model_copy(update={"seed": 2}) for o in _cells("t", True, True, True, False)],
    ]
    assert agreement(two) == pytest.approx(3 / 4)
    assert mcnemar_p(two, "sim")[:2] == (0, 1)
    # the bootstrap resamples the two entries apart: some resamples hold only seed 2 (no
    # sim gain), some only seed 1 (full retention); grouped by task id it would not vary
    summary = bootstrap_retention(two, resamples=200)
    assert summary.value == 0.0 and summary.high == 1.0
    assert 0 < summary.bootstrap_undefined_share < 1
    kept, dropped = complete_entries(two)
    assert kept == two and dropped == []
    zh = [o.model_copy(update={"lang": "zh"}) for o in _cells("t", False, True, False, True)]
    _, dropped = complete_entries([*zh, *_cells("t", False, True, False, True)[:3]])
    assert [(d.lang, [c.world for c in d.cells]) for d in dropped] == [("en", ["real"])]


def test_incomplete_entry_repeats_are_dropped_with_their_reasons() -> None:
    broken = [o for o in _cells("t5", False, True, False, True)
              if (o.policy, o.world) != ("trained", "real")]  # fmt: skip
    no_sim = [o for o in _cells("t6", True, True, True, True, repeat=1)
              if (o.policy, o.world) != ("base", "sim")]  # fmt: skip
    gap = MissingCell(task_id="t5", policy="trained", world="real", reason="infra_error",
                      error="DeviceDisconnected: " + "x" * 1000)  # fmt: skip
    kept, dropped = complete_entries([*TABLE, *broken, *no_sim], [gap])
    assert kept == TABLE
    assert [(d.task_id, d.repeat) for d in dropped] == [("t5", 0), ("t6", 1)]
    first, second = dropped[0].cells, dropped[1].cells
    assert [(c.policy, c.world, c.reason) for c in first] == [("trained", "real", "infra_error")]
    assert first[0].error is not None and len(first[0].error) == 300
    assert first[0].error.startswith("DeviceDisconnected: xxx")
    assert [(c.policy, c.world, c.reason, c.error) for c in second] == [
        ("base", "sim", "missing", None)
    ]
    # an entry-repeat whose every cell is a gap is listed too
    _, alone = complete_entries([], [gap])
    assert [(d.task_id, len(d.cells)) for d in alone] == [("t5", 4)]


def test_both_gains_get_intervals_from_the_resamples_retention_uses() -> None:
    summary = paired_bootstrap(TABLE, resamples=500, seed=3)
    sim, real = summary.sim_gain, summary.real_gain
    assert sim is not None and real is not None
    assert sim.value == pytest.approx(0.75) and real.value == pytest.approx(0.25)
    assert sim.low <= sim.value <= sim.high and real.low <= real.value <= real.high
    assert sim.low < sim.high and real.low < real.high  # four unlike tasks: the gains vary
    assert real.low >= -1 and real.high <= 1
    # one resampling: retention is the same whether asked for alone or with the gains
    assert summary.retention == bootstrap_retention(TABLE, resamples=500, seed=3)
    assert summary == paired_bootstrap(TABLE, resamples=500, seed=3)
    assert not (sim.degenerate or real.degenerate or summary.retention.degenerate)


def test_identical_entries_give_degenerate_intervals() -> None:
    same = [o for i in range(3) for o in _cells(f"t{i}", False, True, False, True)]
    summary = paired_bootstrap(same, resamples=200)
    assert summary.sim_gain is not None and summary.real_gain is not None
    assert (summary.sim_gain.low, summary.sim_gain.high) == (1.0, 1.0)
    assert summary.sim_gain.degenerate and summary.real_gain.degenerate
    assert summary.retention.degenerate
    # a gain defined while retention is not (no sim gain): the gains still get intervals
    flat = [*_cells("a", True, False, False, True), *_cells("b", False, True, False, True)]
    undefined = paired_bootstrap(flat, resamples=200)
    assert undefined.retention.value is None and not undefined.retention.degenerate
    assert undefined.real_gain is not None and undefined.real_gain.value == 1.0
    assert undefined.sim_gain is not None and undefined.sim_gain.low < 0 < undefined.sim_gain.high
    assert paired_bootstrap([]).sim_gain is None


def test_never_solved_entries_are_stable_fail_not_mid() -> None:
    assert bucket(_cells("never", False, False, False, False)) == "stable-fail"
    repeats = [
        *_cells("r", False, False, False, False),
        *_cells("r", False, False, False, False, 1),
    ]
    assert bucket(repeats) == "stable-fail"
    # solved once anywhere (a repeat, the phone, the base policy): not stable-fail
    once = [*_cells("r", False, False, False, False), *_cells("r", False, True, False, False, 1)]
    assert bucket(once) == "uplift"
    assert bucket(_cells("phone only", False, False, False, True)) == "mid"
    assert bucket(_cells("base on the phone", False, False, True, False)) == "mid"
    assert bucket(_cells("lost", True, False, False, False)) == "mid"


# Three entries whose goal holds far more often than they succeed. Counted by "the goal holds",
# base would be 2/3 in both worlds, trained 3/3, and retention 100%; counted by success:
STRICT = [
    *_cells("t1", "goal_at_budget", True, "goal_at_budget", True),
    *_cells("t2", "false_complete", True, False, "side_effect"),
    *_cells("t3", True, True, True, True),
]


def test_every_figure_counts_only_strict_success() -> None:
    assert rate(STRICT, "base", "sim").successes == 1
    assert rate(STRICT, "trained", "sim").successes == 3
    assert rate(STRICT, "trained", "real").rate.value == pytest.approx(2 / 3)
    assert gain(STRICT, "sim") == pytest.approx(2 / 3)
    assert gain(STRICT, "real") == pytest.approx(1 / 3)
    assert retention(STRICT) == pytest.approx(0.5)
    assert mcnemar_p(STRICT, "sim")[:2] == (0, 2)
    assert bucket(STRICT[:4]) == "uplift"  # the goal held for both policies in sim: not stable-pass


def test_endings_count_every_class_side_effects_and_unknown_cleanliness() -> None:
    unseen = _outcome("t4", "trained", "real", True, clean=None)  # a success all the same
    summary = endings([*STRICT, unseen], "trained", "real")
    assert summary.episodes == 4
    assert summary.classes == {"success": 3, "goal_at_budget": 0, "false_complete": 0,
                               "side_effect": 1, "failure": 0}  # fmt: skip
    assert (summary.side_effects, summary.clean_unknown) == (1, 1)
    base = endings(STRICT, "base", "sim")
    assert (base.classes["goal_at_budget"], base.classes["false_complete"]) == (1, 1)
    assert base.share(base.classes["goal_at_budget"]) == pytest.approx(1 / 3)
    assert endings([], "base", "sim").share(0) is None
    # a side effect in an episode that did not succeed is still counted as one
    late = _outcome("t5", "base", "sim", "goal_at_budget", clean=False)
    assert endings([late], "base", "sim").side_effects == 1


def test_agreement_is_on_success_and_the_class_agreement_on_the_whole_ending() -> None:
    # six (entry, policy) pairs: trained t2 succeeds in sim only (a side effect on the
    # phone); base t2 fails in both, but as a false complete in sim and plainly on the phone
    assert agreement(STRICT) == pytest.approx(5 / 6)
    assert class_agreement(STRICT) == pytest.approx(4 / 6)
    assert class_agreement([]) is None


def test_an_outcome_is_judged_and_consistent() -> None:
    with pytest.raises(ValidationError, match="MissingCell"):
        _outcome("t", "base", "sim", "infra_error")
    with pytest.raises(ValidationError, match="clean False"):
        _outcome("t", "base", "sim", True, clean=False)
    with pytest.raises(ValidationError, match="side_effect"):
        _outcome("t", "base", "sim", "side_effect", clean=True)
