"""The task template model: what a task is, how it is set up, judged and solved.

A template is a class with typed, seeded parameters, instructions in English and Chinese,
a setup (a patch of the instance state that also makes sure the goal is not already met),
pure checks over the judged state, the paths it is allowed to change (globs that may name
parameters: ``apps.contacts.contacts.{contact}.starred``), typed AnswerSheet fields for
query tasks, and an oracle plan that solves it through the UI.

The phone's UI language follows the task's (a Chinese instruction meets a Chinese phone);
a setup may still change it, and an oracle gets the language it will meet.

Example::

    class SetWifi(TaskTemplate):
        id = "settings/SetWifi-v1"
        apps = ("settings",)
        level = "L1"
        kind = "operate"
        instructions = {"en": "Turn {on_en} Wi-Fi.", "zh": "{on_zh} WLAN。"}
        params = {"on": Boolean()}
        expected_changes = ("settings.global.wifi_on",)

        def setup(self, s, p):
            s.settings["global"]["wifi_on"] = 0 if p["on"] else 1

        def checks(self, state, p):
            return [check("wifi_on", int(p["on"]), state["settings"]["global"]["wifi_on"])]
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from bridge.plans import Plan
from bridge.schema import AnswerField, Check
from sim.phone import Phone
from sim.state import InstanceState
from sim.tasks.params import ParamSpec

__all__ = ["LEVEL_MAX_STEPS", "AnswerSpec", "Kind", "Level", "SetupContext", "TaskTemplate"]

Level = Literal["L1", "L2", "L3", "L4"]
Kind = Literal["operate", "query", "hybrid"]
Params = dict[str, Any]
JudgedState = Mapping[str, Any]

LEVEL_MAX_STEPS: dict[str, int] = {"L1": 15, "L2": 30, "L3": 45, "L4": 60}
"""Step budgets per level, as MobileGym's (query tasks get 15 more for answering)."""


@dataclass(frozen=True)
class AnswerSpec:
    """A typed AnswerSheet field and how an answer to it is matched."""

    name: str
    kind: Literal["choice", "number", "date", "time", "text"]
    label: dict[str, str]
    choices: tuple[str, ...] = ()
    tolerance: float = 0.0

    def field(self, lang: str) -> AnswerField:
        """The bridge description of the field, in ``lang``."""
        return AnswerField(
            name=self.name,
            kind=self.kind,
            label=self.label.get(lang) or self.label["en"],
            choices=list(self.choices) or None,
        )


class SetupContext:
    """What a template's setup may change: settings, app overlays, the running apps."""

    def __init__(self, phone: Phone, state: InstanceState) -> None:
        self.phone = phone
        self.state = state

    @property
    def settings(self) -> dict[str, dict[str, Any]]:
        """Android settings by namespace."""
        return self.state.os.settings

    def overlay(self, app_id: str) -> dict[str, Any]:
        """The runtime overlay of ``app_id`` (created from its initial overlay)."""
        app = self.phone.app(app_id)
        return self.state.apps.setdefault(app_id, app.initial_overlay())

    def world(self, app_id: str) -> Mapping[str, Any]:
        """Read-only world data of ``app_id``."""
        return self.phone.app(app_id).world

    def launch(self, app_id: str) -> None:
        """Start with ``app_id`` in front."""
        self.phone.launch(self.state, app_id)


class TaskTemplate:
    """Base class of task templates; see the module docstring."""

    id: ClassVar[str]
    apps: ClassVar[tuple[str, ...]]
    level: ClassVar[Level]
    kind: ClassVar[Kind]
    instructions: ClassVar[dict[str, str]]
    params: ClassVar[dict[str, ParamSpec]] = {}
    expected_changes: ClassVar[tuple[str, ...]] = ()
    answer_fields: ClassVar[tuple[AnswerSpec, ...]] = ()
    max_steps: ClassVar[int | None] = None

    # ---- what templates override
    def derive(self, p: Params, world: Mapping[str, Mapping[str, Any]]) -> Params:
        """Extra values computed from the sampled ones (e.g. a contact's phone number)."""
        return {}

    def setup(self, s: SetupContext, p: Params) -> None:
        """Patch the fresh state so the task is posed (and its goal not yet met)."""

    def checks(self, state: JudgedState, p: Params) -> list[Check]:
        """Checks over the judged state at the end (answer fields are checked separately)."""
        return []

    def expected_answers(self, initial: JudgedState, p: Params) -> dict[str, Any]:
        """The true value of each answer field, from the state at the start."""
        return {}

    def oracle(self, p: Params, lang: str) -> Plan:
        """A plan that solves the task through the UI."""
        raise NotImplementedError(f"{self.id} has no oracle")

    def allowed_changes(self, p: Params) -> tuple[str, ...]:
        """Globs of the paths this instance may change: ``expected_changes`` with the
        parameters filled in (override when the set depends on the parameters' values)."""
        return tuple(glob.format(**p) if "{" in glob else glob for glob in self.expected_changes)

    def text_values(self, p: Params, lang: str) -> dict[str, Any]:
        """Values for the instruction template in ``lang`` (default: the parameters)."""
        return dict(p)

    # ---- derived
    def budget(self) -> int:
        """The step budget: explicit, else by level (+15 for answering)."""
        if self.max_steps is not None:
            return self.max_steps
        return LEVEL_MAX_STEPS[self.level] + (15 if self.answer_fields else 0)

    def instruction(self, p: Params, lang: str) -> str:
        """The instruction in ``lang`` with the parameters filled in."""
        template = self.instructions.get(lang) or self.instructions["en"]
        return template.format(**self.text_values(p, lang))
