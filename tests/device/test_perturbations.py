"""The virtual phone's reality-gap perturbations: system pop-ups now and then, animations.

Unit tests cover the seeded pop-up source and the animation frames; the tests marked
``device_virtual`` run the phone behind the real adb server and look at it the way the
driver does (``input``, ``uiautomator dump``, ``screencap``, uiautomator2).
"""

from __future__ import annotations

import asyncio
import signal
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import cv2
import numpy as np
import pytest
import pytest_asyncio
from typer.testing import CliRunner

from bridge.uitree import UITree, parse_hierarchy
from device.adb import AdbTarget
from device.driver import AndroidDriver, frame_change
from device.session import AdbSession, ReconnectPolicy
from device.virtual import attach as attach_module
from device.virtual.attach import AttachedVirtualPhone, attach_virtual_phone
from device.virtual.perturb import POPUPS, PopupSource, Transition
from device.virtual.phone import Perturbations, VirtualPhone
from sim.screen import render_screen
from sim.simulator import Simulator
from sim.state import InstanceState
from transfer_eval.commands.device import device_app

EMPTY = (540, 1800)
"""A point of the launcher that nothing reacts to (below the app icons, outside a dialog)."""
ANIMATION_MS = 1500.0


# --------------------------------------------------------------------------- units


def test_the_same_seed_gives_the_same_popups_and_another_seed_others() -> None:
    def rolls(seed: int) -> list[str | None]:
        source = PopupSource(seed)
        return [getattr(source.roll(0.5, "en"), "title", None) for _ in range(40)]

    assert rolls(1) == rolls(1)
    assert rolls(1) != rolls(2)
    assert None in rolls(1) and len(set(rolls(1))) > 2


def test_no_popup_at_rate_zero_and_text_follows_the_language() -> None:
    assert all(PopupSource(0).roll(0.0, "en") is None for _ in range(50))
    english, chinese = PopupSource(3).roll(1.0, "en"), PopupSource(3).roll(1.0, "zh")
    assert english is not None and chinese is not None and english.title != chinese.title
    assert len(POPUPS) >= 3


@pytest.mark.asyncio
async def test_a_virtual_redmi_throws_miuis_own_popups() -> None:
    source = PopupSource(3)
    rolled = [source.roll(1.0, "zh", "hyperos", "时钟") for _ in range(40)]
    packages = {dialog.package for dialog in rolled if dialog is not None}
    assert packages == {"com.lbe.security.miui", "com.miui.securitycenter", "com.android.updater"}
    sheet = next(d for d in rolled if d is not None and d.package == "com.lbe.security.miui")
    assert sheet.title == "要允许“时钟”发送通知吗？" and sheet.negative == "拒绝"
    aosp = PopupSource(3).roll(1.0, "en")
    assert aosp is not None and aosp.package == "android"  # AOSP's alerts are the framework's
    sim = Simulator()  # never started: the state and the screen's HTML only
    knobs = Perturbations(profile="redmi_note_12_turbo")
    phone = VirtualPhone(sim, sim.create_instance(seed=0), perturbations=knobs)
    phone.instance.state.os.dialog = sheet  # an activity: it takes the focus
    assert phone.current_focus() == (
        "com.lbe.security.miui",
        "com.android.packageinstaller.permission.ui.GrantPermissionsActivity",
    )
    assert 'data-window="com.lbe.security.miui"' in render_screen(sim.phone, phone.instance.state)
    phone.instance.state.os.dialog = next(d for d in rolled if d and d.activity is None)
    assert phone.current_focus()[0] == "com.miui.home"  # a window over what is in front


def test_the_knobs_are_checked() -> None:
    with pytest.raises(ValueError, match="probability"):
        Perturbations(popup_rate=1.5)
    with pytest.raises(ValueError, match="durations"):
        Perturbations(animation_ms=-1)
    with pytest.raises(ValueError, match="no device profile 'miui'"):
        Perturbations(profile="miui")
    with pytest.raises(ValueError, match=r"cannot play .pixel.*plays redmi_note_12_turbo, virtual"):
        Perturbations(profile="pixel")  # Google's apps are not the simulator's


@pytest.mark.asyncio
async def test_a_virtual_redmi_keeps_its_skin_across_resets() -> None:
    sim = Simulator()  # never started: the state and the screen's HTML only
    knobs = Perturbations(profile="redmi_note_12_turbo", font_scale=1.2)
    phone = VirtualPhone(sim, sim.create_instance(seed=0), perturbations=knobs)
    await phone.reset_to(InstanceState(seed=4))  # what a paired run does before each episode
    state = phone.instance.state
    assert (state.seed, state.os.skin, state.os.text_zoom) == (4, "hyperos", 1.2)
    sim.phone.launch(state, "settings")
    screen = render_screen(sim.phone, state)
    assert "More connectivity options" in screen and ">WLAN<" in screen
    assert knobs.describe() == (
        "text x1.2, Xiaomi HyperOS (as on a Redmi Note 12 Turbo) screens and ways (440 dpi)"
    )
    assert (knobs.screen.width_px, knobs.screen.density_dpi) == (1080, 440)
    assert phone.current_focus() == ("com.android.settings", "com.android.settings.MainSettings")


