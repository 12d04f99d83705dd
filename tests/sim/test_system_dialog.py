"""A system dialog (``state.os.dialog``) on literal states: rendering, buttons, BACK."""

from __future__ import annotations

import pytest

from sim.apps.answersheet import AnswerSheetApp
from sim.phone import ActionEvent, EdgeEvent, Phone
from sim.screen import render_screen
from sim.state import InstanceState, SystemDialog

USB = SystemDialog(
    title="Allow USB debugging?", message="Fingerprint", positive="Allow", negative="Cancel"
)


@pytest.fixture
def phone() -> Phone:
    return Phone([AnswerSheetApp()])


def test_no_dialog_by_default_and_none_rendered(phone: Phone) -> None:
    state = InstanceState()
    assert state.os.dialog is None
    assert "system-dialog" not in render_screen(phone, state)


def test_the_dialog_renders_as_androids_window_with_buttons_in_order(phone: Phone) -> None:
    state = InstanceState()
    state.os.dialog = USB
    html = render_screen(phone, state)
    assert 'data-window="android"' in html and "Allow USB debugging?" in html
    cancel, allow = html.index('data-rid="button2"'), html.index('data-rid="button1"')
    assert cancel < allow  # negative left of positive, as on Android
    assert html.count('data-action="os:dismiss_dialog"') == 2


@pytest.mark.parametrize("button", ["1", "2"])
def test_either_button_dismisses_it(phone: Phone, button: str) -> None:
    state = InstanceState()
    phone.launch(state, "answersheet")
    state.os.dialog = USB
    phone.apply(state, ActionEvent(action="os:dismiss_dialog", args={"button": button}))
    assert state.os.dialog is None and state.os.foreground == "answersheet"


def test_back_dismisses_the_dialog_before_anything_else(phone: Phone) -> None:
    state = InstanceState()
    phone.launch(state, "answersheet")
    phone.apply(state, EdgeEvent(edge="top"))
    state.os.dialog = USB
    phone.back(state)
    assert state.os.dialog is None and state.ui.shade_open  # the shade is next
    phone.back(state)
    assert not state.ui.shade_open and state.os.foreground == "answersheet"


def test_home_leaves_a_system_dialog_up(phone: Phone) -> None:
    state = InstanceState()
    phone.launch(state, "answersheet")
    state.os.dialog = USB
    phone.key(state, "home")
    assert state.os.foreground is None and state.os.dialog == USB


def test_typing_under_a_dialog_reaches_no_field(phone: Phone) -> None:
    """The dialog takes the focus from the field below, so typed text goes nowhere."""
    from sim.phone import FocusEvent

    state = InstanceState()
    phone.launch(state, "answersheet")
    phone.apply(state, FocusEvent(field="answersheet.n"))
    state.os.dialog = USB
    assert "system dialog" in (phone.type_text(state, "42", clear=False) or "")
    assert state.ui.fields.get("answersheet.n", "") == ""
    phone.back(state)  # dismisses the dialog; the field is focused again
    assert phone.type_text(state, "42", clear=False) is None
    assert state.ui.fields["answersheet.n"] == "42"
