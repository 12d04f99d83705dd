"""The contract: what a policy sees, what it may do, and what an episode leaves behind.

Every world (simulator, virtual phone, real phone) produces these models and every policy
consumes them, so one agent runs unchanged in all of them. Top-level records carry
``schema_version``; the JSON Schema of each is exported by ``mgb schema`` so that trainers
written in other languages can speak it.

Conventions:
    * Points are normalized screen coordinates: floats in [0, 1], top-left origin, relative
      to the screen as displayed (see :mod:`bridge.coords` for every other convention).
    * ``scroll.direction`` names where the content you want to see is: ``down`` reveals
      content below (the finger moves up). ``swipe`` is the literal finger path.
    * ``type`` never presses Enter implicitly; set ``submit`` for that.
"""

from __future__ import annotations

import base64
import binascii
from enum import Enum
from typing import Any, Final, Literal, Protocol

from pydantic import (
    ConfigDict,
    Field,
    JsonValue,
    NonNegativeFloat,
    NonNegativeInt,
    PositiveInt,
    field_serializer,
    field_validator,
    model_validator,
)

from bridge.actions import (
    Action,
    AnswerAction,
    AnswerValue,
    ContractModel,
    DoubleTapAction,
    FinishAction,
    KeyAction,
    KeyName,
    LongPressAction,
    OpenAppAction,
    Point,
    ScrollAction,
    SwipeAction,
    TapAction,
    Target,
    TypeAction,
    WaitAction,
    parse_action,
)
from bridge.outcome import (
    EpisodeOutcome,
    OutcomeClass,
    Termination,
)

__all__ = [
    "SCHEMA_VERSION",
    "Action",
    "AnswerAction",
    "AnswerField",
    "AnswerValue",
    "BackendInfo",
    "BackendKind",
    "CheckResult",
    "DoubleTapAction",
    "EpisodeOutcome",
    "ExecutedAction",
    "FinishAction",
    "Foreground",
    "KeyAction",
    "KeyName",
    "LongPressAction",
    "Observation",
    "ObservedState",
    "OpenAppAction",
    "OutcomeClass",
    "Point",
    "PolicyContext",
    "PolicyOutput",
    "PosedTask",
    "Restoration",
    "SchemaVersion",
    "ScreenSpec",
    "Screenshot",
    "ScrollAction",
    "StepResult",
    "StepTimings",
    "SwipeAction",
    "TapAction",
    "Target",
    "Termination",
    "TypeAction",
    "UINode",
    "UIStatus",
    "Verdict",
    "VerdictKind",
    "WaitAction",
    "parse_action",
]

SCHEMA_VERSION: Final = "1.5"
"""Version of every top-level record; bump the minor for additions, the major for breaks.
1.1: ``Verdict.clean`` may be None (with ``clean_reason``), ``Verdict.sim_side_effects``,
``TaskInstance.spec``, ``Check.guard``. 1.2: ``ExecutedAction.notes``; an observation's
``Foreground`` has no simulator ``route`` any more (a phone cannot give one; the simulator
notes it in the executed action), and timings mean the same in every world;
``StepRecord.decided_by`` and ``proposal`` (who chose a console step, what the policy had
proposed when a person overrode it); ``EpisodeRecord.termination`` ``guard`` with its
``stop_reason``. 1.3: ``StepRecord.decided_by`` ``human`` (a person who is the policy).
1.4: ``EpisodeRecord.outcome`` ``success`` means a success as :mod:`bridge.outcome` defines
it (the goal holds, the agent said it was done, ``clean`` not False), no longer only
``verdict.success``; ``EpisodeRecord.outcome_class`` says how the episode ended;
``EpisodeRecord.start_state`` (the observable state posed, for start-state parity) and
``restoration`` (what a phone's episode put back). 1.5: ``Observation.ui_derived`` (a tree a
world derived from a web page, MobileGym's) and the ``mobilegym`` backend."""

SchemaVersion = Literal["1.0", "1.1", "1.2", "1.3", "1.4", "1.5"]
"""Versions this code reads (older records are newer ones without the additions; a 1.1
``foreground.route`` is dropped on reading; an episode record older than 1.4 gets its
``outcome`` and ``outcome_class`` from its fields, by today's definition of success)."""


# --------------------------------------------------------------------------- observations


