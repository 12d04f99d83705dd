"""How a simulated app is written: a Python model with event handlers and templates.

An app is a subclass of :class:`App` in its own package under ``sim/apps/<id>/``; its
identity (names, package, launcher activity) is the entry of its id in ``bridge/apps.json``,
declared once for every world. The package holds
``world.json`` (read-only world data shared by every instance), ``strings.json`` (UI text,
``{"en": {...}, "zh": {...}}``), ``icon.svg`` and ``templates/*.html`` (Jinja2, built from
the widget macros in ``sim/templates/widgets.html`` so every screen yields an Android-like UI
tree). Handlers are methods decorated with :func:`on`; they change the instance through an
:class:`AppContext` and never touch the browser. Rendering is a pure function of the state.

Example::

    class Flashlight(App):
        id = "flashlight"  # its names and package: an entry of bridge/apps.json

        def render(self, ctx: AppContext) -> str:
            return ctx.render("main.html", lit=ctx.data.get("lit", False))

        @on("toggle")
        def toggle(self, ctx: AppContext, event: Event) -> None:
            ctx.data["lit"] = not ctx.data.get("lit", False)
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any, ClassVar, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from bridge.app_catalog import AppIdentity, app_catalog
from sim.errors import SimError
from sim.skins import DEFAULT_SKIN, SKINS
from sim.state import InstanceState, Notification, OsState, Route, parse_overlay

if TYPE_CHECKING:
    from sim.providers.table import Provider
    from sim.render import Render

__all__ = [
    "App",
    "AppContext",
    "Event",
    "EventKind",
    "GalleryAction",
    "GalleryScreen",
    "Handler",
    "Screen",
    "check_overlays",
    "derived_from_world",
    "on",
]

EventKind = Literal["tap", "long_press", "double_tap", "swipe", "submit"]
Handler = Callable[["App", "AppContext", "Event"], None]

_Derived = TypeVar("_Derived")
_Owner = TypeVar("_Owner")
"""The class a handler is written in: an app, or a mixin of one (``PickerHost``)."""
_Method = Callable[[_Owner, "AppContext", "Event"], None]


@dataclass(frozen=True)
class Event:
    """A gesture the page runtime resolved to a named action of an app.

    ``action`` is the ``data-action`` (``data-long-action`` for long presses,
    ``data-submit`` for Enter in a field) of the element hit, ``args`` its ``data-arg-*``
    attributes; sliders add ``frac``, the touch's horizontal position in [0, 1].
    """

    kind: EventKind
    action: str
    args: Mapping[str, str] = field(default_factory=dict)

    def arg(self, name: str) -> str:
        """A required argument; a missing one is a bug in the template, not the agent."""
        if name not in self.args:
            raise SimError(f"event {self.action!r} has no argument {name!r}: fix the template")
        return self.args[name]


def on(action: str) -> Callable[[_Method[_Owner]], _Method[_Owner]]:
    """Mark an :class:`App` method as the handler of ``action``."""

    def mark(method: _Method[_Owner]) -> _Method[_Owner]:
        vars(method)["_mgb_action"] = action  # read back by App.__init_subclass__
        return method

    return mark


def derived_from_world(
    derive: Callable[[Mapping[str, Any]], _Derived],
) -> Callable[[Mapping[str, Any]], _Derived]:
    """``derive`` computed once per world: an app's world data is loaded once per process and
    never mutated (:attr:`App.world`), so what is derived from it (rows of its tables) is
    kept by the data's identity instead of being rebuilt on every provider query — the
    simulator's and the virtual phone's judges read those rows thousands of times a task.
    The result is shared: a caller that changes it must copy it first."""
    kept: dict[int, tuple[Mapping[str, Any], _Derived]] = {}

    def derived(world: Mapping[str, Any]) -> _Derived:
        found = kept.get(id(world))
        if found is None or found[0] is not world:  # the world itself is kept: ids stay unique
            found = kept[id(world)] = (world, derive(world))
        return found[1]

    derived.__doc__, derived.__name__ = derive.__doc__, derive.__name__
    return derived


@cache
def _package_json(package: str, name: str) -> Any:
    try:
        text = resources.files(package).joinpath(name).read_text("utf-8")
    except FileNotFoundError:
        return {}
    return json.loads(text)


@cache
def _strings(package: str, app_id: str, lang: str, skin: str) -> Mapping[str, str]:
    table = _package_json(package, "strings.json")
    strings = dict(table.get(lang) or table.get("en", {}))
    if skin != DEFAULT_SKIN:  # the skin's own words replace or add to AOSP's
        skinned = _package_json(package, f"skins/{skin}/strings.json")
        strings.update(skinned.get(lang) or skinned.get("en", {}))
    strings["app_name"] = app_catalog().get(app_id).name(lang)
    return strings


_SKIN_SCREENS: dict[tuple[str, str], Mapping[str, Screen]] = {}


def _skin_screens(app: type[App], skin: str) -> Mapping[str, Screen]:
    key = (f"{app.__module__}.{app.__qualname__}", skin)
    found = _SKIN_SCREENS.get(key)
    if found is None:
        found = _SKIN_SCREENS[key] = {**app.SCREENS, **app.SKIN_SCREENS.get(skin, {})}
    return found


class GalleryAction(BaseModel):
    """One action of the app dispatched to its handler, as a tap on the element that
    carries it would (``data-action`` and its ``data-arg-*``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    action: str = Field(min_length=1)
    args: dict[str, str] = Field(default_factory=dict)


class GalleryScreen(BaseModel):
    """A recipe for one screen of an app to show in the gallery (:mod:`sim.gallery`).

    The app is launched, ``path`` with ``params`` is pushed (unless it is ``/``, the
    first screen), ``overlay`` and then ``localized[lang]`` are merged into the app's runtime
    overlay, ``fields`` into the drafts, then ``actions`` run through the app's own handlers,
    so a dialog or an editor opens exactly as a tap opens it.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(pattern=r"^[a-z0-9][a-z0-9_-]*$")
    """A short id, unique within the app (file names of the screenshots)."""
    title: str = Field(min_length=1)
    """What a person calls the screen, in English (the gallery's caption)."""
    path: str = "/"
    params: dict[str, JsonValue] = Field(default_factory=dict)
    overlay: dict[str, JsonValue] = Field(default_factory=dict)
    localized: dict[str, dict[str, JsonValue]] = Field(default_factory=dict)
    """Overlay values per language: data a task would pose in its own (a question)."""
    fields: dict[str, str] = Field(default_factory=dict)
    actions: tuple[GalleryAction, ...] = ()


@dataclass(frozen=True)
class Screen:
    """One route of an app, as data: the template that draws it, the function that gives
    the template its values (read from the instance), the Android activity that shows it
    (None: the app's launcher activity, which only ``bridge/apps.json`` names), whether
    another app may start that activity by name (``am start -n PACKAGE/ACTIVITY``), and the
    package whose activity it is when that is not the app's own (a Redmi's Settings hands the
    SIM page to ``com.android.phone``: the window, the tree and ``dumpsys`` name that)."""

    template: str
    values: Callable[[AppContext], Mapping[str, Any]]
    activity: str | None = None
    exported: bool = False
    package: str | None = None


class App:
    """Base class of every simulated app; see the module docstring."""

    id: ClassVar[str]
    handlers: ClassVar[dict[str, Handler]] = {}
    SCREENS: ClassVar[Mapping[str, Screen]] = {}
    """Route path → :class:`Screen`: what :meth:`render` draws, what ``dumpsys`` reports
    (:meth:`activity_for`), what ``am start -n`` may open (:meth:`exported_routes`)."""
    SKIN_SCREENS: ClassVar[Mapping[str, Mapping[str, Screen]]] = {}
    """Skin name → the routes that skin adds or draws with another :class:`Screen`
    (:mod:`sim.skins`); every other route is :attr:`SCREENS`'."""
    INTENT_ACTIONS: ClassVar[dict[str, str]] = {}
    """The implicit intents the app answers (its intent filters, ``am start -a ACTION``):
    action → the route path it opens."""
    overlay_model: ClassVar[type[BaseModel] | None] = None
    """The typed shape of the app's overlay (``sim/apps/<app>/state.py``, a
    :class:`sim.state.OverlayModel`): every key its code writes, extra keys refused. The
    simulator checks overlays against it where state enters or leaves an instance
    (:func:`check_overlays`); None leaves the overlay unchecked."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.handlers = {
            name: member
            for klass in reversed(cls.__mro__)
            for member in vars(klass).values()
            if (name := getattr(member, "_mgb_action", None))
        }

    # ---- resources (world data and strings are loaded once per process)
    @property
    def world(self) -> Mapping[str, Any]:
        """Read-only world data from ``world.json`` (shared by all instances: never mutate)."""
        return _package_json(type(self).__module__.rsplit(".", 1)[0], "world.json")

    @property
    def identity(self) -> AppIdentity:
        """The app's entry in ``bridge/apps.json`` (names, packages, activity)."""
        return app_catalog().get(self.id)

    def package_on(self, skin: str) -> str:
        """The Android package on a phone in ``skin`` (the package of the skin's profile in
        ``bridge/apps.json``: ``com.android.mms`` for Messages under ``hyperos``)."""
        package = self.identity.package(SKINS[skin].profile)
        if package is None:
            raise SimError(f"bridge/apps.json gives {self.id!r} no AOSP package")
        return package

    def launcher_activity(self, skin: str) -> str:
        """The launcher activity (short form) on a phone in ``skin``."""
        return self.identity.launcher_activity(SKINS[skin].profile) or ".MainActivity"

    def strings(self, lang: str, skin: str = DEFAULT_SKIN) -> Mapping[str, str]:
        """UI strings in ``lang`` (``en`` or ``zh``) as ``skin`` words them, ``app_name``
        from the app's identity."""
        return _strings(type(self).__module__.rsplit(".", 1)[0], self.id, lang, skin)

    def screens(self, skin: str = DEFAULT_SKIN) -> Mapping[str, Screen]:
        """Route path → :class:`Screen` as ``skin`` arranges the app (:attr:`SKIN_SCREENS`
        over :attr:`SCREENS`)."""
        return _skin_screens(type(self), skin)

    def label(self, lang: str) -> str:
        """The app's name on the launcher."""
        return self.identity.name(lang)

    def icon_svg(self) -> str:
        """The launcher icon (``icon.svg`` of the app package)."""
        package = type(self).__module__.rsplit(".", 1)[0]
        return resources.files(package).joinpath("icon.svg").read_text("utf-8")

    # ---- what apps override
    def initial_overlay(self) -> dict[str, Any]:
        """The runtime overlay of a fresh instance (usually empty: world data is the base)."""
        return {}

    def check_overlay(self, overlay: Mapping[str, Any]) -> None:
        """Refuse an overlay that does not fit :attr:`overlay_model` (``OverlayInvalid``,
        naming the app, the field and its value); nothing to check without a model."""
        if self.overlay_model is not None:
            parse_overlay(self.overlay_model, self.id, overlay)

    def view(self, overlay: Mapping[str, Any]) -> dict[str, Any]:
        """The app's effective data (world data with the overlay applied), for checks.

        Must be plain JSON and must not include UI state (routes, drafts, scroll).
        """
        return copy.deepcopy(dict(overlay))

    def render(self, ctx: AppContext) -> str:
        """HTML of the app's content area for ``ctx.route``: its :attr:`SCREENS` entry's
        template with that screen's values; a route no screen draws is a bug."""
        screens = self.screens(ctx.skin)
        screen = screens.get(ctx.route.path)
        if screen is None:
            raise SimError(
                f"{self.id} has no screen {ctx.route.path!r}; screens: {sorted(screens)}"
            )
        return ctx.render(screen.template, **screen.values(ctx))

    def on_back(self, ctx: AppContext) -> bool:
        """Handle the back key before the OS pops the route (e.g. close a dialog)."""
        return False

    def on_open(self, ctx: AppContext) -> None:
        """Called when the app comes to the foreground."""

    def package_for(self, route: Route | None, skin: str) -> str:
        """The package whose window shows ``route`` on a phone in ``skin``: the app's own, or
        the package its screen hands off to (:attr:`Screen.package`)."""
        screen = self.screens(skin).get(route.path) if route is not None else None
        return screen.package if screen is not None and screen.package else self.package_on(skin)

    def activity_for(self, route: Route, skin: str = DEFAULT_SKIN) -> str:
        """The Android activity reported for ``route`` (``dumpsys``-style, short form): its
        screen's (:meth:`screens`), else the launcher activity of ``bridge/apps.json``."""
        screen = self.screens(skin).get(route.path)
        if screen is not None and screen.activity:
            return screen.activity
        return self.launcher_activity(skin)

    def exported_routes(self, skin: str = DEFAULT_SKIN) -> dict[str, str]:
        """Activities besides the launcher's that another app may start by name, short
        form → the route it opens (the exported :meth:`screens` of ``skin``)."""
        screens = self.screens(skin).items()
        return {
            s.activity: path
            for path, s in screens
            if s.exported and s.activity and s.package is None  # another package's: not ours
        }

    def gallery_screens(self) -> tuple[GalleryScreen, ...]:
        """The screens a person wants to see of this app (:mod:`sim.gallery` renders them in
        every language and skin); by default its first screen."""
        return (GalleryScreen(name="main", title=self.identity.name("en")),)

    def skin_gallery_screens(self, skin: str) -> tuple[GalleryScreen, ...]:
        """The screens only ``skin`` has (its :attr:`SKIN_SCREENS`), shown after
        :meth:`gallery_screens` in that skin's section of the gallery; none by default."""
        return ()

    def providers(self) -> tuple[Provider, ...]:
        """The content providers this app has on Android (:mod:`sim.providers`), its data
        as ``content query`` shows it; none by default."""
        return ()

    def next_alarm_clock(self, overlay: Mapping[str, Any], now_ms: int, zone: str) -> int | None:
        """Epoch ms of the soonest alarm clock this app has set with AlarmManager after
        ``now_ms`` (its world data and ``overlay``, read in ``zone``); None by default. The
        phone's next alarm is the soonest over every app (:func:`sim.android_state.
        next_alarm_clock`), as AlarmManager's is."""
        return None

    def handle(self, ctx: AppContext, event: Event) -> None:
        """Dispatch ``event`` to its handler; an unknown action is a template bug."""
        handler = self.handlers.get(event.action)
        if handler is None:
            raise SimError(f"app {self.id!r} has no handler for action {event.action!r}")
        handler(self, ctx, event)


def check_overlays(apps: Mapping[str, App], state: InstanceState) -> None:
    """Check every overlay of ``state`` against its app's model (:meth:`App.check_overlay`):
    where state enters an instance (a task's start, a restore, a fork) or leaves it (a
    snapshot). An overlay of an app not in ``apps`` is left as it is (a phone without it
    never reads it). Microseconds per app: never run per step."""
    for app_id, overlay in state.apps.items():
        app = apps.get(app_id)
        if app is not None:
            app.check_overlay(overlay)


class AppContext:
    """What a handler or a render may read and change: one app inside one instance."""

    def __init__(self, app: App, state: InstanceState, render: Render) -> None:
        self.app = app
        self.state = state
        self._render = render

    # ---- data
    @property
    def data(self) -> dict[str, Any]:
        """This app's runtime overlay (mutable; part of snapshots)."""
        return self.state.apps.setdefault(self.app.id, self.app.initial_overlay())

    @property
    def world(self) -> Mapping[str, Any]:
        """This app's read-only world data."""
        return self.app.world

    @property
    def os(self) -> OsState:
        """The OS runtime (settings by Android namespace, tasks, clock)."""
        return self.state.os

    @property
    def settings(self) -> dict[str, dict[str, Any]]:
        """Android settings: ``ctx.settings["global"]["wifi_on"]``."""
        return self.state.os.settings

    @property
    def lang(self) -> str:
        """Current UI language, ``en`` or ``zh``."""
        return self.state.os.lang

    @property
    def skin(self) -> str:
        """How the phone looks (:mod:`sim.skins`): which templates and words draw the app."""
        return self.state.os.skin

    def t(self, key: str, **values: object) -> str:
        """The UI string ``key`` in the current language and skin, formatted with ``values``."""
        text = self.app.strings(self.lang, self.skin).get(key)
        if text is None:
            raise SimError(f"app {self.app.id!r} has no string {key!r} for {self.lang!r}")
        return text.format(**values) if values else text

    def render(self, template: str, **values: Any) -> str:
        """Render ``templates/<template>`` of this app with ``values`` (and ``ctx``, ``t``)."""
        values = {"ctx": self, "t": self.t, **values}
        return self._render(f"{self.app.id}/{template}", values, self.skin)

    # ---- navigation
    @property
    def route(self) -> Route:
        """The route on top of this app's back stack."""
        task = self.state.os.task(self.app.id)
        if task is None or not task.stack:
            raise SimError(f"app {self.app.id!r} is not running")
        return task.stack[-1]

    def navigate(self, path: str, **params: Any) -> None:
        """Push a new screen."""
        self._stack().append(Route(path=path, params=params))
        self.state.ui.focus = None
        self.state.ui.keyboard_visible = False

    def replace(self, path: str, **params: Any) -> None:
        """Replace the current screen."""
        self._stack()[-1] = Route(path=path, params=params)
        self.state.ui.focus = None
        self.state.ui.keyboard_visible = False

    def back(self) -> None:
        """Leave the current screen; leaving the last one returns to the home screen."""
        stack = self._stack()
        if len(stack) > 1:
            stack.pop()
        else:
            self.state.os.foreground = None
            self.state.os.tasks = [t for t in self.state.os.tasks if t.app != self.app.id]
        self.state.ui.focus = None
        self.state.ui.keyboard_visible = False

    def _stack(self) -> list[Route]:
        task = self.state.os.task(self.app.id)
        if task is None:
            raise SimError(f"app {self.app.id!r} is not running")
        return task.stack

    # ---- fields, focus, feedback
    def field(self, key: str, default: str = "") -> str:
        """The draft text of the field ``key`` (what the user typed so far)."""
        return self.state.ui.fields.get(key, default)

    def set_field(self, key: str, value: str) -> None:
        """Prefill or change the draft of field ``key``."""
        self.state.ui.fields[key] = value

    def clear_fields(self, prefix: str) -> None:
        """Forget every draft whose key starts with ``prefix`` (after save or cancel)."""
        fields = self.state.ui.fields
        for key in [k for k in fields if k.startswith(prefix)]:
            del fields[key]
        if self.state.ui.focus and self.state.ui.focus.startswith(prefix):
            self.state.ui.focus = None
            self.state.ui.keyboard_visible = False

    def focus(self, key: str | None, submit: str | None = None) -> None:
        """Focus the field ``key`` and show the keyboard (None: unfocus, hide it)."""
        ui = self.state.ui
        ui.focus, ui.focus_submit, ui.focus_args = key, submit, {}
        ui.keyboard_visible = key is not None

    def toast(self, message: str) -> None:
        """Show a short message at the bottom of the screen until the next action."""
        self.state.ui.toast = message

    def notify(self, title: str, text: str = "") -> None:
        """Post a notification from this app."""
        notifications = self.state.os.notifications
        next_id = max((n.id for n in notifications), default=0) + 1
        notifications.append(
            Notification(
                id=next_id, app=self.app.id, title=title, text=text, time_ms=self.state.os.clock_ms
            )
        )

    # ---- time and randomness (never the host's)
    def now(self) -> datetime:
        """The simulated local time (the phone's clock, never the host's)."""
        return self.state.os.local_time()

    def rng(self) -> Any:
        """A seeded ``random.Random`` owned by the instance."""
        return self.state.rng()
