"""Candidate actions of the learned policy, built from hand-made observations."""

from __future__ import annotations

from bridge.actions import AnswerAction, FinishAction, ScrollAction, TapAction, TypeAction
from bridge.schema import AnswerField, BackendInfo, Foreground, Observation, ScreenSpec, UINode
from policies.learned.candidates import (
    actionable_nodes,
    answer_candidates,
    build_candidates,
    trained_app_ids,
)

SCREEN = ScreenSpec(width_px=1080, height_px=2400)


def _obs(
    nodes: list[UINode], *, keyboard: bool = False, app: str | None = "settings"
) -> Observation:
    return Observation(step=0, screen=SCREEN, ui=nodes, foreground=Foreground(app=app),
                       keyboard_visible=keyboard, backend=BackendInfo(kind="sim"))  # fmt: skip


def _node(i: int, parent: int | None, box: tuple[int, int, int, int], **kw: object) -> UINode:
    return UINode(id=i, parent=parent, bounds_px=box, **kw)  # type: ignore[arg-type]


def _settings_screen() -> list[UINode]:
    row = (0, 250, 1080, 430)
    return [
        _node(0, None, (0, 0, 1080, 2400), class_name="android.widget.FrameLayout"),
        _node(1, 0, (0, 200, 1080, 2200), class_name="androidx.recyclerview.widget.RecyclerView",
              scrollable=True),
        _node(2, 1, row, class_name="android.widget.LinearLayout", clickable=True,
              resource_id="com.android.settings:id/wifi_enable"),
        _node(3, 2, (40, 290, 800, 390), class_name="android.widget.TextView", text="Wi-Fi"),
        _node(4, 2, (900, 300, 1040, 380), class_name="android.widget.Switch", checkable=True,
              checked=True),
        _node(5, 1, (0, 430, 1080, 610), class_name="android.widget.LinearLayout", clickable=True),
        _node(6, 5, (0, 430, 1080, 610), class_name="android.widget.Button", clickable=True,
              text="Same box"),
        _node(7, 1, (0, 610, 1080, 790), class_name="android.widget.SeekBar", clickable=True,
              resource_id="com.android.settings:id/ring_volume"),
        _node(8, 1, (0, 790, 1080, 970), class_name="android.widget.Button", clickable=True,
              visible=False, text="Hidden"),
        _node(9, 1, (0, 970, 1080, 970), class_name="android.widget.Button", clickable=True,
              text="Empty"),
        _node(10, 0, (84, 2276, 276, 2396), class_name="android.widget.ImageView",
              clickable=True, resource_id="com.android.systemui:id/back",
              package="com.android.systemui"),
    ]  # fmt: skip


def test_actionable_nodes_drop_duplicates_hidden_empty_and_system_keys() -> None:
    kept = [node.id for node in actionable_nodes(_obs(_settings_screen()))]
    # 4: the switch is toggled by its row; 6: same box as its clickable parent;
    # 8: invisible; 9: zero area; 10: the navigation bar's back (a key candidate instead)
    assert kept == [2, 5, 7]


def test_keyboard_keys_are_left_to_type_actions() -> None:
    nodes = _settings_screen()[:4]
    nodes.append(_node(4, 0, (9, 1590, 102, 1728), class_name="android.view.View", text="q",
                       clickable=True, package="com.android.inputmethod.latin"))  # fmt: skip
    assert [n.id for n in actionable_nodes(_obs(nodes, keyboard=True))] == [2]
    assert [n.id for n in actionable_nodes(_obs(nodes, keyboard=False))] == [2, 4]


def test_build_candidates_covers_every_kind_and_ends_with_finish() -> None:
    candidates = build_candidates(_obs(_settings_screen()), "Turn off Wi-Fi.")
    kinds = [c.kind for c in candidates]
    assert kinds == ["tap", "tap", "slide", "slide", "scroll", "scroll", "key", "key",
                     *(["open_app"] * len(trained_app_ids())), "finish"]  # fmt: skip
    assert isinstance(candidates[-1].action, FinishAction)
    assert candidates[-1].action.status == "success"
    assert candidates[0].action == TapAction.model_validate({"target": {"element": 2}})
    low, high = candidates[2].action, candidates[3].action
    assert isinstance(low, TapAction) and isinstance(high, TapAction)
    assert low.target.point is not None and high.target.point is not None
    assert low.target.point.x < 0.01 and high.target.point.x > 0.99
    scroll = candidates[4].action
    assert isinstance(scroll, ScrollAction) and scroll.direction == "down"
    assert scroll.target is not None and scroll.target.element == 1
    assert [c.detail for c in candidates if c.kind == "open_app"] == list(trained_app_ids())


def test_candidates_are_deterministic() -> None:
    obs = _obs(_settings_screen())
    first = build_candidates(obs, "Turn off Wi-Fi.")
    again = build_candidates(obs, "Turn off Wi-Fi.")
    assert [c.action for c in first] == [c.action for c in again]
    assert [c.signature for c in first] == [c.signature for c in again]


def test_type_candidates_carry_instruction_values_into_editable_fields() -> None:
    nodes = [
        _node(0, None, (0, 0, 1080, 2400)),
        _node(1, 0, (0, 200, 1080, 300), class_name="android.widget.EditText", editable=True,
              clickable=True, focused=True, hint="Name"),
    ]  # fmt: skip
    candidates = build_candidates(_obs(nodes), "新建联系人“周雨桐”，手机号码是 158 1847 0054。")
    typed = [c.action for c in candidates if c.kind == "type"]
    assert [a.text for a in typed if isinstance(a, TypeAction)] == ["周雨桐", "158 1847 0054"]
    assert all(isinstance(a, TypeAction) and a.clear and a.target is not None
               and a.target.element == 1 for a in typed)  # fmt: skip


def _about_screen() -> Observation:
    return _obs([
        _node(0, None, (0, 0, 1080, 2400)),
        _node(1, 0, (0, 600, 1080, 700), resource_id="com.android.settings:id/android_version"),
        _node(2, 1, (0, 600, 1080, 650), class_name="android.widget.TextView",
              text="Android version"),
        _node(3, 1, (0, 650, 1080, 700), class_name="android.widget.TextView", text="14"),
        _node(4, 0, (0, 700, 1080, 800), class_name="android.widget.TextView", text="12.0 GB"),
        _node(5, 0, (0, 10, 100, 60), class_name="android.widget.TextView", text="9:30",
              package="com.android.systemui"),
    ])  # fmt: skip


def test_answers_read_typed_values_from_visible_texts() -> None:
    number = AnswerField(name="version", kind="number")
    answers = answer_candidates(_about_screen(), [number])
    assert [a.action for a in answers] == [
        AnswerAction(fields={"version": 14}),
        AnswerAction(fields={"version": 12}),
    ]
    assert answers[0].node is not None and answers[0].node.id == 3
    text = answer_candidates(_about_screen(), [AnswerField(name="model", kind="text")])
    values = [a.action.fields["model"] for a in text if isinstance(a.action, AnswerAction)]
    assert values == ["Android version", "14", "12.0 GB"]  # the status bar clock is not content


def test_answers_combine_fields_and_choices() -> None:
    fields = [
        AnswerField(name="count", kind="number"),
        AnswerField(name="mode", kind="choice", choices=["on", "off"]),
    ]
    answers = answer_candidates(_about_screen(), fields)
    assert len(answers) == 4
    assert answers[0].action == AnswerAction(fields={"count": 14, "mode": "on"})
    assert build_candidates(_about_screen(), "Which Android version?")[-1].kind == "finish"
    assert not any(c.kind == "answer" for c in build_candidates(_about_screen(), "x"))
