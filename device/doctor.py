"""``mgb device doctor``: whether a phone is ready for a run, and per failure the one thing
to do.

A run on a phone needs more than ``adb devices`` showing it: injected taps and keys, writes
to the secure and global settings, content queries, the uiautomator2 server, a screen that
stays on, no lock-screen credential, a known clock and zone, and the right device profile.
Retail phones of some makers refuse part of it out of the box (a Xiaomi phone, until
"USB debugging (Security settings)" is on, refuses injected input and secure settings: its
profile's :class:`~device.profiles.InputPermission` says where the switch is and what it
needs). Each check runs one or two harmless commands (a key event of ``KEYCODE_UNKNOWN``,
a setting written back with the value it has) and never changes what a person would see.

``mgb device run``, ``mgb console`` and ``transfer-eval`` run the same checks before they
start and refuse with the first failure's line (:func:`refusal`).
"""

from __future__ import annotations

import shlex
import time
from collections.abc import Awaitable, Callable

from pydantic import BaseModel, ConfigDict

from device.adb import AdbTarget, mentions_inject_events
from device.env import read_props
from device.errors import DeviceError, PhoneNotReady
from device.profiles import DeviceProfile, DeviceProps, ProfileChoice, fits, select_profile
from device.session import AdbSession
from device.shell_output import parse_java_exception

__all__ = ["Check", "DoctorReport", "check_ready", "doctor", "examine", "refusal"]

CLOCK_SKEW_S = 300
"""How far a real phone's clock may be from this computer's before the doctor says so."""
_STAYON_KEY = "stay_on_while_plugged_in"
_NEVER_MS = 2_147_483_647
_PROBE = "global", _STAYON_KEY
"""A secure-table setting every phone has, written back with its own value to see whether
``settings put`` is allowed."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Check(_Model):
    """One check: what it looked at, what it found and, when it failed, what to do."""

    name: str
    ok: bool
    found: str
    fix: str = ""


class DoctorReport(_Model):
    """Every check of one phone, in the order a run needs them."""

    serial: str
    profile: str
    os: str
    """The phone's OS in words (``HyperOS OS1.0 (Android 14)``)."""
    checks: list[Check]

    @property
    def ok(self) -> bool:
        """Whether every check passed."""
        return all(check.ok for check in self.checks)

    def failures(self) -> list[Check]:
        """The checks that failed."""
        return [check for check in self.checks if not check.ok]


def refusal(report: DoctorReport) -> str | None:
    """One line for a run that will not start on this phone (None when it is ready): the
    first failure and what to do about it."""
    failed = report.failures()
    if not failed:
        return None
    first = failed[0]
    more = (
        f" ({len(failed) - 1} more: `mgb device doctor {report.serial}`)" if len(failed) > 1 else ""
    )
    return f"{report.serial} is not ready: {first.name}: {first.found}; {first.fix}{more}"


async def doctor(target: AdbTarget, profile: str | None = None) -> DoctorReport:
    """Whether the phone of ``target`` is ready for a run (see the module docstring)."""
    session = AdbSession(target)
    try:
        await session.open()
        return await examine(session, profile)
    finally:
        await session.close()


async def check_ready(target: AdbTarget, profile: str | None = None) -> DoctorReport:
    """The doctor's report of a phone ready for a run; :class:`~device.errors.PhoneNotReady`
    with its first failure (one line, what to do) when it is not."""
    report = await doctor(target, profile)
    line = refusal(report)
    if line is not None:
        raise PhoneNotReady(line)
    return report


def os_name(props: dict[str, str], android: str) -> str:
    """The phone's OS in words: HyperOS's or MIUI's version when the phone says one
    (HyperOS still sets ``ro.miui.ui.version.name``, so its own property goes first)."""
    hyperos, miui = props.get("ro.mi.os.version.name"), props.get("ro.miui.ui.version.name")
    name = f"HyperOS {hyperos}" if hyperos else f"MIUI {miui}" if miui else "Android"
    return f"{name} (Android {android})" if name != "Android" else f"Android {android}"


