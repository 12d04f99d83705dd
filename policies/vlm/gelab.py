"""Adapter for GELab-Zero (stepfun-ai/gelab-zero; notes in docs/vlm_adapters.md).

Prompt (our wording of the documented ``parser_0920_summary`` prompt, Chinese as the model
card's): one user turn with the task definition (a 0–1000 screen grid and nine actions), the
task, the history summary the model wrote at its previous step, the current screenshot and
the output format::

    <THINK> reasoning </THINK>
    explain:...\\taction:CLICK\\tpoint:x,y\\tsummary:new history summary

Fields are tab-separated ``key:value`` pairs. Actions: CLICK ``point``; TYPE ``value``
(``point`` optional: the field); COMPLETE ``return`` (the report: finish success, the answer on
a query task); WAIT ``value`` seconds; AWAKE ``value`` (app name); INFO ``value`` (a question
for the user: the answer on a query task, else finish abort); ABORT (finish infeasible);
SLIDE ``point1``, ``point2`` (finger path); LONGPRESS ``point``. Points are on a 0–1000 grid,
divided by 1000 as gelab-zero's executor does. ``<think>``/``<TINK>`` tag variants are read
as ``<THINK>``; only what follows the last ``</THINK>`` is the action. Several ``action:``
fields, or one without a value, are invalid steps. Special tokens and code fences are dropped;
a full-width separator (``action：CLICK``) counts as ``:``, and keys, action names, points and
seconds are read through NFKC, while the ``value``/``return`` text is kept as written.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import ClassVar

from bridge.actions import (
    Action,
    FinishAction,
    LongPressAction,
    OpenAppAction,
    Point,
    SwipeAction,
    TapAction,
    Target,
    TypeAction,
    WaitAction,
)
from bridge.schema import Observation, PolicyContext
from policies.vlm.adapter import (
    Adapter,
    HistoryStep,
    ParsedOutput,
    answer_action,
    describe_error,
    finish_or_answer,
    human_needed,
    screenshot_url,
)
from policies.vlm.apps import resolve_app
from policies.vlm.errors import ActionError
from policies.vlm.frames import ModelFrame, numbers
from policies.vlm.messages import ChatMessage, user
from policies.vlm.reply_text import clean_reply, fold

__all__ = ["GELabAdapter", "read_fields"]

PARSER_VERSION = "2026-12-02"
"""Bump when this adapter reads replies differently: it is in every run's harness
fingerprint, and a resumed run must parse as it began."""

_Fields = dict[str, str]

_TASK_DEFINITION = """你是操作安卓手机的 GUI 智能体。\
根据用户任务、当前截图和历史记录，每一步选择一个动作。
屏幕坐标以左上角为原点，x 向右、y 向下，两轴取值都是 0-1000。

动作（字段之间用制表符分隔）：
1. CLICK 点击：action:CLICK\\tpoint:x,y
2. TYPE 输入文字：action:TYPE\\tvalue:文字\\tpoint:x,y
3. COMPLETE 完成并汇报结果：action:COMPLETE\\treturn:结果
4. WAIT 等待若干秒：action:WAIT\\tvalue:秒数
5. AWAKE 打开应用：action:AWAKE\\tvalue:应用名
6. INFO 向用户提问：action:INFO\\tvalue:问题
7. ABORT 任务无法继续时终止：action:ABORT\\tvalue:原因
8. SLIDE 从起点滑到终点：action:SLIDE\\tpoint1:x1,y1\\tpoint2:x2,y2
9. LONGPRESS 长按：action:LONGPRESS\\tpoint:x,y"""

_OUTPUT_FORMAT = """先思考，再给出动作：思考写在 <THINK> 与 </THINK> 之间；\
随后一行以 explain: 开头说明动作目的，\
接着是动作及其参数，最后 summary: 写出执行本步之后的新历史总结。例如：
<THINK> 思考 </THINK>
explain:说明\\taction:CLICK\\tpoint:500,500\\tsummary:新的历史总结"""


_SEPARATOR = re.compile("[:：]")
"""A field's key/value separator: ASCII or full-width."""


def _field(part: str) -> tuple[str, str, str]:
    """``(key, separator, value)`` of one ``key:value`` field; the key folded (NFKC) and
    lower-cased, the value as written."""
    found = _SEPARATOR.search(part)
    if found is None:
        return part, "", ""
    return fold(part[: found.start()]).strip().lower(), ":", part[found.end() :]


