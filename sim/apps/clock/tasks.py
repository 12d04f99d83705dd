"""Task templates over the Clock app: alarms, the next alarm, world-clock arithmetic.

How a phone judges them:

* **The next alarm** is all a retail phone shows of its alarms to the shell (``dumpsys
  alarm``: ``Next alarm clock information``). :class:`AddAlarm` is judged there: the phone's
  next alarm rings at the next moment its clock reads the asked time
  (:class:`~bridge.spec.alarms.NextAlarmCheck`, the day and the time of day as two checks). A
  phone whose own alarm rings sooner cannot show the new one: the task is then not posed
  there, with the reason, instead of judged wrongly. :class:`QueryNextAlarm` asks for it.
* **World-clock arithmetic** (:class:`CityTimeGap`, :class:`ConvertCityTime`) is answered, the
  truth computed on the phone's own clock with the zones' real rules (DST of the day).
* **Everything else about alarms** (labels, repeat days, which are on) is app-private:
  DeskClock's ``ClockProvider`` is not exported. Those templates read
  ``content://com.android.deskclock/alarms`` and say so in ``requires``: they run in the
  simulator and on the virtual phone only. Each seeds the alarms it is about (deleting any
  alarm at the same time first) with a distinctive label, and watches every alarm row.

The phone shows a 24-hour clock during a task (``system.time_12_24`` ``24``): oracles type
times into the time picker's hour and minute boxes, or turn HyperOS's wheels from what they
show (:mod:`sim.apps.clock.plans`).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Annotated, Any, TypeVar

from bridge.android_contract import ALARMS, alarm_days
from bridge.phone_time import zone_gap_hours, zone_time
from bridge.plans import (
    AnswerStep,
    FinishStep,
    OpenAppStep,
    Plan,
    ScrollStep,
    Selector,
    TapStep,
    TypeStep,
)
from bridge.spec.alarms import NextAlarmCheck, NextAlarmFact
from bridge.spec.base import Scalar, TruthRef
from bridge.spec.clock import NextTimeFact, ZoneGapFact, ZoneTimeFact
from bridge.spec.rows import DeleteRows, InsertRow, RowsCheck, RowsFact, RowsSelector, WatchedRows
from bridge.taskspec import CheckRule, EnsureOp, Requirement, Truth
from sim.apps.calendar.query_tasks import simulated_date
from sim.apps.calendar.tasks import later
from sim.apps.clock.app import ClockApp
from sim.apps.clock.cities import find_city
from sim.apps.clock.labels import day_names
from sim.apps.clock.plans import set_time_steps
from sim.state import DEFAULT_CLOCK_MS, TIME_ZONE
from sim.tasks.base import AnswerSpec, P, TaskTemplate, WrongPlan, put
from sim.tasks.params import Choice, Integer, NoParams, TaskParams

__all__ = [
    "ALARMS_WATCH",
    "APP_PRIVATE",
    "REPEATS",
    "TEMPLATES",
    "AddAlarm",
    "AddLabelledRepeatingAlarm",
    "CityTimeGap",
    "ClockTask",
    "ConvertCityTime",
    "CountEnabledAlarms",
    "DeleteAlarm",
    "DisableAlarm",
    "EnableAlarm",
    "QueryAlarmLabel",
    "QueryNextAlarm",
    "RelabelAlarm",
    "SetAlarmRepeat",
    "add_alarm_plan",
    "alarm_at",
    "clock_text",
    "day_taps",
    "expand_alarm",
    "label_steps",
    "seed_alarm",
    "switch_alarm",
]

World = Mapping[str, Mapping[str, Any]]

ALARMS_WATCH = WatchedRows(
    uri=ALARMS, projection=["_id", "hour", "minutes", "daysofweek", "enabled", "label"]
)
"""Every alarm row, diffed for side effects (simulator and virtual phone)."""
APP_PRIVATE = Requirement(
    fact="content://com.android.deskclock/alarms",
    reason="the Clock's alarms are app-private (DeskClock's ClockProvider is not exported), so "
    "the shell can neither seed nor read them",
)

"""Why the alarm-row templates run in the simulator and on the virtual phone only."""

_NEW_TIMES = ("10:40", "11:20", "12:50", "14:10", "15:35", "16:50", "18:25", "19:40", "21:15")
"""Times of alarms to add: later today than the simulator's 09:30 start and sooner than its
22:30 alarm, never on the hour, none a world alarm's time."""
_SEEDED_TIMES = ("05:50", "07:20", "08:10", "12:15", "17:40", "20:20", "23:10", "06:05")
"""Times of the alarms a task seeds (none a world alarm's time, none within hours of the
simulator's 09:30 start: a seeded alarm never rings during an episode)."""
_LABELS = ("Take medicine", "取快递", "Call mum", "倒垃圾", "Feed the cat", "交房租", "Stretch",
           "接孩子放学")  # fmt: skip
