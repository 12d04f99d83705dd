"""The state of one simulated phone, as JSON: what a snapshot holds and a fork copies.

Three layers, as in MobileGym: *world data* (read-only JSON per app, loaded once and shared
by every instance, never stored here), the *runtime overlay* (``apps``: what this instance
changed, per app), and the *OS runtime* (``os``: settings, task stack, clock, notifications)
plus the *UI state* (``ui``: focused field, drafts, scroll offsets, open panels) that lets
any browser page render the instance exactly.

Settings use Android's namespaces and key names (``global.wifi_on``,
``system.screen_brightness``, ``secure.ui_night_mode``), so ``adb shell settings get`` on a
phone and a check in the simulator read the same key.

Time and randomness come only from ``os.clock_ms`` (advanced by actions) and from
:meth:`InstanceState.rng` (seeded by ``seed`` and a counter): the same seed and the same
actions give byte-identical snapshots.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from datetime import datetime, timedelta, timezone
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, JsonValue, ValidationError

from sim.errors import OverlayInvalid
from sim.phone_clock import (  # re-exported: the state is where most readers look
    DEFAULT_CLOCK_MS,
    SIM_UTC_OFFSET_HOURS,
    TIME_ZONE,
    TIME_ZONE_ABBREVIATION,
)
from sim.skins import DEFAULT_SKIN, SkinName
from sim.storage import Storage, default_storage

__all__ = [
    "DEFAULT_CLOCK_MS",
    "LAUNCHER_DRAWER_SCROLL",
    "LAUNCHER_SEARCH_FIELD",
    "SIM_UTC_OFFSET_HOURS",
    "TIME_ZONE",
    "TIME_ZONE_ABBREVIATION",
    "AppTask",
    "InstanceState",
    "LauncherState",
    "Notification",
    "OsState",
    "OverlayModel",
    "Route",
    "SystemDialog",
    "UIState",
    "default_settings",
    "int_list_param",
    "int_param",
    "parse_overlay",
]


class _State(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=False)


class Route(_State):
    """A screen inside an app: a path such as ``/contact`` and its parameters."""

    path: str = "/"
    params: dict[str, JsonValue] = Field(default_factory=dict)


def int_param(value: JsonValue) -> int:
    """A route parameter that holds a number (an id, ``3`` or ``"3"``), as an int."""
    if isinstance(value, (int, float, str)):
        return int(value)
    raise TypeError(f"the route parameter {value!r} is not a number")


def int_list_param(value: JsonValue) -> list[int]:
    """A route parameter that holds numbers (a selection, ``[3, 7]``), as ints; None and a
    missing list are empty."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise TypeError(f"the route parameter {value!r} is not a list")
    return [int_param(item) for item in value]


class AppTask(_State):
    """One app's back stack (Android's task); the last route is on top."""

    app: str
    stack: list[Route] = Field(default_factory=lambda: [Route()])


class Notification(_State):
    """A notification in the shade."""

    id: int
    app: str
    title: str
    text: str = ""
    time_ms: int


class SystemDialog(_State):
    """A system alert over whatever is in front ("Battery low", "App isn't responding").

    The simulator never raises one by itself (it has no randomness of its own); the virtual
    phone's reality-gap perturbations set it. Either button or BACK dismisses it; while it
    is shown, taps elsewhere reach nothing below it.
    """

    title: str
    message: str = ""
    positive: str
    """Text of ``android:id/button1``."""
    negative: str | None = None
    """Text of ``android:id/button2``, if the dialog has a second button."""
    package: str = "android"
    """The package whose window it is (the framework's alerts are ``android``; a Xiaomi's
    permission sheet is ``com.lbe.security.miui``)."""
    activity: str | None = None
    """The activity it is (full class name), for a dialog that is an activity and so takes
    the focus (``dumpsys window``'s ``mCurrentFocus``); None: a window over the app."""


def default_settings() -> dict[str, dict[str, Any]]:
    """Factory settings of a simulated phone, by Android settings namespace."""
    return {
        "global": {
            "airplane_mode_on": 0,
            "wifi_on": 1,
            "bluetooth_on": 0,
            "mobile_data": 1,
            "zen_mode": 0,
            "mode_ringer": 2,
            "auto_time": 1,
            "device_name": "Redmi Note 12 Turbo",
        },
        "system": {
            "screen_brightness": 128,
            "screen_brightness_mode": 0,
            "screen_off_timeout": 60_000,
            "volume_ring": 10,
            "font_scale": 1.0,
            "time_12_24": "24",
            "system_locales": "en-US",
        },
        "secure": {
            "ui_night_mode": 1,
            "location_mode": 3,
        },
    }


class LauncherState(_State):
    """The home screen: the workspace page shown and whether the all-apps drawer is open.

    The drawer's search text is the draft of its field (``ui.fields`` under
    :data:`LAUNCHER_SEARCH_FIELD`), so every way of typing reaches it as any other field.
    """

    page: int = Field(default=0, ge=0)
    """The workspace page (0-based); HOME shows page 0."""
    drawer_open: bool = False
    """The all-apps drawer is over the workspace (which keeps its page under it)."""


