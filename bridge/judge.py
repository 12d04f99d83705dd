"""The one judge: pose a spec, remember what the phone held, and judge the end — in any world.

``pose(spec, state)`` runs the spec's ensure operations, reads its truths and the observable
state, and refuses a task whose goal already holds; ``judge(...)`` reads the checks, matches
the answers against the truths read at the start and diffs the observable state. Both run
over an :class:`~bridge.android_state.AndroidState`, so the simulator and a phone are judged
by this code and nothing else. Each node of the spec knows how it is posed, read and
checked (its surface module in :mod:`bridge.spec`); this module dispatches and composes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from bridge.android_state import AndroidState
from bridge.errors import StateUnavailable, TaskNotPosed
from bridge.observed import ObservedState, observe, side_effects
from bridge.schema import AnswerValue, CheckResult, Verdict, VerdictKind
from bridge.spec.answers import check_answers
from bridge.spec.base import Seen
from bridge.taskspec import EnsureOp, Fact, TaskSpec, Truth

__all__ = [
    "StartRecord",
    "answer_checks",
    "apply_op",
    "judge",
    "pose",
    "read_checks",
    "read_fact",
    "read_truth",
]


class StartRecord(BaseModel):
    """What posing read: the truths (accepted values, the main one first) and the
    observable state at the start (None when this world cannot observe it: ``reason``)."""

    model_config = ConfigDict(extra="forbid")

    truths: dict[str, list[JsonValue]] = Field(default_factory=dict)
    observed: ObservedState | None = None
    unobservable: str | None = None


async def apply_op(state: AndroidState, op: EnsureOp) -> None:
    """Carry out one ensure operation."""
    await op.pose(state)


async def read_fact(
    state: AndroidState, fact: Fact, truths: Mapping[str, list[JsonValue]] | None = None
) -> list[JsonValue]:
    """The values a fact reads now (absent values dropped); ``truths`` are those read before
    it, which a rows fact's ``where`` may name."""
    return await fact.read(state, truths or {})


def _most(values: list[JsonValue]) -> list[JsonValue]:
    """The values that occur most often, in order of first occurrence."""
    counts = Counter(str(value) for value in values)
    top = max(counts.values())
    return [value for value in dict.fromkeys(values) if counts[str(value)] == top]


async def read_truth(
    state: AndroidState, truth: Truth, before: Mapping[str, list[JsonValue]] | None = None
) -> list[JsonValue]:
    """A truth's accepted values, the main one first (``before``: the truths read earlier)."""
    values = await read_fact(state, truth.fact, before)
    if truth.reduce == "count":
        main: list[JsonValue] = [len(values)]
    elif truth.reduce == "value" and len(values) != 1:
        raise TaskNotPosed(f"truth {truth.name!r} should be one value, the phone holds {values}")
    elif not values:
        raise TaskNotPosed(f"truth {truth.name!r}: the phone holds no value for it")
    elif truth.reduce == "most":
        main = _most(values)
    else:
        main = values[:1] if truth.reduce in ("first", "value") else list(dict.fromkeys(values))
    extra = [v for fact in truth.also for v in await read_fact(state, fact, before)]
    return main + [v for v in dict.fromkeys(extra) if v not in main]


async def pose(spec: TaskSpec, state: AndroidState) -> StartRecord:
    """Pose ``spec`` on ``state`` and record the start.

    Raises:
        TaskNotPosed: a truth cannot be read, or the goal holds already (never a free pass).
    """
    for op in spec.ensure:
        await apply_op(state, op)
    truths: dict[str, list[JsonValue]] = {}
    for truth in spec.truths:  # in order: a rows truth's where may name the earlier ones
        truths[truth.name] = await read_truth(state, truth, truths)
    for check in spec.checks:
        await check.judgeable(state, truths)
    try:
        record = StartRecord(truths=truths, observed=await observe(spec, state))
    except StateUnavailable as exc:
        record = StartRecord(truths=truths, unobservable=str(exc))
    if not spec.answers and not spec.needs_trees and not spec.open_ended:
        start = [c for c in await read_checks(spec, state, record, trees=()) if not c.guard]
        if not start or all(check.passed for check in start):
            raise TaskNotPosed("the goal already holds after posing (or nothing is checked)")
    return record


async def read_checks(
    spec: TaskSpec,
    state: AndroidState,
    start: StartRecord,
    trees: Sequence[str],
    answer: Mapping[str, AnswerValue] | None = None,
) -> list[CheckResult]:
    """The spec's checks now (answers matched only by :func:`judge`)."""
    seen = Seen(truths=start.truths, trees=trees, answer=answer)
    return [line for rule in spec.checks for line in await rule.evaluate(state, seen)]


def answer_checks(
    spec: TaskSpec, start: StartRecord, answer: Mapping[str, AnswerValue] | None
) -> list[CheckResult]:
    """One verdict line per answer field: the answer against the truth read at the start."""
    return check_answers(spec.answers, start.truths, answer)


def _kind(spec: TaskSpec) -> VerdictKind:
    if spec.needs_trees:
        return "ui"
    return "state" if spec.checks else "answer"


async def judge(
    spec: TaskSpec,
    state: AndroidState,
    start: StartRecord,
    *,
    answer: Mapping[str, AnswerValue] | None = None,
    trees: Sequence[str] = (),
    volatile: Iterable[str] = (),
) -> Verdict:
    """The verdict of the episode now: checks, answers and observable side effects."""
    checks = await read_checks(spec, state, start, trees, answer)
    checks += answer_checks(spec, start, answer)
    clean: bool | None
    effects: list[str] = []
    reason = start.unobservable
    if start.observed is None:
        clean = None
    else:
        try:
            after = await observe(spec, state)
        except StateUnavailable as exc:
            clean, reason = None, str(exc)
        else:
            effects = side_effects(spec, start.observed, after, volatile, start.truths)
            clean = not effects
    return Verdict.from_checks(
        checks, clean=clean, clean_reason=reason, side_effects=effects, kind=_kind(spec)
    )