"""Labels of seeded and new alarms (none a world alarm's)."""
REPEATS: dict[str, tuple[int, ...]] = {
    "weekdays": (0, 1, 2, 3, 4),
    "weekends": (5, 6),
    "every_day": (0, 1, 2, 3, 4, 5, 6),
    "mon_wed_fri": (0, 2, 4),
    "tue_thu": (1, 3),
}
"""Repeat patterns a task asks for, by name (0 Monday … 6 Sunday)."""
_REPEAT_WORDS = {
    "weekdays": ("on weekdays", "在工作日"),
    "weekends": ("on weekends", "在周末"),
    "every_day": ("every day", "每天"),
    "mon_wed_fri": ("on Monday, Wednesday and Friday", "在周一、周三和周五"),
    "tue_thu": ("on Tuesday and Thursday", "在周二和周四"),
}
_GAPS = (("tokyo", "london"), ("london", "new_york"), ("tokyo", "new_york"))
"""World-clock pairs (the world's own cities), the first ahead of the second."""
_CONVERSIONS = (("london", "tokyo"), ("new_york", "london"), ("tokyo", "new_york"),
                ("london", "new_york"))  # fmt: skip
_MEETING_TIMES = ("08:00", "09:30", "14:00", "16:30", "20:00")


# ---------------------------------------------------------------- words, specs and plans


@cache
def _strings(lang: str) -> Mapping[str, str]:
    return ClockApp().strings(lang)


def clock_text(key: str, lang: str, **values: object) -> str:
    """A Clock UI string as the phone shows it in ``lang``."""
    text = _strings(lang)[key]
    return text.format(**values) if values else text


def alarm_at(at: str) -> str:
    """The ``--where`` of the alarms set for ``at`` (``HH:MM``)."""
    hour, minute = (int(part) for part in at.split(":"))
    return f"hour={hour} AND minutes={minute}"


def seed_alarm(
    at: str, label: str, enabled: bool = True, days: tuple[int, ...] = ()
) -> list[EnsureOp]:
    """Ensure operations leaving exactly one alarm at ``at``, as given."""
    hour, minute = (int(part) for part in at.split(":"))
    values: dict[str, Scalar] = {
        "hour": hour,
        "minutes": minute,
        "label": label,
        "enabled": int(enabled),
        "daysofweek": alarm_days(days),
    }
    return [DeleteRows(uri=ALARMS, where=alarm_at(at)), InsertRow(uri=ALARMS, values=values)]


def _alarm_is(
    name: str, at: str, column: str, value: Scalar | TruthRef, guard: bool = False
) -> RowsCheck:
    """Every alarm at ``at`` (at least one) has ``column`` = ``value``."""
    return RowsCheck(name=name, uri=ALARMS, where=alarm_at(at), column=column, expect="all",
                     value=value, guard=guard)  # fmt: skip


def _alarms_at(at: str, count: int, guard: bool = False) -> RowsCheck:
    return RowsCheck(name=f"alarms at {at}", uri=ALARMS, where=alarm_at(at), expect="count",
                     value=count, guard=guard)  # fmt: skip


def _open_clock() -> Plan:
    return [OpenAppStep(app="clock")]


def add_alarm_plan(at: str, lang: str) -> Plan:
    """Open Clock and add an alarm for ``at`` with the time picker (the new row opens): its
    boxes typed into, or under HyperOS its wheels turned (:func:`set_time_steps`)."""
    return [
        *_open_clock(),
        TapStep(on=Selector(desc=clock_text("add_alarm", lang))),
        *set_time_steps(at, lang),
        TapStep(on=Selector(resource_id="button1")),
    ]


def switch_alarm(at: str, lang: str) -> TapStep:
    """Tap the on/off switch of the alarm at ``at``."""
    return TapStep(on=Selector(desc=clock_text("alarm_desc", lang, time=at), resource_id="onoff"))