Shell = Callable[[str], Awaitable[str]]


async def examine(
    session: AdbSession, profile: str | None = None, *, host_time_s: float | None = None
) -> DoctorReport:
    """Check the phone of an open ``session`` (see the module docstring); ``profile`` forces
    a device profile, ``host_time_s`` is this computer's clock (tests give one)."""
    shell, target = session.shell, session.target
    props = await read_props(session, session.serial)
    port = f"-P {target.port} " if target.port != 5037 else ""
    adb = f"adb {port}-s {session.serial}"
    choice = select_profile(props, profile)
    played = choice.profile
    os_props = {key: (await shell(f"getprop {key}")).strip() for key in _OS_PROPS}
    checks = [
        _profile_check(choice, props),
        await _input_check(shell, played, props, adb),
        await _settings_check(shell, played, props, adb),
        await _content_check(shell),
        await _uiautomator_check(session),
        await _awake_check(shell, props, adb),
        await _lock_check(shell),
        await _clock_check(shell, props, time.time() if host_time_s is None else host_time_s),
    ]
    return DoctorReport(
        serial=session.serial,
        profile=played.name,
        os=os_name(os_props, props.android_version),
        checks=checks,
    )


_OS_PROPS = ("ro.mi.os.version.name", "ro.miui.ui.version.name")


def _profile_check(choice: ProfileChoice, props: DeviceProps) -> Check:
    phone = f"{props.brand} {props.model} ({props.device})".strip()
    if not props.virtual and not fits(choice.profile, props):
        return Check(
            name="device profile",
            ok=False,
            found=f"{choice.profile.name} is not a profile of {phone}",
            fix="drop --profile to let the phone's getprop pick one, or name its own",
        )
    if choice.fallback:
        return Check(
            name="device profile",
            ok=False,
            found=f"no profile matches {phone}",
            fix="pass --profile with the closest one (`mgb device info SERIAL` lists what the "
            "phone says; device/profiles/ holds the profiles)",
        )
    return Check(name="device profile", ok=True, found=f"{choice.profile.name}: {choice.reason}")


def _switch_fix(profile: DeviceProfile, props: DeviceProps, adb: str, fallback: str) -> str:
    """What to do when the phone refuses injected input or secure settings."""
    switch = profile.input_permission
    if switch is None:
        return fallback
    where = switch.switch.get(props.ui_lang or "en") or switch.switch["en"]
    if props.virtual:
        return (
            f"turn on {where} (on a real phone this needs {switch.needs}); on this virtual "
            f"phone: {adb} shell su 0 setprop {switch.prop} 1"
        )
    return f"turn on {where} ({switch.needs})"


async def _input_check(shell: Shell, profile: DeviceProfile, props: DeviceProps, adb: str) -> Check:
    output = await shell("input keyevent 0")  # KEYCODE_UNKNOWN: injected, and ignored
    if mentions_inject_events(output):
        fix = _switch_fix(profile, props, adb, "allow the shell to inject input on this phone")
        return Check(name="injected input", ok=False, found="refused (INJECT_EVENTS)", fix=fix)
    return Check(name="injected input", ok=True, found="a key event was accepted")


async def _settings_check(
    shell: Shell, profile: DeviceProfile, props: DeviceProps, adb: str
) -> Check:
    namespace, key = _PROBE
    value = (await shell(f"settings get {namespace} {key}")).strip()
    value = "0" if value in ("", "null") else value
    output = await shell(f"settings put {namespace} {key} {shlex.quote(value)}")
    refused = parse_java_exception(output)
    if refused is not None:
        fix = _switch_fix(profile, props, adb, "grant the shell WRITE_SECURE_SETTINGS")
        return Check(name="settings put", ok=False, found=f"refused: {refused[:120]}", fix=fix)
    return Check(name="settings put", ok=True, found=f"{namespace} settings can be written")


