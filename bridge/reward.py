"""The episode reward every trainer here uses: the verdict's progress, shaped as MobileGym's
RL evaluator shapes it. One home, so ``mgb train``, the Gymnasium wrapper and any outside
trainer score an episode the same way.

It is a dense training signal, not a second definition of success: its maximum, 1.0, is
reached by a success as :mod:`bridge.outcome` defines it and by nothing else, and below
that it orders the other endings to teach (see ``docs/success.md``).
"""

from __future__ import annotations

from bridge.actions import Action, AnswerAction, FinishAction
from bridge.schema import Verdict

__all__ = ["shaped_reward"]


def shaped_reward(verdict: Verdict | None, final_action: Action | None, infra_error: bool) -> float:
    """MobileGym's dense reward (``mobilegym-rl`` ``evaluator.py``), plus a broken guard.

    Base = ``verdict.progress``; x0.8 when the goal is met but not clean (``clean`` is the
    observable diff a phone also computes; None — the world could not observe — is not
    penalised, as nothing was seen to go wrong); x0.5 when the goal
    is met and the agent aborted (``finish`` not ``success``), or x0.5 when it never
    finished (overdue); x0.8 when it finished (or answered) without reaching the goal.
    Ours: x0.8 when a guard broke (a check the task must not break, which progress does not
    count) — without it, breaking a guard with every step done would earn full credit.
    Infrastructure errors give 0. Full credit exactly for a success (:mod:`bridge.outcome`),
    for a verdict made from its checks (:meth:`Verdict.from_checks`, as every judge here).
    """
    if infra_error or verdict is None:
        return 0.0
    reward = verdict.progress
    finished = isinstance(final_action, (FinishAction, AnswerAction))
    aborted = isinstance(final_action, FinishAction) and final_action.status != "success"
    if verdict.success:
        if verdict.clean is False:
            reward *= 0.8
        if aborted or not finished:
            reward *= 0.5
    else:
        if finished:
            reward *= 0.8
        if any(check.guard and not check.passed for check in verdict.checks):
            reward *= 0.8
    return float(reward)