def expand_alarm(label: str) -> TapStep:
    """Open the row of the alarm labelled ``label`` (tapping its label)."""
    return TapStep(on=Selector(resource_id="label", text=label))


def day_taps(days: tuple[int, ...], lang: str) -> Plan:
    """Tap the day buttons of the open alarm row for ``days`` (0 Monday … 6 Sunday), the
    list first scrolled down so that the floating button covers none of them."""
    names = day_names(lang, "weekdays")
    return [ScrollStep(direction="down"), *(TapStep(on=Selector(desc=names[day])) for day in days)]


def label_steps(label: str) -> Plan:
    """Give the open alarm row the label ``label`` (its label dialog)."""
    return [
        TapStep(on=Selector(resource_id="edit_label")),
        TypeStep(text=label, into=Selector(resource_id="label_input")),
        TapStep(on=Selector(resource_id="button1")),
    ]


def _city(city_id: str, lang: str) -> str:
    city = find_city(city_id)
    assert city is not None, city_id
    return city.name(lang)


def _zone(city_id: str) -> str:
    city = find_city(city_id)
    assert city is not None, city_id
    return city.zone


# ---------------------------------------------------------------- the base


class ClockTask(TaskTemplate[P]):
    """A task over Clock, on a 24-hour clock."""

    apps = ("clock",)

    def posing(self, p: P) -> list[EnsureOp]:
        """Ensure operations after the clock format."""
        return []

    def ensure(self, p: P) -> list[EnsureOp]:
        """A 24-hour clock, then :meth:`posing`."""
        return [put("system", "time_12_24", "24"), *self.posing(p)]


class _PrivateAlarmTask(ClockTask[P]):
    """A task judged on the alarm rows: simulator and virtual phone only (module docstring)."""

    watch = (ALARMS_WATCH,)

    def requires(self, p: P) -> list[Requirement]:
        return [APP_PRIVATE]


# ---------------------------------------------------------------- judged by the next alarm


class NewAlarm(TaskParams):
    """An alarm to add, at ``at``."""

    at: Annotated[str, Choice(_NEW_TIMES)]


class AddAlarm(ClockTask[NewAlarm]):
    """A one-time alarm. A phone judges it by its next alarm clock (``dumpsys alarm``): the
    next moment its clock reads the time, the day and the time of day checked apart."""

    id = "clock/AddAlarm-v1"
    level = "L2"
    kind = "operate"
    instructions = {"en": "Set an alarm for {at}.", "zh": "设一个{at}的闹钟。"}
    Params = NewAlarm

    def truths(self, p: NewAlarm) -> list[Truth]:
        return [Truth(name="ring", fact=NextTimeFact(at=p.at))]

    def goal(self, p: NewAlarm) -> list[CheckRule]:
        return [NextAlarmCheck(name="next alarm", value=TruthRef(truth="ring"))]

    def oracle(self, p: NewAlarm, lang: str) -> Plan:
        return [*add_alarm_plan(p.at, lang), FinishStep()]


class QueryNextAlarm(ClockTask[NoParams]):
    """When the next alarm rings, as the phone itself reports it (``dumpsys alarm``): any
    phone with an alarm on can pose it."""

    id = "clock/QueryNextAlarm-v1"
    level = "L1"
    kind = "query"
    instructions = {
        "en": "When does my next alarm ring? Give the date and the time.",
        "zh": "我的下一个闹钟什么时候响？请给出日期和时间。",
    }
    answer_fields = (
        AnswerSpec("date", "date", {"en": "Date", "zh": "日期"}),
        AnswerSpec("time", "time", {"en": "Time", "zh": "时间"}),
    )

    def truths(self, p: NoParams) -> list[Truth]:
        return [
            Truth(name="date", fact=NextAlarmFact(say="local_date")),
            Truth(name="time", fact=NextAlarmFact(say="local_time")),
        ]

    def oracle(self, p: NoParams, lang: str) -> Plan:
        # the simulator's next alarm is the one-time 22:30 alarm of its start day
        return [*_open_clock(), AnswerStep(fields={"date": simulated_date(0), "time": "22:30"})]


# ---------------------------------------------------------------- world-clock arithmetic


class CityPair(TaskParams):
    """Two world-clock cities, the first ahead of the second."""

    pair: Annotated[tuple[str, str], Choice(_GAPS)]


