"""Text handling and feature vectors of the learned policy: determinism, CJK, history."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from bridge.schema import BackendInfo, Foreground, Observation, ScreenSpec, UINode
from policies.learned.candidates import KINDS, build_candidates
from policies.learned.features import (
    DENSE_NAMES,
    DIM,
    HASH_DIM,
    History,
    Instruction,
    dense_value,
    featurize,
    screen_signature,
)
from policies.learned.text import (
    char_grams,
    hash_index,
    instruction_values,
    overlap,
    polarity,
    words,
)

SCREEN = ScreenSpec(width_px=1080, height_px=2400)


def _settings(title: str, summary: str, checked: bool, *, step: int = 0) -> Observation:
    nodes = [
        UINode(id=0, bounds_px=(0, 0, 1080, 2400)),
        UINode(id=1, parent=0, class_name="android.widget.LinearLayout", clickable=True,
               resource_id="com.android.settings:id/wifi_enable", bounds_px=(0, 250, 1080, 430)),
        UINode(id=2, parent=1, class_name="android.widget.TextView", text=title,
               bounds_px=(40, 260, 800, 330)),
        UINode(id=3, parent=1, class_name="android.widget.TextView", text=summary,
               bounds_px=(40, 340, 800, 420)),
        UINode(id=4, parent=1, class_name="android.widget.Switch", checkable=True,
               checked=checked, bounds_px=(900, 300, 1040, 380)),
        UINode(id=5, parent=0, class_name="android.widget.LinearLayout", clickable=True,
               resource_id="com.android.settings:id/bluetooth_settings",
               bounds_px=(0, 430, 1080, 610)),
        UINode(id=6, parent=5, class_name="android.widget.TextView", text="蓝牙",
               bounds_px=(40, 440, 800, 600)),
    ]  # fmt: skip
    return Observation(step=step, screen=SCREEN, ui=nodes, foreground=Foreground(app="settings"),
                       backend=BackendInfo(kind="sim"))  # fmt: skip


# --------------------------------------------------------------------------- text


def test_words_split_latin_and_cjk() -> None:
    assert words("Turn off Wi-Fi.") == {"wi", "fi"}  # "turn", "off" are not content
    assert words("打开蓝牙") == {"蓝", "牙", "蓝牙"}  # on/off words are read by polarity()
    assert words("已关闭") == set()  # a status, not content
    assert {"双卡", "移动", "网络"} <= words("双卡与移动网络")
    assert "ｗｌａｎ" not in words("ＷＬＡＮ") and "wlan" in words("ＷＬＡＮ")  # NFKC


def test_char_grams_are_cjk_aware() -> None:
    assert char_grams("Wi-Fi") == {"^wi", "wi$", "^fi", "fi$"}
    assert {"蓝牙", "蓝", "牙"} <= char_grams("打开蓝牙")


def test_overlap_is_precision_and_recall() -> None:
    assert overlap({"a", "b"}, {"b", "c", "d", "e"}) == (0.25, 0.5)
    assert overlap(set(), {"a"}) == (0.0, 0.0)


@pytest.mark.parametrize(
    ("instruction", "expected"),
    [
        ("Turn off Wi-Fi.", -1),
        ("Turn airplane mode on.", 1),
        ("打开 WLAN。", 1),
        ("关闭蓝牙。", -1),
        ("Turn off Wi-Fi and Bluetooth first, then turn on airplane mode.", 0),
        ("What is this phone's model?", 0),
    ],
)
def test_polarity(instruction: str, expected: int) -> None:
    assert polarity(instruction) == expected


@pytest.mark.parametrize(
    ("instruction", "expected"),
    [
        ('Add a new contact "黄子涵" with the mobile number 177 1543 3721.',
         ["黄子涵", "177 1543 3721"]),
        ("Remove 妈妈 from favorites.", ["妈妈"]),
        ("Change Rachel Green's mobile number to 177 6644 8162.",
         ["177 6644 8162", "Rachel Green"]),
        ("新建联系人“周雨桐”，添加单位电子邮件 zhouyutong@bytedance.com。",
         ["周雨桐", "zhouyutong@bytedance.com"]),
        ("What is Émilie Laurent's phone number?", ["Émilie Laurent"]),
        ("Whose phone number is +14155550132? Answer with the contact's name.", ["+14155550132"]),
        ("Turn off Wi-Fi.", []),
    ],
)  # fmt: skip
def test_instruction_values(instruction: str, expected: list[str]) -> None:
    assert instruction_values(instruction) == expected


def test_hashing_is_stable_across_processes() -> None:
    # CRC-32, not Python's salted hash(): a checkpoint means the same on every machine
    code = "from policies.learned.text import hash_index; print(hash_index('tap|rid:wifi', 1024))"
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert int(other.stdout) == hash_index("tap|rid:wifi", 1024) == 930


# --------------------------------------------------------------------------- features


def test_features_are_deterministic_and_shaped() -> None:
    obs = _settings("WLAN", "已开启", True)
    instruction = Instruction.of("关闭 WLAN。", 15)
    candidates = build_candidates(obs, instruction.text)
    first = featurize(obs, candidates, instruction, History())
    again = featurize(obs, candidates, instruction, History())
    assert (
        first.shape == (len(candidates), DIM) == (len(candidates), 8 * len(DENSE_NAMES) + HASH_DIM)
    )
    assert np.array_equal(first, again)
    assert np.all(np.isfinite(first))


def test_a_candidate_fills_only_its_own_kind_block() -> None:
    obs = _settings("Wi-Fi", "On", True)
    instruction = Instruction.of("Turn off Wi-Fi.", 15)
    candidates = build_candidates(obs, instruction.text)
    phi = featurize(obs, candidates, instruction, History())
    width = len(DENSE_NAMES)
    for row, candidate in zip(phi, candidates, strict=True):
        own = KINDS.index(candidate.kind)
        for kind in range(len(KINDS)):
            block = row[kind * width : (kind + 1) * width]
            assert (block[0] == 1.0) == (kind == own)  # the bias


def test_cjk_overlap_and_switch_goal_features() -> None:
    obs = _settings("WLAN", "已开启", True)
    instruction = Instruction.of("关闭 WLAN。", 15)
    candidates = build_candidates(obs, instruction.text)
    phi = featurize(obs, candidates, instruction, History())
    wifi, bluetooth = phi[0], phi[1]
    assert dense_value(wifi, "tap", "recall") == 1.0
    assert dense_value(wifi, "tap", "best") == 1.0
    assert dense_value(wifi, "tap", "toward") == 1.0  # the switch is on; the task says off
    assert dense_value(bluetooth, "tap", "recall") == 0.0
    assert dense_value(phi[-1], "finish", "goal_visible") == 0.0
    done = _settings("WLAN", "已关闭", False)
    after = featurize(done, build_candidates(done, instruction.text), instruction, History())
    assert dense_value(after[0], "tap", "at_goal") == 1.0
    assert dense_value(after[-1], "finish", "goal_visible") == 1.0


def test_history_features_see_repeats_and_unchanged_screens() -> None:
    obs = _settings("Wi-Fi", "On", True)
    instruction = Instruction.of("Turn off Wi-Fi.", 10)
    candidates = build_candidates(obs, instruction.text)
    history = History()
    history.see(screen_signature(obs))
    history.record(candidates[0], toggled_toward_goal=True)
    history.see(screen_signature(obs))  # the same screen again: the move changed nothing
    phi = featurize(obs, candidates, instruction, history)
    assert dense_value(phi[0], "tap", "repeat") == pytest.approx(1 / 3)
    assert dense_value(phi[0], "tap", "same_last") == 1.0
    assert dense_value(phi[1], "tap", "same_last") == 0.0
    assert dense_value(phi[0], "tap", "changed") == 0.0
    assert dense_value(phi[-1], "finish", "just_toggled") == 1.0
    assert dense_value(phi[-1], "finish", "step") == pytest.approx(0.1)


def test_screen_signature_sees_state_changes() -> None:
    assert screen_signature(_settings("Wi-Fi", "On", True)) == screen_signature(
        _settings("Wi-Fi", "On", True)
    )
    assert screen_signature(_settings("Wi-Fi", "On", True)) != screen_signature(
        _settings("Wi-Fi", "On", False)
    )


def test_what_only_a_simulator_knows_does_not_move_the_features() -> None:
    """Strip or change every field a phone would fill differently (the backend, the
    screenshot, ``stable``, node ``extra``s, a schema-1.1 route) and the vectors stay."""
    sim_obs = _settings("Wi-Fi", "Off", False).model_copy(
        update={"foreground": Foreground.model_validate(
            {"app": "settings", "package": "com.android.settings",
             "activity": ".wifi.WifiSettings", "route": "/wifi"})}
    )  # fmt: skip
    phone_obs = sim_obs.model_copy(
        update={
            "backend": BackendInfo(kind="device", model="23049RAD8C", serial="abc"),
            "stable": False,
            "screenshot": None,
            "ui": [
                node.model_copy(update={"extra": {"drawing-order": "3"}}) for node in sim_obs.ui
            ],
            "foreground": Foreground(
                app="settings",
                package="com.android.settings",
                activity="com.android.settings.wifi.WifiSettings",
            ),
        }
    )
    instruction = Instruction.of("Turn on Wi-Fi", 10)
    candidates = build_candidates(sim_obs, instruction.text)
    moves = [(c.kind, c.action, c.detail) for c in build_candidates(phone_obs, instruction.text)]
    assert [(c.kind, c.action, c.detail) for c in candidates] == moves
    in_sim = featurize(sim_obs, candidates, instruction, History())
    on_phone = featurize(phone_obs, candidates, instruction, History())
    assert np.array_equal(in_sim, on_phone)
    assert screen_signature(sim_obs) == screen_signature(phone_obs)
