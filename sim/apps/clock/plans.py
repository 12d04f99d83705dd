"""How Clock's oracle plans set the open time picker to a time, in every skin.

AOSP's picker takes the time typed into its hour and minute boxes. HyperOS's alarm page
has wheels (:mod:`sim.pickers.wheels`), and a wheel starts wherever the phone's clock put it
(a new alarm opens on the time it is now, which a plan cannot know: the phone is any
phone). So the plan reads each wheel's value off the screen (a :class:`~bridge.plans.
NoteStep` of its selected row) and turns it from there: of the steps written for every value
the wheel might show, only those for the value noted run (an :class:`~bridge.plans.EachStep`
whose prefix is that value). It turns the short way round, tapping the neighbour two rows
away (or one) until the target is the selected row; each tap names the value the wheel
must show before it (its content description), and a last tap on the selected row checks
the target, so a wheel that is not where the plan thinks stops the plan instead of saving
another time. The phone shows a 24-hour clock during a Clock task: values are ``00``–``23``
and ``00``–``59``.
"""

from __future__ import annotations

from bridge.plans import EachStep, NoteStep, Plan, PlanStep, Selector, TapStep, TypeStep
from sim.apps.clock.screens import WHEEL_SKINS
from sim.pickers.wheels import SHOWN, row_fraction, wheel_desc, wheel_text
from sim.skins import plan_skin

__all__ = ["set_time_steps", "turn_wheel", "wheel_steps"]

_COUNTS = {"hour": 24, "minute": 60}


def set_time_steps(at: str, lang: str) -> Plan:
    """Steps that set the open time picker to ``at`` (``HH:MM``) on a phone in the skin the
    plan walks: typed into AOSP's boxes, or HyperOS's wheels turned."""
    if plan_skin() in WHEEL_SKINS:
        return wheel_steps(at, lang)
    hour, minute = at.split(":")
    return [
        TypeStep(text=hour, into=Selector(resource_id="input_hour")),
        TypeStep(text=minute, into=Selector(resource_id="input_minute")),
    ]


def _tap(wheel: str, shows: int, offset: int, lang: str) -> TapStep:
    """A tap on the row ``offset`` rows below the selected one of a wheel showing ``shows``."""
    desc = wheel_desc(wheel, wheel_text(wheel, shows, True, lang), lang)
    on = Selector(class_name="NumberPicker", resource_id=wheel, desc=desc)
    return TapStep(on=on, at=(0.5, row_fraction(offset)), scroll=False)


def turn_wheel(wheel: str, start: int, target: int, lang: str) -> list[TapStep]:
    """The taps that turn a 24-hour clock's ``wheel`` (``hour`` or ``minute``) from ``start``
    to ``target`` the short way round, then check it (see the module docstring)."""
    count = _COUNTS[wheel]
    rows = (target - start) % count
    rows = rows - count if rows > count // 2 else rows
    taps, shows = [], start
    while rows:
        step = max(-SHOWN, min(SHOWN, rows))
        taps.append(_tap(wheel, shows, step, lang))
        shows, rows = (shows + step) % count, rows - step
    return [*taps, _tap(wheel, target, 0, lang)]


def wheel_steps(at: str, lang: str) -> Plan:
    """Read each wheel's value and turn it to ``at`` (``HH:MM``, 24-hour)."""
    steps: list[PlanStep] = []
    for wheel, target in zip(_COUNTS, (int(part) for part in at.split(":")), strict=True):
        key = f"wheel_{wheel}"
        steps.append(
            NoteStep(
                key=key,
                rows=Selector(resource_id="numberpicker_input"),
                after=Selector(class_name="NumberPicker", resource_id=wheel),
                until=Selector(class_name="NumberPicker"),
            )
        )
        steps += [
            EachStep(key=key, prefix=wheel_text(wheel, value, True, lang),
                     steps=list(turn_wheel(wheel, value, target, lang)))
            for value in range(_COUNTS[wheel])
        ]  # fmt: skip
    return steps
