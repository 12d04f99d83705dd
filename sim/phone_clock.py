"""The simulated phone's clock and zone: where every instance's time starts, and in which
zone it reads. One home, below both the state (:mod:`sim.state`) and the storage
(:mod:`sim.storage`) that stamp times with it."""

from __future__ import annotations

__all__ = ["DEFAULT_CLOCK_MS", "SIM_UTC_OFFSET_HOURS", "TIME_ZONE", "TIME_ZONE_ABBREVIATION"]

SIM_UTC_OFFSET_HOURS = 8
"""The simulated phone's time zone (UTC+8, like the reference Redmi phone in China)."""
TIME_ZONE = "Asia/Shanghai"
"""That zone's id, as ``getprop persist.sys.timezone`` prints it (no daylight saving)."""
TIME_ZONE_ABBREVIATION = "CST"
"""That zone's abbreviation, as ``date`` prints it (China Standard Time)."""

DEFAULT_CLOCK_MS = 1_778_549_400_000
"""2026-05-12 09:30:00 at UTC+8 (the phone's zone): where every instance's clock starts."""
