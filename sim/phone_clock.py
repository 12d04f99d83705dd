"""The simulated phone's clock and zone: where every instance's time starts, and in which
zone it reads. One home, below both the state (:mod:`sim.state`) and the storage
(:mod:`sim.storage`) that stamp times with it."""

from __future__ import annotations

from bridge.phone_time import START_CLOCK_MS, START_TIME_ZONE

__all__ = ["DEFAULT_CLOCK_MS", "SIM_UTC_OFFSET_HOURS", "TIME_ZONE", "TIME_ZONE_ABBREVIATION"]

SIM_UTC_OFFSET_HOURS = 8
"""The simulated phone's time zone (UTC+8, like the reference Redmi phone in China)."""
TIME_ZONE = START_TIME_ZONE
"""That zone's id, as ``getprop persist.sys.timezone`` prints it (no daylight saving)."""
TIME_ZONE_ABBREVIATION = "CST"
"""That zone's abbreviation, as ``date`` prints it (China Standard Time)."""

DEFAULT_CLOCK_MS = START_CLOCK_MS
"""Where every instance's clock starts (2026-05-12 09:30:00 in the phone's zone)."""