class UINode(ContractModel):
    """One node of the UI tree, mirroring a ``<node>`` of a uiautomator dump.

    ``id`` is the node's position in document order (0 = first node); ``parent`` is the id
    of the enclosing node, ``None`` for a window root. ``bounds_px`` is ``[l, t, r, b]`` in
    device pixels of the current orientation. ``extra`` keeps attributes this schema does not
    model (``NAF``, ``drawing-order``, ``display-id``, vendor ones) so that a dump survives a
    round trip.
    """

    id: NonNegativeInt
    parent: NonNegativeInt | None = None
    index: int = 0
    class_name: str = ""
    text: str = ""
    content_desc: str = ""
    resource_id: str = ""
    hint: str = ""
    package: str = ""
    bounds_px: tuple[int, int, int, int] = (0, 0, 0, 0)
    checkable: bool = False
    checked: bool = False
    clickable: bool = False
    long_clickable: bool = False
    editable: bool = False
    focusable: bool = False
    focused: bool = False
    scrollable: bool = False
    enabled: bool = True
    selected: bool = False
    password: bool = False
    visible: bool = True
    extra: dict[str, str] = Field(default_factory=dict)

    @property
    def center_px(self) -> tuple[float, float]:
        """Centre of the node's bounds in device pixels."""
        left, top, right, bottom = self.bounds_px
        return ((left + right) / 2.0, (top + bottom) / 2.0)

    @property
    def area_px(self) -> int:
        """Area of the bounds in square device pixels (0 for empty or inverted bounds)."""
        left, top, right, bottom = self.bounds_px
        return max(0, right - left) * max(0, bottom - top)


class UIStatus(str, Enum):
    """Whether ``Observation.ui`` can be trusted; an empty tree is never silently ``ok``."""

    OK = "ok"
    UNAVAILABLE = "unavailable"
    IDLE_TIMEOUT = "idle_timeout"
    SECURE_WINDOW = "secure_window"


def _base64_json_schema(field_schema: dict[str, JsonValue]) -> None:
    field_schema.pop("format", None)
    field_schema["contentEncoding"] = "base64"


class Screenshot(ContractModel):
    """An encoded screen image. In JSON, ``data`` is standard base64 (RFC 4648 §4)."""

    format: Literal["png", "jpeg", "webp"]
    width: PositiveInt
    height: PositiveInt
    data: bytes = Field(
        min_length=1,
        repr=False,
        json_schema_extra=_base64_json_schema,
    )

    @field_validator("data", mode="before")
    @classmethod
    def _decode_base64_text(cls, value: object) -> object:
        if isinstance(value, str):
            try:
                return base64.b64decode(value, validate=True)
            except binascii.Error as exc:
                raise ValueError(f"data is not valid base64: {exc}") from exc
        return value

    @field_serializer("data", when_used="json")
    def _encode_base64_text(self, value: bytes) -> str:
        return base64.b64encode(value).decode("ascii")

    @property
    def data_url(self) -> str:
        """The image as a ``data:`` URL, the form OpenAI-compatible chat APIs take."""
        mime = {"png": "image/png", "jpeg": "image/jpeg", "webp": "image/webp"}[self.format]
        return f"data:{mime};base64,{base64.b64encode(self.data).decode('ascii')}"


class ScreenSpec(ContractModel):
    """The screen as currently displayed: size in pixels, density, rotation in degrees."""

    width_px: PositiveInt
    height_px: PositiveInt
    density_dpi: PositiveInt = 440
    orientation: Literal[0, 90, 180, 270] = 0


class Foreground(ContractModel):
    """What is on top: our app id, the Android package and activity (what a phone says).

    ``activity`` is the full class name: Android prints ``.Settings`` for a class in the
    package and the full name elsewhere (``dumpsys`` does both), so the short form is
    expanded here, once for every world."""

    app: str | None = None
    package: str | None = None
    activity: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _canonical(cls, data: Any) -> Any:
        """Expand a short activity name; drop the simulator route schema 1.1 carried."""
        if not isinstance(data, dict):
            return data
        data = {key: value for key, value in data.items() if key != "route"}
        activity, package = data.get("activity"), data.get("package")
        if isinstance(activity, str) and activity.startswith(".") and package:
            data["activity"] = f"{package}{activity}"
        return data


BackendKind = Literal["sim", "virtual", "device", "mobilegym"]


class BackendInfo(ContractModel):
    """Which world produced an observation; ``virtual`` is never reported as hardware, and
    ``mobilegym`` is a MobileGym build (a simulator other people wrote)."""

    kind: BackendKind
    model: str | None = None
    android_version: str | None = None
    serial: str | None = None


