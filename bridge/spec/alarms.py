"""The next alarm clock: when it rings (``dumpsys alarm``), read and checked. A phone shows
only its soonest alarm, so a check says at posing time whether this phone can judge it."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, JsonValue

from bridge.android_state import AndroidState
from bridge.errors import TaskNotPosed
from bridge.phone_time import local_clock, say_time
from bridge.schema import CheckResult
from bridge.spec.base import CheckNode, FactNode, Seen, TruthRef, Truths
from bridge.spec.clock import TimeAs

__all__ = ["NextAlarmCheck", "NextAlarmFact", "check_next_alarm"]


class NextAlarmFact(FactNode):
    """When the phone's next alarm clock rings (``dumpsys alarm``), as epoch ms or as people
    say it (``say``); absent when no alarm is set."""

    source: Literal["next_alarm"] = "next_alarm"
    say: TimeAs | None = None

    async def read(self, state: AndroidState, truths: Truths) -> list[JsonValue]:
        """When the next alarm rings; nothing when no alarm is set."""
        ring = await state.next_alarm()
        if ring is None:
            return []
        _, zone_name = await state.now()
        return [ring if self.say is None else say_time(ring, zone_name, self.say)]


class NextAlarmCheck(CheckNode):
    """The phone's next alarm clock rings at truth ``value`` (epoch ms, a
    :class:`NextTimeFact`). A phone shows only its soonest alarm, so
    a task is posed only when nothing of the phone's own rings before ``value``, and when
    ``value`` is at least ``margin_minutes`` away (it must not ring during the episode);
    otherwise this phone cannot judge it and says so."""

    check: Literal["next_alarm"] = "next_alarm"
    name: str = Field(min_length=1)
    value: TruthRef
    margin_minutes: int = Field(default=30, ge=0)

    async def evaluate(self, state: AndroidState, seen: Seen) -> list[CheckResult]:
        """The next alarm against the truth."""
        return [await check_next_alarm(state, self, seen.truths)]

    async def judgeable(self, state: AndroidState, truths: Truths) -> None:
        """The task's alarm must be the one this phone would show, not ringing during the
        episode."""
        await _alarm_judgeable(state, self, truths)

    def truth_names(self) -> list[str]:
        """The truth the alarm must ring at."""
        return [self.value.truth]


async def check_next_alarm(
    state: AndroidState, rule: NextAlarmCheck, truths: Truths
) -> CheckResult:
    """The phone's next alarm rings exactly at the truth (compared in epoch ms; shown as the
    phone's local date and time); fails when no alarm is set."""
    target = int(str(truths[rule.value.truth][0]))
    ring = await state.next_alarm()
    _, zone_name = await state.now()

    def said(ms: int) -> str:
        return f"{say_time(ms, zone_name, 'local_date')} {local_clock(ms, zone_name)}"

    return CheckResult(
        name=rule.name,
        expected=said(target),
        actual=None if ring is None else said(ring),
        passed=ring == target,
        evidence="dumpsys alarm: Next alarm clock information",
    )


async def _alarm_judgeable(state: AndroidState, check: NextAlarmCheck, truths: Truths) -> None:
    """A phone shows only its soonest alarm: the task's must be the one it would show, and
    must not ring during the episode.

    Raises:
        TaskNotPosed: this phone cannot judge the check (the message says why and what to do).
    """
    target = int(str(truths[check.value.truth][0]))
    now_ms, zone_name = await state.now()
    when = f"{say_time(target, zone_name, 'local_date')} {local_clock(target, zone_name)}"
    if target - now_ms < check.margin_minutes * 60_000:
        raise TaskNotPosed(
            f"{check.name}: the alarm would ring at {when}, within {check.margin_minutes} "
            "minutes, during the episode; pose the task at another time of day"
        )
    ring = await state.next_alarm()
    if ring is not None and ring < target:
        own = f"{say_time(ring, zone_name, 'local_date')} {local_clock(ring, zone_name)}"
        raise TaskNotPosed(
            f"{check.name}: this phone's own alarm rings at {own}, before the task's ({when}), "
            "and a phone shows only its soonest alarm; turn off the alarms before it to judge "
            "this task here"
        )