class CityTimeGap(ClockTask[CityPair]):
    """How many hours one world clock is ahead of another, now: the truth is the zones'
    offsets on the phone's own clock (DST as of today), never the simulator's."""

    id = "clock/CityTimeGap-v1"
    level = "L1"
    kind = "query"
    instructions = {
        "en": "How many hours ahead of {behind} is {ahead} right now?",
        "zh": "现在{ahead}比{behind}快几个小时？",
    }
    Params = CityPair
    answer_fields = (AnswerSpec("hours", "number", {"en": "Hours", "zh": "小时数"}),)

    def truths(self, p: CityPair) -> list[Truth]:
        fact = ZoneGapFact(ahead=_zone(p.pair[0]), behind=_zone(p.pair[1]))
        return [Truth(name="hours", fact=fact)]

    def text_values(self, p: CityPair, lang: str) -> dict[str, Any]:
        return {"ahead": _city(p.pair[0], lang), "behind": _city(p.pair[1], lang)}

    def oracle(self, p: CityPair, lang: str) -> Plan:
        gap = zone_gap_hours(DEFAULT_CLOCK_MS, _zone(p.pair[0]), _zone(p.pair[1]))
        return [
            *_open_clock(),
            TapStep(on=Selector(text=clock_text("tab_clock", lang))),
            AnswerStep(fields={"hours": int(gap) if gap.is_integer() else gap}),
        ]


class Conversion(TaskParams):
    """A time of day in one city, to be read in another."""

    pair: Annotated[tuple[str, str], Choice(_CONVERSIONS)]
    at: Annotated[str, Choice(_MEETING_TIMES)]


class ConvertCityTime(ClockTask[Conversion]):
    """What a clock in one city reads when another city's reads a time, today: the truth is
    computed on the phone's clock and zone rules."""

    id = "clock/ConvertCityTime-v1"
    level = "L1"
    kind = "query"
    instructions = {
        "en": "When it is {at} in {source} today, what time is it in {to}? Use the world clock.",
        "zh": "今天{source}时间{at}的时候，{to}是几点？可以看世界时钟。",
    }
    Params = Conversion
    answer_fields = (AnswerSpec("time", "time", {"en": "Time", "zh": "时间"}),)

    def truths(self, p: Conversion) -> list[Truth]:
        fact = ZoneTimeFact(at=p.at, source_zone=_zone(p.pair[0]), to=_zone(p.pair[1]))
        return [Truth(name="time", fact=fact)]

    def text_values(self, p: Conversion, lang: str) -> dict[str, Any]:
        return {"at": p.at, "source": _city(p.pair[0], lang), "to": _city(p.pair[1], lang)}

    def oracle(self, p: Conversion, lang: str) -> Plan:
        there = zone_time(DEFAULT_CLOCK_MS, TIME_ZONE, p.at, _zone(p.pair[0]), _zone(p.pair[1]))
        return [
            *_open_clock(),
            TapStep(on=Selector(text=clock_text("tab_clock", lang))),
            AnswerStep(fields={"time": there}),  # what the world clocks show on its day
        ]


# ---------------------------------------------------------------- judged on the alarm rows


class SeededAlarm(TaskParams):
    """A seeded alarm (its time and label) and a decoy beside it (another time, label)."""

    at: Annotated[str, Choice(_SEEDED_TIMES)]
    label: Annotated[str, Choice(_LABELS)]
    decoy: Annotated[int, Integer(1, len(_SEEDED_TIMES) - 2)]
    decoy_at: str
    decoy_label: str


def _decoy(sampled: Mapping[str, Any]) -> dict[str, Any]:
    at = _SEEDED_TIMES[(_SEEDED_TIMES.index(sampled["at"]) + sampled["decoy"]) % len(_SEEDED_TIMES)]
    label = _LABELS[(_LABELS.index(sampled["label"]) + sampled["decoy"]) % len(_LABELS)]
    return {"decoy_at": at, "decoy_label": label}


S = TypeVar("S", bound=SeededAlarm)


