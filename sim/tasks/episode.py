"""A task posed on an instance: setup at reset, the answer given, the verdict at the end."""

from __future__ import annotations

from typing import Any

from bridge.schema import AnswerValue, Check, TaskInstance, Verdict
from sim.errors import SimError
from sim.phone import Phone
from sim.state import InstanceState
from sim.tasks.base import SetupContext, TaskTemplate
from sim.tasks.judge import judged_state, match_answer, unexpected_changes

__all__ = ["UI_LOCALES", "PreSatisfiedTask", "TaskEpisode"]

UI_LOCALES = {"en": "en-US", "zh": "zh-CN"}
"""The phone's ``system.system_locales`` for a task in each language."""


class PreSatisfiedTask(SimError):
    """A task whose goal already holds after setup: a bug in the template, never a pass."""


class TaskEpisode:
    """Judges one task instance on one instance state."""

    def __init__(self, template: TaskTemplate, task: TaskInstance) -> None:
        self.template = template
        self.task = task
        self.params: dict[str, Any] = dict(task.params)
        self.initial: dict[str, Any] = {}
        self.answer: dict[str, AnswerValue] | None = None

    def setup(self, phone: Phone, state: InstanceState) -> None:
        """Set the UI language to the task's, apply the template's setup (which may change
        it again) and remember the judged state at the start."""
        state.os.settings["system"]["system_locales"] = UI_LOCALES[self.task.lang]
        self.template.setup(SetupContext(phone, state), self.params)
        self.initial = judged_state(phone, state)
        if self.template.answer_fields:
            return  # never met at the start: no answer has been given yet
        start = self.template.checks(self.initial, self.params)
        if not start or all(c.passed for c in start):
            raise PreSatisfiedTask(
                f"{self.task.task_id} (seed {self.task.seed}) is already solved after setup "
                "or has nothing to check; fix its setup"
            )

    def copy(self) -> TaskEpisode:
        """An independent copy (for a fork); the initial state is shared, never mutated."""
        twin = TaskEpisode(self.template, self.task)
        twin.initial = self.initial
        twin.answer = dict(self.answer) if self.answer is not None else None
        return twin

    def sheet_answer(self, state: InstanceState) -> dict[str, AnswerValue] | None:
        """Answers submitted in the AnswerSheet app, if any."""
        sheet = state.apps.get("answersheet") or {}
        return dict(sheet.get("answers") or {}) if sheet.get("submitted") else None

    def answer_checks(self, state: InstanceState) -> list[Check]:
        """One check per answer field (from the ``answer`` action, else the AnswerSheet)."""
        answer = self.answer if self.answer is not None else self.sheet_answer(state)
        truth = self.template.expected_answers(self.initial, self.params)
        checks = []
        for spec in self.template.answer_fields:
            given = (answer or {}).get(spec.name)
            passed = match_answer(spec.kind, truth[spec.name], given, spec.tolerance)
            checks.append(
                Check(
                    name=f"answer.{spec.name}",
                    expected=truth[spec.name],
                    actual=given,
                    passed=passed,
                    evidence=f"matcher {spec.kind}",
                )
            )
        return checks

    def verdict(self, phone: Phone, state: InstanceState) -> Verdict:
        """Judge the instance now: checks, answer fields, and side effects."""
        final = judged_state(phone, state)
        checks = self.template.checks(final, self.params) + self.answer_checks(state)
        unexpected = unexpected_changes(
            self.initial, final, self.template.allowed_changes(self.params)
        )
        kind = "answer" if self.template.kind == "query" else "state"
        return Verdict.from_checks(checks, side_effects=unexpected, kind=kind)
