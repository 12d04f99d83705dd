"""HyperOS's Control Center apart from its notification shade (``sim/phone.py``,
``sim/screen.py``, ``sim/templates/skins/hyperos/``): where the pull starts decides the
panel under ``hyperos``, AOSP's one shade opens wherever it starts, the toggles write the
settings AOSP's do, and a virtual Redmi's ``cmd statusbar`` opens either panel. One
Chromium for the module (the ``sim`` fixture)."""

from __future__ import annotations

import pytest

from bridge.actions import KeyAction, Point, SwipeAction, TapAction, Target
from bridge.schema import Observation, UINode
from device.virtual.perturb import Perturbations
from device.virtual.phone import VirtualPhone
from device.virtual.shell import Shell
from sim.android_state import SimAndroidState
from sim.env import SimEnv
from sim.phone import EdgeEvent, Phone
from sim.radios import is_on, toggle_tile
from sim.screen import system_strings
from sim.simulator import Simulator, installed_apps
from sim.skins import system_ui_of
from sim.state import InstanceState, Notification
from sim.tasks.registry import default_registry

SYSTEM_UI = system_ui_of("hyperos")
TOGGLES = ("airplane", "wifi", "bluetooth", "dark")
"""The quick toggles both skins have that the toggle test flips, in this order (by their
labels): airplane mode first, so the radios' side effects are in the comparison."""


def _label(skin: str, tile: str) -> str:
    """A toggle's English label: AOSP's shade tile, or the Control Center's (``WLAN``)."""
    s = system_strings("en")
    if skin == "aosp":
        return s[f"tile_{tile}"]
    return s["cc_wlan"] if tile == "wifi" else s[f"cc_{tile}"]


def _ids(obs: Observation) -> set[str]:
    """The short resource ids of the System UI's nodes on screen."""
    prefix = f"{SYSTEM_UI}:id/"
    return {n.resource_id.removeprefix(prefix) for n in obs.ui if n.package == SYSTEM_UI}


def _toggles(obs: Observation) -> list[UINode]:
    """The System UI's switches on screen (quick toggles)."""
    return [n for n in obs.ui if n.package == SYSTEM_UI and n.class_name == "android.widget.Switch"]


def _pull(x: float) -> SwipeAction:
    """A finger down from the status bar at ``x`` across the screen."""
    return SwipeAction(start=Point(x=x, y=0.005), end=Point(x=x, y=0.6))


async def _env(sim: Simulator, skin: str) -> tuple[SimEnv, Observation]:
    """An env in ``skin`` posed on SetBluetooth (seed 0), with a notification in the shade."""
    registry = default_registry()
    env = await sim.env(skin=skin, screenshot=False)  # the tree is what is checked
    env.pose(registry.instantiate("settings/SetBluetooth-v1", 0, "en"))
    state = env.instance.state
    note = Notification(id=7, app="messages", title="Lunch at noon?", time_ms=state.os.clock_ms)
    state.os.notifications.append(note)
    env.instance.changed()
    return env, await env.observe()


# ---- browser-free: the state


def test_the_pull_side_decides_the_panel_only_under_hyperos() -> None:
    phone = Phone(installed_apps())
    for skin, x, quick in (("hyperos", 0.8, True), ("hyperos", 0.2, False), ("aosp", 0.8, False)):
        state = InstanceState()
        state.os.skin = skin
        phone.apply(state, EdgeEvent(edge="top", x=x))
        assert (state.ui.shade_open, state.ui.quick_settings) == (True, quick), (skin, x)
        copied = InstanceState.model_validate_json(state.model_dump_json())  # a snapshot
        assert copied.ui.quick_settings == quick
        phone.back(state)
        assert not state.ui.shade_open and not state.ui.quick_settings
    state = InstanceState()
    state.os.skin = "hyperos"
    phone.apply(state, EdgeEvent(edge="top"))  # where it started is not known: the shade
    assert state.ui.shade_open and not state.ui.quick_settings


def test_the_mobile_data_tile_is_the_settings_switch_and_does_nothing_in_airplane_mode() -> None:
    settings = InstanceState().os.settings
    toggle_tile(settings, "mobile_data")
    assert settings["global"]["mobile_data"] == 0 and not is_on(settings, "mobile_data")
    toggle_tile(settings, "airplane")
    toggle_tile(settings, "mobile_data")  # greyed out in the flight, as in Settings
    assert settings["global"]["mobile_data"] == 0


