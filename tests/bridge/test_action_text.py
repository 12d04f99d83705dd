"""Actions in words (bridge.action_text): every action type of the contract, element targets
named from the tree the policy saw (text, description, hint, resource id, class and place),
points with two decimals, and the node the step result says it touched."""

from __future__ import annotations

import typing

import pytest

from bridge.action_text import describe_action, element_label
from bridge.actions import (
    Action,
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
from bridge.schema import BackendInfo, ExecutedAction, Observation, ScreenSpec, UINode

SCREEN = ScreenSpec(width_px=1000, height_px=2000)
NODES = [
    UINode(id=0, class_name="android.widget.FrameLayout", bounds_px=(0, 0, 1000, 2000)),
    UINode(
        id=1,
        parent=0,
        class_name="android.widget.TextView",
        text="Clock",
        content_desc="Clock",
        clickable=True,
        bounds_px=(100, 100, 300, 300),
    ),
    UINode(
        id=2,
        parent=0,
        class_name="android.widget.ImageButton",
        content_desc="Add alarm",
        clickable=True,
        bounds_px=(800, 1800, 950, 1950),
    ),
    UINode(
        id=3,
        parent=0,
        class_name="android.widget.ImageButton",
        resource_id="com.android.deskclock:id/fab",
        clickable=True,
        bounds_px=(600, 1800, 700, 1900),
    ),
    UINode(id=4, parent=0, class_name="android.widget.ImageView", bounds_px=(400, 500, 600, 700)),
    UINode(
        id=5,
        parent=0,
        class_name="android.widget.EditText",
        text="hel",
        hint="Search",
        editable=True,
        focused=True,
        bounds_px=(0, 300, 1000, 400),
    ),
    UINode(
        id=6,
        parent=0,
        class_name="androidx.recyclerview.widget.RecyclerView",
        content_desc="Alarms list",
        scrollable=True,
        bounds_px=(0, 400, 1000, 1800),
    ),
    UINode(
        id=7,
        parent=0,
        class_name="android.widget.EditText",
        text="09",
        resource_id="com.android.deskclock:id/input_hour",
        editable=True,
        bounds_px=(100, 800, 300, 900),
    ),
]
SEEN = Observation(step=0, screen=SCREEN, ui=NODES, backend=BackendInfo(kind="sim"))

CASES: list[tuple[Action, str]] = [
    (TapAction(target=Target.node(1)), 'tap "Clock"'),
    (TapAction(target=Target.node(2)), 'tap "Add alarm"'),
    (TapAction(target=Target.node(3)), "tap #fab"),
    (TapAction(target=Target.node(4)), "tap ImageView at (0.50, 0.30)"),
    (TapAction(target=Target.node(42)), "tap element 42 (not in the tree)"),
    (TapAction(target=Target.at(0.5005005005005005, 0.05)), "tap at (0.50, 0.05)"),
    (TapAction(target=Target.at(0.2, 0.1)), 'tap at (0.20, 0.10) on "Clock"'),
    (DoubleTapAction(target=Target.at(0.25, 0.75)), 'double tap at (0.25, 0.75) on "Alarms list"'),
    (DoubleTapAction(target=Target.node(1)), 'double tap "Clock"'),
    (LongPressAction(target=Target.node(1)), 'long press "Clock"'),
    (LongPressAction(target=Target.node(2), duration_ms=2500), 'long press "Add alarm" for 2.5 s'),
    (
        SwipeAction(start=Point(x=0.5, y=0.8), end=Point(x=0.5, y=0.2)),
        "swipe up from (0.50, 0.80) to (0.50, 0.20)",
    ),
    (
        SwipeAction(start=Point(x=0.9, y=0.5), end=Point(x=0.1, y=0.55)),
        "swipe left from (0.90, 0.50) to (0.10, 0.55)",
    ),
    (
        SwipeAction(start=Point(x=0.1, y=0.5), end=Point(x=0.8, y=0.4)),
        "swipe right from (0.10, 0.50) to (0.80, 0.40)",
    ),
    (
        SwipeAction(start=Point(x=0.5, y=0.1), end=Point(x=0.5, y=0.6)),
        "swipe down from (0.50, 0.10) to (0.50, 0.60)",
    ),
    (ScrollAction(direction="down", target=Target.node(6)), 'scroll down in "Alarms list"'),
    (ScrollAction(direction="up"), "scroll up"),
    (ScrollAction(direction="left", target=Target.at(0.5, 0.05)), "scroll left at (0.50, 0.05)"),
    (ScrollAction(direction="right", distance=0.8), "scroll right by 80%"),
    (
        TypeAction(text="hello", target=Target.node(5), clear=True, submit=True),
        'type "hello" into "Search", replacing the text, then Enter',
    ),
    (TypeAction(text="hi"), 'type "hi" into "Search"'),  # the focused field
    (
        TypeAction(text="18", target=Target.node(7), clear=True),
        'type "18" into #input_hour, replacing the text',
    ),
    (TypeAction(text='say "hi"\nbye'), 'type "say \\"hi\\"\\nbye" into "Search"'),
    (KeyAction(key="back"), "key back"),
    (KeyAction(key="volume_up"), "key volume up"),
    (OpenAppAction(app="clock"), "open app Clock"),
    (OpenAppAction(app="no_such_app"), "open app no_such_app"),
    (WaitAction(seconds=2), "wait 2 s"),
    (WaitAction(seconds=0.5), "wait 0.5 s"),
    (AnswerAction(fields={"name": "Alice", "count": 3}), 'answer name="Alice", count=3'),
    (AnswerAction(fields={"on": True, "ratio": 0.25}), "answer on=true, ratio=0.25"),
    (FinishAction(status="success", message="alarm set"), "finish (success): alarm set"),
    (FinishAction(status="infeasible"), "finish (infeasible)"),
]


@pytest.mark.parametrize(("action", "expected"), CASES, ids=[text for _, text in CASES])
def test_an_action_reads_as_a_person_says_it(action: Action, expected: str) -> None:
    assert describe_action(action, SEEN) == expected


def test_the_cases_cover_every_action_type_of_the_contract() -> None:
    union = typing.get_args(typing.get_args(Action)[0])
    contract = {model.model_fields["type"].default for model in union}
    assert contract == {action.type for action, _ in CASES}


def test_without_the_tree_an_element_is_its_id_and_a_point_stays_a_point() -> None:
    assert describe_action(TapAction(target=Target.node(1))) == "tap element 1 (not in the tree)"
    assert describe_action(TapAction(target=Target.at(0.2, 0.1))) == "tap at (0.20, 0.10)"
    assert describe_action(TypeAction(text="x")) == 'type "x"'


def test_the_node_the_step_result_touched_names_an_element_target() -> None:
    tap = TapAction(target=Target.node(9))
    ok = UINode(id=9, class_name="android.widget.Button", text="OK", bounds_px=(0, 0, 10, 10))
    executed = ExecutedAction(action=tap, point_px=(5.0, 5.0), element=ok)
    assert describe_action(tap, SEEN, executed) == 'tap "OK"'
    # a proposal that was not executed is named on the tree, not on what was touched instead
    other = TapAction(target=Target.node(1))
    assert describe_action(other, SEEN, executed) == 'tap "Clock"'


def test_a_label_is_clipped_on_one_line_and_a_place_without_a_screen_is_in_pixels() -> None:
    long = UINode(id=0, text="a very long\nlabel " * 6, bounds_px=(0, 0, 10, 10))
    label = element_label(long)
    assert label.startswith('"a very long label a very') and label.endswith('…"')
    assert "\n" not in label and len(label) == 40 + 2
    bare = UINode(id=1, class_name="android.view.View", bounds_px=(10, 20, 30, 60))
    assert element_label(bare) == "View at (20, 40) px"
    assert element_label(bare, SCREEN) == "View at (0.02, 0.02)"
