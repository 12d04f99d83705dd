"""The Calendar app: month, day and agenda views, event card, editor, search."""

from sim.apps.calendar.app import CalendarApp

__all__ = ["CalendarApp"]
