"""The definition of success on hand-built episodes: what ended them, whether the goal
holds, whether anything else changed; records of older schemas judged by it; the runner
deciding by it; and the reward's maximum coinciding with it."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from pydantic import ValidationError

from bridge.outcome import (
    OUTCOME_CLASSES,
    SUCCESS_MEANS,
    OutcomeClass,
    Termination,
    claimed_done,
    classify,
    episode_outcome,
    is_success,
)
from bridge.records import EpisodeRecord, TaskInstance
from bridge.reward import shaped_reward
from bridge.runner import run_episode
from bridge.schema import (
    Action,
    AnswerAction,
    CheckResult,
    FinishAction,
    TapAction,
    Verdict,
    VerdictKind,
)
from tests.bridge.toy_env import BACKEND, CounterEnv, ScriptedPolicy, counter_task

TAP = TapAction.model_validate({"target": {"element": 2}})
TASK = TaskInstance(task_id="settings/SetWifi-v1", instruction="Turn on Wi-Fi", max_steps=5)


def _verdict(goal: bool, clean: bool | None = True, *, kind: VerdictKind = "state") -> Verdict:
    checks = [CheckResult(name="wifi", expected=True, actual=goal, passed=goal)]
    if clean is None:
        return Verdict.from_checks(checks, clean=None, clean_reason="a retail phone")
    side_effects = None if clean else ["global.airplane_mode_on"]
    return Verdict.from_checks(checks, side_effects=side_effects, kind=kind)


@pytest.mark.parametrize(
    ("termination", "verdict", "final", "expected"),
    [
        ("finish", _verdict(True), FinishAction(), "success"),  # finished and clean
        ("answer", _verdict(True), AnswerAction(fields={"n": 3}), "success"),
        ("max_steps", _verdict(True), TAP, "goal_at_budget"),  # the budget ended it
        ("finish", _verdict(False), FinishAction(), "false_complete"),  # said done, not done
        ("answer", _verdict(False, kind="answer"), AnswerAction(fields={"n": 4}), "false_complete"),
        ("finish", _verdict(True, clean=False), FinishAction(), "side_effect"),
        ("finish", _verdict(True, clean=None), FinishAction(), "success"),  # could not tell
        ("finish", _verdict(True), FinishAction(status="abort"), "failure"),  # gave up
        ("finish", _verdict(True), FinishAction(status="infeasible"), "failure"),
        ("finish", _verdict(False), FinishAction(status="infeasible"), "failure"),  # no claim
        ("guard", _verdict(True), TAP, "failure"),  # the guard stopped it
        ("stopped", _verdict(True), None, "failure"),  # a person reset it
        ("max_steps", _verdict(False), TAP, "failure"),
        ("max_steps", _verdict(True, clean=False), TAP, "goal_at_budget"),
        ("finish", _verdict(True), TAP, "failure"),  # the world ended it, not the agent
        ("finish", _verdict(True), None, "success"),  # finish's default status
        ("infra_error", None, TAP, "infra_error"),
        ("finish", None, FinishAction(), "infra_error"),  # never judged
    ],
)
def test_every_ending_has_one_class(
    termination: Termination, verdict: Verdict | None, final: Action | None, expected: str
) -> None:
    assert classify(termination, verdict, final) == expected
    assert is_success(termination, verdict, final) == (expected == "success")


def test_only_a_success_is_a_success_coarsely() -> None:
    coarse = {name: episode_outcome(name) for name in OUTCOME_CLASSES}
    assert coarse == {
        "success": "success",
        "goal_at_budget": "failure",
        "false_complete": "failure",
        "side_effect": "failure",
        "failure": "failure",
        "infra_error": "infra_error",
    }
    assert claimed_done("answer", None) and not claimed_done("max_steps", FinishAction())
    assert SUCCESS_MEANS.startswith("Success = the goal holds, the agent said it was done")


def _record(**fields: Any) -> EpisodeRecord:
    base = {"episode_id": "e1", "task": TASK, "policy": "scripted", "backend": BACKEND}
    return EpisodeRecord.model_validate({**base, "steps": 5, **fields})


def test_a_record_must_agree_with_the_definition() -> None:
    at_budget = _record(outcome="failure", termination="max_steps", verdict=_verdict(True))
    assert at_budget.outcome_class == "goal_at_budget"  # filled in when omitted
    assert EpisodeRecord.model_validate_json(at_budget.model_dump_json()) == at_budget
    with pytest.raises(ValidationError, match=r"disagrees .* make it 'goal_at_budget'"):
        _record(outcome="success", termination="max_steps", verdict=_verdict(True))
    with pytest.raises(ValidationError, match="disagrees"):
        _record(outcome="failure", outcome_class="failure", termination="max_steps",
                verdict=_verdict(True))  # fmt: skip
    dirty = _record(outcome="failure", termination="finish", verdict=_verdict(True, False),
                    final_action=FinishAction())  # fmt: skip
    assert dirty.outcome_class == "side_effect"


def _old(version: str, outcome: str, termination: str, **fields: Any) -> dict[str, Any]:
    """A record as schema ``version`` wrote it: ``outcome`` was verdict.success alone."""
    record = {"schema_version": version, "episode_id": "old", "policy": "scripted",
              "task": TASK.model_dump(mode="json", exclude={"schema_version"}),
              "outcome": outcome, "termination": termination, "steps": 5}  # fmt: skip
    return {**record, **fields}


@pytest.mark.parametrize(
    ("raw", "outcome", "ending"),
    [
        (_old("1.3", "success", "max_steps",
              verdict=_verdict(True).model_dump(mode="json")), "failure", "goal_at_budget"),
        (_old("1.2", "success", "finish", verdict=_verdict(True, False).model_dump(mode="json"),
              final_action={"type": "finish"}), "failure", "side_effect"),
        (_old("1.3", "success", "finish", verdict=_verdict(True).model_dump(mode="json"),
              final_action={"type": "finish", "status": "abort"}), "failure", "failure"),
        (_old("1.3", "success", "finish", verdict=_verdict(True).model_dump(mode="json"),
              final_action={"type": "finish"}), "success", "success"),
        (_old("1.0", "failure", "finish", verdict=_verdict(False).model_dump(mode="json")),
         "failure", "false_complete"),
        (_old("1.3", "infra_error", "infra_error", error="adb: device offline"),
         "infra_error", "infra_error"),
    ],
)  # fmt: skip
def test_older_records_are_judged_by_todays_definition(
    raw: dict[str, Any], outcome: str, ending: OutcomeClass
) -> None:
    record = EpisodeRecord.model_validate(raw)
    assert (record.outcome, record.outcome_class) == (outcome, ending)
    assert record.schema_version == raw["schema_version"]


def test_an_old_record_without_a_verdict_still_says_so() -> None:
    with pytest.raises(ValidationError, match="needs a verdict"):
        EpisodeRecord.model_validate(_old("1.3", "failure", "max_steps"))


@pytest.mark.asyncio
async def test_the_runner_counts_a_goal_reached_at_the_budget_as_no_success() -> None:
    env, policy = CounterEnv(), ScriptedPolicy(taps=3)  # taps 3 times, finishes on the 4th
    record = await run_episode(policy, env, counter_task(3, max_steps=3), episode_id="late")
    assert record.verdict is not None and record.verdict.success  # the counter shows 3 ...
    assert (record.termination, record.outcome, record.outcome_class) == (
        "max_steps", "failure", "goal_at_budget")  # fmt: skip
    done = await run_episode(ScriptedPolicy(taps=3), CounterEnv(), counter_task(3), episode_id="ok")
    assert (done.outcome, done.outcome_class) == ("success", "success")


_FINALS: list[tuple[Termination, Action | None]] = [
    ("finish", FinishAction()),
    ("finish", FinishAction(status="abort")),
    ("finish", FinishAction(status="infeasible")),
    ("answer", AnswerAction(fields={"n": 3})),
    ("max_steps", TAP),
    ("max_steps", None),
]


def _verdicts() -> list[Verdict]:
    out = []
    for goal, guard, clean in itertools.product((True, False), (True, False), (True, False, None)):
        checks = [CheckResult(name="step", passed=True), CheckResult(name="other", passed=goal)]
        checks.append(CheckResult(name="kept", passed=guard, guard=True))
        effects = ["global.x"] if clean is False else None
        seen: bool | None = None if clean is None else True
        out.append(Verdict.from_checks(checks, clean=seen, side_effects=effects,
                                       clean_reason="no" if clean is None else None))  # fmt: skip
    assert sorted({str(v.clean) for v in out}) == ["False", "None", "True"]
    return out


@pytest.mark.parametrize(("termination", "final"), _FINALS)
def test_the_reward_gives_full_credit_exactly_for_a_success(
    termination: Termination, final: Action | None
) -> None:
    for verdict in _verdicts():
        reward = shaped_reward(verdict, final, infra_error=False)
        assert (reward == 1.0) == is_success(termination, verdict, final), (verdict, final)
        assert 0.0 <= reward <= 1.0


def test_breaking_a_guard_with_every_step_done_is_not_full_credit() -> None:
    checks = [CheckResult(name="alarm deleted", passed=True),
              CheckResult(name="decoy kept", passed=False, guard=True)]  # fmt: skip
    broken = Verdict.from_checks(checks)
    assert broken.progress == 1.0 and not broken.success
    assert shaped_reward(broken, TAP, infra_error=False) == pytest.approx(0.8)
    assert shaped_reward(broken, FinishAction(), infra_error=False) == pytest.approx(0.64)
