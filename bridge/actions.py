"""What a policy may do: targets and the action union of the contract.

Points are normalized screen coordinates (floats in [0, 1], top-left origin, relative to the
screen as displayed). ``scroll.direction`` names where the content you want to see is
(``down`` reveals content below; the finger moves up); ``swipe`` is the literal finger path;
``type`` never presses Enter implicitly.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    NonNegativeInt,
    PositiveInt,
    TypeAdapter,
    model_validator,
)

__all__ = [
    "Action",
    "AnswerAction",
    "AnswerValue",
    "ContractModel",
    "DoubleTapAction",
    "FinishAction",
    "KeyAction",
    "KeyName",
    "LongPressAction",
    "OpenAppAction",
    "Point",
    "ScrollAction",
    "SwipeAction",
    "TapAction",
    "Target",
    "TypeAction",
    "WaitAction",
    "parse_action",
    "require_tags",
]


def require_tags(*tags: str) -> Callable[[dict[str, Any]], None]:
    """A ``json_schema_extra`` that makes the literal tags ``tags`` required in a model's schema.

    A literal tag (``type``, ``op``, …) discriminates a union: the server needs it, so the
    published schema requires it too (its default only spares Python callers from writing
    it). Only a property whose schema is a ``const`` is required: another field of that name
    (an enum) is left as it is.
    """

    def required(schema: dict[str, Any]) -> None:
        properties = schema.get("properties", {})
        wanted = [tag for tag in tags if "const" in properties.get(tag, {})]
        if wanted:
            present = schema.setdefault("required", [])
            missing = [tag for tag in wanted if tag not in present]
            present[:0] = missing

    return required


class ContractModel(BaseModel):
    """Base of all contract models: unknown fields are errors, values are immutable."""

    model_config = ConfigDict(extra="forbid", frozen=True, json_schema_extra=require_tags("type"))


# --------------------------------------------------------------------------- targets


class Point(ContractModel):
    """A point in normalized screen coordinates (0,0 = top-left, 1,1 = bottom-right)."""

    x: float = Field(ge=0.0, le=1.0, allow_inf_nan=False)
    y: float = Field(ge=0.0, le=1.0, allow_inf_nan=False)


_EXACTLY_ONE_TARGET: dict[str, Any] = {
    "oneOf": [
        {
            "required": ["point"],
            "properties": {"point": {"type": "object"}, "element": {"type": "null"}},
        },
        {
            "required": ["element"],
            "properties": {"element": {"type": "integer"}, "point": {"type": "null"}},
        },
    ]
}
"""The rule of :class:`Target` in its JSON Schema: one of the two is given (the other absent or
null), so a client that validates against the schema cannot build a target the server refuses."""


class Target(ContractModel):
    """Where an action lands: exactly one of a normalized ``point`` or a UI ``element`` id.

    An element id refers to a node of the UI tree in the observation the policy saw; the env
    resolves it to that node's centre and records both in the step result.
    """

    model_config = ConfigDict(json_schema_extra=_EXACTLY_ONE_TARGET)

    point: Point | None = None
    element: NonNegativeInt | None = None

    @model_validator(mode="after")
    def _exactly_one(self) -> Target:
        if (self.point is None) == (self.element is None):
            given = "both point and element" if self.point is not None else "neither"
            raise ValueError(f"a target needs exactly one of point or element, got {given}")
        return self

    @classmethod
    def at(cls, x: float, y: float) -> Target:
        """A target at normalized point (x, y)."""
        return cls(point=Point(x=x, y=y))

    @classmethod
    def node(cls, element: int) -> Target:
        """A target on the UI node with this id."""
        return cls(element=element)


# --------------------------------------------------------------------------- actions


class TapAction(ContractModel):
    """A single tap."""

    type: Literal["tap"] = "tap"
    target: Target


class DoubleTapAction(ContractModel):
    """Two taps in quick succession at one place."""

    type: Literal["double_tap"] = "double_tap"
    target: Target


class LongPressAction(ContractModel):
    """Touch and hold."""

    type: Literal["long_press"] = "long_press"
    target: Target
    duration_ms: PositiveInt = 1000


class SwipeAction(ContractModel):
    """A literal finger path from ``start`` to ``end`` (normalized points)."""

    type: Literal["swipe"] = "swipe"
    start: Point
    end: Point
    duration_ms: PositiveInt = 300


class ScrollAction(ContractModel):
    """Reveal content in ``direction`` (``down`` shows what is below; the finger moves up).

    ``distance`` is the fraction of the scrolled area (or of the screen without a target)
    the content moves by.
    """

    type: Literal["scroll"] = "scroll"
    direction: Literal["up", "down", "left", "right"]
    target: Target | None = None
    distance: float = Field(default=0.5, gt=0.0, le=1.0)


class TypeAction(ContractModel):
    """Enter Unicode ``text`` into the focused field (or ``target`` after focusing it).

    ``clear`` empties the field first; ``submit`` presses Enter afterwards. There is no
    implicit Enter.
    """

    type: Literal["type"] = "type"
    text: str = Field(min_length=1)
    target: Target | None = None
    clear: bool = False
    submit: bool = False


KeyName = Literal["back", "home", "enter", "recents", "delete", "volume_up", "volume_down", "power"]


class KeyAction(ContractModel):
    """Press a hardware or system key."""

    type: Literal["key"] = "key"
    key: KeyName


class OpenAppAction(ContractModel):
    """Launch an app by its app id (``contacts``); device profiles map ids to packages."""

    type: Literal["open_app"] = "open_app"
    app: str = Field(min_length=1)


class WaitAction(ContractModel):
    """Let the screen change on its own for ``seconds``."""

    type: Literal["wait"] = "wait"
    seconds: float = Field(default=1.0, gt=0.0, le=60.0)


AnswerValue = str | int | float | bool


class AnswerAction(ContractModel):
    """Submit the AnswerSheet of a query task: field name -> typed value."""

    type: Literal["answer"] = "answer"
    fields: dict[Annotated[str, Field(min_length=1)], AnswerValue] = Field(min_length=1)


class FinishAction(ContractModel):
    """End the episode: the task is done, impossible, or abandoned."""

    type: Literal["finish"] = "finish"
    status: Literal["success", "infeasible", "abort"] = "success"
    message: str | None = None


Action = Annotated[
    TapAction
    | DoubleTapAction
    | LongPressAction
    | SwipeAction
    | ScrollAction
    | TypeAction
    | KeyAction
    | OpenAppAction
    | WaitAction
    | AnswerAction
    | FinishAction,
    Field(discriminator="type"),
]
"""Everything a policy can do, discriminated on ``type``."""


@cache
def _action_adapter() -> TypeAdapter[Action]:
    return TypeAdapter(Action)


def parse_action(data: object) -> Action:
    """Validate a dict (or JSON text/bytes) into the matching action model.

    Raises:
        pydantic.ValidationError: naming the offending field, e.g. ``tap.target.point.x``.
    """
    if isinstance(data, (str, bytes)):
        return _action_adapter().validate_json(data)
    return _action_adapter().validate_python(data)
