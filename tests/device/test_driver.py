"""The phone driver, profiles and adb error mapping.

Unit tests run over a scripted link (``fake_link.py``); the tests marked ``device_virtual``
drive the virtual phone through the real adb server (the bundled binary on a private port),
adbutils and uiautomator2, and break it the ways phones break (a dead uiautomator2 server,
an adb disconnect).
"""

from __future__ import annotations

import asyncio
import logging
import socket
import time
from collections.abc import Callable
from typing import Any

import cv2
import numpy as np
import pytest
from adbutils import _adb as adbutils_adb
from adbutils.errors import AdbConnectionError, AdbError, AdbTimeout
from uiautomator2 import exceptions as u2e

from bridge.schema import UIStatus
from bridge.uitree import to_xml
from device.adb import AdbTarget, translate
from device.driver import AndroidDriver, SettleConfig, decode_frame, frame_change, is_ascii_safe
from device.errors import (
    AdbServerUnavailable,
    DeviceError,
    DeviceNotFound,
    DeviceTimeout,
    InjectEventsDenied,
    ProfileError,
    UiAutomatorError,
)
from device.profiles import DeviceProps, fits, load_profile, profile_names, select_profile
from device.session import AdbSession, ReconnectPolicy
from device.virtual.attach import AttachedVirtualPhone
from device.virtual.phone import VirtualPhone
from tests.device.fake_link import MIUI_REFUSAL, FakeLink, screen, settings_nodes

FAST = SettleConfig(interval_s=0.0, timeout_s=1.0)


def driver(link: FakeLink, **kwargs: object) -> AndroidDriver:
    return AndroidDriver(link, settle=FAST, dump_interval_s=0.0, **kwargs)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- text


@pytest.mark.parametrize(
    ("text", "safe"),
    [
        ("hello", True),
        ("alice@example.com", True),
        ("+8613800138000", True),
        ("hello world", False),
        ("50%", False),
        ("it's", False),
        ("a;reboot", False),
        ("-rf", False),
        ("张伟", False),
        ("café", False),
        ("😀", False),
        ("", False),
    ],
)
def test_only_plain_ascii_goes_through_input_text(text: str, safe: bool) -> None:
    assert is_ascii_safe(text) is safe


@pytest.mark.asyncio
async def test_ascii_text_uses_input_text() -> None:
    link = FakeLink()
    assert await driver(link).type_text("alice42") == "input text alice42"
    assert link.typed() == ["input text alice42"]


@pytest.mark.parametrize("text", ["张伟 先生", "Hello world", "emoji 😀 & 'quotes' %s"])
@pytest.mark.asyncio
async def test_unicode_text_goes_through_the_clipboard_and_never_installs_anything(
    text: str,
) -> None:
    link = FakeLink()
    await driver(link).type_text(text)
    assert link.typed() == ["setClipboard", "pasteClipboard"]
    assert ("setClipboard", (None, text)) in link.rpcs
    assert not [c for c in link.commands if c.startswith(("ime", "pm install", "am broadcast"))]


@pytest.mark.asyncio
async def test_a_clipboard_that_does_not_keep_the_text_is_an_error_not_a_wrong_paste() -> None:
    link = FakeLink(clipboard_keeps=False)
    with pytest.raises(UiAutomatorError, match="clipboard"):
        await driver(link).type_text("张伟")
    assert "pasteClipboard" not in [m for m, _ in link.rpcs]


# --------------------------------------------------------------------------- input


@pytest.mark.asyncio
async def test_gestures_are_input_commands_in_device_pixels() -> None:
    link = FakeLink()
    d = driver(link)
    await d.tap(540, 1200)
    await d.long_press(10, 20, 800)
    await d.swipe(540, 1800, 540, 600, 300)
    await d.key("back")
    await d.key("recents")
    assert link.commands == [
        "input tap 540 1200",
        "input swipe 10 20 10 20 800",
        "input swipe 540 1800 540 600 300",
        "input keyevent 4",
        "input keyevent 187",
    ]


@pytest.mark.asyncio
async def test_double_tap_is_injected_by_uiautomator2() -> None:
    link = FakeLink()
    await driver(link).double_tap(100, 200)
    assert [m for m, _ in link.rpcs] == ["injectInputEvent", "injectInputEvent", "click"]
    assert link.rpcs[0][1] == (0, 100, 200, 0) and link.rpcs[1][1] == (1, 100, 200, 0)