def test_a_transition_slides_the_changed_rows_in_and_ends() -> None:
    before = np.zeros((20, 100, 3), np.uint8)
    after = np.full((20, 100, 3), 255, np.uint8)
    after[:2] = 0  # a bar that stayed put
    slide = Transition(before, started=10.0, duration_s=1.0)
    quarter, half = slide.frame(after, 10.25), slide.frame(after, 10.5)
    assert quarter is not None and half is not None
    assert not quarter[:2].any()  # the unchanged rows do not move
    assert int((quarter[5] == 255).all(axis=1).sum()) == 25  # the new screen's first quarter
    assert int((half[5] == 255).all(axis=1).sum()) == 50
    assert slide.frame(after, 11.0) is None and slide.done(11.0)
    assert slide.frame(before.copy(), 10.5) is None  # an unchanged screen does not move


def test_the_cli_hands_the_knobs_to_the_phone(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: dict[str, object] = {}

    @contextmanager
    def attach(**kwargs: object) -> Iterator[AttachedVirtualPhone]:
        seen.update(kwargs)
        raise KeyboardInterrupt  # what Ctrl-C does once the phone is up
        yield

    monkeypatch.setattr(attach_module, "attach_virtual_phone", attach)
    monkeypatch.setattr(signal, "signal", lambda *args: None)  # keep pytest's handlers
    flags = "--latency-ms 50 --popup-rate 0.25 --animation-ms 300 --font-scale 1.15"
    flags += " --profile redmi_note_12_turbo"
    result = CliRunner().invoke(device_app, ["virtual", "start", *flags.split()])
    assert result.exit_code == 0 and "stopped" in result.output
    assert seen["perturbations"] == Perturbations(
        latency_ms=50,
        popup_rate=0.25,
        animation_ms=300,
        font_scale=1.15,
        profile="redmi_note_12_turbo",
    )
    assert seen["ready"] is False  # a Redmi as from the box: the doctor says what to do


# --------------------------------------------------------------------------- virtual phone


@pytest.fixture(scope="module")
def popup_phone(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AttachedVirtualPhone]:
    home = tmp_path_factory.mktemp("android-home")
    knobs = Perturbations(popup_rate=1.0)
    with attach_virtual_phone(seed=5, android_user_home=home, perturbations=knobs) as phone:
        yield phone


@pytest.fixture(scope="module")
def animated_phone(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AttachedVirtualPhone]:
    home = tmp_path_factory.mktemp("android-home")
    knobs = Perturbations(animation_ms=ANIMATION_MS)
    with attach_virtual_phone(seed=0, android_user_home=home, perturbations=knobs) as phone:
        yield phone


def shell(attached: AttachedVirtualPhone, command: str) -> str:
    """Run ``adb shell COMMAND`` through the private adb server."""
    return str(attached.adb.client().device(attached.serial).shell(command))


def screencap(attached: AttachedVirtualPhone) -> np.ndarray:
    """``adb shell screencap -p`` (raw bytes), decoded."""
    device = attached.adb.client().device(attached.serial)
    png = device.shell("screencap -p", encoding=None)
    return cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR)


def dump(attached: AttachedVirtualPhone) -> UITree:
    """The platform ``uiautomator dump``."""
    shell(attached, "uiautomator dump /sdcard/window_dump.xml")
    return parse_hierarchy(shell(attached, "cat /sdcard/window_dump.xml"))


def tap(attached: AttachedVirtualPhone, point: tuple[int, int]) -> None:
    shell(attached, f"input tap {point[0]} {point[1]}")


def center(tree: UITree, **criteria: str) -> tuple[int, int]:
    (node, *_) = tree.find(**criteria)
    left, top, right, bottom = node.bounds_px
    return (left + right) // 2, (top + bottom) // 2


def dialog_title(tree: UITree) -> str | None:
    titles = tree.find(resource_id="android:id/alertTitle")
    return titles[0].text if titles else None


def state_of(attached: AttachedVirtualPhone, read: Callable[[VirtualPhone], object]) -> object:
    async def work(phone: VirtualPhone) -> object:
        return read(phone)

    return attached.phone.call(work)


@pytest_asyncio.fixture
async def session(popup_phone: AttachedVirtualPhone) -> AsyncIterator[AdbSession]:
    policy = ReconnectPolicy(attempts=2, backoff_s=0.05, wait_s=5.0)
    opened = AdbSession(AdbTarget(port=popup_phone.adb_port), reconnect=policy)
    await opened.open()
    yield opened
    await opened.close()


