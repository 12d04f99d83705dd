"""The task template model: what a task is, how it is posed, judged and solved.

A template is a class with typed, seeded parameters, instructions in English and Chinese,
and — in terms a phone can observe — its start state (ensure operations), its goal
(checks), its answer truths and its expected changes. :meth:`TaskTemplate.spec` binds them
into a :class:`~bridge.taskspec.TaskSpec`: plain data that :mod:`bridge.judge` poses and
judges over any :class:`~bridge.android_state.AndroidState`, the simulator's and a phone's
alike. The oracle plan solves it through the UI.

The phone's UI language follows the task's (a Chinese instruction meets a Chinese phone),
and every task starts at the default font scale: both are the first ensure operations of
every spec.

Example::

    class SetWifi(TaskTemplate):
        id = "settings/SetWifi-v1"
        apps = ("settings",)
        level = "L1"
        kind = "operate"
        instructions = {"en": "Turn {state} Wi-Fi.", "zh": "{state} WLAN。"}
        params = {"on": Boolean()}
        expected_settings = ("global.wifi_on",)

        def ensure(self, p):
            return [put("global", "wifi_on", 0 if p["on"] else 1)]

        def goal(self, p):
            return [SettingCheck(namespace="global", key="wifi_on", value=int(p["on"]))]
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

from bridge.android_state import Namespace, printed
from bridge.plans import Plan
from bridge.records import TaskInstance
from bridge.schema import AnswerField
from bridge.spec.answers import AnswerRule, MatchKind
from bridge.spec.rows import RowsSelector, WatchedRows
from bridge.spec.settings import PutSetting
from bridge.taskspec import CheckRule, EnsureOp, ExpectedChanges, Requirement, TaskSpec, Truth
from sim.skins import DEFAULT_SKIN, planning_for
from sim.tasks.params import NoParams, TaskParams

__all__ = [
    "LEVEL_MAX_STEPS",
    "UI_LOCALES",
    "AnswerSpec",
    "Kind",
    "Level",
    "TaskTemplate",
    "WrongPlan",
    "option_before",
    "put",
]

Level = Literal["L1", "L2", "L3", "L4"]
Kind = Literal["operate", "query", "hybrid"]
P = TypeVar("P", bound=TaskParams)
World = Mapping[str, Mapping[str, Any]]

WrongPlan = Callable[[dict[str, Any], str, World], Plan]
"""A plausible plan that must not pass the judge (the neighbouring control, an answer one
off), from an instance's JSON parameters, its language and the world. A template module maps
its task ids to theirs in ``WRONG``; the end-to-end tests run every one."""

UI_LOCALES = {"en": "en-US", "zh": "zh-CN"}
"""The phone's ``system.system_locales`` for a task in each language."""

LEVEL_MAX_STEPS: dict[str, int] = {"L1": 15, "L2": 30, "L3": 45, "L4": 60}
"""Step budgets per level, as MobileGym's (query tasks get 15 more for answering)."""


@dataclass(frozen=True)
class AnswerSpec:
    """A typed AnswerSheet field and how an answer to it is matched: against the truth
    named ``truth`` (default: the field's name), as ``match`` (default: the field's kind;
    ``phone`` and ``version`` are finer than what the AnswerSheet shows)."""

    name: str
    kind: Literal["choice", "number", "date", "time", "text"]
    label: dict[str, str]
    choices: tuple[str, ...] = ()
    tolerance: float = 0.0
    match: MatchKind | None = None
    truth: str | None = None

    def rule(self) -> AnswerRule:
        """How the judge matches this field."""
        return AnswerRule(
            field=self.name,
            truth=self.truth or self.name,
            match=self.match or self.kind,
            tolerance=self.tolerance,
        )

    def field(self, lang: str) -> AnswerField:
        """The bridge description of the field, in ``lang``."""
        return AnswerField(
            name=self.name,
            kind=self.kind,
            label=self.label.get(lang) or self.label["en"],
            choices=list(self.choices) or None,
        )


def option_before(options: tuple[Any, ...], value: Any) -> Any:
    """The option before ``value`` (cyclically): a wrong plan's pick, never the target and
    never where the setup started."""
    return options[(options.index(value) - 1) % len(options)]


def put(namespace: Namespace, key: str, value: object) -> PutSetting:
    """An ensure operation putting a setting (``value`` printed as Android prints it)."""
    return PutSetting(namespace=namespace, key=key, value=printed(value) or "")


