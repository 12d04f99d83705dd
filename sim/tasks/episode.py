"""A task posed on a simulator instance: its spec posed at reset, the answer, the verdict.

Posing and judging are :mod:`bridge.judge` over :class:`~sim.android_state.SimAndroidState`
— the same code a phone is judged by. The simulator adds only what a phone has no use for:
its full-state diff (``Verdict.sim_side_effects``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bridge.judge import StartRecord, judge, pose
from bridge.records import TaskInstance
from bridge.schema import AnswerValue, Verdict
from bridge.taskspec import TaskSpec
from sim.android_state import SimAndroidState
from sim.errors import SimError
from sim.phone import Phone
from sim.state import InstanceState
from sim.sync_call import complete
from sim.tasks.sim_diff import judged_state, sim_changes

__all__ = ["TaskEpisode"]


class TaskEpisode:
    """Judges one task instance on one instance state."""

    def __init__(self, task: TaskInstance) -> None:
        if task.spec is None:
            raise SimError(
                f"task {task.task_id} carries no spec; instantiate it with the task registry"
            )
        self.task = task
        self.spec: TaskSpec = task.spec
        self.start = StartRecord()
        self.initial: dict[str, Any] = {}
        self.answer: dict[str, AnswerValue] | None = None

    def setup(self, phone: Phone, state: InstanceState) -> None:
        """Pose the spec on ``state`` and remember the start (raises ``TaskNotPosed`` when
        the goal already holds)."""
        self.start = complete(pose(self.spec, SimAndroidState(phone, state)))
        self.initial = judged_state(phone, state)

    def copy(self) -> TaskEpisode:
        """An independent copy (for a fork); the start is shared, never mutated."""
        twin = TaskEpisode(self.task)
        twin.start, twin.initial = self.start, self.initial
        twin.answer = dict(self.answer) if self.answer is not None else None
        return twin

    def sheet_answer(self, state: InstanceState) -> dict[str, AnswerValue] | None:
        """Answers submitted in the AnswerSheet app, if any."""
        sheet = state.apps.get("answersheet") or {}
        return dict(sheet.get("answers") or {}) if sheet.get("submitted") else None

    def verdict(self, phone: Phone, state: InstanceState, trees: list[str]) -> Verdict:
        """Judge the instance now, from the episode's saved UI trees when the spec needs
        them; the simulator's full-state diff is added as ``sim_side_effects``."""
        answer = self.answer if self.answer is not None else self.sheet_answer(state)
        verdict = complete(
            judge(self.spec, SimAndroidState(phone, state), self.start, answer=answer, trees=trees)
        )
        changes = sim_changes(self.initial, judged_state(phone, state))
        return verdict.model_copy(update={"sim_side_effects": changes})

    def document(self) -> dict[str, Any]:
        """What a snapshot keeps of the episode: the task and the answer (the start is a
        function of the task and its seed, recomputed on restore; kilobytes stay few)."""
        return {"task": self.task.model_dump(mode="json"), "answer": self.answer}

    @classmethod
    def from_document(
        cls,
        document: dict[str, Any],
        phone: Phone,
        fresh: Callable[[int], InstanceState] = lambda seed: InstanceState(seed=seed),
    ) -> TaskEpisode:
        """The episode a snapshot kept (:meth:`document`), its start posed anew on
        ``fresh(seed)`` (the state the env's resets start from)."""
        episode = cls(TaskInstance.model_validate(document["task"]))
        episode.setup(phone, fresh(episode.task.seed))
        episode.answer = document.get("answer")
        return episode
