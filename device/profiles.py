"""Device profiles: which package each app id is on a phone, and the phone's screen facts.

A profile is a JSON file in ``device/profiles/`` (loaded with :mod:`importlib.resources`),
e.g. ``redmi_note_12_turbo`` (MIUI packages) or ``pixel`` (Google's). The env picks one from
the phone's ``getprop`` values (:func:`select_profile`) unless one is named; a phone no
profile matches falls back to ``pixel`` with a warning. The screen facts are what the
profile's phone has; the driver always measures the attached phone's real size and rotation.
"""

from __future__ import annotations

import json
import logging
from functools import cache
from importlib import resources

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from bridge.app_catalog import app_catalog
from device.errors import ProfileError

__all__ = [
    "FALLBACK_PROFILE",
    "VIRTUAL_PROFILE",
    "DeviceProfile",
    "DeviceProps",
    "InputPermission",
    "ProfileChoice",
    "ProfileMatch",
    "fits",
    "load_profile",
    "locale_language",
    "profile_names",
    "select_profile",
    "virtual_playing",
]

FALLBACK_PROFILE = "pixel"
"""The profile an unknown phone gets (AOSP and Google packages)."""

VIRTUAL_PROFILE = "virtual"
"""The virtual phone's own profile (AOSP's screens and packages)."""

_log = logging.getLogger(__name__)


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ProfileMatch(_Model):
    """Which phones a profile is for; ``getprop`` values compared case-insensitively."""

    models: list[str] = Field(default_factory=list, description="ro.product.model")
    devices: list[str] = Field(default_factory=list, description="ro.product.device")
    brands: list[str] = Field(default_factory=list, description="ro.product.brand")
    manufacturers: list[str] = Field(default_factory=list, description="ro.product.manufacturer")
    virtual: bool = Field(default=False, description="matches `getprop ro.mgb.virtual` = 1")


class InputPermission(_Model):
    """A switch an OEM puts in front of what a harness needs: with it off, the phone refuses
    injected input and ``settings put`` to the secure and global tables (Xiaomi's "USB
    debugging (Security settings)")."""

    prop: str = Field(min_length=1, description="the system property that is 1 when it is on")
    switch: dict[str, str] = Field(description="where the switch is, by language (en, zh)")
    needs: str = Field(description="what turning it on takes, in words")


class DeviceProfile(_Model):
    """A phone model's app packages and screen facts, and what its OS does that a harness
    must know (the doctor checks these; the virtual phone plays them)."""

    name: str = Field(min_length=1)
    description: str = ""
    width_px: int = Field(gt=0)
    height_px: int = Field(gt=0)
    density_dpi: int = Field(gt=0)
    model: str | None = None
    brand: str | None = None
    device: str | None = None
    match: ProfileMatch = Field(default_factory=ProfileMatch)
    launcher: str = Field(min_length=1, description="the home screen's package")
    apps: dict[str, str] = Field(
        min_length=1, description="app id -> Android package (from bridge/apps.json)"
    )
    settle_interval_s: float | None = Field(
        default=None,
        gt=0,
        description="how far apart two agreeing frames must be for the screen to count as "
        "settled on this phone (None: the driver's default, for a phone whose screen lags "
        "its input); the virtual phone shows each input's result in the next frame",
    )
    skin: str = Field(
        default="aosp",
        description="the simulator skin (sim/skins.py) whose screens this phone's system apps "
        "look like: the virtual phone shows it when it plays this profile",
    )
    props: dict[str, str] = Field(
        default_factory=dict,
        description="system properties the OS sets that say which OS it is "
        "(ro.mi.os.version.name): the doctor reports them, the virtual phone prints them",
    )
    handoff_packages: list[str] = Field(
        default_factory=list,
        description="other packages a task on this phone passes through (Settings' SIM page "
        "in com.android.phone, the permission sheet, the Security app): the guard does not "
        "stop an episode for going there",
    )
    alarm_clock_apps: list[str] = Field(
        default_factory=list,
        description="packages of the OS that set alarm clocks of their own (so the phone's "
        "next alarm is not necessarily the user's)",
    )
    input_permission: InputPermission | None = Field(
        default=None, description="the switch injected input and secure settings need"
    )
    dump_exit_code: int = Field(
        default=0,
        description="what `uiautomator dump` exits with after writing its file (MIUI: 1, "
        "with the XML written)",
    )
    volatile_settings: list[str] = Field(
        default_factory=list,
        description="globs of settings (`namespace.key`) this OEM rewrites by itself, on top "
        "of bridge/volatile_settings.txt: never judged as a task's side effect",
    )

    def package(self, app_id: str) -> str | None:
        """The package of an app id (``contacts`` -> ``com.android.contacts``), or None."""
        return self.apps.get(app_id)

    def app_of(self, package: str | None) -> str | None:
        """The app id of a package; None for unknown packages and for the launcher."""
        if package is None or package == self.launcher:
            return None
        return next((app for app, pkg in self.apps.items() if pkg == package), None)