class _SeededTask(_PrivateAlarmTask[S]):
    """A task about one seeded alarm, with a decoy alarm that must stay as it is."""

    Params: type[TaskParams] = SeededAlarm
    enabled = True
    """Whether the target and the decoy are seeded on."""

    def derive(self, sampled: Mapping[str, Any], world: World) -> dict[str, Any]:
        return _decoy(sampled)

    def posing(self, p: S) -> list[EnsureOp]:
        return [
            *seed_alarm(p.at, p.label, self.enabled),
            *seed_alarm(p.decoy_at, p.decoy_label, self.enabled),
        ]

    def expected_rows(self, p: S) -> list[RowsSelector]:
        return [RowsSelector(uri=ALARMS, where=alarm_at(p.at))]


class EnableAlarm(_SeededTask[SeededAlarm]):
    """Switch an alarm on; the other switched-off alarm stays off."""

    id = "clock/EnableAlarm-v1"
    level = "L1"
    kind = "operate"
    instructions = {"en": "Turn on the {at} alarm.", "zh": "打开{at}的闹钟。"}
    enabled = False

    def goal(self, p: SeededAlarm) -> list[CheckRule]:
        return [_alarm_is("switched on", p.at, "enabled", 1)]

    def oracle(self, p: SeededAlarm, lang: str) -> Plan:
        return [*_open_clock(), switch_alarm(p.at, lang), FinishStep()]


class DisableAlarm(_SeededTask[SeededAlarm]):
    """Switch an alarm off; the other one stays on."""

    id = "clock/DisableAlarm-v1"
    level = "L1"
    kind = "operate"
    instructions = {"en": "Turn off the {at} alarm.", "zh": "关闭{at}的闹钟。"}

    def goal(self, p: SeededAlarm) -> list[CheckRule]:
        return [_alarm_is("switched off", p.at, "enabled", 0)]

    def oracle(self, p: SeededAlarm, lang: str) -> Plan:
        return [*_open_clock(), switch_alarm(p.at, lang), FinishStep()]


class DeleteAlarm(_SeededTask[SeededAlarm]):
    """Delete an alarm; the decoy must still be there (a guard)."""

    id = "clock/DeleteAlarm-v1"
    level = "L1"
    kind = "operate"
    instructions = {"en": "Delete the {at} alarm.", "zh": "删除{at}的闹钟。"}

    def goal(self, p: SeededAlarm) -> list[CheckRule]:
        return [_alarms_at(p.at, 0), _alarms_at(p.decoy_at, 1, guard=True)]

    def oracle(self, p: SeededAlarm, lang: str) -> Plan:
        return [*_open_clock(), expand_alarm(p.label), TapStep(on=Selector(resource_id="delete")),
                FinishStep()]  # fmt: skip


class RelabelAlarm(_SeededTask[SeededAlarm]):
    """Change an alarm's label; a label one letter off is a near miss."""

    id = "clock/RelabelAlarm-v1"
    level = "L2"
    kind = "operate"
    instructions = {
        "en": 'Change the label of the {at} alarm to "{new}".',
        "zh": "把{at}闹钟的标签改成“{new}”。",
    }

    def text_values(self, p: SeededAlarm, lang: str) -> dict[str, Any]:
        return {"at": p.at, "new": self.new_label(p)}

    def new_label(self, p: SeededAlarm) -> str:
        """The label to give: the label after the decoy's in the list (never the alarm's
        own: the decoy is at most two places short of a full turn)."""
        return _LABELS[(_LABELS.index(p.decoy_label) + 1) % len(_LABELS)]

    def goal(self, p: SeededAlarm) -> list[CheckRule]:
        return [_alarm_is("label", p.at, "label", self.new_label(p)),
                _alarm_is("still on", p.at, "enabled", 1, guard=True)]  # fmt: skip

    def oracle(self, p: SeededAlarm, lang: str) -> Plan:
        relabel = label_steps(self.new_label(p))
        return [*_open_clock(), expand_alarm(p.label), *relabel, FinishStep()]


class RepeatAlarm(SeededAlarm):
    """A seeded one-time alarm and the repeat pattern to give it."""

    repeat: Annotated[str, Choice(tuple(REPEATS))]