class TaskTemplate(Generic[P]):
    """Base class of task templates; see the module docstring. ``Params`` is the template's
    parameter model (:class:`~sim.tasks.params.TaskParams`)."""

    # Plain attributes, not ClassVars: a template is a class, or an instance of a class
    # whose templates differ only in data (the switches of Settings).
    id: str
    apps: tuple[str, ...]
    level: Level
    kind: Kind
    instructions: dict[str, str]
    Params: type[TaskParams] = NoParams
    answer_fields: tuple[AnswerSpec, ...] = ()
    max_steps: int | None = None
    expected_settings: tuple[str, ...] = ()
    """Globs of the settings this task may change (``global.wifi_on``)."""
    watch: tuple[WatchedRows, ...] = ()
    """Provider rows whose changes are judged as side effects."""

    # ---- what templates override
    def derive(self, sampled: Mapping[str, Any], world: World) -> dict[str, Any]:
        """The derived fields of ``Params``, from the sampled ones and world data (a
        contact's name)."""
        return {}

    def ensure(self, p: P) -> list[EnsureOp]:
        """Operations that pose the task on any phone (after the language and font)."""
        return []

    def goal(self, p: P) -> list[CheckRule]:
        """What must hold at the end (answer fields are matched separately)."""
        return []

    def truths(self, p: P) -> list[Truth]:
        """Values read right after posing that answers are matched against."""
        return []

    def expected_rows(self, p: P) -> list[RowsSelector]:
        """Provider rows this instance may change."""
        return []

    def requires(self, p: P) -> list[Requirement]:
        """Facts a retail phone cannot be made to hold (then: simulator and virtual only)."""
        return []

    def answer_rules(self) -> list[AnswerRule]:
        """How each answer field is judged (default: one rule per field)."""
        return [spec.rule() for spec in self.answer_fields]

    def oracle(self, p: P, lang: str) -> Plan:
        """A plan that solves the task through the UI."""
        raise NotImplementedError(f"{self.id} has no oracle")

    def text_values(self, p: P, lang: str) -> dict[str, Any]:
        """Values for the instruction template in ``lang`` (default: the parameters)."""
        return p.model_dump()

    # ---- bound
    def bind(self, sampled: Mapping[str, Any], world: World) -> P:
        """The typed parameters: the sampled fields and those :meth:`derive` computes."""
        return self.Params.model_validate({**sampled, **self.derive(sampled, world)})  # type: ignore[return-value]  # Params is P's model: a class attribute with a default cannot be typed type[P]

    def parse(self, params: Mapping[str, Any]) -> P:
        """Typed parameters from a task instance's JSON ``params``."""
        return self.Params.model_validate(dict(params))  # type: ignore[return-value]  # Params is P's model: a class attribute with a default cannot be typed type[P]

    def oracle_for(self, task: TaskInstance, skin: str = DEFAULT_SKIN) -> Plan:
        """The oracle plan of a task instance of this template, walking the screens of a
        phone in ``skin`` (:mod:`sim.skins`: the task is the same, the way there is not)."""
        with planning_for(skin):
            return self.oracle(self.parse(task.params), task.lang)

    def spec(self, p: P, lang: str) -> TaskSpec:
        """The bound spec of the instance with parameters ``p`` posed in ``lang``."""
        baseline = [
            put("system", "system_locales", UI_LOCALES[lang]),
            put("system", "font_scale", "1.0"),
        ]
        values = p.model_dump()
        expected = [
            glob.format(**values) if "{" in glob else glob for glob in self.expected_settings
        ]
        return TaskSpec(
            apps=list(self.apps),
            ensure=[*baseline, *self.ensure(p)],
            truths=self.truths(p),
            checks=self.goal(p),
            answers=self.answer_rules(),
            watch=list(self.watch),
            expected=ExpectedChanges(settings=expected, rows=self.expected_rows(p)),
            requires=self.requires(p),
        )

    # ---- derived
    def budget(self) -> int:
        """The step budget: explicit, else by level (+15 for answering)."""
        if self.max_steps is not None:
            return self.max_steps
        return LEVEL_MAX_STEPS[self.level] + (15 if self.answer_fields else 0)

    def instruction(self, p: P, lang: str) -> str:
        """The instruction in ``lang`` with the parameters filled in."""
        template = self.instructions.get(lang) or self.instructions["en"]
        return template.format(**self.text_values(p, lang))
