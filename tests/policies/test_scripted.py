"""The plan executor on hand-built observations: finding nodes, scrolling, giving up."""

from __future__ import annotations

import pytest

from bridge.plans import (
    AnswerStep,
    NoteStep,
    OpenAppStep,
    Recall,
    Selector,
    SwitchStep,
    TapStep,
    TypeStep,
)
from bridge.schema import BackendInfo, Observation, PolicyContext, ScreenSpec, UINode
from policies.scripted import PlanPolicy

SCREEN = ScreenSpec(width_px=1080, height_px=2400)


def _obs(*nodes: UINode) -> Observation:
    return Observation(step=0, screen=SCREEN, ui=list(nodes), backend=BackendInfo(kind="sim"))


def _list(*texts: str, first: int = 1) -> list[UINode]:
    nodes = [
        UINode(
            id=0,
            class_name="androidx.recyclerview.widget.RecyclerView",
            bounds_px=(0, 200, 1080, 2200),
            scrollable=True,
        )
    ]
    for offset, text in enumerate(texts):
        top = 200 + offset * 150
        nodes.append(
            UINode(
                id=len(nodes),
                parent=0,
                class_name="android.widget.TextView",
                text=text,
                resource_id="com.android.settings:id/title",
                bounds_px=(0, top, 1080, top + 150),
                clickable=True,
            )
        )
    return nodes


@pytest.mark.asyncio
async def test_taps_the_matching_node_then_finishes() -> None:
    policy = PlanPolicy([OpenAppStep(app="settings"), TapStep(on=Selector(text="Display"))])
    await policy.reset("Open display settings", PolicyContext())
    first = await policy.act(_obs(*_list("Wi-Fi")))
    assert first.action is not None and first.action.type == "open_app"
    second = await policy.act(_obs(*_list("Wi-Fi", "Display")))
    assert second.action is not None and second.action.type == "tap"
    assert second.action.target.element == 2
    third = await policy.act(_obs(*_list("Wi-Fi", "Display")))
    assert third.action is not None and third.action.type == "finish"


@pytest.mark.asyncio
async def test_scrolls_down_then_up_to_find_and_gives_up_when_the_list_stops() -> None:
    policy = PlanPolicy([TapStep(on=Selector(text="About phone"))])
    await policy.reset("x", PolicyContext())
    screen = _obs(*_list("Wi-Fi", "Display"))
    out = await policy.act(screen)
    assert out.action is not None and out.action.type == "scroll"
    assert out.action.direction == "down" and out.action.target.element == 0
    up = await policy.act(screen)  # nothing moved: the end of the list; look above
    assert up.action is not None and up.action.type == "scroll" and up.action.direction == "up"
    stuck = await policy.act(screen)  # nothing moved up either: it is not in the list
    assert stuck.action is not None and stuck.action.type == "finish"
    assert stuck.action.status == "abort" and "About phone" in (stuck.action.message or "")


@pytest.mark.asyncio
async def test_a_node_scrolled_past_is_found_above() -> None:
    policy = PlanPolicy([TapStep(on=Selector(text="Sound"))])
    await policy.reset("x", PolicyContext())
    bottom = _obs(*_list("Languages", "About phone"))
    scrolls = [(await policy.act(bottom)).action for _ in range(2)]
    assert [getattr(a, "direction", None) for a in scrolls] == ["down", "up"]
    found = await policy.act(_obs(*_list("Sound", "Languages")))
    assert found.action is not None and found.action.type == "tap"


@pytest.mark.asyncio
async def test_type_into_a_field_and_answer() -> None:
    field = UINode(
        id=1,
        parent=0,
        class_name="android.widget.EditText",
        hint="Name",
        bounds_px=(0, 300, 1080, 420),
        editable=True,
    )
    root = UINode(id=0, class_name="android.widget.FrameLayout", bounds_px=(0, 0, 1080, 2400))
    policy = PlanPolicy(
        [TypeStep(text="张伟", into=Selector(hint="Name")), AnswerStep(fields={"n": 3})]
    )
    await policy.reset("x", PolicyContext())
    typed = await policy.act(_obs(root, field))
    assert typed.action is not None and typed.action.type == "type"
    assert typed.action.target.element == 1 and typed.action.clear
    answered = await policy.act(_obs(root, field))
    assert answered.action is not None and answered.action.type == "answer"


@pytest.mark.asyncio
async def test_tap_at_a_relative_position() -> None:
    slider = UINode(
        id=1,
        parent=0,
        class_name="android.widget.SeekBar",
        bounds_px=(100, 1000, 1000, 1100),
        clickable=True,
    )
    root = UINode(id=0, class_name="android.widget.FrameLayout", bounds_px=(0, 0, 1080, 2400))
    policy = PlanPolicy([TapStep(on=Selector(class_name="SeekBar"), at=(1.0, 0.5))])
    await policy.reset("x", PolicyContext())
    out = await policy.act(_obs(root, slider))
    point = out.action.target.point
    assert point is not None and point.x == pytest.approx(999 / 1080) and point.y > 1000 / 2400


