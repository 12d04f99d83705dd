"""uiautomator2's input method, AdbKeyboard, as a broadcast receiver on the virtual phone.

The IME in u2's ``app-uiautomator.apk`` (``com.github.uiautomator/.AdbKeyboard``) registers
for the ``ADB_KEYBOARD_*`` actions while it is the selected input method, and answers each
broadcast with ``RESULT_OK`` (-1) and a result data string; uiautomator2's ``send_keys``,
``clear_text`` and ``hide_keyboard`` check for that ``-1`` (protocols.md §2.5.1). With no
focused field (no InputConnection) the receiver answers the action's own name.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from dataclasses import dataclass

from device.virtual import input_methods
from device.virtual.phone import VirtualPhone

__all__ = ["ADB_KEYBOARD", "BroadcastResult", "deliver"]

ADB_KEYBOARD = "com.github.uiautomator/.AdbKeyboard"
"""The IME id of uiautomator2's keyboard."""
RESULT_OK, RESULT_CANCELED = -1, 0
ENTER = 66


@dataclass(frozen=True)
class BroadcastResult:
    """What the ordered broadcast's last receiver set: result code and data."""

    code: int
    data: str | None = None


def _decoded(text: str) -> str:
    """android.util.Base64.decode(DEFAULT) of UTF-8 text, forgiving missing padding."""
    raw = base64.b64decode(text + "=" * (-len(text) % 4))
    return raw.decode("utf-8")


async def _handle(phone: VirtualPhone, action: str, extras: Mapping[str, str]) -> str | None:
    """One KeyboardAction; its result data."""
    if action == "ADB_KEYBOARD_GET_CLIPBOARD":
        return base64.b64encode(phone.clipboard.encode()).decode()
    if action == "ADB_KEYBOARD_HIDE":
        phone.instance.state.ui.keyboard_visible = False
        phone.instance.changed()
    elif action in ("ADB_KEYBOARD_INPUT_TEXT", "ADB_KEYBOARD_SET_TEXT"):
        if action == "ADB_KEYBOARD_SET_TEXT":
            await phone.clear_text()
        if "text" in extras:
            await phone.text(_decoded(extras["text"]))
    elif action == "ADB_KEYBOARD_CLEAR_TEXT":
        await phone.clear_text()
    elif action in ("ADB_KEYBOARD_INPUT_KEYCODE", "ADB_KEYBOARD_EDITOR_CODE"):
        if extras.get("code", "-1") != "-1":
            await phone.keyevent(ENTER if action.endswith("EDITOR_CODE") else int(extras["code"]))
    elif action == "ADB_KEYBOARD_SMART_ENTER":
        await phone.keyevent(ENTER)
        return "Enter"
    return None


_ACTIONS = {
    "ADB_KEYBOARD_SMART_ENTER",
    "ADB_KEYBOARD_INPUT_TEXT",
    "ADB_KEYBOARD_CLEAR_TEXT",
    "ADB_KEYBOARD_SET_TEXT",
    "ADB_KEYBOARD_INPUT_KEYCODE",
    "ADB_KEYBOARD_EDITOR_CODE",
    "ADB_KEYBOARD_GET_CLIPBOARD",
    "ADB_KEYBOARD_HIDE",
    "ADB_KEYBOARD_SHOW",
}


async def deliver(
    phone: VirtualPhone, action: str | None, extras: Mapping[str, str]
) -> BroadcastResult | None:
    """The AdbKeyboard's answer to a broadcast; None when it does not receive it (it is not
    the selected IME, or the action is not one of its own)."""
    if action not in _ACTIONS or input_methods.current(phone) != ADB_KEYBOARD:
        return None
    ui = phone.instance.state.ui
    if ui.focus is None:  # no InputConnection: the receiver answers the action's name
        return BroadcastResult(RESULT_OK, action)
    try:
        return BroadcastResult(RESULT_OK, await _handle(phone, action, extras))
    except (binascii.Error, UnicodeDecodeError, ValueError) as exc:
        return BroadcastResult(RESULT_CANCELED, f"error:{exc}")