def read_fields(raw_text: str) -> tuple[str | None, _Fields]:
    """The thought and the ``key:value`` fields after the last ``</THINK>``.

    Raises:
        ActionError: the fields hold no action, or more than one.
    """
    text = re.sub(
        r"<\s*(/?)\s*T[HI]*NK\s*>", r"<\1THINK>", clean_reply(raw_text), flags=re.IGNORECASE
    )
    head, _, tail = text.rpartition("</THINK>")
    thought = head.replace("<THINK>", "").strip() or None if head else None
    if "<THINK>" in tail:
        raise ActionError("the reply was cut off: a <THINK> block is not closed")
    parts = [part for part in re.split(r"[\t\n]", tail) if part.strip()]
    if parts and not _SEPARATOR.search(parts[-1]):  # no end marker: a cut field shows it
        raise ActionError(f"the reply was cut off after {parts[-1].strip()[:40]!r}")
    fields: _Fields = {}
    actions = 0
    for part in parts:
        key, sep, value = _field(part)
        if not sep:
            continue
        actions += key == "action"
        fields.setdefault(key, value.strip())
    if actions == 0 or not fields.get("action"):
        raise ActionError("no action:NAME field after </THINK>")
    if actions > 1:
        raise ActionError(f"several actions in one reply ({actions}); give one per step")
    return thought, fields


class GELabAdapter(Adapter):
    """GELab-Zero: ``<THINK>`` then tab-separated fields, points on a 0–1000 grid."""

    name = "gelab"
    default_model: ClassVar[str | None] = "stepfun-ai/GELab-Zero-4B-preview"

    def frame(self, observation: Observation) -> ModelFrame:
        """The 0..1000 grid."""
        return ModelFrame.grid(1000)

    def build_messages(
        self,
        instruction: str,
        context: PolicyContext,
        observation: Observation,
        history: Sequence[HistoryStep],
    ) -> list[ChatMessage]:
        """One user turn: the task definition, the task, the last summary, the screenshot."""
        summary = next((s.parsed.summary for s in reversed(history) if s.parsed.summary), None)
        done = summary or "暂无历史操作"
        status = f"用户任务：{instruction}\n已执行的历史动作：{done}\n当前截图："
        return [user(_TASK_DEFINITION, status, screenshot_url(observation), _OUTPUT_FORMAT)]

    def parse(
        self, raw_text: str, observation: Observation, context: PolicyContext | None = None
    ) -> ParsedOutput:
        """Read the fields after ``</THINK>`` into an action."""
        try:
            thought, fields = read_fields(raw_text)
        except ActionError as exc:
            return ParsedOutput.invalid(str(exc))
        summary = fields.get("summary") or fields.get("explain")
        name = fold(fields["action"]).strip().upper()
        try:
            builder = _BUILDERS.get(name)
            if builder is None:
                raise ActionError(f"action {name!r} is unknown; use one of {', '.join(_BUILDERS)}")
            action = builder(fields, self.frame(observation), context)
        except ValueError as exc:
            return ParsedOutput.invalid(describe_error(exc), thought, summary)
        return ParsedOutput(action=action, thought=thought, summary=summary)


def _point(fields: _Fields, frame: ModelFrame, key: str = "point") -> Target:
    return Target(point=_xy(fields, frame, key))


def _xy(fields: _Fields, frame: ModelFrame, key: str) -> Point:
    if not fields.get(key):
        raise ActionError(f"{fields['action']} needs {key}:x,y")
    return frame.point_of(numbers(fold(fields[key])))


def _value(fields: _Fields, key: str = "value") -> str:
    value = fields.get(key, "")
    if not value:
        raise ActionError(f"{fields['action']} needs {key}:...")
    return value


def _type(fields: _Fields, frame: ModelFrame, context: PolicyContext | None) -> TypeAction:
    target = _point(fields, frame) if fields.get("point") else None
    return TypeAction(text=_value(fields), target=target, clear=True)


def _wait(fields: _Fields, frame: ModelFrame, context: PolicyContext | None) -> WaitAction:
    seconds = numbers(fold(fields.get("value", "")))
    return WaitAction(seconds=min(max(seconds[0], 0.1), 60.0) if seconds else 2.0)


def _info(fields: _Fields, frame: ModelFrame, context: PolicyContext | None) -> Action:
    if context is not None and context.answer_fields:
        return answer_action(_value(fields), context)
    return human_needed("user reply", fields.get("value"))


def _slide(fields: _Fields, frame: ModelFrame, context: PolicyContext | None) -> SwipeAction:
    start, end = _xy(fields, frame, "point1"), _xy(fields, frame, "point2")
    return SwipeAction(start=start, end=end)


_BUILDERS: dict[str, Callable[[_Fields, ModelFrame, PolicyContext | None], Action]] = {
    "CLICK": lambda f, m, c: TapAction(target=_point(f, m)),
    "TYPE": _type,
    "COMPLETE": lambda f, m, c: finish_or_answer(f.get("return") or f.get("value"), c),
    "WAIT": _wait,
    "AWAKE": lambda f, m, c: OpenAppAction(app=resolve_app(_value(f))),
    "INFO": _info,
    "ABORT": lambda f, m, c: FinishAction(status="infeasible", message=f.get("value") or None),
    "SLIDE": _slide,
    "LONGPRESS": lambda f, m, c: LongPressAction(target=_point(f, m)),
}
