"""Plans: a task's solution written against what is on screen, not against coordinates.

A plan is a list of steps such as "tap the node whose text is Wi-Fi" or "type Alice into the
field hinted Name". A scripted policy executes it by finding each step's node in the UI tree
of the current observation, so the same plan solves a task in the simulator and on a phone
whose screens look alike. Task oracles are plans; device task variants reuse them for setup.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import Field, model_validator

from bridge.actions import AnswerValue, ContractModel, KeyName
from bridge.schema import UINode

__all__ = [
    "AnswerStep",
    "EachStep",
    "FinishStep",
    "KeyStep",
    "LongPressStep",
    "NoteStep",
    "OpenAppStep",
    "Plan",
    "PlanStep",
    "Recall",
    "ScrollStep",
    "Selector",
    "SwitchStep",
    "TapStep",
    "TypeStep",
    "WaitStep",
]


class Selector(ContractModel):
    """Which node a step means; every given field must match (text fields exactly).

    ``resource_id`` matches the full id or its short name after ``:id/``; ``class_name``
    the full class or its last part; ``nth`` picks among several matches in document order.
    """

    text: str | None = None
    text_contains: str | None = None
    desc: str | None = None
    resource_id: str | None = None
    class_name: str | None = None
    hint: str | None = None
    nth: int = Field(default=0, ge=0)

    @model_validator(mode="after")
    def _something_given(self) -> Selector:
        fields = (
            self.text,
            self.text_contains,
            self.desc,
            self.resource_id,
            self.class_name,
            self.hint,
        )
        if all(value is None for value in fields):
            raise ValueError("a selector needs at least one of text, desc, resource_id, ...")
        return self

    def matches(self, node: UINode) -> bool:
        """Whether ``node`` satisfies every given field."""
        rid = node.resource_id
        cls = node.class_name
        return (
            (self.text is None or node.text == self.text)
            and (self.text_contains is None or self.text_contains in node.text)
            and (self.desc is None or node.content_desc == self.desc)
            and (self.hint is None or node.hint == self.hint)
            and (
                self.resource_id is None
                or rid == self.resource_id
                or rid.endswith(f":id/{self.resource_id}")
            )
            and (
                self.class_name is None
                or cls == self.class_name
                or cls.rsplit(".", 1)[-1] == self.class_name
            )
        )

    def find(self, nodes: list[UINode]) -> UINode | None:
        """The ``nth`` visible node matching, or None."""
        found = [node for node in nodes if node.visible and node.area_px > 0 and self.matches(node)]
        return found[self.nth] if self.nth < len(found) else None


class TapStep(ContractModel):
    """Tap a node (scrolling the largest list to find it when ``scroll``).

    ``at`` taps at a relative position inside the node's bounds (e.g. 1.0, 0.5 for the right
    end of a slider) instead of its centre.
    """

    type: Literal["tap"] = "tap"
    on: Selector
    scroll: bool = True
    at: tuple[float, float] | None = None


class SwitchStep(ContractModel):
    """Turn a switch (or check box) on or off: tap it when its checked state is not ``on``,
    and do nothing when it already is (scrolling the largest list to find it when
    ``scroll``). A plan that must reach a state from a start it does not know reads the
    switch as a phone shows it, in the tree's ``checked``."""

    type: Literal["switch"] = "switch"
    on: Selector
    to: bool
    scroll: bool = True

    def state(self, nodes: list[UINode]) -> bool | None:
        """The checked state of the switch ``on`` names: the node itself when checkable,
        else the first checkable node inside it (a settings row and its switch widget); None
        when it is not on screen or holds no switch."""
        row = self.on.find(nodes)
        if row is None:
            return None
        if row.checkable:
            return row.checked
        inside = {row.id}
        for node in nodes[row.id + 1 :]:  # document order: descendants follow their row
            if node.parent not in inside:
                continue
            if node.checkable:
                return node.checked
            inside.add(node.id)
        return None


class LongPressStep(ContractModel):
    """Long-press a node."""

    type: Literal["long_press"] = "long_press"
    on: Selector
    scroll: bool = True


class TypeStep(ContractModel):
    """Type ``text`` into a field (``into``) or into whatever is focused."""

    type: Literal["type"] = "type"
    text: str = Field(min_length=1)
    into: Selector | None = None
    clear: bool = True
    submit: bool = False


class KeyStep(ContractModel):
    """Press a key."""

    type: Literal["key"] = "key"
    key: KeyName


class OpenAppStep(ContractModel):
    """Launch an app by app id."""

    type: Literal["open_app"] = "open_app"
    app: str