class SetAlarmRepeat(_SeededTask[RepeatAlarm]):
    """Make a one-time alarm repeat; its ``daysofweek`` bits must be exactly the pattern's."""

    id = "clock/SetAlarmRepeat-v1"
    level = "L2"
    kind = "operate"
    instructions = {
        "en": "Make the {at} alarm repeat {repeat}.",
        "zh": "让{at}的闹钟{repeat}重复。",
    }
    Params = RepeatAlarm

    def text_values(self, p: RepeatAlarm, lang: str) -> dict[str, Any]:
        return {"at": p.at, "repeat": _REPEAT_WORDS[p.repeat][lang == "zh"]}

    def goal(self, p: RepeatAlarm) -> list[CheckRule]:
        days = alarm_days(REPEATS[p.repeat])
        return [_alarm_is("repeat days", p.at, "daysofweek", days),
                _alarm_is("still on", p.at, "enabled", 1, guard=True)]  # fmt: skip

    def oracle(self, p: RepeatAlarm, lang: str) -> Plan:
        return [*_open_clock(), expand_alarm(p.label), *day_taps(REPEATS[p.repeat], lang),
                FinishStep()]  # fmt: skip


class NewRepeatingAlarm(TaskParams):
    """A new alarm with a label and repeat days."""

    at: Annotated[str, Choice(_NEW_TIMES)]
    label: Annotated[str, Choice(_LABELS)]
    repeat: Annotated[str, Choice(tuple(REPEATS))]


class AddLabelledRepeatingAlarm(_PrivateAlarmTask[NewRepeatingAlarm]):
    """A new alarm with a time, repeat days and a label: three checks on its row, so a
    near miss (a day short) keeps the others' credit."""

    id = "clock/AddLabelledRepeatingAlarm-v1"
    level = "L3"
    kind = "operate"
    instructions = {
        "en": 'Set an alarm for {at} that repeats {repeat}, labelled "{label}".',
        "zh": "设一个{at}的闹钟，{repeat}重复，标签为“{label}”。",
    }
    Params = NewRepeatingAlarm

    def posing(self, p: NewRepeatingAlarm) -> list[EnsureOp]:
        return [DeleteRows(uri=ALARMS, where=alarm_at(p.at))]

    def expected_rows(self, p: NewRepeatingAlarm) -> list[RowsSelector]:
        return [RowsSelector(uri=ALARMS, where=alarm_at(p.at))]

    def text_values(self, p: NewRepeatingAlarm, lang: str) -> dict[str, Any]:
        return {**p.model_dump(), "repeat": _REPEAT_WORDS[p.repeat][lang == "zh"]}

    def goal(self, p: NewRepeatingAlarm) -> list[CheckRule]:
        return [
            _alarms_at(p.at, 1),
            _alarm_is("repeat days", p.at, "daysofweek", alarm_days(REPEATS[p.repeat])),
            _alarm_is("label", p.at, "label", p.label),
        ]

    def oracle(self, p: NewRepeatingAlarm, lang: str) -> Plan:
        return [
            *add_alarm_plan(p.at, lang),
            *day_taps(REPEATS[p.repeat], lang),
            *label_steps(p.label),
            FinishStep(),
        ]


class QueryAlarmLabel(_SeededTask[SeededAlarm]):
    """The label of the alarm at a time, read from the alarm's row."""

    id = "clock/QueryAlarmLabel-v1"
    level = "L1"
    kind = "query"
    instructions = {"en": "What is the label of the {at} alarm?", "zh": "{at}的闹钟标签是什么？"}
    answer_fields = (AnswerSpec("label", "text", {"en": "Label", "zh": "标签"}),)

    def truths(self, p: SeededAlarm) -> list[Truth]:
        fact = RowsFact(uri=ALARMS, where=alarm_at(p.at), column="label")
        return [Truth(name="label", fact=fact)]

    def expected_rows(self, p: SeededAlarm) -> list[RowsSelector]:
        return []

    def oracle(self, p: SeededAlarm, lang: str) -> Plan:
        return [*_open_clock(), AnswerStep(fields={"label": p.label})]


class SwitchedOn(TaskParams):
    """Extra alarms a task seeds switched on (as many as ``on``) and off (``off``)."""

    on: Annotated[int, Integer(1, 3)]
    off: Annotated[int, Integer(1, 3)]