@pytest.mark.device_virtual
@pytest.mark.asyncio
async def test_a_tap_brings_up_a_dialog_that_its_button_dismisses(
    popup_phone: AttachedVirtualPhone, session: AdbSession
) -> None:
    before = await asyncio.to_thread(screencap, popup_phone)
    await asyncio.to_thread(tap, popup_phone, EMPTY)
    tree = await asyncio.to_thread(dump, popup_phone)
    (ok,) = tree.find(resource_id="android:id/button1")
    assert ok.text and ok.clickable and ok.package == "android"
    title = dialog_title(tree)
    assert title is not None
    u2 = await AndroidDriver(session).hierarchy()  # uiautomator2 sees it too
    assert u2.tree is not None and dialog_title(u2.tree) == title
    shown = await asyncio.to_thread(screencap, popup_phone)
    assert frame_change(before, shown) > 0.2  # the dim and the dialog are drawn
    await asyncio.to_thread(tap, popup_phone, center(tree, resource_id="android:id/button1"))
    assert not (await asyncio.to_thread(dump, popup_phone)).find(resource_id="android:id/button1")
    assert np.array_equal(await asyncio.to_thread(screencap, popup_phone), before)


@pytest.mark.device_virtual
def test_the_dialog_is_modal_and_back_dismisses_it(popup_phone: AttachedVirtualPhone) -> None:
    before = screencap(popup_phone)
    settings_icon = center(dump(popup_phone), text="Settings")
    tap(popup_phone, EMPTY)
    title = dialog_title(dump(popup_phone))
    assert title is not None
    tap(popup_phone, settings_icon)  # outside the dialog: the launcher below must not see it
    tree = dump(popup_phone)
    assert dialog_title(tree) == title and tree.find(text="Settings")
    assert state_of(popup_phone, lambda p: p.instance.state.os.foreground) is None
    shell(popup_phone, "input keyevent 4")
    assert dialog_title(dump(popup_phone)) is None
    assert np.array_equal(screencap(popup_phone), before)  # BACK went no further


@pytest.mark.device_virtual
def test_the_same_seed_gives_the_same_popups_on_the_phone(tmp_path: Path) -> None:
    def sequence(home: Path) -> list[str | None]:
        knobs = Perturbations(popup_rate=0.5)
        with attach_virtual_phone(seed=9, android_user_home=home, perturbations=knobs) as phone:
            titles: list[str | None] = []
            for _ in range(6):
                tap(phone, EMPTY)
                titles.append(dialog_title(dump(phone)))
                if titles[-1] is not None:
                    shell(phone, "input keyevent 4")
            return titles

    first = sequence(tmp_path / "a")
    assert first == sequence(tmp_path / "b")
    assert None in first and any(first)


@pytest.mark.device_virtual
def test_everything_off_leaves_the_phone_as_it_was(tmp_path: Path) -> None:
    with attach_virtual_phone(seed=5, android_user_home=tmp_path) as phone:
        before = screencap(phone)
        for _ in range(3):
            tap(phone, EMPTY)
            assert dialog_title(dump(phone)) is None
        assert np.array_equal(screencap(phone), before)
        assert np.array_equal(screencap(phone), before)


@pytest.mark.device_virtual
@pytest.mark.asyncio
async def test_settling_waits_for_the_animation_to_end(
    animated_phone: AttachedVirtualPhone,
) -> None:
    policy = ReconnectPolicy(attempts=2, backoff_s=0.05, wait_s=5.0)
    session = AdbSession(AdbTarget(port=animated_phone.adb_port), reconnect=policy)
    await session.open()
    try:
        driver = AndroidDriver(session)
        home = await driver.hierarchy()
        assert home.tree is not None
        started = time.monotonic()
        await driver.tap(*center(home.tree, text="Settings"))
        first, second = await driver.screenshot(), await driver.screenshot()
        assert frame_change(first.image, second.image) > 0.01  # still moving
        settled = await driver.settle()
        assert settled.stable
        assert time.monotonic() - started >= ANIMATION_MS / 1000
        deadline = time.monotonic() + 10
        while await asyncio.to_thread(state_of, animated_phone, lambda p: p.animating()):
            assert time.monotonic() < deadline, "the animation did not end"
            await asyncio.sleep(0.05)  # poll the phone's own animation state
        later = await driver.screenshot()
        assert np.array_equal(settled.frame.image, later.image)
        await driver.key("home")
    finally:
        await session.close()


@pytest.mark.device_virtual
@pytest.mark.asyncio
async def test_reset_clears_a_dialog_left_by_the_last_episode(
    popup_phone: AttachedVirtualPhone,
) -> None:
    """HOME leaves a system dialog up; the next episode must not start under it."""
    from device.env import AndroidEnv, AndroidEnvConfig
    from sim.tasks.registry import default_registry

    await asyncio.to_thread(tap, popup_phone, EMPTY)  # at rate 1.0 a dialog comes up
    assert dialog_title(await asyncio.to_thread(dump, popup_phone)) is not None
    task = default_registry().instantiate("settings/SetWifi-v1", 0, "en")
    config = AndroidEnvConfig(
        target=AdbTarget(port=popup_phone.adb_port, serial=popup_phone.serial),
        reconnect=ReconnectPolicy(attempts=2, backoff_s=0.05, wait_s=3.0),
    )
    async with AndroidEnv(config) as env:
        first = await env.reset(task)
    assert not [n for n in first.ui if n.resource_id == "android:id/alertTitle"]
    assert first.foreground.package == "com.android.launcher3"
