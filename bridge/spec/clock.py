"""The phone's clock and zone, and times on it: a task's times are always the phone's own
(its today, its zone, its daylight saving), never the simulator's."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, JsonValue, model_validator

from bridge.actions import require_tags
from bridge.android_state import AndroidState
from bridge.phone_time import (
    local_clock,
    local_ms,
    next_time_ms,
    say_time,
    zone_gap_hours,
    zone_time,
)
from bridge.spec.base import FactNode, SpecNode, Truths

__all__ = [
    "ClockFact",
    "LocalTime",
    "LocalTimeFact",
    "NextTimeFact",
    "TimeAs",
    "ZoneGapFact",
    "ZoneTimeFact",
]


class LocalTime(SpecNode):
    """A wall-clock time on the phone, relative to its own today: ``days`` after today (in
    the phone's time zone, read when the spec is posed or judged) at ``at`` (``HH:MM``,
    midnight when None). Never a date taken from the simulator's clock: a phone's today
    and zone are its own."""

    days: int = 0
    at: str | None = Field(default=None, pattern=r"^([01]\d|2[0-3]):[0-5]\d$")


TimeAs = Literal["local_date", "local_time", "utc_date"]
"""An epoch-ms value as people say it: the phone's local date (``2026-05-14``) or time
(``14:00``), or the UTC date (the day of an all-day event, stored at UTC midnight)."""


class LocalTimeFact(FactNode):
    """A time on the phone's own clock as epoch milliseconds (what ``dtstart`` holds): ``when``
    in the phone's zone, or the UTC midnight of its day for ``all_day`` (Android's all-day
    convention)."""

    source: Literal["local_time"] = "local_time"
    when: LocalTime
    all_day: bool = False
    say: TimeAs | None = None
    """Read as people say it (see :data:`TimeAs`) instead of epoch ms."""

    async def read(self, state: AndroidState, truths: Truths) -> list[JsonValue]:
        """The moment as epoch ms, or as people say it."""
        now_ms, zone_name = await state.now()
        moment = local_ms(now_ms, zone_name, self.when, self.all_day)
        if self.say is None:
            return [moment]
        return [say_time(moment, "UTC" if self.all_day else zone_name, self.say)]


class ClockFact(FactNode):
    """The phone's clock now, epoch ms (when a task was posed: what a message sent during
    the episode must be newer than)."""

    source: Literal["clock"] = "clock"

    async def read(self, state: AndroidState, truths: Truths) -> list[JsonValue]:
        """The phone's clock, epoch ms."""
        return [(await state.now())[0]]


def _next_time_schema(schema: dict[str, Any]) -> None:
    """:class:`NextTimeFact`'s schema: its tag required, and exactly one of ``at`` or
    ``of_truth`` (the other absent or null)."""
    require_tags("source")(schema)
    schema["oneOf"] = [
        {
            "required": ["at"],
            "properties": {"at": {"type": "string"}, "of_truth": {"type": "null"}},
        },
        {
            "required": ["of_truth"],
            "properties": {"of_truth": {"type": "string"}, "at": {"type": "null"}},
        },
    ]


class NextTimeFact(FactNode):
    """The next moment, strictly after now on the phone's clock, its wall clock reads a time
    of day, as epoch ms (when an alarm set for that time rings): ``at`` (``HH:MM``), or the
    local time of day of truth ``of_truth`` (epoch ms, an event's start); moved by
    ``offset_minutes`` (-30: half an hour before); on one of ``days`` (0 Monday … 6 Sunday;
    any day when empty)."""

    model_config = ConfigDict(json_schema_extra=_next_time_schema)

    source: Literal["next_time"] = "next_time"
    at: str | None = Field(default=None, pattern=r"^([01]\d|2[0-3]):[0-5]\d$")
    of_truth: str | None = None
    offset_minutes: int = 0
    days: list[Annotated[int, Field(ge=0, le=6)]] = Field(default_factory=list)
    """0 (Monday) to 6 (Sunday)."""

    @model_validator(mode="after")
    def _one_time(self) -> NextTimeFact:
        if (self.at is None) == (self.of_truth is None):
            raise ValueError("a next-time fact names either a time of day or a truth")
        return self

    async def read(self, state: AndroidState, truths: Truths) -> list[JsonValue]:
        """The next such moment, epoch ms."""
        now_ms, zone_name = await state.now()
        at = self.at
        if self.of_truth is not None:
            at = local_clock(int(str(truths[self.of_truth][0])), zone_name)
        assert at is not None  # the model validates one of the two
        shifted = datetime.strptime(at, "%H:%M") + timedelta(minutes=self.offset_minutes)
        return [next_time_ms(now_ms, zone_name, shifted.strftime("%H:%M"), self.days)]

    def truth_names(self) -> list[str]:
        """The truth whose time of day it follows, if any."""
        return [self.of_truth] if self.of_truth else []


class ZoneGapFact(FactNode):
    """How many hours the clocks of zone ``ahead`` are ahead of zone ``behind`` now on the
    phone's clock (IANA names; DST as each zone has it today: a phone's truth, never the
    simulator's), e.g. 1 for Europe/Paris over Europe/London."""

    source: Literal["zone_gap"] = "zone_gap"
    ahead: str = Field(min_length=1)
    behind: str = Field(min_length=1)

    async def read(self, state: AndroidState, truths: Truths) -> list[JsonValue]:
        """The gap in hours (an int when whole)."""
        now_ms, _ = await state.now()
        gap = zone_gap_hours(now_ms, self.ahead, self.behind)
        return [int(gap) if gap.is_integer() else gap]


class ZoneTimeFact(FactNode):
    """What a clock in zone ``to`` reads (``HH:MM``) when one in zone ``source_zone`` reads
    ``at`` on the phone's today (the offsets of that day, DST included)."""

    source: Literal["zone_time"] = "zone_time"
    at: str = Field(pattern=r"^([01]\d|2[0-3]):[0-5]\d$")
    source_zone: str = Field(min_length=1)
    to: str = Field(min_length=1)

    async def read(self, state: AndroidState, truths: Truths) -> list[JsonValue]:
        """The other zone's wall clock, ``HH:MM``."""
        now_ms, zone_name = await state.now()
        return [zone_time(now_ms, zone_name, self.at, self.source_zone, self.to)]