class CountEnabledAlarms(_PrivateAlarmTask[SwitchedOn]):
    """How many alarms are on, counted over every alarm of the phone (the world's and the
    seeded ones)."""

    id = "clock/CountEnabledAlarms-v1"
    level = "L1"
    kind = "query"
    instructions = {"en": "How many alarms are switched on?", "zh": "有几个闹钟是开着的？"}
    Params = SwitchedOn
    answer_fields = (AnswerSpec("count", "number", {"en": "Alarms on", "zh": "开启的闹钟数"}),)

    def posing(self, p: SwitchedOn) -> list[EnsureOp]:
        times = _SEEDED_TIMES[: p.on + p.off]
        return [
            op
            for index, at in enumerate(times)
            for op in seed_alarm(at, _LABELS[index], enabled=index < p.on)
        ]

    def truths(self, p: SwitchedOn) -> list[Truth]:
        fact = RowsFact(uri=ALARMS, where="enabled=1", column="_id")
        return [Truth(name="count", fact=fact, reduce="count")]

    def oracle(self, p: SwitchedOn, lang: str) -> Plan:
        world_on = 3  # the world's 06:30, 09:00 and 22:30
        return [*_open_clock(), AnswerStep(fields={"count": world_on + p.on})]


TEMPLATES = (
    AddAlarm(),
    QueryNextAlarm(),
    CityTimeGap(),
    ConvertCityTime(),
    EnableAlarm(),
    DisableAlarm(),
    DeleteAlarm(),
    RelabelAlarm(),
    SetAlarmRepeat(),
    AddLabelledRepeatingAlarm(),
    QueryAlarmLabel(),
    CountEnabledAlarms(),
)


# ---- wrong plans, which must not pass (tests/sim/test_tasks_e2e.py runs them):
# Five minutes late, the decoy alarm, a day short, an answer one off.

_SHOWN_OFFSET = {"tokyo": 1, "london": 7}
"""How far ahead of the phone (Beijing) each world clock says it is, as hours."""

WRONG: dict[str, WrongPlan] = {
    "clock/AddAlarm-v1": lambda p, lang, w: [
        *add_alarm_plan(later(p["at"], 5), lang),
        FinishStep(),
    ],
    "clock/QueryNextAlarm-v1": lambda p, lang, w: [
        OpenAppStep(app="clock"),  # the first alarm of the list, not the next to ring
        AnswerStep(fields={"date": simulated_date(0), "time": "06:30"}),
    ],
    "clock/CityTimeGap-v1": lambda p, lang, w: [
        OpenAppStep(app="clock"),
        TapStep(on=Selector(text=clock_text("tab_clock", lang))),
        AnswerStep(fields={"hours": _SHOWN_OFFSET[p["pair"][0]]}),  # its offset from here
    ],
    "clock/ConvertCityTime-v1": lambda p, lang, w: [
        OpenAppStep(app="clock"),
        AnswerStep(fields={"time": p["at"]}),  # the source city's time
    ],
    "clock/EnableAlarm-v1": lambda p, lang, w: [
        OpenAppStep(app="clock"),
        switch_alarm(p["decoy_at"], lang),
        FinishStep(),
    ],
    "clock/DisableAlarm-v1": lambda p, lang, w: [
        OpenAppStep(app="clock"),
        switch_alarm(p["decoy_at"], lang),
        FinishStep(),
    ],
    "clock/DeleteAlarm-v1": lambda p, lang, w: [
        OpenAppStep(app="clock"),
        expand_alarm(p["decoy_label"]),
        TapStep(on=Selector(resource_id="delete")),
        FinishStep(),
    ],
    "clock/RelabelAlarm-v1": lambda p, lang, w: [
        OpenAppStep(app="clock"),
        expand_alarm(p["label"]),
        *label_steps(p["decoy_label"]),
        FinishStep(),
    ],
    "clock/SetAlarmRepeat-v1": lambda p, lang, w: [
        OpenAppStep(app="clock"),
        expand_alarm(p["label"]),
        *day_taps(REPEATS[p["repeat"]][:-1], lang),
        FinishStep(),
    ],
    "clock/AddLabelledRepeatingAlarm-v1": lambda p, lang, w: [
        *add_alarm_plan(p["at"], lang),
        *day_taps(REPEATS[p["repeat"]][:-1], lang),
        *label_steps(p["label"]),
        FinishStep(),
    ],
    "clock/QueryAlarmLabel-v1": lambda p, lang, w: [
        OpenAppStep(app="clock"),
        AnswerStep(fields={"label": p["decoy_label"]}),
    ],
    "clock/CountEnabledAlarms-v1": lambda p, lang, w: [
        OpenAppStep(app="clock"),
        AnswerStep(fields={"count": 3 + p["on"] + p["off"]}),  # every alarm, not those on
    ],
}
