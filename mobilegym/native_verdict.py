"""MobileGym's ``JudgeResult`` as our :class:`~bridge.schema.Verdict`, and answers across the
border: their AnswerSheet fields as our :class:`~bridge.schema.AnswerField` s, our answer
action as their ``ANSWER`` text.

Their judge (``BaseTask.evaluate``: ``check_goals`` and the side-effect rules) gives
``success``, ``clean``, ``progress``, ``issues`` — one per check, ``{field, expected, actual,
passed[, reason]}`` — and ``warnings``, the unexpected changes ``{field, before, after}``.
Each issue becomes one :class:`~bridge.schema.CheckResult` with its fields kept (values made
JSON), each warning's path one side effect. Their success, clean and progress are taken as
they are, never recomputed: this verdict is their judge's, and every check line says so in
its ``evidence``.

A ``judge_error`` is their judge failing (a task bug by their rules, never the agent's doing),
so it is an infrastructure failure here, not a failed episode.

An answer reaches their judge as text in their ``text`` mode: our answer action's values in
their fields' order, joined by ``, `` as their runner joins a filled AnswerSheet's.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import JsonValue

from bridge.schema import AnswerField, AnswerValue, CheckResult, Verdict
from mobilegym.errors import MobileGymFailed

__all__ = ["JUDGE_NOTE", "answer_fields", "answer_text", "json_value", "verdict_from_judge"]

JUDGE_NOTE = "judged by MobileGym's bench_env"
"""The start of every check line's ``evidence``: whose judge made the verdict."""


def json_value(value: Any) -> JsonValue:
    """``value`` of theirs as JSON (tuples become lists; anything else JSON has no form for,
    its ``str``), so a record says what their code held."""
    out: JsonValue = json.loads(json.dumps(value, ensure_ascii=False, default=str))
    return out


def _check(issue: dict[str, Any], task_id: str) -> CheckResult:
    reason = issue.get("reason")
    evidence = f"{JUDGE_NOTE} ({task_id})" + (f": {reason}" if reason else "")
    return CheckResult(
        name=str(issue.get("field") or "goal"),
        expected=json_value(issue.get("expected")),
        actual=json_value(issue.get("actual")),
        passed=bool(issue.get("passed", False)),  # their fallback issue has no "passed"
        evidence=evidence,
    )


def _side_effect(warning: dict[str, Any]) -> str:
    field = str(warning.get("field"))
    if field == "_error":  # their diff itself failed; the text is in "after"
        return f"state comparison failed: {warning.get('after')}"
    return field


def verdict_from_judge(result: Any, task_id: str, *, query: bool) -> Verdict:
    """Their ``JudgeResult`` (untyped: ``Any``) as a verdict.

    Args:
        result: What their ``Evaluator.evaluate`` returned.
        task_id: Their task id, named in every check line's evidence.
        query: The task asks a question (their ``objective == "query"``): the verdict's
            kind is ``answer``, else ``state``.

    Raises:
        MobileGymFailed: their judge itself failed (``judge_error``).
    """
    if result.judge_error:
        raise MobileGymFailed(f"MobileGym's judge of {task_id} failed: {result.judge_error}")
    return Verdict(
        success=bool(result.success),
        progress=float(result.progress),
        clean=bool(result.clean),
        checks=[_check(issue, task_id) for issue in result.issues],
        side_effects=[_side_effect(warning) for warning in result.warnings],
        kind="answer" if query else "state",
        deterministic=True,
    )


def answer_fields(theirs: Sequence[JsonValue]) -> list[AnswerField]:
    """Their AnswerSheet fields (``{type, label, hint?, options?}``) as ours: ``answer``, or
    ``answer1``, ``answer2``, ... in their order; a ``choice`` with options keeps them, a
    ``number`` stays one, anything else is text; a hint is said after the label."""
    names = ["answer"] if len(theirs) == 1 else [f"answer{i}" for i in range(1, len(theirs) + 1)]
    fields = []
    for name, field in zip(names, theirs, strict=True):
        given = field if isinstance(field, dict) else {}
        hint, options = given.get("hint"), given.get("options")
        label = str(given.get("label") or "") + (f" ({hint})" if hint else "")
        if given.get("type") == "choice" and isinstance(options, list) and options:
            fields.append(AnswerField(name=name, kind="choice", label=label,
                                      choices=[str(option) for option in options]))  # fmt: skip
        else:
            kind: Literal["number", "text"] = "number" if given.get("type") == "number" else "text"
            fields.append(AnswerField(name=name, kind=kind, label=label))
    return fields


def answer_text(fields: Sequence[AnswerField], answer: dict[str, AnswerValue] | None) -> str | None:
    """The agent's answer as their ``ANSWER`` text: the fields' values in field order (any
    other names after them), joined by ``, ``; None when it gave none."""
    if answer is None:
        return None
    known = [field.name for field in fields if field.name in answer]
    order = known + [name for name in answer if name not in known]
    return ", ".join(str(answer[name]) for name in order)