def test_selector_needs_a_field() -> None:
    with pytest.raises(ValueError, match="at least one"):
        Selector()


def _row(node_id: int, text: str, rid: str, top: int) -> UINode:
    return UINode(
        id=node_id,
        parent=0,
        class_name="android.widget.TextView",
        text=text,
        resource_id=f"com.android.contacts:id/{rid}",
        bounds_px=(0, top, 1080, top + 100),
    )


def _contacts_screen(*rows: tuple[str, str]) -> Observation:
    root = UINode(id=0, class_name="android.widget.FrameLayout", bounds_px=(0, 0, 1080, 2400))
    nodes = [_row(i, text, rid, 100 * i) for i, (text, rid) in enumerate(rows, start=1)]
    return _obs(root, *nodes)


FAVORITES = Selector(resource_id="section_title", text="Favorites")
HEADER = Selector(resource_id="section_title")


@pytest.mark.asyncio
async def test_answers_read_from_the_screen_replace_the_predicted_ones() -> None:
    """A query oracle counts what the phone shows, not what the simulator predicted."""
    start = _contacts_screen(
        ("Contacts", "title"),
        ("Favorites", "section_title"),
        ("Ann Lee", "title"),
        ("Bo Li", "title"),
        ("Cy Lee", "title"),
        ("A", "section_title"),
        ("Al Ng", "title"),
    )
    found = _contacts_screen(
        ("2 found", "section_title"), ("Ann Lee", "title"), ("Di Lee", "title")
    )
    policy = PlanPolicy(
        [
            NoteStep(key="fav", rows=Selector(resource_id="title"), after=FAVORITES, until=HEADER),
            TypeStep(text="Lee"),
            NoteStep(key="found", rows=Selector(resource_id="title"), after=HEADER, until=HEADER),
            AnswerStep(
                fields={"count": 99, "favorites": 99, "first": "x"},
                read={
                    "count": Recall(key="found"),
                    "favorites": Recall(key="found", among="fav"),
                    "first": Recall(key="fav", op="text"),
                },
            ),
        ]
    )
    await policy.reset("x", PolicyContext())
    typed = await policy.act(start)
    assert typed.action is not None and typed.action.type == "type"
    answered = await policy.act(found)
    assert answered.action is not None and answered.action.type == "answer"
    assert answered.action.fields == {"count": 2, "favorites": 1, "first": "Ann Lee"}


def test_a_note_without_its_section_notes_nothing_and_numbers_are_parsed() -> None:
    note = NoteStep(key="k", rows=Selector(resource_id="title"), after=FAVORITES, until=HEADER)
    screen = _contacts_screen(("A", "section_title"), ("Al Ng", "title"))
    assert note.collect(screen.ui) == []
    assert Recall(key="k").value({"k": []}) == 0
    assert Recall(key="k", op="text").value({}) == ""
    assert Recall(key="k", op="number").value({"k": ["Android 14", "x"]}) == 14
    assert Recall(key="k", op="number").value({"k": ["v2.5"]}) == 2.5


def _switch_row(rid: str, checked: bool, first: int = 0) -> list[UINode]:
    """A settings row ``rid`` (not checkable) whose switch widget, a grandchild, is."""
    return [
        UINode(id=first, resource_id=rid, bounds_px=(0, 300, 1080, 450), clickable=True),
        UINode(id=first + 1, parent=first, class_name="android.widget.LinearLayout",
               bounds_px=(900, 300, 1080, 450)),
        UINode(id=first + 2, parent=first + 1, class_name="android.widget.Switch",
               resource_id="android:id/switch_widget", bounds_px=(920, 340, 1040, 410),
               checkable=True, checked=checked),
    ]  # fmt: skip


@pytest.mark.asyncio
@pytest.mark.parametrize("checked", [True, False])
async def test_a_switch_step_taps_only_a_switch_in_the_other_state(checked: bool) -> None:
    step = SwitchStep(on=Selector(resource_id="silent_mode"), to=True)
    policy = PlanPolicy([step])
    await policy.reset("Silent mode on", PolicyContext())
    output = await policy.act(_obs(*_switch_row("silent_mode", checked)))
    assert output.action is not None
    assert output.action.type == ("finish" if checked else "tap")  # already on: nothing
    assert step.state(_switch_row("silent_mode", checked)) is checked


@pytest.mark.asyncio
async def test_a_switch_step_on_a_row_without_a_switch_gives_up_saying_so() -> None:
    policy = PlanPolicy([SwitchStep(on=Selector(text="Wi-Fi"), to=False)])
    await policy.reset("Wi-Fi off", PolicyContext())
    output = await policy.act(_obs(*_list("Wi-Fi")))
    assert output.action is not None and output.action.type == "finish"
    assert output.action.status == "abort" and "holds no switch" in (output.action.message or "")