async def _content_check(shell: Shell) -> Check:
    output = await shell(
        "content query --uri content://com.android.contacts/raw_contacts --projection _id "
        "--where '_id=-1'"
    )
    refused = parse_java_exception(output)
    if refused is not None or "Error" in output:
        return Check(
            name="content queries",
            ok=False,
            found=(refused or output.strip())[:160],
            fix="the contacts provider must answer `content query` from the shell; a "
            "work profile or a locked phone can refuse it: unlock the phone and try again",
        )
    return Check(name="content queries", ok=True, found="the contacts provider answers")


async def _uiautomator_check(session: AdbSession) -> Check:
    try:
        info = await session.rpc("deviceInfo")
    except DeviceError as exc:
        return Check(
            name="uiautomator2 server",
            ok=False,
            found=str(exc)[:200],
            fix="run `python -m uiautomator2 init` once with the phone attached, keep it "
            "unlocked, then run the doctor again",
        )
    size = (
        f"{info.get('displayWidth')}x{info.get('displayHeight')}" if isinstance(info, dict) else "?"
    )
    return Check(name="uiautomator2 server", ok=True, found=f"answers ({size} px)")


_AWAKE = "screen stays on"


async def _awake_check(shell: Shell, props: DeviceProps, adb: str) -> Check:
    if props.virtual:
        return Check(name=_AWAKE, ok=True, found="the virtual phone's screen never sleeps")
    stay = (await shell(f"settings get global {_STAYON_KEY}")).strip()
    if stay.isdigit() and int(stay) > 0:
        return Check(name=_AWAKE, ok=True, found=f"while plugged in ({_STAYON_KEY}={stay})")
    timeout = (await shell("settings get system screen_off_timeout")).strip()
    if timeout.isdigit() and int(timeout) >= _NEVER_MS:
        return Check(name=_AWAKE, ok=True, found="its screen timeout is Never")
    return Check(
        name=_AWAKE,
        ok=False,
        found=f"the screen turns off after {int(timeout) // 1000 if timeout.isdigit() else '?'} s",
        fix=f"{adb} shell svc power stayon usb (or Developer options › Stay "
        "awake): a long run's screen would lock mid-episode",
    )


async def _lock_check(shell: Shell) -> Check:
    output = await shell("cmd lock_settings verify")
    if "verified successfully" in output:
        return Check(name="no lock-screen credential", ok=True, found="none is set")
    return Check(
        name="no lock-screen credential",
        ok=False,
        found=output.strip().splitlines()[0][:120] if output.strip() else "unknown",
        fix="remove the PIN, pattern or password (Settings › Lock screen): a run cannot unlock "
        "a phone, and one that locks mid-episode ends it",
    )


async def _clock_check(shell: Shell, props: DeviceProps, host_time_s: float) -> Check:
    zone = (await shell("getprop persist.sys.timezone")).strip() or "unset"
    phone_s = (await shell("date +%s")).strip()
    if not phone_s.isdigit():
        return Check(name="clock and zone", ok=False, found=f"`date` printed {phone_s[:40]!r}",
                     fix="the phone's shell has no working `date`")  # fmt: skip
    if props.virtual:
        found = f"simulated clock at {phone_s} s, zone {zone}"
        return Check(name="clock and zone", ok=True, found=found)
    skew = int(phone_s) - round(host_time_s)
    found = f"zone {zone}, {skew:+d} s from this computer"
    if abs(skew) > CLOCK_SKEW_S:
        return Check(
            name="clock and zone",
            ok=False,
            found=found,
            fix="turn on Settings › Date & time › Set time automatically (tasks say times on "
            "the phone's clock; a wrong one makes 'tomorrow' another day)",
        )
    return Check(name="clock and zone", ok=True, found=found)