@pytest.mark.asyncio
async def test_miui_refusing_injected_input_names_the_setting_to_turn_on() -> None:
    link = FakeLink(input_output=MIUI_REFUSAL)
    with pytest.raises(InjectEventsDenied) as caught:
        await driver(link).tap(1, 2)
    message = str(caught.value)
    assert "USB debugging (Security settings)" in message and "Developer options" in message
    assert isinstance(caught.value, DeviceError)


@pytest.mark.asyncio
async def test_start_app_uses_monkey_and_installed_checks_pm_path() -> None:
    link = FakeLink()
    d = driver(link)
    assert await d.installed("com.android.settings")
    assert not await d.installed("com.missing.app")
    command = await d.start_app("com.android.settings")
    assert command == "monkey -p com.android.settings -c android.intent.category.LAUNCHER 1"
    await d.force_stop("com.android.settings")
    assert link.commands[-2:] == [command, "am force-stop com.android.settings"]


# --------------------------------------------------------------------------- observing


@pytest.mark.asyncio
async def test_screen_reads_override_size_density_and_rotation() -> None:
    link = FakeLink(rotation=1)
    facts = await driver(link).screen()
    assert (facts.width_px, facts.height_px, facts.rotation) == (1080, 2400, 90)
    spec = facts.spec()
    assert (spec.width_px, spec.height_px, spec.orientation) == (2400, 1080, 90)

    link = FakeLink()
    link._answer = lambda c: (  # type: ignore[method-assign]
        "Physical size: 1080x2400\nOverride size: 720x1600"
        if c == "wm size"
        else "Physical density: 440\nOverride density: 320"
        if c == "wm density"
        else ""
    )
    facts = await driver(link).screen()
    assert (facts.width_px, facts.height_px, facts.density_dpi, facts.rotation) == (
        720,
        1600,
        320,
        0,
    )


@pytest.mark.asyncio
async def test_unexpected_wm_size_output_is_a_clear_error() -> None:
    link = FakeLink()
    link._answer = lambda c: "cmd: Can't find service: window"  # type: ignore[method-assign]
    with pytest.raises(DeviceError, match="unexpected `wm size` output"):
        await driver(link).screen()


@pytest.mark.asyncio
async def test_foreground_from_current_focus_then_focused_app_then_nothing() -> None:
    link = FakeLink()
    assert await driver(link).foreground() == (
        "com.android.settings",
        "com.android.settings.Settings",
    )
    link.focus = (
        "  mCurrentFocus=Window{7a1 u0 InputMethod}\n"
        "  mFocusedApp=ActivityRecord{9c8 u0 com.android.contacts/.activities.PeopleActivity t3}"
    )
    assert await driver(link).foreground() == (
        "com.android.contacts",
        ".activities.PeopleActivity",
    )
    link.focus = "  mCurrentFocus=null\n  mFocusedApp=null"
    assert await driver(link).foreground() == (None, None)


@pytest.mark.asyncio
async def test_keyboard_visibility_from_dumpsys_input_method() -> None:
    link = FakeLink()
    assert not await driver(link).keyboard_visible()
    link.keyboard = True
    assert await driver(link).keyboard_visible()


@pytest.mark.asyncio
async def test_screenshot_falls_back_to_screencap_when_uiautomator2_fails() -> None:
    for link in (FakeLink(u2_broken=True), FakeLink(screenshot_via_u2=False)):
        frame = await driver(link).screenshot()
        assert frame.format == "png" and (frame.width, frame.height) == (108, 240)
        assert link.commands == ["screencap -p"]
    link = FakeLink()
    frame = await driver(link).screenshot()
    assert frame.format == "jpeg" and link.commands == []


def test_undecodable_screenshot_is_a_device_error() -> None:
    with pytest.raises(DeviceError, match="not an image"):
        decode_frame(b"\x89PNG garbage", "png")


@pytest.mark.asyncio
async def test_an_empty_dump_is_retried_then_used() -> None:
    good = to_xml(settings_nodes())
    link = FakeLink(dumps=["", '<?xml version="1.0"?><hierarchy rotation="0" />', good])
    dump = await driver(link).hierarchy()
    assert dump.status is UIStatus.OK and dump.tree is not None and len(dump.tree) == 5
    assert [m for m, _ in link.rpcs].count("dumpWindowHierarchy") == 3


@pytest.mark.asyncio
async def test_a_dump_that_stays_empty_is_idle_timeout_without_a_tree() -> None:
    link = FakeLink(dumps=['<hierarchy rotation="0" />'])
    dump = await driver(link, dump_attempts=4).hierarchy()
    assert dump.status is UIStatus.IDLE_TIMEOUT and dump.tree is None and dump.xml is None
    assert [m for m, _ in link.rpcs].count("dumpWindowHierarchy") == 4


