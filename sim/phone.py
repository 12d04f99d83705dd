"""The simulated Android: launching apps, the back stack, keys, text input, the shade.

:class:`Phone` owns the set of apps and applies every change that is not an app's own
business: ``os:*`` actions from the page (navigation bar, launcher, recents, shade,
keyboard, a system dialog's buttons), hardware keys, typed text, focus and scroll reports.
It holds no instance state itself — every method takes the
:class:`~sim.state.InstanceState` to change — so one Phone serves any number of instances.

A swipe down from the top edge opens the shade. On a skin with a Control Center
(:func:`sim.skins.has_control_center`: HyperOS) where it starts decides the panel, as on a
Redmi: the status bar's right half opens the quick settings alone (the Control Center), its
left half the notifications; on AOSP a pull anywhere opens the one shade that shows both.

The launcher (home screen) is the OS's too: its pages turn with a horizontal swipe, a swipe
up opens the all-apps drawer, BACK (or a swipe down at the drawer's top) closes it, HOME
shows page 1 with the drawer closed, and launching an app closes the drawer. Its layout is
:mod:`sim.launcher`'s.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from bridge.actions import require_tags
from sim.app import App, AppContext, Event, EventKind
from sim.errors import SimError, UnknownApp
from sim.launcher import DEFAULT_GRID, Grid, LauncherEntry, drawer_apps, launcher_entries
from sim.launcher import page_count as launcher_page_count
from sim.radios import set_airplane, toggle_tile
from sim.render import TemplateRenderer
from sim.skins import has_control_center
from sim.state import (
    LAUNCHER_DRAWER_SCROLL,
    LAUNCHER_SEARCH_FIELD,
    AppTask,
    InstanceState,
    Route,
)

__all__ = [
    "ActionEvent",
    "EdgeEvent",
    "FocusEvent",
    "PageEvent",
    "Phone",
    "ScrolledEvent",
]

_LETTERS = "qwertyuiopasdfghjklzxcvbnm"


class _PageEvent(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, json_schema_extra=require_tags("type"))


class ActionEvent(_PageEvent):
    """A tap (or long press, double tap) the page resolved to a ``data-action``, or a swipe
    to a ``data-swipe-<direction>``."""

    type: Literal["action"] = "action"
    kind: EventKind = "tap"
    action: str = Field(min_length=1)
    args: dict[str, str] = Field(default_factory=dict)


class FocusEvent(_PageEvent):
    """A tap on a text field: it takes focus and the keyboard shows."""

    type: Literal["focus"] = "focus"
    field: str = Field(min_length=1)
    submit: str | None = None
    args: dict[str, str] = Field(default_factory=dict)


class ScrolledEvent(_PageEvent):
    """A scroll container moved; its offset becomes part of the state."""

    type: Literal["scrolled"] = "scrolled"
    key: str = Field(min_length=1)
    top: int = Field(ge=0)


class EdgeEvent(_PageEvent):
    """A system gesture: swipe down from the top (shade), up from the bottom (home)."""

    type: Literal["edge"] = "edge"
    edge: Literal["top", "bottom", "shade_up"]
    x: float | None = Field(default=None, ge=0.0, le=1.0, allow_inf_nan=False)
    """Where across the screen the finger started, as a fraction of its width (0 the left
    edge); None when not known. A pull on the right half (past 0.5) opens HyperOS's Control
    Center."""


PageEvent = Annotated[
    ActionEvent | FocusEvent | ScrolledEvent | EdgeEvent, Field(discriminator="type")
]


class Phone:
    """The OS around the apps; stateless, shared by every instance.

    ``launcher_grid`` is the home screen's grid (:func:`sim.launcher.grid_for_screen` of
    the screen the pages render; the default screen's unless told).
    """

    def __init__(self, apps: Iterable[App], launcher_grid: Grid = DEFAULT_GRID) -> None:
        self.launcher_grid = launcher_grid
        self.apps: dict[str, App] = {}
        for app in apps:
            if app.id in self.apps:
                raise SimError(f"two apps share the id {app.id!r}")
            self.apps[app.id] = app
        self.renderer = TemplateRenderer(self.apps.values())

    # ---- lookups
    def app(self, app_id: str) -> App:
        """The installed app ``app_id``; :class:`UnknownApp` lists the installed ones."""
        if app_id not in self.apps:
            raise UnknownApp(f"no app {app_id!r}; installed: {', '.join(sorted(self.apps))}")
        return self.apps[app_id]

    def package_app(self, package: str, skin: str) -> App | None:
        """The installed app whose Android package on a phone in ``skin`` is ``package``,
        None if none is."""
        return next((app for app in self.apps.values() if app.package_on(skin) == package), None)

    def context(self, state: InstanceState, app_id: str) -> AppContext:
        """An :class:`AppContext` for ``app_id`` in ``state``."""
        return AppContext(self.app(app_id), state, self.renderer.render)

    def launcher_entries(self, lang: str) -> list[LauncherEntry]:
        """The apps the launcher shows, in installation order, labelled in ``lang``."""
        return launcher_entries(self.apps.values(), lang)

    # ---- app lifecycle
    def launch(self, state: InstanceState, app_id: str) -> None:
        """Bring ``app_id`` to the front, starting it on its first screen if not running."""
        app = self.app(app_id)
        self._close_panels(state)
        self._close_drawer(state)
        task = state.os.task(app_id)
        if task is None:
            task = AppTask(app=app_id, stack=[Route()])
        else:
            state.os.tasks.remove(task)
        state.os.tasks.append(task)
        state.os.foreground = app_id
        app.on_open(self.context(state, app_id))

    def stop(self, state: InstanceState, app_id: str) -> None:
        """Kill ``app_id`` as Android's force-stop does: its back stack and what its screens
        held (typed text, scroll positions, focus) are gone; its data stays. Home if it
        was in front."""
        state.os.tasks = [task for task in state.os.tasks if task.app != app_id]
        prefix = f"{app_id}."
        ui = state.ui
        ui.fields = {k: v for k, v in ui.fields.items() if not k.startswith(prefix)}
        ui.scroll = {k: v for k, v in ui.scroll.items() if not k.startswith(prefix)}
        if ui.focus is not None and ui.focus.startswith(prefix):
            ui.focus, ui.focus_submit, ui.focus_args = None, None, {}
            ui.keyboard_visible = False
        if state.os.foreground == app_id:
            self.home(state)

    def home(self, state: InstanceState) -> None:
        """Go to the home screen, page 1, drawer closed; running apps keep their back
        stacks."""
        self._close_panels(state)
        self._close_drawer(state)
        state.os.foreground = None
        state.os.launcher.page = 0

    def back(self, state: InstanceState) -> None:
        """Android's back: dismiss a system dialog, close a panel, hide the keyboard, or go
        back in the app."""
        ui = state.ui
        if state.os.dialog is not None:
            state.os.dialog = None
        elif ui.shade_open or ui.recents_open:
            self.close_shade(state)
            ui.recents_open = False
        elif ui.keyboard_visible:
            ui.keyboard_visible = False
        elif state.os.foreground is None and state.os.launcher.drawer_open:
            self._close_drawer(state)
        elif state.os.foreground is not None:
            ctx = self.context(state, state.os.foreground)
            if not ctx.app.on_back(ctx):
                ctx.back()

    def _close_panels(self, state: InstanceState) -> None:
        ui = state.ui
        self.close_shade(state)
        ui.recents_open = ui.keyboard_visible = False
        ui.focus = None

    # ---- the shade
    def open_shade(self, state: InstanceState, quick_settings: bool = False) -> None:
        """Open the shade over whatever is in front (the keyboard goes), showing the
        notifications or, with ``quick_settings``, the quick settings in full (HyperOS's
        Control Center)."""
        ui = state.ui
        ui.shade_open, ui.quick_settings, ui.keyboard_visible = True, quick_settings, False
        ui.recents_open = False

    def close_shade(self, state: InstanceState) -> None:
        """Close the shade (either panel of it)."""
        state.ui.shade_open = state.ui.quick_settings = False

    # ---- page events
    def apply(self, state: InstanceState, event: BaseModel) -> None:
        """Apply an event reported by the page runtime."""
        if isinstance(event, ActionEvent):
            self._action(state, event)
        elif isinstance(event, FocusEvent):
            state.ui.focus = event.field
            state.ui.focus_submit = event.submit
            state.ui.focus_args = dict(event.args)
            state.ui.keyboard_visible = True
        elif isinstance(event, ScrolledEvent):
            state.ui.scroll[event.key] = event.top
        elif isinstance(event, EdgeEvent):
            self._edge(state, event)
        else:
            raise SimError(f"unknown page event {event!r}")

    def _edge(self, state: InstanceState, event: EdgeEvent) -> None:
        if event.edge == "top":
            right = event.x is not None and event.x > 0.5
            self.open_shade(state, quick_settings=right and has_control_center(state.os.skin))
        elif event.edge == "shade_up":
            self.close_shade(state)
        else:
            self.home(state)

    def _action(self, state: InstanceState, event: ActionEvent) -> None:
        if event.action.startswith("os:"):
            self._os_action(state, event.action[3:], event.args)
            return
        if state.os.foreground is None or state.ui.shade_open or state.ui.recents_open:
            raise SimError(f"action {event.action!r} arrived with no app in front")
        ctx = self.context(state, state.os.foreground)
        ctx.app.handle(ctx, Event(event.kind, event.action, dict(event.args)))

    def _os_action(self, state: InstanceState, name: str, args: dict[str, str]) -> None:
        handlers: dict[str, Any] = {
            "back": lambda: self.back(state),
            "home": lambda: self.home(state),
            "recents": lambda: self._recents(state),
            "launch": lambda: self.launch(state, args["app"]),
            "switch": lambda: self.launch(state, args["app"]),
            "clear_recents": lambda: self._clear_recents(state),
            "tile": lambda: toggle_tile(state.os.settings, args["tile"]),
            "brightness": lambda: self._brightness(state, float(args["frac"])),
            "open_notification": lambda: self._open_notification(state, int(args["id"])),
            "clear_notifications": lambda: state.os.notifications.clear(),
            "key": lambda: self.keyboard_key(state, args["k"]),
            "dismiss_dialog": lambda: setattr(state.os, "dialog", None),
            "launcher_next_page": lambda: self._turn_page(state, 1),
            "launcher_prev_page": lambda: self._turn_page(state, -1),
            "all_apps": lambda: self._open_drawer(state),
            "close_all_apps": lambda: self._close_drawer(state),
            "all_apps_go": lambda: self._launch_first_match(state),
        }
        if name not in handlers:
            raise SimError(f"unknown OS action 'os:{name}'")
        handlers[name]()

    # ---- the launcher
    def _turn_page(self, state: InstanceState, step: int) -> None:
        launcher = state.os.launcher
        if state.os.foreground is not None or launcher.drawer_open:
            return
        apps = len(self.launcher_entries(state.os.lang))
        last = launcher_page_count(apps, self.launcher_grid) - 1
        launcher.page = min(max(launcher.page + step, 0), last)

    def _open_drawer(self, state: InstanceState) -> None:
        if state.os.foreground is None:
            state.os.launcher.drawer_open = True

    def _close_drawer(self, state: InstanceState) -> None:
        """Close the drawer: its search text, scroll and focus go; the page under it stays."""
        ui = state.ui
        state.os.launcher.drawer_open = False
        ui.fields.pop(LAUNCHER_SEARCH_FIELD, None)
        ui.scroll = {k: v for k, v in ui.scroll.items() if not k.startswith(LAUNCHER_DRAWER_SCROLL)}
        if ui.focus == LAUNCHER_SEARCH_FIELD:
            ui.focus, ui.focus_submit, ui.focus_args = None, None, {}
            ui.keyboard_visible = False

    def _launch_first_match(self, state: InstanceState) -> None:
        """Enter in the drawer's search: the first app found opens, as on Launcher3."""
        query = state.ui.fields.get(LAUNCHER_SEARCH_FIELD, "")
        found = drawer_apps(self.launcher_entries(state.os.lang), query)
        if state.os.launcher.drawer_open and query.strip() and found:
            self.launch(state, found[0].id)

    def _recents(self, state: InstanceState) -> None:
        opening = not state.ui.recents_open
        self._close_panels(state)
        state.ui.recents_open = opening

    def _clear_recents(self, state: InstanceState) -> None:
        for task in list(state.os.tasks):
            self.stop(state, task.app)
        state.os.foreground = None
        self._close_panels(state)

    def _brightness(self, state: InstanceState, frac: float) -> None:
        state.os.settings["system"]["screen_brightness"] = round(min(max(frac, 0.0), 1.0) * 255)

    def _open_notification(self, state: InstanceState, notification_id: int) -> None:
        notes = state.os.notifications
        note = next((n for n in notes if n.id == notification_id), None)
        if note is None:
            return
        notes.remove(note)
        self.launch(state, note.app)

    # ---- keys and text
    def key(self, state: InstanceState, key: str) -> str | None:
        """Press a hardware/system key; returns an agent-facing error or None."""
        if key == "back":
            self.back(state)
        elif key == "home":
            self.home(state)
        elif key == "recents":
            self._recents(state)
        elif key == "enter":
            return self._enter(state)
        elif key == "delete":
            return self._delete(state)
        elif key in ("volume_up", "volume_down"):
            system = state.os.settings["system"]
            step = 1 if key == "volume_up" else -1
            system["volume_ring"] = min(15, max(0, int(system["volume_ring"]) + step))
        elif key == "power":
            state.os.screen_on = not state.os.screen_on
        else:
            raise SimError(f"unknown key {key!r}")
        return None

    def type_text(self, state: InstanceState, text: str, clear: bool) -> str | None:
        """Type into the focused field (like ADBKeyboard); an error when nothing is focused
        or a system dialog has taken the focus (the text reaches no field, as on a phone)."""
        if state.os.dialog is not None:
            return "a system dialog is in front: typing reaches no field; dismiss it first"
        field = state.ui.focus
        if field is None:
            return "no text field is focused: tap a text field (or give `type` a target) first"
        before = "" if clear else state.ui.fields.get(field, "")
        state.ui.fields[field] = before + text
        return None

    def keyboard_key(self, state: InstanceState, code: str) -> None:
        """A key of the on-screen keyboard."""
        ui = state.ui
        if code == "shift":
            ui.keyboard_shift = not ui.keyboard_shift
        elif code in ("123", "abc"):
            ui.keyboard_mode = code
        elif code == "backspace":
            self._delete(state)
        elif code == "enter":
            self._enter(state)
        else:
            char = " " if code == "space" else code
            if ui.keyboard_shift and char in _LETTERS:
                char = char.upper()
                ui.keyboard_shift = False
            self.type_text(state, char, clear=False)

    def _delete(self, state: InstanceState) -> str | None:
        field = state.ui.focus
        if field is None:
            return "no text field is focused"
        state.ui.fields[field] = state.ui.fields.get(field, "")[:-1]
        return None

    def _enter(self, state: InstanceState) -> str | None:
        ui = state.ui
        if ui.focus is None:
            return None
        if ui.focus_submit and ui.focus_submit.startswith("os:"):
            self._os_action(state, ui.focus_submit[3:], dict(ui.focus_args))
        elif ui.focus_submit and state.os.foreground is not None:
            ctx = self.context(state, state.os.foreground)
            ctx.app.handle(ctx, Event("submit", ui.focus_submit, dict(ui.focus_args)))
        else:
            ui.keyboard_visible = False
        return None

    # ---- settings with side effects (shared with the Settings app)
    def set_airplane(self, state: InstanceState, on: bool) -> None:
        """Airplane mode with Android's radio side effects."""
        set_airplane(state.os.settings, on)
