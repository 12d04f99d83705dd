"""The Clock app: alarms, world clocks, a timer and a stopwatch."""

from sim.apps.clock.app import ClockApp

__all__ = ["ClockApp"]