@pytest.mark.asyncio
async def test_a_broken_uiautomator2_server_falls_back_to_uiautomator_dump() -> None:
    link = FakeLink(u2_broken=True)
    dump = await driver(link).hierarchy()
    assert dump.status is UIStatus.OK and dump.source == "uiautomator dump"
    assert link.commands == ["uiautomator dump"]


# --------------------------------------------------------------------------- frames


def test_frame_change_counts_changed_pixels() -> None:
    a = screen(200)
    assert frame_change(a, a.copy()) == 0.0
    assert frame_change(a, screen(200, box=3)) == pytest.approx(0.05, abs=0.01)
    assert frame_change(a, screen(200, width=240, height=108)) == 1.0
    noisy = a.astype(np.int16) + np.random.default_rng(0).integers(-8, 9, a.shape)
    assert frame_change(a, noisy.astype(np.uint8)) == 0.0  # JPEG-level noise is not change


@pytest.mark.asyncio
async def test_settle_waits_until_two_frames_agree() -> None:
    frames = [screen(200, box=1), screen(200, box=4), screen(200, box=7), screen(200, box=7)]
    link = FakeLink(frames=frames)
    settled = await driver(link).settle()
    assert settled.stable and settled.frames == 4
    assert frame_change(settled.frame.image, screen(200, box=7)) < 0.01


@pytest.mark.asyncio
async def test_settle_probes_small_then_confirms_with_a_full_frame() -> None:
    phone_screen = screen(200, box=3, width=1080, height=2400)
    link = FakeLink(frames=[phone_screen] * 2)
    settled = await driver(link).settle()
    assert settled.stable and settled.frames == 2
    assert [params[0] for method, params in link.rpcs if method == "takeScreenshot"] == [0.25, 1.0]
    assert settled.frame.image.shape == phone_screen.shape  # the observation is full size


@pytest.mark.asyncio
async def test_work_done_while_settling_is_kept_only_between_two_agreeing_frames() -> None:
    still = screen(200, box=3, width=1080, height=2400)
    moving = [screen(200, box=i, width=1080, height=2400) for i in (1, 5, 5)]

    async def dump() -> str:
        return "the tree"

    settled = await driver(FakeLink(frames=[still, still])).settle(meanwhile=dump)
    assert settled.stable and settled.meanwhile == "the tree"
    settled = await driver(FakeLink(frames=moving)).settle(meanwhile=dump)
    assert settled.stable and settled.frames == 3 and settled.meanwhile is None


def test_a_probe_and_a_full_frame_of_one_screen_agree_and_of_two_screens_do_not() -> None:
    full = screen(200, box=3, width=1080, height=2400)
    probe = cv2.resize(full, (270, 600), interpolation=cv2.INTER_AREA)
    assert frame_change(probe, full) <= SettleConfig().threshold
    other = screen(200, box=6, width=1080, height=2400)
    assert frame_change(probe, other) > SettleConfig().threshold


@pytest.mark.asyncio
async def test_settle_gives_up_after_its_timeout_on_an_animated_screen() -> None:
    distinct = [screen(200, box=i) for i in range(10)]
    frames = [distinct[i % 10] for i in range(1_000)]  # never two equal frames in a row
    link = FakeLink(frames=frames)
    config = SettleConfig(interval_s=0.01, timeout_s=0.2)
    settled = await AndroidDriver(link, settle=config).settle()  # type: ignore[arg-type]
    assert not settled.stable and settled.frames >= 3 and settled.elapsed_s < 1.0


def test_black_frames_are_detected() -> None:
    assert decode_frame(_png(screen(0)), "png").is_black()
    assert decode_frame(_png(screen(9)), "png").is_black()
    assert not decode_frame(_png(screen(200)), "png").is_black()
    dark_theme = screen(0)
    dark_theme[100:104, 10:60] = 255  # one line of white text on a pure black theme
    assert not decode_frame(_png(dark_theme), "png").is_black()


def _png(image: np.ndarray) -> bytes:
    return cv2.imencode(".png", image)[1].tobytes()


# --------------------------------------------------------------------------- profiles


def test_profiles_are_bundled_and_valid() -> None:
    assert {"pixel", "redmi_note_12_turbo", "virtual"} <= set(profile_names())
    redmi = load_profile("redmi_note_12_turbo")
    assert (redmi.width_px, redmi.height_px, redmi.density_dpi) == (1080, 2400, 440)
    assert redmi.package("notes") == "com.miui.notes" and redmi.app_of("com.miui.home") is None
    assert load_profile("virtual").package("answersheet") == "com.mobilegym.answersheet"
    assert load_profile("pixel").app_of("com.google.android.contacts") == "contacts"


