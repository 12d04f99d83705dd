"""The Calendar app (``com.android.calendar``): month, day and agenda views, the event card,
the editor with date and time pickers, and search, over CalendarContract-shaped state.

Routes: ``/`` (the views; params ``view``, ``day``), ``/event`` (``id``), ``/edit`` (``id``
or none) and ``/search``. Actions (``data-action`` → handler, ``data-arg-*`` in brackets):

* views: ``set_view[tab]`` (``day``/``month``/``agenda``), ``today``, ``prev``, ``next``
  (a month or a day), ``open_day[date]`` (a month cell: that day's view),
  ``open_event[id]``, ``create`` (the "New event" button), ``open_search``;
* search: ``search`` (Enter in the box: the list already filters live), ``open_event[id]``;
* event card: ``edit[id]``, ``delete[id]`` (asks first), ``delete_confirm[id]``,
  ``dialog_cancel``;
* editor: :mod:`sim.apps.calendar.editing`; pickers: :mod:`sim.pickers`.

Back closes a picker or a dialog first; in the editor it asks before dropping changes.
The app shows the events of every visible calendar, those a sync adapter created through
the provider (:mod:`sim.apps.calendar.provider`) included.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, timedelta
from typing import Any

from pydantic import JsonValue

from sim.app import App, AppContext, Event, GalleryAction, GalleryScreen, Screen, on
from sim.apps.calendar import screens, views
from sim.apps.calendar.editing import EditorHandlers, edit_event, leave, new_event
from sim.apps.calendar.model import TABLES, delete_event, get_row, table_rows
from sim.apps.calendar.provider import calendar_provider
from sim.apps.calendar.state import CalendarState
from sim.pickers import close_picker
from sim.providers.table import Provider

__all__ = ["CalendarApp"]


class CalendarApp(EditorHandlers, App):
    """AOSP's Calendar: views, event card, editor, search (see the module docstring)."""

    id = "calendar"
    overlay_model = CalendarState
    SCREENS = {
        "/": Screen("main.html", views.main_values),
        "/event": Screen("event.html", screens.event_values, ".EventInfoActivity"),
        "/edit": Screen("edit.html", screens.editor_values, ".event.EditEventActivity"),
        "/search": Screen("search.html", screens.search_values, ".SearchActivity"),
    }

    # ---- data
    def initial_overlay(self) -> dict[str, Any]:
        """No changes yet (ids continue after the world's)."""
        return {table: {} for table in TABLES}

    def view(self, overlay: Mapping[str, Any]) -> dict[str, Any]:
        """``{"calendars": [...], "events": [...], "reminders": [...]}``: effective rows."""
        return {table: table_rows(self.world, overlay, table) for table in TABLES}

    def providers(self) -> tuple[Provider, ...]:
        """CalendarContract's tables (:mod:`sim.apps.calendar.provider`)."""
        return (calendar_provider(),)

    # ---- screens
    def gallery_screens(self) -> tuple[GalleryScreen, ...]:
        """The month, day and agenda views, an event's card, its editor with the date and
        the time picker open, and search with a query typed."""
        event: dict[str, JsonValue] = {"id": 12}  # a flight: location, description, two reminders
        edit = GalleryAction(action="edit", args={"id": "12"})
        start = {"target": "start"}

        def editor(name: str, title: str, *then: GalleryAction) -> GalleryScreen:
            return GalleryScreen(
                name=name, title=title, path="/event", params=event, actions=(edit, *then)
            )

        return (
            GalleryScreen(name="month", title="Month view"),
            GalleryScreen(name="day", title="Day view", params={"view": "day"}),
            GalleryScreen(name="agenda", title="Agenda", params={"view": "agenda"}),
            GalleryScreen(name="event", title="Event info", path="/event", params=event),
            editor("editor", "Event editor"),
            editor("date-picker", "Date picker", GalleryAction(action="pick_date", args=start)),
            editor("time-picker", "Time picker", GalleryAction(action="pick_time", args=start)),
            GalleryScreen(
                name="search",
                title="Search",
                fields={screens.SEARCH_KEY: "项目"},
                actions=(GalleryAction(action="open_search"),),
            ),
        )

    def on_back(self, ctx: AppContext) -> bool:
        """Close a picker or a dialog; in the editor, ask before dropping changes."""
        if close_picker(ctx):
            return True
        if ctx.route.params.pop("dialog", None) is not None:
            return True
        if ctx.route.path == "/edit":
            self.editor_back(ctx)
            return True
        return False

    # ---- the views
    @on("set_view")
    def set_view(self, ctx: AppContext, event: Event) -> None:
        """Switch between the day, month and agenda views."""
        tab = event.arg("tab")
        if tab in views.VIEWS:
            ctx.route.params["view"] = tab

    @on("today")
    def today(self, ctx: AppContext, event: Event) -> None:
        """Go to today."""
        ctx.route.params["day"] = views.today(ctx).isoformat()

    @on("prev")
    def go_prev(self, ctx: AppContext, event: Event) -> None:
        """The previous month (month view) or day."""
        self._step(ctx, -1)

    @on("next")
    def go_next(self, ctx: AppContext, event: Event) -> None:
        """The next month (month view) or day."""
        self._step(ctx, 1)

    @staticmethod
    def _step(ctx: AppContext, delta: int) -> None:
        day = views.selected_day(ctx)
        if views.selected_view(ctx) == "month":
            index = day.year * 12 + day.month - 1 + delta
            day = date(index // 12, index % 12 + 1, 1)
            now = views.today(ctx)
            if (now.year, now.month) == (day.year, day.month):
                day = now
        else:
            day += timedelta(days=delta)
        ctx.route.params["day"] = day.isoformat()

    @on("open_day")
    def open_day(self, ctx: AppContext, event: Event) -> None:
        """A day of the month grid: that day's view."""
        ctx.route.params.update(view="day", day=date.fromisoformat(event.arg("date")).isoformat())

    @on("open_event")
    def open_event(self, ctx: AppContext, event: Event) -> None:
        """Show an event's card."""
        ctx.navigate("/event", id=int(event.arg("id")))

    @on("create")
    def create(self, ctx: AppContext, event: Event) -> None:
        """A new event on the selected day."""
        new_event(ctx, views.selected_day(ctx))

    @on("open_search")
    def open_search(self, ctx: AppContext, event: Event) -> None:
        """Open search with the keyboard up."""
        ctx.navigate("/search")
        ctx.focus(screens.SEARCH_KEY, submit="search")

    @on("search")
    def search(self, ctx: AppContext, event: Event) -> None:
        """Enter in the search box: results already show, so just hide the keyboard."""
        ctx.state.ui.keyboard_visible = False

    # ---- the event card
    @on("edit")
    def edit(self, ctx: AppContext, event: Event) -> None:
        """Open the editor on this event."""
        edit_event(ctx, int(event.arg("id")))

    @on("delete")
    def delete(self, ctx: AppContext, event: Event) -> None:
        """Ask before deleting."""
        ctx.route.params["dialog"] = "delete"

    @on("delete_confirm")
    def delete_confirm(self, ctx: AppContext, event: Event) -> None:
        """Delete the event (and its reminders) and go back."""
        ctx.route.params.pop("dialog", None)
        event_id = int(event.arg("id"))
        if get_row(self.world, ctx.data, "events", event_id) is None:
            return
        delete_event(self.world, ctx.data, event_id)
        ctx.toast(ctx.t("toast_deleted"))
        leave(ctx)

    @on("dialog_cancel")
    def dialog_cancel(self, ctx: AppContext, event: Event) -> None:
        """Close the open dialog."""
        ctx.route.params.pop("dialog", None)