class ScrollStep(ContractModel):
    """Scroll the largest scrollable area."""

    type: Literal["scroll"] = "scroll"
    direction: Literal["up", "down", "left", "right"] = "down"


class WaitStep(ContractModel):
    """Wait."""

    type: Literal["wait"] = "wait"
    seconds: float = Field(default=1.0, gt=0)


class NoteStep(ContractModel):
    """Remember texts on the current screen under ``key``; sends no action.

    The texts are those of the nodes matching ``rows``, in document order, counting only
    nodes after the first node matching ``after`` (when given) and before the next node
    matching ``until`` (when given): "the names in the Favorites section". Noting what the
    screen shows, instead of what the task's parameters say, is what lets an oracle answer
    a query on a phone whose data differ from the simulator's.
    """

    type: Literal["note"] = "note"
    key: str = Field(min_length=1)
    rows: Selector
    after: Selector | None = None
    until: Selector | None = None

    def collect(self, nodes: list[UINode]) -> list[str]:
        """The non-empty texts this step notes from ``nodes`` (one observation's tree)."""
        visible = [node for node in nodes if node.visible and node.area_px > 0]
        start = 0
        if self.after is not None:
            first = next((i for i, node in enumerate(visible) if self.after.matches(node)), None)
            if first is None:
                return []
            start = first + 1
        texts: list[str] = []
        for node in visible[start:]:
            if self.until is not None and self.until.matches(node):
                break
            if self.rows.matches(node) and node.text.strip():
                texts.append(node.text.strip())
        return texts


class Recall(ContractModel):
    """An answer value computed from notes: how many texts were noted under ``key`` (only
    those also noted under ``among`` when given), or the first noted text, or the first
    number in it."""

    key: str = Field(min_length=1)
    op: Literal["count", "text", "number"] = "count"
    among: str | None = None

    def value(self, notes: dict[str, list[str]]) -> AnswerValue:
        """The answer value from ``notes`` (key -> noted texts); "" when nothing was noted."""
        texts = notes.get(self.key, [])
        if self.op == "count":
            pool = set(notes.get(self.among, [])) if self.among is not None else None
            return sum(1 for text in texts if pool is None or text in pool)
        if not texts:
            return ""
        if self.op == "text":
            return texts[0]
        number = re.search(r"-?\d+(?:\.\d+)?", texts[0])
        if number is None:
            return texts[0]
        return float(number[0]) if "." in number[0] else int(number[0])


class EachStep(ContractModel):
    """Repeat ``steps`` for every text noted under ``key`` (only those starting with
    ``prefix`` when given), with ``{item}`` in a selector's ``text`` replaced by the text:
    "open each person the search found and star them" — on whoever this phone's screen
    shows, not whom the simulator's world predicts."""

    type: Literal["each"] = "each"
    key: str = Field(min_length=1)
    steps: list[TapStep | LongPressStep | KeyStep] = Field(min_length=1)
    prefix: str | None = None

    def expand(self, notes: dict[str, list[str]]) -> list[TapStep | LongPressStep | KeyStep]:
        """The concrete steps for the texts in ``notes``."""
        items = [
            t for t in notes.get(self.key, []) if self.prefix is None or t.startswith(self.prefix)
        ]
        out: list[TapStep | LongPressStep | KeyStep] = []
        for item in items:
            for step in self.steps:
                on = getattr(step, "on", None)
                if on is not None and on.text == "{item}":
                    step = step.model_copy(update={"on": on.model_copy(update={"text": item})})
                out.append(step)
        return out


class AnswerStep(ContractModel):
    """Submit the answer of a query task.

    ``fields`` are the values the simulator's parameters predict; a field in ``read`` is
    answered instead from what earlier :class:`NoteStep` s saw on screen, so that the same
    plan answers from the device's own data on a phone.
    """

    type: Literal["answer"] = "answer"
    fields: dict[str, AnswerValue]
    read: dict[str, Recall] = Field(default_factory=dict)


class FinishStep(ContractModel):
    """End the episode."""

    type: Literal["finish"] = "finish"
    status: Literal["success", "infeasible", "abort"] = "success"


PlanStep = Annotated[
    TapStep
    | SwitchStep
    | LongPressStep
    | TypeStep
    | KeyStep
    | OpenAppStep
    | ScrollStep
    | WaitStep
    | NoteStep
    | EachStep
    | AnswerStep
    | FinishStep,
    Field(discriminator="type"),
]
"""One step of a plan."""

Plan = list[PlanStep]
"""A task solution as steps over what is on screen."""