# ---- in Chromium


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.browser
async def test_under_hyperos_the_right_half_opens_the_control_center_the_left_the_shade(
    sim: Simulator,
) -> None:
    env, _ = await _env(sim, "hyperos")
    async with env:
        shade = (await env.step(_pull(0.2))).observation
        assert {"notification_panel", "notification_stack_scroller"} <= _ids(shade)
        assert "control_center" not in _ids(shade) and _toggles(shade) == []
        assert any(n.text == "Lunch at noon?" and n.package == SYSTEM_UI for n in shade.ui)
        cc = (await env.step(_pull(0.8))).observation  # from the right, over the shade
        assert {"control_center", "brightness_slider"} <= _ids(cc)
        assert "notification_stack_scroller" not in _ids(cc)
        assert all(n.text != "Lunch at noon?" for n in cc.ui)
        labels = {n.content_desc for n in _toggles(cc)}
        assert {_label("hyperos", t) for t in (*TOGGLES, "mobile_data")} <= labels
        bluetooth = next(n for n in _toggles(cc) if n.content_desc == "Bluetooth")
        await env.step(TapAction(target=Target.node(bluetooth.id)))
        assert (await env.verdict()).success  # SetBluetooth, solved in the Control Center
        gone = (await env.step(KeyAction(key="back"))).observation
        assert not {"control_center", "notification_panel"} & _ids(gone)
        assert not env.instance.state.ui.shade_open and not env.instance.state.ui.quick_settings


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.browser
async def test_under_aosp_a_pull_anywhere_opens_the_one_shade(sim: Simulator) -> None:
    env, _ = await _env(sim, "aosp")
    async with env:
        for x in (0.2, 0.8):
            obs = (await env.step(_pull(x))).observation
            ids = _ids(obs)
            assert {"quick_settings_panel", "notification_stack_scroller"} <= ids
            assert "control_center" not in ids
            assert not env.instance.state.ui.quick_settings
            await env.step(KeyAction(key="back"))


async def _flip_every_toggle(sim: Simulator, skin: str, x: float) -> dict[str, dict[str, str]]:
    """Open the quick toggles in ``skin`` (a pull at ``x``), tap each of :data:`TOGGLES`,
    and read the settings back through the env's Android state."""
    env, _ = await _env(sim, skin)
    async with env:
        obs = (await env.step(_pull(x))).observation
        for tile in TOGGLES:
            node = next(n for n in _toggles(obs) if n.content_desc == _label(skin, tile))
            obs = (await env.step(TapAction(target=Target.node(node.id)))).observation
        android = SimAndroidState(sim.phone, env.instance.state)
        return {ns: await android.list_settings(ns) for ns in ("global", "secure")}


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.browser
async def test_the_control_centers_toggles_write_what_the_aosp_shades_do(sim: Simulator) -> None:
    aosp = await _flip_every_toggle(sim, "aosp", 0.5)
    hyperos = await _flip_every_toggle(sim, "hyperos", 0.8)
    assert hyperos == aosp
    start = InstanceState().os.settings
    assert aosp["secure"]["ui_night_mode"] != str(start["secure"]["ui_night_mode"])
    assert aosp["global"]["airplane_mode_on"] == "1"
    assert aosp["global"]["wifi_on"] == "1" and "wifi_saved_state" not in aosp["global"]


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.browser
async def test_a_virtual_redmis_statusbar_commands_open_either_panel(sim: Simulator) -> None:
    redmi = Perturbations(profile="redmi_note_12_turbo")
    phone = VirtualPhone(sim, sim.create_instance(seed=0), perturbations=redmi)
    phone.make_ready()  # a Redmi refuses injected input until it is allowed
    shell = Shell(phone)

    async def run(line: str) -> set[str]:
        assert await shell.run(line, _Quiet()) == 0, line
        prefix = f"{SYSTEM_UI}:id/"
        return {n.resource_id.removeprefix(prefix) for n in await phone.nodes()}

    assert "control_center" in await run("cmd statusbar expand-settings")
    shown = await run("cmd statusbar expand-notifications")
    assert "notification_panel" in shown and "control_center" not in shown
    assert not {"control_center", "notification_panel"} & await run("cmd statusbar collapse")
    # a finger on the right half of the status bar, through `input swipe`
    assert "control_center" in await run("input swipe 900 5 900 1400 200")
    assert "notification_panel" in await run("input swipe 150 5 150 1400 200")
    sim.drop_instance(phone.instance.id)


class _Quiet:
    """A shell's output, dropped."""

    async def stdout(self, data: bytes) -> None:
        """Drop ``data``."""

    async def stderr(self, data: bytes) -> None:
        """Drop ``data``."""
