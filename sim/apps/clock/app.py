"""The Clock app (``com.android.deskclock``): alarms, world clocks, a timer, a stopwatch.

Routes: ``/`` (DeskClock; ``tab``) and ``/cities`` (the city list). Actions
(``data-action`` → handler, ``data-arg-*`` in brackets):

* tabs: ``set_tab[tab]``;
* alarms: ``add_alarm`` (the FAB: time picker; under HyperOS the add-alarm page with its
  wheels), ``pick_alarm_time[id]`` (the row's time: the edit-alarm page under HyperOS),
  ``toggle_alarm[id]`` (the switch), ``expand[id]`` (the row: repeat days, label, delete),
  ``toggle_day[id, day]``, ``edit_label[id]`` (dialog), ``label_ok``, ``delete_alarm[id]``
  (with an Undo snackbar), ``undo_delete``, ``dialog_cancel``;
* world clocks: ``add_city`` (the FAB: the city list), ``toggle_city[id]`` (a row of the
  list), ``ask_remove_city[id]`` (long press on a world clock), ``remove_city[id]``,
  ``city_search`` (Enter in the search box);
* timer: ``timer_digit[d]``, ``timer_backspace``, ``timer_start``, ``timer_pause``,
  ``timer_reset``, ``timer_delete``; stopwatch: ``stopwatch_start``, ``stopwatch_pause``,
  ``stopwatch_lap``, ``stopwatch_reset``.

Back closes a picker or a dialog first. Times come from the instance's clock only.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, time
from typing import Any

from sim.app import App, AppContext, Event, GalleryAction, GalleryScreen, Screen, on
from sim.apps.clock import screens
from sim.apps.clock.alarms import (
    alarm_rows,
    delete_alarm,
    get_alarm,
    next_alarm_ms,
    put_alarm,
    restore_alarm,
)
from sim.apps.clock.cities import find_city, selected_cities, set_selected
from sim.apps.clock.provider import clock_provider
from sim.apps.clock.state import ClockState
from sim.apps.clock.timers import MAX_INPUT, input_ms, stopwatch_elapsed, timer_left
from sim.pickers import PickerHost, close_picker, open_time_picker
from sim.providers.table import Provider

__all__ = ["ClockApp"]


def _pick_time(ctx: AppContext, target: str, value: time) -> None:
    """Open the time picker on ``value``: AOSP's dialog, or a wheel skin's alarm page."""
    open_time_picker(ctx, target, value, wheels=ctx.skin in screens.WHEEL_SKINS)


class ClockApp(PickerHost, App):
    """AOSP's DeskClock: Alarm, Clock, Timer and Stopwatch tabs (see the module docstring)."""

    id = "clock"
    overlay_model = ClockState
    SCREENS = {
        "/": Screen("main.html", screens.main_values),
        "/cities": Screen(
            "cities.html", screens.cities_values, ".worldclock.CitySelectionActivity"
        ),
    }

    # ---- data
    def initial_overlay(self) -> dict[str, Any]:
        """No changes yet: the world's alarms and cities."""
        return {"alarms": {}}

    def view(self, overlay: Mapping[str, Any]) -> dict[str, Any]:
        """``{"alarms": [...], "cities": [ids], "timer": {...}, "stopwatch": {...}}``."""
        return {
            "alarms": alarm_rows(self.world, overlay),
            "cities": [c.id for c in selected_cities(self.world, overlay)],
            "timer": dict(overlay.get("timer") or {}),
            "stopwatch": dict(overlay.get("stopwatch") or {}),
        }

    def next_alarm_clock(self, overlay: Mapping[str, Any], now_ms: int, zone: str) -> int | None:
        """The soonest ring among the enabled alarms (repeat days honoured)."""
        return next_alarm_ms(alarm_rows(self.world, overlay), now_ms, zone)

    def providers(self) -> tuple[Provider, ...]:
        """DeskClock's alarms table (:mod:`sim.apps.clock.provider`): not exported on a
        phone, so only the simulator and the virtual phone judge through it."""
        return (clock_provider(),)

    # ---- screens
    def gallery_screens(self) -> tuple[GalleryScreen, ...]:
        """Every tab, an open alarm, its label dialog, the time picker and the city list."""
        rise = {"id": "1"}  # repeats on weekdays, labelled in Chinese
        return (
            GalleryScreen(name="alarms", title="Alarms"),
            GalleryScreen(name="alarm-open", title="An open alarm",
                          actions=(GalleryAction(action="expand", args=rise),)),
            GalleryScreen(name="label-dialog", title="Alarm label",
                          actions=(GalleryAction(action="expand", args=rise),
                                   GalleryAction(action="edit_label", args=rise))),
            GalleryScreen(name="time-picker", title="Alarm time picker",
                          actions=(GalleryAction(action="pick_alarm_time", args=rise),)),
            GalleryScreen(name="world-clocks", title="World clocks", params={"tab": "clock"}),
            GalleryScreen(name="cities", title="City list", path="/cities"),
            GalleryScreen(name="timer", title="Timer", params={"tab": "timer"}),
            GalleryScreen(name="stopwatch", title="Stopwatch", params={"tab": "stopwatch"}),
        )  # fmt: skip

    def on_back(self, ctx: AppContext) -> bool:
        """Close a picker or a dialog; on the city list, leave it (drafts forgotten)."""
        if close_picker(ctx):
            return True
        if ctx.route.params.pop("dialog", None) is not None:
            ctx.clear_fields(screens.LABEL_KEY)
            return True
        if ctx.route.path == "/cities":
            ctx.clear_fields(screens.CITY_SEARCH_KEY)
        return False

    def handle(self, ctx: AppContext, event: Event) -> None:
        """Dispatch; any action but Undo dismisses the Undo snackbar."""
        if event.action != "undo_delete" and ctx.state.os.task(self.id) is not None:
            ctx.route.params.pop("deleted", None)
        super().handle(ctx, event)

    # ---- tabs
    @on("set_tab")
    def set_tab(self, ctx: AppContext, event: Event) -> None:
        """Show another tab."""
        tab = event.arg("tab")
        if tab in screens.TABS:
            ctx.route.params["tab"] = tab
            ctx.route.params.pop("expanded", None)

    # ---- alarms
    def picked_date(self, ctx: AppContext, target: str, value: date) -> None:
        """The Clock opens no date picker."""
        raise NotImplementedError("the Clock app has no date picker")

    def picked_time(self, ctx: AppContext, target: str, value: time) -> None:
        """OK in the time picker: a new alarm (on, one-time) or a new time for one."""
        if target == screens.NEW_ALARM:
            created = put_alarm(
                self.world, ctx.data, {"hour": value.hour, "minute": value.minute, "enabled": True}
            )
            ctx.route.params["expanded"] = created["id"]
            return
        alarm = get_alarm(self.world, ctx.data, int(target))
        if alarm is not None:
            put_alarm(
                self.world,
                ctx.data,
                {**alarm, "hour": value.hour, "minute": value.minute, "enabled": True},
            )

    @on("add_alarm")
    def add_alarm(self, ctx: AppContext, event: Event) -> None:
        """The FAB: the time picker for a new alarm, on the current time."""
        now = ctx.now()
        _pick_time(ctx, screens.NEW_ALARM, time(now.hour, now.minute))

    @on("pick_alarm_time")
    def pick_alarm_time(self, ctx: AppContext, event: Event) -> None:
        """The row's time: the time picker on that alarm's time."""
        alarm = get_alarm(self.world, ctx.data, int(event.arg("id")))
        if alarm is not None:
            _pick_time(ctx, str(alarm["id"]), time(alarm["hour"], alarm["minute"]))

    def _update(self, ctx: AppContext, alarm_id: str, **changes: Any) -> None:
        alarm = get_alarm(self.world, ctx.data, int(alarm_id))
        if alarm is not None:
            put_alarm(self.world, ctx.data, {**alarm, **changes})

    @on("toggle_alarm")
    def toggle_alarm(self, ctx: AppContext, event: Event) -> None:
        """The row's switch: turn the alarm on or off."""
        alarm = get_alarm(self.world, ctx.data, int(event.arg("id")))
        if alarm is not None:
            put_alarm(self.world, ctx.data, {**alarm, "enabled": not alarm["enabled"]})

    @on("expand")
    def expand(self, ctx: AppContext, event: Event) -> None:
        """Open the row (repeat days, label, delete), or close it when it is open."""
        alarm_id = int(event.arg("id"))
        params = ctx.route.params
        if params.get("expanded") == alarm_id:
            params.pop("expanded")
        else:
            params["expanded"] = alarm_id

    @on("toggle_day")
    def toggle_day(self, ctx: AppContext, event: Event) -> None:
        """A weekday button of an open row: the alarm repeats on that day, or no longer."""
        alarm = get_alarm(self.world, ctx.data, int(event.arg("id")))
        if alarm is None:
            return
        day = int(event.arg("day"))
        days = set(alarm["days"]) ^ {day}
        put_alarm(self.world, ctx.data, {**alarm, "days": sorted(days)})

    @on("edit_label")
    def edit_label(self, ctx: AppContext, event: Event) -> None:
        """The label dialog, its field holding the label, the keyboard up."""
        alarm = get_alarm(self.world, ctx.data, int(event.arg("id")))
        if alarm is None:
            return
        ctx.route.params["dialog"] = {"name": "label", "id": alarm["id"]}
        ctx.set_field(screens.LABEL_KEY, alarm["label"])
        ctx.focus(screens.LABEL_KEY, submit="label_ok")

    @on("label_ok")
    def label_ok(self, ctx: AppContext, event: Event) -> None:
        """OK in the label dialog (or Enter): store the label, trimmed."""
        dialog = ctx.route.params.pop("dialog", None)
        label = ctx.field(screens.LABEL_KEY).strip()
        ctx.clear_fields(screens.LABEL_KEY)
        ctx.focus(None)
        if isinstance(dialog, dict) and dialog.get("name") == "label":
            self._update(ctx, str(dialog["id"]), label=label)

    @on("dialog_cancel")
    def dialog_cancel(self, ctx: AppContext, event: Event) -> None:
        """Close the open dialog; nothing changes."""
        ctx.route.params.pop("dialog", None)
        ctx.clear_fields(screens.LABEL_KEY)
        ctx.focus(None)

    @on("delete_alarm")
    def delete_alarm(self, ctx: AppContext, event: Event) -> None:
        """Delete the alarm; the snackbar offers Undo until the next action."""
        alarm = get_alarm(self.world, ctx.data, int(event.arg("id")))
        if alarm is None:
            return
        delete_alarm(ctx.data, alarm["id"])
        ctx.route.params.pop("expanded", None)
        ctx.route.params["deleted"] = alarm

    @on("undo_delete")
    def undo_delete(self, ctx: AppContext, event: Event) -> None:
        """Put the alarm just deleted back."""
        alarm = ctx.route.params.pop("deleted", None)
        if isinstance(alarm, dict):
            restore_alarm(ctx.data, alarm)

    # ---- world clocks
    @on("add_city")
    def add_city(self, ctx: AppContext, event: Event) -> None:
        """The Clock tab's FAB: the searchable city list."""
        ctx.clear_fields(screens.CITY_SEARCH_KEY)
        ctx.navigate("/cities")

    @on("toggle_city")
    def toggle_city(self, ctx: AppContext, event: Event) -> None:
        """A row of the city list: add the city to the world clocks, or remove it."""
        city = find_city(event.arg("id"))
        if city is None:
            return
        chosen = selected_cities(self.world, ctx.data)
        chosen = [c for c in chosen if c != city] if city in chosen else [*chosen, city]
        set_selected(ctx.data, chosen)

    @on("city_search")
    def city_search(self, ctx: AppContext, event: Event) -> None:
        """Enter in the search box: the list already filters, so hide the keyboard."""
        ctx.state.ui.keyboard_visible = False

    @on("ask_remove_city")
    def ask_remove_city(self, ctx: AppContext, event: Event) -> None:
        """Long press on a world clock: ask before removing it."""
        ctx.route.params["dialog"] = {"name": "remove_city", "id": event.arg("id")}

    @on("remove_city")
    def remove_city(self, ctx: AppContext, event: Event) -> None:
        """Remove the world clock."""
        ctx.route.params.pop("dialog", None)
        city_id = event.arg("id")
        chosen = selected_cities(self.world, ctx.data)
        set_selected(ctx.data, [c for c in chosen if c.id != city_id])

    # ---- timer
    def _timer(self, ctx: AppContext) -> dict[str, Any]:
        return ctx.data.setdefault("timer", {})

    @on("timer_digit")
    def timer_digit(self, ctx: AppContext, event: Event) -> None:
        """A keypad digit: shifts in from the right (six at most, no leading zeros)."""
        timer = self._timer(ctx)
        digits = (str(timer.get("input", "")) + event.arg("d")).lstrip("0")
        if len(digits) <= MAX_INPUT:
            timer["input"] = digits

    @on("timer_backspace")
    def timer_backspace(self, ctx: AppContext, event: Event) -> None:
        """Delete the last digit typed."""
        timer = self._timer(ctx)
        timer["input"] = str(timer.get("input", ""))[:-1]

    @on("timer_start")
    def timer_start(self, ctx: AppContext, event: Event) -> None:
        """Start the duration typed, or resume a paused timer."""
        timer = self._timer(ctx)
        if "duration_ms" not in timer:
            duration = input_ms(str(timer.get("input", "")))
            if duration <= 0:
                return
            timer.update(duration_ms=duration, left_ms=duration)
        if timer_left(timer, ctx.os.clock_ms) > 0:
            timer["since"] = ctx.os.clock_ms

    @on("timer_pause")
    def timer_pause(self, ctx: AppContext, event: Event) -> None:
        """Pause: keep what is left."""
        timer = self._timer(ctx)
        if timer.get("since") is not None:
            timer.update(left_ms=timer_left(timer, ctx.os.clock_ms), since=None)

    @on("timer_reset")
    def timer_reset(self, ctx: AppContext, event: Event) -> None:
        """Back to the full duration, paused."""
        timer = self._timer(ctx)
        if "duration_ms" in timer:
            timer.update(left_ms=timer["duration_ms"], since=None)

    @on("timer_delete")
    def timer_delete(self, ctx: AppContext, event: Event) -> None:
        """Drop the timer: the keypad again."""
        ctx.data["timer"] = {}

    # ---- stopwatch
    def _watch(self, ctx: AppContext) -> dict[str, Any]:
        return ctx.data.setdefault("stopwatch", {})

    @on("stopwatch_start")
    def stopwatch_start(self, ctx: AppContext, event: Event) -> None:
        """Start or resume."""
        watch = self._watch(ctx)
        if watch.get("since") is None:
            watch["since"] = ctx.os.clock_ms

    @on("stopwatch_pause")
    def stopwatch_pause(self, ctx: AppContext, event: Event) -> None:
        """Pause, keeping the time run."""
        watch = self._watch(ctx)
        if watch.get("since") is not None:
            watch.update(total_ms=stopwatch_elapsed(watch, ctx.os.clock_ms), since=None)

    @on("stopwatch_lap")
    def stopwatch_lap(self, ctx: AppContext, event: Event) -> None:
        """Record a lap (the time run so far) while running."""
        watch = self._watch(ctx)
        if watch.get("since") is not None:
            watch.setdefault("laps", []).append(stopwatch_elapsed(watch, ctx.os.clock_ms))

    @on("stopwatch_reset")
    def stopwatch_reset(self, ctx: AppContext, event: Event) -> None:
        """Back to zero, laps cleared."""
        ctx.data["stopwatch"] = {}