class Observation(ContractModel):
    """Everything a policy may look at after a step — and nothing a phone could not give."""

    schema_version: SchemaVersion = SCHEMA_VERSION
    step: NonNegativeInt
    screenshot: Screenshot | None = None
    screen: ScreenSpec
    ui: list[UINode] = Field(default_factory=list)
    ui_status: UIStatus = UIStatus.OK
    ui_derived: Literal["page"] | None = None
    """Set when the world has no UI tree of its own and ``ui`` was derived from a web page's
    DOM (MobileGym): texts and bounds are the page's, while clickability and widget classes
    are inferred, so it did not come from a phone. None: the world's own tree (a phone's
    uiautomator dump, the simulator's nodes)."""
    foreground: Foreground = Field(default_factory=Foreground)
    keyboard_visible: bool = False
    stable: bool = True
    last_action_error: str | None = None
    backend: BackendInfo

    @model_validator(mode="after")
    def _tree_is_consistent(self) -> Observation:
        if self.ui_status is UIStatus.OK and not self.ui:
            raise ValueError("ui is empty but ui_status is 'ok'; say why the tree is missing")
        for position, node in enumerate(self.ui):
            if node.id != position:
                raise ValueError(f"ui[{position}] has id {node.id}; ids must be 0..n-1 in order")
            if node.parent is not None and node.parent >= position:
                raise ValueError(f"ui[{position}] has parent {node.parent}, not an earlier node")
        return self

    def node(self, element: int) -> UINode | None:
        """The UI node with this id, or None when the tree has no such node."""
        return self.ui[element] if 0 <= element < len(self.ui) else None


# --------------------------------------------------------------------------- tasks & policies


_CHOICES_ONLY_FOR_CHOICE: dict[str, Any] = {
    "oneOf": [
        {
            "required": ["choices"],
            "properties": {
                "kind": {"const": "choice"},
                "choices": {"type": "array", "minItems": 1},
            },
        },
        {
            "properties": {
                "kind": {"enum": ["number", "date", "time", "text"]},
                "choices": {"anyOf": [{"type": "null"}, {"maxItems": 0}]},
            }
        },
    ]
}
""":class:`AnswerField`'s rule in its JSON Schema: a non-empty ``choices`` for, and only for,
kind ``choice``."""


class AnswerField(ContractModel):
    """One typed field of a query task's AnswerSheet."""

    model_config = ConfigDict(json_schema_extra=_CHOICES_ONLY_FOR_CHOICE)

    name: str = Field(min_length=1)
    kind: Literal["choice", "number", "date", "time", "text"]
    label: str = ""
    choices: list[str] | None = None

    @model_validator(mode="after")
    def _choices_only_for_choice(self) -> AnswerField:
        if (self.kind == "choice") != bool(self.choices):
            raise ValueError("choices must be given for, and only for, kind 'choice'")
        return self


class PosedTask(Protocol):
    """What a policy may be told of a posed task (a :class:`~bridge.records.TaskInstance`
    has it): named here so that the policy contract does not import the task language."""

    @property
    def task_id(self) -> str: ...
    @property
    def lang(self) -> Literal["en", "zh"]: ...
    @property
    def max_steps(self) -> int: ...
    @property
    def answer_fields(self) -> list[AnswerField]: ...


class PolicyContext(ContractModel):
    """What a policy is told at reset besides the instruction."""

    task_id: str | None = None
    lang: Literal["en", "zh"] = "en"
    max_steps: PositiveInt = 30
    answer_fields: list[AnswerField] = Field(default_factory=list)
    backend: BackendInfo | None = None

    @classmethod
    def for_task(cls, task: PosedTask, backend: BackendInfo | None = None) -> PolicyContext:
        """The context a policy gets for this task instance."""
        return cls(
            task_id=task.task_id,
            lang=task.lang,
            max_steps=task.max_steps,
            answer_fields=task.answer_fields,
            backend=backend,
        )


class PolicyOutput(ContractModel):
    """A policy's decision. ``action`` is None when the output could not be understood;
    ``error`` then says why, and the runner records an invalid step."""

    action: Action | None
    thought: str | None = None
    raw_text: str | None = None
    error: str | None = None

    @model_validator(mode="after")
    def _invalid_has_reason(self) -> PolicyOutput:
        if self.action is None and not self.error:
            raise ValueError("an output without an action must say why in 'error'")
        return self


# --------------------------------------------------------------------------- steps


class ExecutedAction(ContractModel):
    """What the backend really did for an action, for replay and for debugging transfer.

    Policies never see it (they see the next observation): ``notes`` is where a world
    records what only it knows — the simulator's hit test (``effect``: "no effect: nothing
    actionable", ``hit``), the stroke it classified (``stroke``), its route (``route``).
    """

    action: Action
    point_px: tuple[float, float] | None = None
    end_point_px: tuple[float, float] | None = None
    element: UINode | None = None
    backend_command: str | None = None
    notes: dict[str, str] = Field(default_factory=dict)


class StepTimings(ContractModel):
    """Milliseconds spent in each phase of a step, the same phases in every world.

    ``act_ms``: carrying the action out (the primitives, until the world took the input);
    ``settle_ms``: waiting until the screen is idle (the page runtime's idle report in the
    simulator, consecutive screenshots that agree on a phone); ``observe_ms``: screenshot,
    tree, foreground and keyboard; ``total_ms``: the whole step.
    """

    act_ms: NonNegativeFloat = 0.0
    settle_ms: NonNegativeFloat = 0.0
    observe_ms: NonNegativeFloat = 0.0
    total_ms: NonNegativeFloat = 0.0