def test_profile_is_picked_from_getprop() -> None:
    redmi = DeviceProps(serial="s", model="23049RAD8C", brand="Redmi", device="marble")
    assert select_profile(redmi).profile.name == "redmi_note_12_turbo"
    poco = DeviceProps(serial="s", model="X", brand="POCO", manufacturer="Xiaomi")
    choice = select_profile(poco)
    assert choice.profile.name == "redmi_note_12_turbo" and "brand" in choice.reason
    virtual = DeviceProps(serial="s", model="23049RAD8C", brand="Redmi", virtual=True)
    assert select_profile(virtual).profile.name == "virtual"
    assert select_profile(redmi, "pixel").profile.name == "pixel"
    playing = virtual.model_copy(update={"plays": "redmi_note_12_turbo"})
    choice = select_profile(playing)  # ro.mgb.profile: the virtual Redmi
    assert choice.profile.name == "redmi_note_12_turbo" and "ro.mgb.profile" in choice.reason
    assert choice.profile.package("messages") == "com.android.mms"
    assert choice.profile.settle_interval_s == load_profile("virtual").settle_interval_s
    assert fits(load_profile("redmi_note_12_turbo"), redmi)
    assert not fits(load_profile("redmi_note_12_turbo"), DeviceProps(serial="s", brand="google"))


def test_unknown_phone_falls_back_to_pixel_with_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    phone = DeviceProps(serial="abc123", model="SM-S918B", brand="samsung")
    with caplog.at_level(logging.WARNING, logger="device.profiles"):
        choice = select_profile(phone)
    assert choice.profile.name == "pixel" and choice.fallback
    assert "abc123" in caplog.text and "SM-S918B" in caplog.text


def test_unknown_profile_name_lists_the_known_ones() -> None:
    with pytest.raises(ProfileError, match="redmi_note_12_turbo"):
        load_profile("iphone")


# --------------------------------------------------------------------------- adb errors


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        (AdbTimeout("adb read timeout"), DeviceTimeout),
        (AdbConnectionError("refused"), AdbServerUnavailable),
        (AdbError("device offline"), DeviceError),
        (u2e.HTTPError("Unable to connect to uiautomator2 server"), UiAutomatorError),
        (u2e.LaunchUiAutomationError("server quit unexpectly"), UiAutomatorError),
        (u2e.RPCUnknownError("java.lang.SecurityException: INJECT_EVENTS"), InjectEventsDenied),
        (TimeoutError("timed out"), DeviceTimeout),
    ],
)
def test_third_party_errors_are_translated(error: Exception, expected: type) -> None:
    translated = translate(error, "rpc click")
    assert type(translated) is expected and "rpc click" in str(translated)


def test_accessibility_service_taken_says_what_to_stop() -> None:
    error = translate(u2e.AccessibilityServiceAlreadyRegisteredError("already registered"), "x")
    assert "Appium" in str(error)


def test_a_missing_adb_server_is_reported_without_spawning_one() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(AdbServerUnavailable, match=f"adb -P {port} start-server"):
        AdbTarget(port=port).devices()


# --------------------------------------------------------------------------- virtual phone
# The same driver over the real adb server (the bundled binary, a private port) and the
# virtual phone: adbutils and uiautomator2 exactly as with a phone on Wi-Fi.


def session_for(attached: AttachedVirtualPhone, serial: str | None = None) -> AdbSession:
    target = AdbTarget(port=attached.adb_port, serial=serial)
    policy = ReconnectPolicy(attempts=2, backoff_s=0.05, wait_s=5.0)
    return AdbSession(target, reconnect=policy, call_timeout_s=20.0)


def wait_until(condition: Callable[[], bool], timeout_s: float = 10.0) -> None:
    """Poll ``condition`` (a state change of the adb server) until true or the deadline."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "condition not met before the deadline"
        time.sleep(0.02)


async def on_phone(attached: AttachedVirtualPhone, work: Callable[[VirtualPhone], Any]) -> Any:
    """Run ``await work(phone)`` on the virtual phone's loop without blocking ours."""
    return await asyncio.to_thread(attached.phone.call, work)


