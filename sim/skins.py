"""Skins: how a phone looks and where things are on it, never what its state is.

The same instance state renders as AOSP's screens or as a Redmi's HyperOS screens: Settings
arranged as HyperOS arranges it ("WLAN", airplane mode under *More connectivity options*,
*Lock screen › Sleep*), its labels in both languages, MIUI's look. A task's spec and its
judge read the state through the Android protocol, so they are the same in every skin; only
what a policy sees changes, which is what a skin is for (measuring and training across the
look of real phones).

The skin is the phone's (:attr:`sim.state.OsState.skin`): a snapshot, a fork and a restore
keep it, and an env is given one when it is made or reset. An app draws a skin from data
and templates in its own folder (``sim/apps/<app>/skins/<skin>/``: ``templates/`` that
replace or add to the app's own, ``strings.json`` that replaces or adds strings, and the
app's :attr:`~sim.app.App.SKIN_SCREENS` for routes the skin arranges differently); what a
skin does not replace is drawn as in AOSP. Shared screens (launcher, shade, keyboard) look
up ``sim/templates/skins/<skin>/`` first the same way, and the phone stylesheet styles
``.skin-<name>``. A skin's phone also names its apps as its device does: the packages and
launcher activities of the skin's profile in ``bridge/apps.json``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Annotated

from pydantic import AfterValidator, Field

from bridge.app_catalog import Component, app_catalog
from sim.errors import UnknownSkin

__all__ = [
    "DEFAULT_SKIN",
    "SKINS",
    "Skin",
    "SkinName",
    "check_skin",
    "has_control_center",
    "home_of",
    "plan_skin",
    "planning_for",
    "system_ui_of",
]


@dataclass(frozen=True)
class Skin:
    """One skin: its name, the system whose screens it shows, and the device profile of
    ``bridge/apps.json`` whose packages and launcher activities its phone has (a Redmi's
    Messages is ``com.android.mms/.ui.MmsTabActivity``, its home ``com.miui.home``)."""

    name: str
    system: str
    profile: str
    control_center: bool = False
    """Whether its quick settings are a Control Center apart from the notification shade
    (HyperOS, by default since MIUI 12: a pull on the right half opens it) rather than the
    top of one shade."""


SKINS: dict[str, Skin] = {
    "aosp": Skin("aosp", "AOSP (Android 14)", "aosp"),
    "hyperos": Skin(
        "hyperos",
        "Xiaomi HyperOS (as on a Redmi Note 12 Turbo)",
        "redmi_note_12_turbo",
        control_center=True,
    ),
}
"""Every skin, by name."""

DEFAULT_SKIN = "aosp"


def check_skin(name: str) -> str:
    """``name`` if it is a skin; :class:`UnknownSkin` naming the skins there are if not."""
    if name not in SKINS:
        raise UnknownSkin(_unknown(name))
    return name


def has_control_center(skin: str) -> bool:
    """Whether a phone in ``skin`` has a Control Center apart from its notification shade."""
    return SKINS[skin].control_center


def home_of(skin: str) -> Component:
    """The home screen's package and activity on a phone in ``skin``."""
    return app_catalog().home(SKINS[skin].profile)


def system_ui_of(skin: str) -> str:
    """The System UI package (status bar, shade, recents) on a phone in ``skin``."""
    return app_catalog().system_ui_package(SKINS[skin].profile)


def _unknown(name: str) -> str:
    return f"no skin {name!r}: the skins are {', '.join(SKINS)}"


def _valid_skin(name: str) -> str:
    if name not in SKINS:
        raise ValueError(f"the skins are {', '.join(SKINS)}")  # pydantic names field and value
    return name


SkinName = Annotated[
    str, AfterValidator(_valid_skin), Field(json_schema_extra={"enum": list(SKINS)})
]
"""A skin's name in a model (a state, a request, a run's options): validated there, and
listed in the model's JSON Schema."""


_PLAN_SKIN: ContextVar[str] = ContextVar("plan_skin", default=DEFAULT_SKIN)


@contextmanager
def planning_for(skin: str) -> Iterator[None]:
    """Write plans for a phone in ``skin`` inside the block: an oracle (or a wrong plan) is a
    template author's walk through the screens, and the screens are the skin's
    (:meth:`sim.tasks.base.TaskTemplate.oracle_for` opens this block)."""
    token = _PLAN_SKIN.set(check_skin(skin))
    try:
        yield
    finally:
        _PLAN_SKIN.reset(token)


def plan_skin() -> str:
    """The skin the plan being written walks (:func:`planning_for`; AOSP outside one)."""
    return _PLAN_SKIN.get()
