"""What a success is, and how every episode ended: the one definition everything counts by.

A **success** is an episode in which

1. **the goal holds at the end**: ``Verdict.success`` (every check passed, guards included);
2. **the agent ended it itself, saying it was done**: termination ``answer``, or ``finish``
   with status ``success`` — not the step budget (``max_steps``), not the guard (``guard``),
   not a person (``stopped``). ``finish`` with status ``infeasible`` or ``abort`` is the
   agent saying it could *not* do the task: never a success, even when the goal happens to
   hold (it did not claim it), and not a false complete either (it did not claim to be
   done). A ``finish`` record without its final action reads as ``finish`` with the
   action's default status, ``success``; one whose last action is not ``finish`` (a world
   that ended the episode itself) was not ended by the agent;
3. **nothing else changed, where the world can tell**: ``Verdict.clean`` is not False.
   None — the world could not observe the state it would diff (a retail phone's protected
   settings) — is not penalised; reports count such episodes apart ("clean unknown") so a
   reader sees how much of a rate rests on them.

Every episode falls in exactly one :data:`OutcomeClass` (the first that applies):

* ``infra_error`` — the world or the model's server failed (no verdict): never a policy
  result, and left out of every rate;
* ``success`` — all three above;
* ``side_effect`` — the goal holds and the agent said it was done, but something else
  changed (``clean`` False);
* ``goal_at_budget`` — the goal holds, but the step budget ended the episode;
* ``false_complete`` — the agent said it was done (finish success, or an answer), and the
  goal does not hold (a wrong answer included);
* ``failure`` — the rest: the goal does not hold and the agent did not claim it, or the
  agent gave up (finish infeasible/abort), or a guard or a person stopped it.

``EpisodeRecord.outcome`` is the coarse form (``success``, ``failure``, ``infra_error``) of
the class. A record is judged from its fields (verdict, termination, final action), so
records written before this definition (schema < 1.4, when ``outcome`` meant only "the
goal holds") are counted by it too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, get_args

from bridge.actions import Action, FinishAction

if TYPE_CHECKING:  # bridge.schema imports this module: the verdict is only read here
    from bridge.schema import Verdict

__all__ = [
    "OUTCOME_CLASSES",
    "SUCCESS_MEANS",
    "TERMINATIONS",
    "EpisodeOutcome",
    "OutcomeClass",
    "Termination",
    "claimed_done",
    "classify",
    "episode_outcome",
    "is_success",
]

SUCCESS_MEANS = "Success = the goal holds, the agent said it was done, and nothing else changed."
"""The definition in one sentence, as reports and the terminal print it."""

Termination = Literal["finish", "answer", "max_steps", "guard", "stopped", "infra_error"]
"""How an episode stopped: the agent (``finish``, ``answer``), the step budget, the guard,
a person (``stopped``: a console reset), or an infrastructure failure."""

TERMINATIONS: tuple[Termination, ...] = get_args(Termination)
"""Every termination, in the order of :data:`Termination`."""

OutcomeClass = Literal[
    "success", "goal_at_budget", "false_complete", "side_effect", "failure", "infra_error"
]
"""How an episode ended, one class per episode (see the module docstring)."""

OUTCOME_CLASSES: tuple[OutcomeClass, ...] = get_args(OutcomeClass)
"""Every outcome class, in the order reports list them."""

EpisodeOutcome = Literal["success", "failure", "infra_error"]
"""The coarse outcome a record stores beside its class."""


def claimed_done(termination: Termination, final_action: Action | None) -> bool:
    """Whether the agent ended the episode saying the task is done: an answer, or a
    ``finish`` action whose status is ``success`` (the default when the action is not
    recorded)."""
    if termination == "answer":
        return True
    if termination != "finish":
        return False
    if final_action is None:
        return True
    return isinstance(final_action, FinishAction) and final_action.status == "success"


def classify(
    termination: Termination, verdict: Verdict | None, final_action: Action | None
) -> OutcomeClass:
    """The class of an episode from its termination, verdict and last action; an episode
    without a verdict (or ended by an infrastructure failure) was not judged."""
    if termination == "infra_error" or verdict is None:
        return "infra_error"
    claimed = claimed_done(termination, final_action)
    if verdict.success and claimed:
        return "side_effect" if verdict.clean is False else "success"
    if verdict.success and termination == "max_steps":
        return "goal_at_budget"
    return "false_complete" if claimed else "failure"


def is_success(
    termination: Termination, verdict: Verdict | None, final_action: Action | None
) -> bool:
    """Whether the episode is a success (:func:`classify` gives ``success``)."""
    return classify(termination, verdict, final_action) == "success"


def episode_outcome(ending: OutcomeClass) -> EpisodeOutcome:
    """The coarse outcome of a class: ``success``, ``infra_error``, else ``failure``."""
    if ending == "success" or ending == "infra_error":
        return ending
    return "failure"