class StepResult(ContractModel):
    """The outcome of ``Env.step``: the new observation and what was executed.

    ``error`` is an agent-level mistake (unknown element, nothing focused to type into); the
    episode goes on and the same text appears as ``observation.last_action_error``. ``done``
    is set when the action ended the episode (``finish``, ``answer``).
    """

    schema_version: SchemaVersion = SCHEMA_VERSION
    observation: Observation
    executed: ExecutedAction | None = None
    error: str | None = None
    done: bool = False
    timings: StepTimings = Field(default_factory=StepTimings)


# --------------------------------------------------------------------------- verdicts


class CheckResult(ContractModel):
    """One named condition of a verdict with the values that decided it.

    A ``guard`` is something the task must not break (the contact copied from still
    exists): it must pass for success but is no step of progress, so doing nothing earns no
    credit for it."""

    name: str = Field(min_length=1)
    expected: JsonValue = None
    actual: JsonValue = None
    passed: bool
    evidence: str | None = None
    guard: bool = False


VerdictKind = Literal["state", "ui", "answer", "human", "vlm"]


class Verdict(ContractModel):
    """How an episode went: success, partial progress, side effects, and why.

    ``success`` says the goal holds at the end (every check passed); whether the *episode*
    is a success also asks how it ended and whether it was clean (:mod:`bridge.outcome`).

    ``clean`` is False when the observable state (settings, the provider rows the task
    watches) changed in a way the task did not ask for, the same diff in every world;
    ``side_effects`` names what (``global.wifi_on``, ``content://…/contacts/12``). It is None
    when this world cannot observe that state (``clean_reason`` says why), never a silent
    pass. ``sim_side_effects`` is the simulator's own full-state diff, for information: a
    phone has nothing like it, so it never decides ``clean``.
    """

    schema_version: SchemaVersion = SCHEMA_VERSION
    success: bool
    progress: float = Field(ge=0.0, le=1.0)
    clean: bool | None = True
    clean_reason: str | None = None
    checks: list[CheckResult] = Field(default_factory=list)
    side_effects: list[str] = Field(default_factory=list)
    sim_side_effects: list[str] = Field(default_factory=list)
    kind: VerdictKind = "state"
    deterministic: bool = True

    @model_validator(mode="after")
    def _success_passes_every_check(self) -> Verdict:
        if self.success and any(not check.passed for check in self.checks):
            failed = [check.name for check in self.checks if not check.passed]
            raise ValueError(f"success is true but checks failed: {failed}")
        return self

    @classmethod
    def from_checks(
        cls,
        checks: list[CheckResult],
        *,
        clean: bool | None = True,
        clean_reason: str | None = None,
        kind: VerdictKind = "state",
        side_effects: list[str] | None = None,
    ) -> Verdict:
        """Success when every check passes; progress is the fraction of the checks that are
        not guards that did."""
        steps = [check for check in checks if not check.guard]
        progress = sum(check.passed for check in steps) / len(steps) if steps else 0.0
        return cls(
            success=bool(steps) and all(check.passed for check in checks),
            progress=progress,
            clean=None if clean is None else clean and not side_effects,
            clean_reason=clean_reason if clean is None else None,
            checks=checks,
            side_effects=side_effects or [],
            kind=kind,
        )


# --------------------------------------------------------------------------- episodes


class ObservedState(ContractModel):
    """A spec's observable state (:func:`bridge.observed.observe`): settings by namespace,
    a digest of each watched row by uri and ``_id`` (a row changed when its digest did;
    digests keep a start record small, since every live instance holds one), the ``_id``s
    each expected row selector matched (by its index in the spec), and each entry below the
    watched folders by its path under ``/sdcard/Download``."""

    settings: dict[str, dict[str, str]] = Field(default_factory=dict)
    rows: dict[str, dict[str, str]] = Field(default_factory=dict)
    selected: list[list[str]] = Field(default_factory=list)
    files: dict[str, str] = Field(default_factory=dict)


class Restoration(ContractModel):
    """What was put back on a phone after its episode (:mod:`bridge.restore`), so the next
    episode finds the phone as this one found it: each item names a setting
    (``global.wifi_on``), a provider row (``content://…/events/12 deleted``), a task folder
    or an app. ``not_restored`` is what the phone refused or nothing can write back (a
    retail phone without ``su`` keeps the SMS an agent sent), each with the reason."""

    restored: list[str] = Field(default_factory=list)
    not_restored: list[str] = Field(default_factory=list)

    @property
    def complete(self) -> bool:
        """Whether everything the episode changed was put back."""
        return not self.not_restored
