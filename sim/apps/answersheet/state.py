"""The AnswerSheet's overlay, typed: the question a task poses
(:func:`sim.apps.answersheet.pose_questions`, from the task's ``answer_fields``) and what
:mod:`sim.apps.answersheet.app` writes into ``InstanceState.apps["answersheet"]``."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from sim.state import OverlayModel

__all__ = ["AnswerSheetState", "SheetField"]


class SheetField(OverlayModel):
    """One field of the form, as ``bridge.schema.AnswerField`` dumps it without Nones."""

    name: str
    kind: Literal["choice", "number", "date", "time", "text"]
    label: str = ""
    choices: list[str] | None = None


class AnswerSheetState(OverlayModel):
    """``{"question", "fields", "answers", "submitted", "error"}``."""

    question: str = ""
    fields: list[SheetField] = Field(default_factory=list)
    answers: dict[str, str | int | float] = Field(default_factory=dict)
    """Submitted answers by field name, typed (numbers as numbers)."""
    submitted: bool = False
    error: str | None = None
    """The first problem of the last submit, in the UI's language."""
