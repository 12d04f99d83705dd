"""The simulated OS on literal states: launching, back, keys, typing, the shade, rendering."""

from __future__ import annotations

import pytest

from sim.apps.answersheet import AnswerSheetApp, pose_questions
from sim.errors import SimError, UnknownApp
from sim.phone import ActionEvent, EdgeEvent, FocusEvent, Phone, ScrolledEvent
from sim.radios import set_airplane, toggle_tile
from sim.screen import render_screen
from sim.state import InstanceState


@pytest.fixture
def phone() -> Phone:
    return Phone([AnswerSheetApp()])


def _sheet(state: InstanceState) -> None:
    overlay = state.apps.setdefault("answersheet", AnswerSheetApp().initial_overlay())
    pose_questions(overlay, "How many?", [{"name": "n", "kind": "number", "label": "Count"}])


def test_launch_back_and_home(phone: Phone) -> None:
    state = InstanceState()
    phone.launch(state, "answersheet")
    assert state.os.foreground == "answersheet" and state.os.route is not None
    phone.home(state)
    assert state.os.foreground is None and state.os.task("answersheet") is not None
    phone.launch(state, "answersheet")
    phone.back(state)  # last screen: the app closes
    assert state.os.foreground is None and state.os.task("answersheet") is None
    with pytest.raises(UnknownApp, match="installed: answersheet"):
        phone.launch(state, "camera")


def test_back_closes_panels_and_keyboard_first(phone: Phone) -> None:
    state = InstanceState()
    phone.launch(state, "answersheet")
    phone.apply(state, FocusEvent(field="answersheet.n"))
    phone.apply(state, EdgeEvent(edge="top"))
    assert state.ui.shade_open and not state.ui.keyboard_visible
    phone.back(state)
    assert not state.ui.shade_open and state.os.foreground == "answersheet"
    phone.apply(state, FocusEvent(field="answersheet.n"))
    phone.back(state)
    assert not state.ui.keyboard_visible and state.os.foreground == "answersheet"


def test_typing_needs_focus_and_enter_submits(phone: Phone) -> None:
    state = InstanceState()
    _sheet(state)
    phone.launch(state, "answersheet")
    assert "no text field is focused" in (phone.type_text(state, "4", clear=False) or "")
    phone.apply(state, FocusEvent(field="answersheet.n", submit="submit"))
    assert phone.type_text(state, "4", clear=False) is None
    phone.keyboard_key(state, "2")
    assert state.ui.fields["answersheet.n"] == "42"
    phone.key(state, "delete")
    phone.type_text(state, "17", clear=True)
    assert state.ui.fields["answersheet.n"] == "17"
    phone.key(state, "enter")
    assert state.apps["answersheet"]["answers"] == {"n": 17}
    assert state.apps["answersheet"]["submitted"] is True


def test_keyboard_shift_and_symbols(phone: Phone) -> None:
    state = InstanceState()
    phone.launch(state, "answersheet")
    phone.apply(state, FocusEvent(field="answersheet.n"))
    for code in ("shift", "a", "b", "space", "123"):
        phone.keyboard_key(state, code)
    assert state.ui.fields["answersheet.n"] == "Ab " and state.ui.keyboard_mode == "123"


def test_volume_and_power_keys(phone: Phone) -> None:
    state = InstanceState()
    state.os.settings["system"]["volume_ring"] = 15
    phone.key(state, "volume_up")
    assert state.os.settings["system"]["volume_ring"] == 15
    phone.key(state, "volume_down")
    assert state.os.settings["system"]["volume_ring"] == 14
    phone.key(state, "power")
    assert state.os.screen_on is False
    with pytest.raises(SimError, match="unknown key"):
        phone.key(state, "camera")


def test_airplane_mode_turns_radios_off_and_restores_them() -> None:
    settings = InstanceState().os.settings
    settings["global"].update(wifi_on=1, bluetooth_on=0)
    set_airplane(settings, True)
    assert (settings["global"]["wifi_on"], settings["global"]["airplane_mode_on"]) == (0, 1)
    toggle_tile(settings, "bluetooth")  # allowed by hand in airplane mode
    set_airplane(settings, False)
    assert (settings["global"]["wifi_on"], settings["global"]["bluetooth_on"]) == (1, 1)
    assert "wifi_saved_state" not in settings["global"]


def test_tiles_write_android_keys(phone: Phone) -> None:
    state = InstanceState()
    phone.apply(state, ActionEvent(action="os:tile", args={"tile": "dark"}))
    phone.apply(state, ActionEvent(action="os:tile", args={"tile": "dnd"}))
    assert state.os.settings["secure"]["ui_night_mode"] == 2
    assert state.os.settings["global"]["zen_mode"] == 1
    phone.apply(state, ActionEvent(action="os:brightness", args={"frac": "1.0"}))
    assert state.os.settings["system"]["screen_brightness"] == 255


def test_app_actions_need_an_app_in_front(phone: Phone) -> None:
    state = InstanceState()
    with pytest.raises(SimError, match="no app in front"):
        phone.apply(state, ActionEvent(action="submit"))
    with pytest.raises(SimError, match="unknown OS action"):
        phone.apply(state, ActionEvent(action="os:selfdestruct"))


def test_scroll_reports_are_state(phone: Phone) -> None:
    state = InstanceState()
    phone.apply(state, ScrolledEvent(key="answersheet.form", top=240))
    assert state.ui.scroll == {"answersheet.form": 240}


def test_render_is_deterministic_and_has_system_windows(phone: Phone) -> None:
    state = InstanceState()
    home = render_screen(phone, state)
    assert home == render_screen(phone, state)
    assert 'data-window="com.android.launcher3"' in home and 'data-desc="AnswerSheet"' in home
    assert 'data-rid="navigation_bar_frame"' in home and ">9:30<" in home
    state.os.settings["system"]["system_locales"] = "zh-CN"
    phone.launch(state, "answersheet")
    zh = render_screen(phone, state)
    assert "答题卡" in zh and 'data-desc="返回"' in zh


def test_render_escapes_typed_text(phone: Phone) -> None:
    state = InstanceState()
    _sheet(state)
    phone.launch(state, "answersheet")
    state.ui.fields["answersheet.n"] = '<img src=x onerror="alert(1)">'
    html = render_screen(phone, state)
    assert "<img src=x" not in html and "&lt;img src=x" in html


def test_stopping_an_app_forgets_its_screens_but_keeps_its_data(phone: Phone) -> None:
    """force-stop (and clearing recents) kills the app: typed text and focus go, data stays."""
    state = InstanceState()
    _sheet(state)
    phone.launch(state, "answersheet")
    phone.apply(state, FocusEvent(field="answersheet.n", submit="submit"))
    phone.type_text(state, "4", clear=False)
    state.ui.fields["other.q"] = "kept"
    phone.stop(state, "answersheet")
    assert state.os.foreground is None and state.os.task("answersheet") is None
    assert state.ui.fields == {"other.q": "kept"} and state.ui.focus is None
    assert not state.ui.keyboard_visible and state.apps["answersheet"]["question"] == "How many?"


def test_text_zoom_multiplies_the_font_size_setting(phone: Phone) -> None:
    """A virtual phone's larger text survives a task setup resetting font_scale to 1.0."""
    state = InstanceState()
    state.os.settings["system"]["font_scale"] = 1.0
    assert "--font-scale: 1.0" in render_screen(phone, state)
    state.os.text_zoom = 1.3
    assert "--font-scale: 1.3" in render_screen(phone, state)
    state.os.settings["system"]["font_scale"] = 1.15
    assert "--font-scale: 1.495" in render_screen(phone, state)
