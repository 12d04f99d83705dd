"""The episode reward every trainer here uses: the verdict's progress, shaped as MobileGym's
RL evaluator shapes it. One home, so ``mgb train``, the Gymnasium wrapper and any outside
trainer score an episode the same way.
"""

from __future__ import annotations

from bridge.actions import Action, AnswerAction, FinishAction
from bridge.schema import Verdict

__all__ = ["shaped_reward"]


def shaped_reward(verdict: Verdict | None, final_action: Action | None, infra_error: bool) -> float:
    """MobileGym's dense reward (``mobilegym-rl`` ``evaluator.py``).

    Base = ``verdict.progress``; x0.8 when the goal is met but not clean (``clean`` is the
    observable diff a phone also computes; None — the world could not observe — is not
    penalised, as nothing was seen to go wrong); x0.5 when the goal
    is met and the agent aborted (``finish`` not ``success``), or x0.5 when it never
    finished (overdue); x0.8 when it finished (or answered) without reaching the goal.
    Infrastructure errors give 0. Full credit only for a clean success ended by the agent.
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
    elif finished:
        reward *= 0.8
    return float(reward)