def locale_language(locale: str) -> str:
    """The language of a locale tag, lower case: ``zh`` for ``zh-Hans-CN`` or ``zh_CN``."""
    return locale.lower().replace("_", "-").split("-")[0]


class DeviceProps(_Model):
    """What a phone says about itself (``getprop``), as the profile choice needs it."""

    serial: str
    model: str = ""
    brand: str = ""
    manufacturer: str = ""
    device: str = ""
    android_version: str = ""
    sdk: str = ""
    locale: str = ""
    """The UI's locale (``persist.sys.locale``, else ``ro.product.locale``), e.g. ``zh-CN``."""
    virtual: bool = False
    plays: str = ""
    """The profile a virtual phone plays (``ro.mgb.profile``; empty on a real phone)."""

    @property
    def ui_lang(self) -> str | None:
        """``en`` or ``zh`` (the languages tasks exist in) for the UI locale, else None."""
        language = locale_language(self.locale)
        return language if language in ("en", "zh") else None


class ProfileChoice(_Model):
    """The profile picked for a phone and why (``fallback`` when nothing matched)."""

    profile: DeviceProfile
    reason: str
    fallback: bool = False


def profile_names() -> list[str]:
    """Names of the bundled profiles, sorted."""
    folder = resources.files("device") / "profiles"
    names = (entry.name for entry in folder.iterdir())
    return sorted(name.removesuffix(".json") for name in names if name.endswith(".json"))


@cache
def load_profile(name: str) -> DeviceProfile:
    """The bundled profile ``name``; ProfileError listing the known ones if there is none."""
    resource = resources.files("device") / "profiles" / f"{name}.json"
    if not resource.is_file():
        raise ProfileError(
            f"no device profile {name!r}; known profiles: {', '.join(profile_names())}"
        )
    try:
        data = json.loads(resource.read_text("utf-8"))
        packages = app_catalog().packages(name)  # app identity lives once, in bridge/apps.json
        data.setdefault("apps", packages)
        data.setdefault("launcher", packages.get("launcher", ""))
        return DeviceProfile.model_validate(data)
    except (json.JSONDecodeError, ValidationError) as exc:
        raise ProfileError(f"device profile {name!r} is malformed: {exc}") from exc


def virtual_playing(name: str) -> DeviceProfile:
    """Profile ``name`` as the virtual phone plays it: that phone's packages, screens and
    ways, with the virtual phone's settle interval (it shows each input's result in the
    next frame, as no real phone does)."""
    played = load_profile(name)
    settle = load_profile(VIRTUAL_PROFILE).settle_interval_s
    return played.model_copy(update={"settle_interval_s": settle})


def _score(match: ProfileMatch, props: DeviceProps) -> tuple[int, str]:
    """How well a profile fits: virtual 100, model or device 10, brand or maker 1."""
    if match.virtual != props.virtual:
        return 0, ""
    if match.virtual:
        return 100, "virtual phone (ro.mgb.virtual=1)"

    def has(values: list[str], value: str) -> bool:
        return bool(value) and value.lower() in (v.lower() for v in values)

    if has(match.models, props.model):
        return 10, f"model {props.model}"
    if has(match.devices, props.device):
        return 10, f"device {props.device}"
    if has(match.brands, props.brand):
        return 1, f"brand {props.brand}"
    if has(match.manufacturers, props.manufacturer):
        return 1, f"manufacturer {props.manufacturer}"
    return 0, ""


def fits(profile: DeviceProfile, props: DeviceProps) -> bool:
    """Whether ``profile`` is one of the phone's (its model, device, brand or maker matches;
    the fallback profile fits every phone)."""
    return profile.name == FALLBACK_PROFILE or _score(profile.match, props)[0] > 0


def select_profile(props: DeviceProps, name: str | None = None) -> ProfileChoice:
    """The profile for a phone: ``name`` if given, else the best match, else ``pixel``.

    A virtual phone only matches the ``virtual`` profile and a real one never does. Falling
    back logs a warning that names the phone, so a wrong package map is easy to spot.
    """
    if name is not None:
        return ProfileChoice(profile=load_profile(name), reason="named explicitly")
    if props.virtual and props.plays and props.plays != VIRTUAL_PROFILE:
        return ProfileChoice(
            profile=virtual_playing(props.plays),
            reason=f"the virtual phone plays {props.plays} (ro.mgb.profile)",
        )
    best: tuple[int, str, DeviceProfile] | None = None
    for candidate in profile_names():
        profile = load_profile(candidate)
        score, why = _score(profile.match, props)
        if score and (best is None or score > best[0]):
            best = (score, why, profile)
    if best is not None:
        return ProfileChoice(profile=best[2], reason=f"matched by {best[1]}")
    _log.warning(
        "no device profile matches %s (brand %r, model %r, device %r); using %r: app ids "
        "may map to the wrong packages, pass a profile explicitly",
        props.serial,
        props.brand,
        props.model,
        props.device,
        FALLBACK_PROFILE,
    )
    return ProfileChoice(
        profile=load_profile(FALLBACK_PROFILE),
        reason=f"no profile matches {props.brand} {props.model}; fell back to {FALLBACK_PROFILE}",
        fallback=True,
    )