@pytest.mark.device_virtual
def test_the_private_server_lists_the_phone_and_resolves_it(
    attached: AttachedVirtualPhone,
) -> None:
    target = AdbTarget(port=attached.adb_port)
    devices = target.devices()
    assert [(d.serial, d.state) for d in devices] == [(attached.serial, "device")]
    assert target.resolve().serial == attached.serial
    with pytest.raises(DeviceNotFound, match="attached: " + attached.serial):
        AdbTarget(port=attached.adb_port, serial="nope").resolve()


@pytest.mark.device_virtual
@pytest.mark.asyncio
async def test_observing_the_virtual_phone(attached: AttachedVirtualPhone) -> None:
    session = session_for(attached)
    await session.open()
    try:
        d = AndroidDriver(session)
        facts = await d.screen()
        assert (facts.width_px, facts.height_px, facts.rotation) == (1080, 2400, 0)
        frame = await d.screenshot()
        assert frame.format == "jpeg" and (frame.width, frame.height) == (1080, 2400)
        dump = await d.hierarchy()
        assert dump.status is UIStatus.OK and dump.source == "uiautomator2"
        assert dump.tree is not None and dump.tree.find(text="Contacts")
        assert (await d.foreground())[0] == "com.android.launcher3"
        assert not await d.keyboard_visible()
        assert await session.getprop("ro.mgb.virtual") == "1"
    finally:
        await session.close()


@pytest.mark.device_virtual
@pytest.mark.asyncio
async def test_unicode_typing_uses_the_clipboard_and_installs_nothing(
    attached: AttachedVirtualPhone,
) -> None:
    session = session_for(attached, attached.serial)
    await session.open()
    try:
        d = AndroidDriver(session)
        await d.start_app("com.android.contacts")
        dump = await d.hierarchy()
        assert dump.tree is not None
        (search,) = dump.tree.find(resource_id="search_src_text")
        left, top, right, bottom = search.bounds_px
        await d.tap((left + right) // 2, (top + bottom) // 2)
        assert await d.type_text("张伟 & co") == "u2 setClipboard+pasteClipboard"
        dump = await d.hierarchy()
        assert dump.tree is not None
        assert dump.tree.find(resource_id="search_src_text")[0].text == "张伟 & co"
        await d.clear_text()
        assert await d.type_text("zhang") == "input text zhang"
        assert "com.github.uiautomator" not in await session.shell("pm list packages")
        assert "AdbKeyboard" not in await session.shell("ime list -s -a")
    finally:
        await session.close()


@pytest.mark.device_virtual
@pytest.mark.asyncio
async def test_a_dead_uiautomator2_server_is_restarted_on_the_next_call(
    attached: AttachedVirtualPhone,
) -> None:
    session = session_for(attached, attached.serial)
    await session.open()
    try:
        d = AndroidDriver(session)
        await d.screenshot()
        handlers = await on_phone(attached, _kill_u2_server)
        assert 9008 in handlers
        started = time.monotonic()
        frame = await d.screenshot()
        assert frame.format == "jpeg"  # uiautomator2 came back, not the screencap fallback
        assert time.monotonic() - started < 20
        assert 9008 in await on_phone(attached, _u2_ports)
    finally:
        await session.close()


async def _kill_u2_server(phone: VirtualPhone) -> list[int]:
    """The u2 "process" dies: its port stops answering (tcp:9008 -> closed)."""
    ports = list(phone.tcp_handlers)
    phone.tcp_handlers.pop(9008, None)
    return ports


async def _u2_ports(phone: VirtualPhone) -> list[int]:
    return list(phone.tcp_handlers)


@pytest.mark.device_virtual
@pytest.mark.asyncio
async def test_an_adb_disconnect_is_healed_by_reconnecting(attached: AttachedVirtualPhone) -> None:
    session = session_for(attached, attached.serial)
    await session.open()
    try:
        assert (await session.shell("echo before")) == "before"
        await asyncio.to_thread(attached.adb.disconnect, attached.serial)
        await asyncio.to_thread(wait_until, lambda: attached.serial not in attached.adb.devices())
        assert (await session.shell("echo after")) == "after"
        assert session.reconnects == 1
        frame = await AndroidDriver(session).screenshot()
        assert frame.width == 1080
    finally:
        await session.close()


def test_a_dead_adb_server_is_never_respawned(monkeypatch: pytest.MonkeyPatch) -> None:
    def spawn() -> str:
        pytest.fail("adbutils tried to start an adb server")

    monkeypatch.setattr(adbutils_adb, "adb_path", spawn)
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        client = AdbTarget(port=listener.getsockname()[1]).client()
    with pytest.raises(AdbConnectionError):
        client.server_version()
