"""What a run records: the task instance an env is reset with, each step, each episode.

These are the records of ``steps.jsonl`` and ``episode.json``. They carry the task with its
bound spec (:mod:`bridge.taskspec`), which is why they live apart from the policy contract
(:mod:`bridge.schema`): a policy is never given the spec.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import (
    Field,
    JsonValue,
    NonNegativeFloat,
    NonNegativeInt,
    PositiveInt,
    ValidationError,
    model_validator,
)

from bridge.actions import Action, ContractModel, parse_action
from bridge.outcome import (
    TERMINATIONS,
    EpisodeOutcome,
    OutcomeClass,
    Termination,
    classify,
    episode_outcome,
)
from bridge.schema import (
    SCHEMA_VERSION,
    AnswerField,
    BackendInfo,
    Observation,
    ObservedState,
    PolicyOutput,
    Restoration,
    SchemaVersion,
    StepResult,
    Verdict,
)
from bridge.taskspec import TaskSpec

__all__ = ["EpisodeRecord", "StepRecord", "TaskInstance"]

_BEFORE_STRICT_SUCCESS = ("1.0", "1.1", "1.2", "1.3")
"""Versions whose ``EpisodeRecord.outcome`` meant only ``verdict.success``."""


class TaskInstance(ContractModel):
    """A task template instantiated with seeded parameters: what ``Env.reset`` sets up.

    ``spec`` is the instance bound into plain data (:class:`~bridge.taskspec.TaskSpec`):
    how every world poses and judges it, with no template code needed.
    """

    schema_version: SchemaVersion = SCHEMA_VERSION
    task_id: str = Field(min_length=1)
    seed: int = 0
    params: dict[str, JsonValue] = Field(default_factory=dict)
    instruction: str = Field(min_length=1)
    lang: Literal["en", "zh"] = "en"
    level: Literal["L1", "L2", "L3", "L4"] | None = None
    max_steps: PositiveInt = 30
    answer_fields: list[AnswerField] = Field(default_factory=list)
    spec: TaskSpec | None = None


class StepRecord(ContractModel):
    """One line of ``steps.jsonl``: the decision, its execution, and where the frame is.

    The observation is stored without its screenshot bytes (the ``ui`` list is kept: it is
    what element targets refer to); the image is in ``frame`` and the tree's XML in ``tree``,
    paths relative to the episode directory.
    """

    schema_version: SchemaVersion = SCHEMA_VERSION
    step: NonNegativeInt
    observation: Observation
    output: PolicyOutput
    result: StepResult | None = None
    invalid: bool = False
    frame: str | None = None
    tree: str | None = None
    policy_ms: NonNegativeFloat = 0.0
    decided_by: Literal["policy", "approved", "override", "human"] | None = None
    """Who chose the executed action in a console run: the policy alone (auto-run), the
    policy with a person's approval, or a person instead of the policy (``output`` is then
    the person's action and ``proposal`` what the policy had proposed); ``human``: a person
    who is the policy (``--policy human``: no proposals). None: not a console run (``mgb sim
    run``, ``mgb device run``, transfer-eval; the episode's ``policy`` says who decided)."""
    proposal: PolicyOutput | None = None
    """The policy's proposal a person overrode (None when it was not overridden)."""


class EpisodeRecord(ContractModel):
    """The summary of one finished episode (``episode.json`` and a line of results.jsonl).

    ``outcome_class`` says how the episode ended and ``outcome`` is its coarse form, both as
    :mod:`bridge.outcome` defines them: ``success`` only when the goal holds, the agent said
    it was done and nothing else changed (where the world can tell); ``infra_error`` keeps
    infrastructure failures apart from policy failures. Both must agree with the record's
    verdict, termination and final action; ``outcome_class`` is filled in when omitted, and a
    record older than 1.4 gets both from those fields. ``termination`` says how the episode
    stopped. ``backend`` is None only when the env failed before it could say which world it
    is.
    """

    schema_version: SchemaVersion = SCHEMA_VERSION
    episode_id: str = Field(min_length=1)
    task: TaskInstance
    policy: str
    backend: BackendInfo | None = None
    outcome: EpisodeOutcome
    outcome_class: OutcomeClass
    """How the episode ended, one of :mod:`bridge.outcome`'s classes (``docs/success.md``
    says what each means)."""
    termination: Termination
    verdict: Verdict | None = None
    steps: NonNegativeInt
    invalid_steps: NonNegativeInt = 0
    final_action: Action | None = None
    error: str | None = None
    error_source: Literal["env", "policy"] | None = None
    duration_s: NonNegativeFloat = 0.0
    stop_reason: str | None = None
    """Why the episode was stopped before the policy ended it: the guard's reason
    (termination ``guard``) or a person's (termination ``stopped``: a console reset)."""
    start_state: ObservedState | None = None
    """The observable state the task was posed in (after posing, at step 0), which pairs
    of cells in two worlds compare (start-state parity); None where the world could not
    observe it or did not say."""
    restoration: Restoration | None = None
    """What was put back after the episode (a phone's; None: a world that starts every
    episode afresh, the simulator)."""

    @model_validator(mode="before")
    @classmethod
    def _judged_by_the_definition(cls, data: Any) -> Any:
        """Fill in ``outcome_class`` when omitted; judge a record older than 1.4 (whose
        ``outcome`` meant only "the goal holds") by today's definition, from its fields."""
        if not isinstance(data, dict):
            return data
        old = data.get("schema_version") in _BEFORE_STRICT_SUCCESS
        if "outcome_class" in data and not old:
            return data
        ending = _class_of_fields(data)
        if ending is None:
            return data  # malformed: the fields' own validation says what is wrong
        data = {**data, "outcome_class": ending}
        if old and ending != "infra_error":  # a verdict-less "failure" keeps its own error
            data["outcome"] = episode_outcome(ending)
        return data

    @model_validator(mode="after")
    def _outcome_matches(self) -> EpisodeRecord:
        if self.outcome == "infra_error":
            if self.error is None:
                raise ValueError("an infra_error episode must carry the error")
        elif self.verdict is None:
            raise ValueError(f"outcome {self.outcome!r} needs a verdict")
        ending = classify(self.termination, self.verdict, self.final_action)
        if self.outcome_class != ending or self.outcome != episode_outcome(ending):
            raise ValueError(
                f"outcome {self.outcome!r} / outcome_class {self.outcome_class!r} disagrees "
                f"with the verdict, termination and final action, which make it {ending!r} "
                "(bridge.outcome)"
            )
        return self


def _class_of_fields(data: dict[str, Any]) -> OutcomeClass | None:
    """The outcome class of a record's raw fields; None when they do not validate."""
    termination, verdict, final = (data.get(k) for k in ("termination", "verdict", "final_action"))
    if termination not in TERMINATIONS:
        return None
    try:
        judged = None if verdict is None else Verdict.model_validate(verdict)
        last = None if final is None else parse_action(final)
    except ValidationError:
        return None
    return classify(termination, judged, last)
