"""``AndroidEnv``: reset, target resolution, steps, failures, verdicts.

Unit tests run over a scripted link (``fake_link.py``); the tests marked ``device_virtual``
run the env on the virtual phone through the real adb server, solve a task with its oracle,
and break the phone: adb disconnects (healed, and not), a dead uiautomator2 server, a
FLAG_SECURE black screen, idle-timeout dumps, MIUI's INJECT_EVENTS refusal, a slow phone.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from bridge.actions import (
    AnswerAction,
    DoubleTapAction,
    FinishAction,
    KeyAction,
    LongPressAction,
    OpenAppAction,
    Point,
    ScrollAction,
    SwipeAction,
    TapAction,
    Target,
    TypeAction,
    WaitAction,
)
from bridge.actuate import NOT_FOCUSED
from bridge.errors import EnvError, EnvTimeout, EnvUsageError
from bridge.records import TaskInstance
from bridge.runner import run_episode
from bridge.schema import PolicyContext, PolicyOutput, UIStatus
from bridge.spec.answers import AnswerRule
from bridge.spec.settings import PutSetting, SettingFact
from bridge.taskspec import ExpectedChanges, Requirement, TaskSpec, Truth
from bridge.uitree import to_xml
from device.adb import AdbTarget
from device.driver import SettleConfig
from device.env import AndroidEnv, AndroidEnvConfig
from device.errors import (
    AdbServerUnavailable,
    DeviceTimeout,
    InjectEventsDenied,
    TaskUnsupported,
)
from device.session import ReconnectPolicy
from device.virtual import commands_input
from device.virtual.attach import AttachedVirtualPhone, attach_virtual_phone
from device.virtual.phone import VirtualPhone
from device.virtual.u2_methods import U2Service
from policies.scripted import PlanPolicy
from sim.tasks.registry import default_registry
from tests.device.fake_link import MIUI_REFUSAL, FakeLink, screen, settings_nodes

FAKE_SPEC = TaskSpec(
    apps=["settings"],
    ensure=[
        PutSetting(namespace="global", key="wifi_on", value="0"),
        PutSetting(namespace="global", key="fake_answer", value="on"),
    ],
    truths=[Truth(name="wifi", fact=SettingFact(namespace="global", key="fake_answer"))],
    answers=[AnswerRule(field="wifi", truth="wifi", match="text")],
    expected=ExpectedChanges(settings=["global.wifi_on"]),
)
"""Posing turns Wi-Fi off; the answer is judged against a truth read from the phone."""
TASK = TaskInstance(task_id="settings/FakeWifi-v1", instruction="Turn Wi-Fi on", spec=FAKE_SPEC)
CONFIG = AndroidEnvConfig(
    settle=SettleConfig(interval_s=0.0, timeout_s=1.0), step_timeout_s=2.0, reset_timeout_s=2.0
)


def make_env(link: FakeLink, **config: object) -> AndroidEnv:
    return AndroidEnv(CONFIG.model_copy(update=config), link=link)  # type: ignore[arg-type]


def input_commands(link: FakeLink) -> list[str]:
    return [c for c in link.commands if c.startswith(("input", "monkey", "am force-stop"))]


async def reset(link: FakeLink, **config: object) -> AndroidEnv:
    env = make_env(link, **config)
    await env.reset(TASK)
    link.commands.clear()
    link.rpcs.clear()
    return env


# --------------------------------------------------------------------------- reset


@pytest.mark.asyncio
async def test_a_task_without_a_spec_is_refused_before_touching_the_phone() -> None:
    link = FakeLink()
    with pytest.raises(TaskUnsupported) as caught:
        await make_env(link).reset(TASK.model_copy(update={"spec": None}))
    assert "carries no spec" in str(caught.value) and "registry" in str(caught.value)
    assert isinstance(caught.value, EnvError) and link.commands == []


@pytest.mark.asyncio
async def test_a_spec_a_retail_phone_cannot_pose_is_refused_there() -> None:
    needs = Requirement(fact="global.secret", reason="no shell user may write it")
    task = TASK.model_copy(update={"spec": FAKE_SPEC.model_copy(update={"requires": [needs]})})
    link = FakeLink()
    with pytest.raises(TaskUnsupported, match="no shell user may write it"):
        await make_env(link).reset(task)
    assert not any(c.startswith("settings put") for c in link.commands)


@pytest.mark.asyncio
async def test_reset_stops_packages_runs_setup_goes_home_and_observes() -> None:
    link = FakeLink(props={"ro.product.model": "23049RAD8C", "ro.product.brand": "Redmi"})
    env = make_env(link)
    obs = await env.reset(TASK)
    order = [c for c in link.commands if not c.startswith(("getprop", "wm", "dumpsys"))]
    assert order[0] == "am force-stop com.android.settings"
    put, home = order.index("settings put global wifi_on 0"), order.index("input keyevent 3")
    assert "svc wifi disable" in order[: put + 1] and put < home
    assert link.settings[("global", "wifi_on")] == "0"
    assert obs.step == 0 and obs.ui_status is UIStatus.OK and len(obs.ui) == 5
    assert obs.backend.kind == "device" and obs.backend.model == "23049RAD8C"
    assert env.profile.name == "redmi_note_12_turbo"
    assert obs.foreground.package == "com.android.settings" and obs.foreground.app == "settings"
    assert obs.screen.width_px == 1080 and obs.screen.density_dpi == 440 and obs.stable


@pytest.mark.asyncio
async def test_a_phone_answering_ro_mgb_virtual_is_labelled_virtual() -> None:
    link = FakeLink(props={"ro.mgb.virtual": "1", "ro.product.model": "23049RAD8C"})
    obs = await make_env(link).reset(TASK)
    assert obs.backend.kind == "virtual"
    assert obs.foreground.app == "settings"


# --------------------------------------------------------------------------- targets


@pytest.mark.asyncio
async def test_tap_on_a_point_and_on_an_element() -> None:
    link = FakeLink()
    env = await reset(link)
    result = await env.step(TapAction(target=Target.at(0.5, 0.5)))
    assert result.executed is not None and result.executed.point_px == (540.0, 1200.0)
    assert result.executed.backend_command == "input tap 540 1200"
    result = await env.step(TapAction(target=Target.node(3)))
    assert result.executed is not None and result.executed.point_px == (540.0, 480.0)
    assert result.executed.element is not None and result.executed.element.text == "Wi-Fi"
    assert result.error is None and result.observation.step == 2
    assert input_commands(link) == ["input tap 540 1200", "input tap 540 480"]


@pytest.mark.asyncio
async def test_the_bottom_right_corner_is_the_last_pixel() -> None:
    link = FakeLink()
    env = await reset(link)
    result = await env.step(TapAction(target=Target.at(1.0, 1.0)))
    assert result.executed is not None and result.executed.point_px == (1079.0, 2399.0)


@pytest.mark.asyncio
async def test_points_map_to_the_rotated_screen() -> None:
    landscape = to_xml(settings_nodes(), rotation=1)
    link = FakeLink(rotation=1, dumps=[landscape])
    env = await reset(link)
    obs = await env.observe()
    assert (obs.screen.width_px, obs.screen.height_px, obs.screen.orientation) == (2400, 1080, 90)
    result = await env.step(TapAction(target=Target.at(0.25, 0.5)))
    assert input_commands(link) == ["input tap 600 540"]
    assert result.observation.screen.orientation == 90


@pytest.mark.asyncio
async def test_unresolvable_targets_are_step_errors_and_send_nothing() -> None:
    link = FakeLink()
    env = await reset(link)
    unknown = await env.step(TapAction(target=Target.node(99)))
    assert unknown.error is not None and "element 99 is not in the UI tree" in unknown.error
    assert unknown.observation.last_action_error == unknown.error
    empty = await env.step(LongPressAction(target=Target.node(4)))
    assert empty.error is not None and "empty bounds" in empty.error
    assert input_commands(link) == []


@pytest.mark.asyncio
async def test_an_element_whose_centre_is_off_screen_is_refused() -> None:
    nodes = settings_nodes()
    nodes[3] = nodes[3].model_copy(update={"bounds_px": (0, 2300, 1080, 2700)})
    link = FakeLink(dumps=[to_xml(nodes)])
    env = await reset(link)
    result = await env.step(TapAction(target=Target.node(3)))
    assert result.error is not None and "off the 1080x2400 screen" in result.error
    assert input_commands(link) == []


# --------------------------------------------------------------------------- actions


@pytest.mark.asyncio
async def test_gestures_and_keys() -> None:
    link = FakeLink()
    env = await reset(link)
    await env.step(LongPressAction(target=Target.node(3), duration_ms=700))
    await env.step(SwipeAction(start=Point(x=0.5, y=0.75), end=Point(x=0.5, y=0.25)))
    await env.step(KeyAction(key="back"))
    await env.step(DoubleTapAction(target=Target.at(0.1, 0.1)))
    assert input_commands(link) == [
        "input swipe 540 480 540 480 700",
        "input swipe 540 1800 540 600 300",
        "input keyevent 4",
    ]
    assert ("click", (108, 240)) in link.rpcs


@pytest.mark.asyncio
async def test_scroll_down_moves_the_finger_up_inside_the_largest_list() -> None:
    link = FakeLink()
    env = await reset(link)
    result = await env.step(ScrollAction(direction="down"))
    executed = result.executed
    assert executed is not None and executed.point_px and executed.end_point_px
    (x1, y1), (x2, y2) = executed.point_px, executed.end_point_px
    assert x1 == x2 == 540 and y1 > y2 and 400 <= y2 < y1 < 2200


@pytest.mark.asyncio
async def test_scrolling_an_element_with_no_area_on_screen_is_a_step_error() -> None:
    nodes = settings_nodes()
    nodes[2] = nodes[2].model_copy(update={"bounds_px": (1080, 400, 1500, 2200)})
    link = FakeLink(dumps=[to_xml(nodes)])
    env = await reset(link)
    result = await env.step(ScrollAction(direction="down", target=Target.node(2)))
    assert result.error is not None and "off the 1080x2400 screen" in result.error
    assert input_commands(link) == []


@pytest.mark.asyncio
async def test_type_needs_a_focused_field() -> None:
    link = FakeLink()
    env = await reset(link)
    result = await env.step(TypeAction(text="hello"))
    assert result.error == NOT_FOCUSED and link.typed() == []


@pytest.mark.asyncio
async def test_type_into_a_target_clears_pastes_unicode_and_submits() -> None:
    link = FakeLink(dumps=[to_xml(settings_nodes()), to_xml(settings_nodes(focused_field=True))])
    env = await reset(link)
    action = TypeAction(text="张伟 Zhang", target=Target.node(1), clear=True, submit=True)
    result = await env.step(action)
    assert result.error is None
    assert result.executed is not None and result.executed.point_px == (540.0, 260.0)
    assert result.executed.backend_command == (
        "input tap 540 260; u2 clearInputText; u2 setClipboard+pasteClipboard; input keyevent 66"
    )
    assert link.typed() == ["clearInputText", "setClipboard", "pasteClipboard"]


@pytest.mark.asyncio
async def test_open_app_by_profile_package() -> None:
    link = FakeLink()
    env = await reset(link, profile="pixel")
    ok = await env.step(OpenAppAction(app="contacts"))
    assert ok.error is None
    assert input_commands(link) == [
        "monkey -p com.google.android.contacts -c android.intent.category.LAUNCHER 1"
    ]
    unknown = await env.step(OpenAppAction(app="weibo"))
    assert unknown.error is not None and "no app 'weibo'" in unknown.error
    assert "contacts" in unknown.error and len(input_commands(link)) == 1


@pytest.mark.asyncio
async def test_wait_answer_finish_and_verdict() -> None:
    link = FakeLink()
    env = await reset(link)
    waited = await env.step(WaitAction(seconds=0.05))
    assert waited.timings.act_ms >= 50
    answered = await env.step(AnswerAction(fields={"wifi": "on"}))
    assert answered.done and answered.executed is not None
    finished = await env.step(FinishAction(status="success"))
    assert finished.done
    verdict = await env.verdict()
    assert verdict.success and verdict.kind == "answer" and verdict.clean is True
    assert [check.passed for check in verdict.checks] == [True]
    link.settings[("global", "bluetooth_on")] = "1"  # something the task did not ask for
    unclean = await env.verdict()
    assert unclean.clean is False and unclean.side_effects == ["global.bluetooth_on"]


# --------------------------------------------------------------------------- failures


@pytest.mark.asyncio
async def test_a_secure_window_keeps_its_tree() -> None:
    link = FakeLink(frames=[screen(0)])
    env = await reset(link)
    obs = await env.observe()
    assert obs.ui_status is UIStatus.SECURE_WINDOW and len(obs.ui) == 5


@pytest.mark.asyncio
async def test_an_idle_timeout_dump_is_reported_not_hidden() -> None:
    link = FakeLink(dumps=['<hierarchy rotation="0" />'], rotation=3)
    env = make_env(link)
    obs = await env.reset(TASK)
    assert obs.ui_status is UIStatus.IDLE_TIMEOUT and obs.ui == []
    assert obs.screen.orientation == 270  # from dumpsys display, as the tree is missing
    result = await env.step(TapAction(target=Target.at(0.5, 0.5)))
    assert result.error is None and result.observation.ui_status is UIStatus.IDLE_TIMEOUT


@pytest.mark.asyncio
async def test_miui_refusal_ends_the_step_with_an_env_error() -> None:
    link = FakeLink()
    env = await reset(link)
    link.input_output = MIUI_REFUSAL
    with pytest.raises(InjectEventsDenied, match="USB debugging"):
        await env.step(TapAction(target=Target.at(0.5, 0.5)))


@pytest.mark.asyncio
async def test_a_hung_phone_times_out_the_step() -> None:
    link = FakeLink()
    env = await reset(link, step_timeout_s=0.3)
    link.hang.add("input")
    with pytest.raises(DeviceTimeout) as caught:
        await env.step(TapAction(target=Target.at(0.5, 0.5)))
    assert isinstance(caught.value, EnvTimeout) and "0.3 s" in str(caught.value)


class _Script:
    """A policy that plays fixed actions (the runner's view of a policy)."""

    name = "script"

    def __init__(self, *actions: object) -> None:
        self.actions = list(actions)

    async def reset(self, instruction: str, context: PolicyContext) -> None:
        return None

    async def act(self, observation: object) -> PolicyOutput:
        return PolicyOutput(action=self.actions.pop(0))  # type: ignore[arg-type]


@pytest.mark.asyncio
async def test_the_runner_records_a_refused_injection_as_infra_error() -> None:
    link = FakeLink()
    env = make_env(link)
    link.input_output = MIUI_REFUSAL
    policy = _Script(TapAction(target=Target.at(0.5, 0.5)))
    record = await run_episode(policy, env, TASK, episode_id="e1")  # type: ignore[arg-type]
    assert record.outcome == "infra_error" and record.error_source == "env"
    assert record.error is not None and "USB debugging (Security settings)" in record.error


@pytest.mark.asyncio
async def test_the_runner_scores_a_solved_episode() -> None:
    link = FakeLink()
    env = make_env(link)
    policy = _Script(TapAction(target=Target.node(3)), AnswerAction(fields={"wifi": "on"}))
    record = await run_episode(policy, env, TASK, episode_id="e2")  # type: ignore[arg-type]
    assert record.outcome == "success" and record.steps == 2
    assert record.backend is not None and record.backend.kind == "device"


@pytest.mark.asyncio
async def test_close_is_idempotent_and_ends_the_env() -> None:
    link = FakeLink()
    async with await reset(link) as env:
        await env.close()
    await env.close()
    with pytest.raises(EnvUsageError, match="closed"):
        await env.step(KeyAction(key="home"))
    assert link.closed == 0  # an injected link belongs to the caller


# --------------------------------------------------------------------------- virtual phone
# AndroidEnv on the virtual phone through the real adb server: the oracle solves a task and
# the phone judges it; then the phone breaks the ways real ones do.


def virtual_env(attached: AttachedVirtualPhone, **config: object) -> AndroidEnv:
    settings = AndroidEnvConfig(
        target=AdbTarget(port=attached.adb_port, serial=attached.serial),
        reconnect=ReconnectPolicy(attempts=2, backoff_s=0.05, wait_s=3.0),
        step_timeout_s=30.0,
    )
    return AndroidEnv(settings.model_copy(update=config))


def sim_task(task_id: str) -> TaskInstance:
    return default_registry().instantiate(task_id, 0, "en")


async def on_phone(attached: AttachedVirtualPhone, work: Callable[[VirtualPhone], Any]) -> Any:
    """Run ``await work(phone)`` on the virtual phone's loop without blocking ours."""
    return await asyncio.to_thread(attached.phone.call, work)


@pytest.mark.device_virtual
@pytest.mark.asyncio
async def test_the_oracle_solves_a_task_on_the_virtual_phone(
    attached: AttachedVirtualPhone,
) -> None:
    task = sim_task("settings/SetWifi-v1")
    oracle = default_registry().get(task.task_id).oracle_for(task)
    async with virtual_env(attached) as env:
        record = await run_episode(PlanPolicy(oracle, name="scripted"), env, task, episode_id="w")
        assert env.profile.name == "virtual" and env.backend is not None
    assert record.outcome == "success", record
    assert record.backend is not None and record.backend.kind == "virtual"
    assert record.backend.serial == attached.serial and record.verdict is not None
    assert record.verdict.kind == "state" and record.verdict.deterministic


@pytest.mark.device_virtual
@pytest.mark.asyncio
async def test_an_episode_survives_an_adb_disconnect_and_a_dead_uiautomator2(
    attached: AttachedVirtualPhone,
) -> None:
    async with virtual_env(attached) as env:
        obs = await env.reset(sim_task("contacts/StarContact-v1"))
        assert obs.ui_status is UIStatus.OK and obs.backend.kind == "virtual"
        await asyncio.to_thread(attached.adb.disconnect, attached.serial)
        opened = await env.step(OpenAppAction(app="contacts"))
        assert opened.error is None and opened.observation.foreground.app == "contacts"
        await on_phone(attached, _kill_u2_server)
        back = await env.step(KeyAction(key="back"))
        assert back.error is None and back.observation.ui_status is UIStatus.OK
        assert back.observation.screenshot is not None
        assert back.observation.screenshot.format == "jpeg"  # u2 is back, not screencap
        assert env.session is not None and env.session.reconnects == 1


async def _kill_u2_server(phone: VirtualPhone) -> None:
    phone.tcp_handlers.pop(9008, None)


@pytest.mark.device_virtual
@pytest.mark.asyncio
async def test_a_black_screenshot_with_a_tree_is_a_secure_window(
    attached: AttachedVirtualPhone,
) -> None:
    async def black(phone: VirtualPhone) -> None:
        async def screenshot(image_format: str = "png", quality: int = 80) -> bytes:
            image = np.zeros((phone.height_px, phone.width_px, 3), np.uint8)
            return cv2.imencode(".jpg" if image_format == "jpeg" else ".png", image)[1].tobytes()

        phone.screenshot = screenshot  # type: ignore[method-assign]

    async def restore(phone: VirtualPhone) -> None:
        del phone.screenshot

    async with virtual_env(attached) as env:
        await env.reset(sim_task("settings/SetWifi-v1"))
        await on_phone(attached, black)
        try:
            obs = await env.observe()
        finally:
            await on_phone(attached, restore)
    assert obs.ui_status is UIStatus.SECURE_WINDOW and obs.ui
    assert obs.screenshot is not None and obs.screenshot.width == 1080


@pytest.mark.device_virtual
@pytest.mark.asyncio
async def test_an_empty_dump_becomes_idle_timeout(
    attached: AttachedVirtualPhone, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def empty(self: U2Service, *params: object) -> str:
        return (
            "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>\n<hierarchy rotation=\"0\" />"
        )

    async with virtual_env(attached) as env:
        await env.reset(sim_task("settings/SetWifi-v1"))
        monkeypatch.setattr(U2Service, "dump_window_hierarchy", empty)
        await on_phone(attached, _kill_u2_server)  # the next server serves the empty dumps
        obs = await env.observe()
    assert obs.ui_status is UIStatus.IDLE_TIMEOUT and obs.ui == []
    assert obs.screen.width_px == 1080  # the screen is still measured (dumpsys display)


@pytest.mark.device_virtual
@pytest.mark.asyncio
async def test_miui_refusing_input_on_the_phone_ends_the_episode_as_infra_error(
    attached: AttachedVirtualPhone, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def refuse(ctx: Any, args: list[str]) -> int:
        return await commands_input._crash(
            ctx, "tap", "java.lang.SecurityException: Injecting input events requires the "
            "caller (or the source of the instrumentation, if any) to have the INJECT_EVENTS "
            "permission."
        )  # fmt: skip

    monkeypatch.setattr(commands_input, "_tap", refuse)
    policy = _Script(TapAction(target=Target.at(0.5, 0.5)))
    async with virtual_env(attached) as env:
        record = await run_episode(policy, env, sim_task("settings/SetWifi-v1"), episode_id="m")  # type: ignore[arg-type]
    assert record.outcome == "infra_error" and record.error is not None
    assert (
        "InjectEventsDenied" in record.error and "USB debugging (Security settings)" in record.error
    )


@pytest.mark.device_virtual
@pytest.mark.asyncio
async def test_a_slow_phone_hits_the_step_timeout(attached: AttachedVirtualPhone) -> None:
    async def slow(phone: VirtualPhone) -> None:
        phone.perturbations = phone.perturbations.model_copy(update={"latency_ms": 2500})

    async def fast(phone: VirtualPhone) -> None:
        phone.perturbations = phone.perturbations.model_copy(update={"latency_ms": 0})

    async with virtual_env(attached, step_timeout_s=1.0) as env:
        await env.reset(sim_task("settings/SetWifi-v1"))
        await on_phone(attached, slow)
        try:
            with pytest.raises(DeviceTimeout, match="within 1 s"):
                await env.step(KeyAction(key="back"))
        finally:
            await on_phone(attached, fast)


@pytest.mark.device_virtual
@pytest.mark.asyncio
async def test_a_phone_that_does_not_come_back_is_an_infra_error(
    tmp_path: Path,
) -> None:
    with attach_virtual_phone(seed=0, android_user_home=tmp_path) as lost:
        policy = _Script(KeyAction(key="back"))
        env = virtual_env(lost, reconnect=ReconnectPolicy(attempts=2, backoff_s=0.05, wait_s=1.0))
        task = sim_task("settings/SetWifi-v1")
        await env.reset(task)

        async def unplug(phone: VirtualPhone) -> None:
            assert lost.phone.server.adbd is not None
            await lost.phone.server.adbd.close()  # the phone's adbd stops answering

        await on_phone(lost, unplug)
        await asyncio.to_thread(lost.adb.disconnect, lost.serial)
        started = time.monotonic()
        record = await run_episode(policy, env, task, episode_id="lost")  # type: ignore[arg-type]
        await env.close()
    assert record.outcome == "infra_error" and record.error is not None
    assert "DeviceDisconnected" in record.error and "2 reconnect attempt(s)" in record.error
    assert time.monotonic() - started < 20


@pytest.mark.device_virtual
@pytest.mark.asyncio
async def test_an_adb_server_gone_mid_episode_is_an_infra_error_that_says_so(
    tmp_path: Path,
) -> None:
    with attach_virtual_phone(seed=0, android_user_home=tmp_path) as orphaned:
        env = virtual_env(orphaned, reconnect=ReconnectPolicy(attempts=1, backoff_s=0.05))
        await env.reset(sim_task("settings/SetWifi-v1"))
        await asyncio.to_thread(orphaned.adb.kill)
        with pytest.raises(AdbServerUnavailable) as gone:
            await env.step(KeyAction(key="back"))
        await env.close()  # cleanup after the loss raises nothing either
    message = str(gone.value)
    assert "connect to the adb server failed" in message and "refused" in message
    assert isinstance(gone.value, EnvError)
