"""The AnswerSheet app: where the agent answers a query task in typed fields."""

from sim.apps.answersheet.app import AnswerSheetApp, pose_questions

__all__ = ["AnswerSheetApp", "pose_questions"]