LAUNCHER_SEARCH_FIELD = "launcher.search"
"""The field key of the drawer's search box."""
LAUNCHER_DRAWER_SCROLL = "launcher.all_apps"
"""The scroll key of the drawer's app list (``launcher.all_apps?<query>`` for a search's
results: each list of results starts at its top)."""


class OsState(_State):
    """The simulated Android around the apps: settings, tasks, clock, notifications."""

    clock_ms: int = DEFAULT_CLOCK_MS
    settings: dict[str, dict[str, Any]] = Field(default_factory=default_settings)
    tasks: list[AppTask] = Field(default_factory=list)
    foreground: str | None = None
    notifications: list[Notification] = Field(default_factory=list)
    screen_on: bool = True
    dialog: SystemDialog | None = None
    """A system dialog over the screen, None almost always (see :class:`SystemDialog`)."""
    launcher: LauncherState = Field(default_factory=LauncherState)
    """The home screen's page and drawer (what the launcher app keeps on a phone)."""
    text_zoom: float = Field(default=1.0, gt=0)
    """Text enlargement on top of the font-size setting, as a ROM's larger default text or
    Android's Display size gives; the simulator never changes it (a virtual phone may)."""
    storage: Storage = Field(default_factory=default_storage)
    """The shared storage ``/sdcard`` (:mod:`sim.storage`): what ``ls``/``stat`` show."""
    skin: SkinName = DEFAULT_SKIN
    """How the phone looks (:mod:`sim.skins`): presentation, never read by a judge."""

    def task(self, app: str) -> AppTask | None:
        """The back stack of ``app`` if it is running."""
        return next((task for task in self.tasks if task.app == app), None)

    @property
    def route(self) -> Route | None:
        """The route on top of the foreground app, None on the home screen."""
        task = self.task(self.foreground) if self.foreground else None
        return task.stack[-1] if task and task.stack else None

    def local_time(self, time_ms: int | None = None) -> datetime:
        """Simulated local wall time (naive) of ``time_ms``, default the clock's now."""
        ms = self.clock_ms if time_ms is None else time_ms
        utc = datetime(1970, 1, 1, tzinfo=timezone.utc) + timedelta(milliseconds=ms)
        local = utc.astimezone(timezone(timedelta(hours=SIM_UTC_OFFSET_HOURS)))
        return local.replace(tzinfo=None)

    @property
    def lang(self) -> str:
        """UI language from ``system_locales``: ``zh`` or ``en``."""
        locale = str(self.settings["system"].get("system_locales", "en-US"))
        return "zh" if locale.lower().startswith("zh") else "en"


class UIState(_State):
    """What is on screen beyond app data: focus, drafts, scroll, panels, a transient toast."""

    focus: str | None = None
    focus_submit: str | None = None
    focus_args: dict[str, str] = Field(default_factory=dict)
    keyboard_visible: bool = False
    keyboard_mode: str = "abc"
    keyboard_shift: bool = False
    fields: dict[str, str] = Field(default_factory=dict)
    scroll: dict[str, int] = Field(default_factory=dict)
    shade_open: bool = False
    quick_settings: bool = False
    """The open shade shows the quick settings in full rather than the notifications, as
    ``cmd statusbar expand-settings`` opens it: AOSP's one shade draws both either way;
    HyperOS draws its Control Center (a pull on the status bar's right half) apart from its
    notification shade. False whenever the shade is closed."""
    recents_open: bool = False
    toast: str | None = None


class OverlayModel(BaseModel):
    """Base of an app's overlay model (``sim/apps/<app>/state.py``): the typed shape of
    ``InstanceState.apps[app]``. Keys no code writes are refused, so a typo'd write fails.

    The overlay itself stays plain JSON in the state (snapshots and forks copy it as such);
    a model is what it is checked against at the boundaries (:func:`sim.app.check_overlays`)
    and what typed readers parse it into (:func:`parse_overlay`). Defaults are those of the
    readers: a key an app has not written yet reads as its default.
    """

    model_config = ConfigDict(extra="forbid")


_Overlay = TypeVar("_Overlay", bound=BaseModel)


def parse_overlay(model: type[_Overlay], app: str, overlay: Mapping[str, Any]) -> _Overlay:
    """``overlay`` of ``app`` as its ``model``; a mismatch is :class:`OverlayInvalid`
    (naming the app, the first wrong field and its value): a bug in whatever wrote it."""
    try:
        return model.model_validate(overlay)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(part) for part in first["loc"]) or "(the overlay)"
        raise OverlayInvalid(app, field, first.get("input"), first["msg"]) from exc


class InstanceState(_State):
    """Everything that makes one simulated phone what it is (kilobytes of JSON)."""

    seed: int = 0
    rng_counter: int = 0
    step: int = 0
    os: OsState = Field(default_factory=OsState)
    ui: UIState = Field(default_factory=UIState)
    apps: dict[str, dict[str, Any]] = Field(default_factory=dict)

    def rng(self) -> random.Random:
        """A fresh generator, seeded by the instance seed and a counter that then advances.

        Counter-based so that the generator's state is one integer in the snapshot.
        """
        self.rng_counter += 1
        return random.Random(f"{self.seed}:{self.rng_counter}")
