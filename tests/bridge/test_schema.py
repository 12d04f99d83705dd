"""The contract rejects bad input with errors that name the field, and round-trips JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from bridge import schema
from bridge.jsonschema import json_schemas
from bridge.records import EpisodeRecord, TaskInstance
from bridge.schema import (
    BackendInfo,
    CheckResult,
    Observation,
    PolicyOutput,
    Screenshot,
    ScreenSpec,
    Target,
    UINode,
    UIStatus,
    Verdict,
    parse_action,
)

REPO = Path(__file__).resolve().parents[2]
SCREEN = ScreenSpec(width_px=1080, height_px=2400, density_dpi=440)
BACKEND = BackendInfo(kind="sim")


def _error_locations(exc: ValidationError) -> list[str]:
    return [".".join(str(part) for part in error["loc"]) for error in exc.errors()]


@pytest.mark.parametrize(
    ("data", "location", "fragment"),
    [
        ({"type": "tap", "target": {"point": {"x": 1.2, "y": 0.5}}}, "tap.target.point.x", "1"),
        ({"type": "tap", "target": {"point": {"x": 0.5, "y": -0.1}}}, "tap.target.point.y", "0"),
        (
            {"type": "tap", "target": {"point": {"x": 0.5, "y": 0.5}, "element": 3}},
            "tap.target",
            "both point and element",
        ),
        ({"type": "tap", "target": {}}, "tap.target", "neither"),
        ({"type": "teleport"}, "", "'teleport'"),
        ({"type": "type", "text": ""}, "type.text", "at least 1"),
        ({"type": "long_press", "target": {"element": 1}, "duration_ms": -5}, "", "greater"),
        (
            {"type": "swipe", "start": {"x": 0, "y": 0}, "end": {"x": 1, "y": 1}, "duration_ms": 0},
            "swipe.duration_ms",
            "greater than 0",
        ),
        ({"type": "wait", "seconds": -1}, "wait.seconds", "greater than 0"),
        ({"type": "scroll", "direction": "sideways"}, "scroll.direction", "up"),
        ({"type": "key", "key": "menu"}, "key.key", "back"),
        ({"type": "answer", "fields": {}}, "answer.fields", "at least 1"),
        ({"type": "tap", "target": {"element": 1}, "force": 3}, "tap.force", "Extra inputs"),
        ({"type": "tap", "target": {"point": {"x": float("nan"), "y": 0.1}}}, "x", "finite"),
    ],
)
def test_bad_actions_name_the_field(data: dict, location: str, fragment: str) -> None:
    with pytest.raises(ValidationError) as info:
        parse_action(data)
    locations = _error_locations(info.value)
    assert any(location in loc for loc in locations), locations
    assert fragment in str(info.value)


def test_every_action_type_round_trips_through_json() -> None:
    actions = [
        {"type": "tap", "target": {"point": {"x": 0.25, "y": 0.75}}},
        {"type": "double_tap", "target": {"element": 4}},
        {"type": "long_press", "target": {"element": 0}, "duration_ms": 1500},
        {"type": "swipe", "start": {"x": 0.5, "y": 0.8}, "end": {"x": 0.5, "y": 0.2}},
        {"type": "scroll", "direction": "down", "target": {"element": 2}, "distance": 0.8},
        {"type": "type", "text": '张伟 👋 "quoted"', "clear": True, "submit": True},
        {"type": "key", "key": "volume_down"},
        {"type": "open_app", "app": "contacts"},
        {"type": "wait", "seconds": 2.5},
        {"type": "answer", "fields": {"count": 3, "name": "李娜", "ok": True, "t": 1.5}},
        {"type": "finish", "status": "infeasible", "message": "no such contact"},
    ]
    seen = set()
    for data in actions:
        action = parse_action(data)
        seen.add(action.type)
        assert parse_action(action.model_dump_json()) == action
    assert seen == {a["type"] for a in actions} and len(seen) == 11


def test_answer_values_keep_their_types() -> None:
    action = parse_action({"type": "answer", "fields": {"n": 3, "b": True, "s": "3", "f": 0.5}})
    assert action.fields == {"n": 3, "b": True, "s": "3", "f": 0.5}
    assert [type(v) for v in action.fields.values()] == [int, bool, str, float]


def test_scroll_and_type_defaults_are_explicit() -> None:
    scroll = parse_action({"type": "scroll", "direction": "down"})
    typed = parse_action({"type": "type", "text": "hi"})
    assert (scroll.target, scroll.distance) == (None, 0.5)
    assert (typed.clear, typed.submit) == (False, False)


def test_target_helpers_and_immutability() -> None:
    target = Target.at(0.1, 0.9)
    assert target.point is not None and target.point.y == 0.9 and target.element is None
    assert Target.node(7).element == 7
    with pytest.raises(ValidationError):
        target.element = 3  # type: ignore[misc]


def _node(node_id: int, parent: int | None = None, **fields: object) -> UINode:
    return UINode(id=node_id, parent=parent, bounds_px=(0, 0, 1080, 2400), **fields)


def test_observation_refuses_a_silently_empty_tree() -> None:
    with pytest.raises(ValidationError, match="ui is empty but ui_status is 'ok'"):
        Observation(step=0, screen=SCREEN, backend=BACKEND)
    obs = Observation(step=0, screen=SCREEN, backend=BACKEND, ui_status=UIStatus.IDLE_TIMEOUT)
    assert obs.ui == [] and obs.ui_status == "idle_timeout"


def test_observation_checks_ids_and_parents() -> None:
    with pytest.raises(ValidationError, match=r"ui\[1\] has id 5"):
        Observation(step=0, screen=SCREEN, backend=BACKEND, ui=[_node(0), _node(5, 0)])
    with pytest.raises(ValidationError, match="not an earlier node"):
        Observation(step=0, screen=SCREEN, backend=BACKEND, ui=[_node(0, 1), _node(1)])
    obs = Observation(step=0, screen=SCREEN, backend=BACKEND, ui=[_node(0), _node(1, 0)])
    assert obs.node(1) is not None and obs.node(1).parent == 0 and obs.node(2) is None


def test_observation_round_trips_with_screenshot_bytes() -> None:
    shot = Screenshot(format="png", width=2, height=2, data=b"\x89PNG\r\n\x1a\n\x00\xff")
    obs = Observation(
        step=3,
        screenshot=shot,
        screen=SCREEN,
        ui=[_node(0, text="通讯录", clickable=True, extra={"NAF": "true"})],
        backend=BackendInfo(kind="device", model="23049RAD8C", android_version="14"),
    )
    text = obs.model_dump_json()
    assert json.loads(text)["screenshot"]["data"] == "iVBORw0KGgoA/w=="
    assert Observation.model_validate_json(text) == obs


def test_uinode_geometry() -> None:
    node = UINode(id=0, bounds_px=(100, 200, 300, 260))
    assert node.center_px == (200.0, 230.0) and node.area_px == 200 * 60
    assert UINode(id=1, bounds_px=(5, 5, 5, 9)).area_px == 0


def test_verdict_from_checks_and_consistency() -> None:
    checks = [
        CheckResult(name="wifi_off", expected=False, actual=False, passed=True),
        CheckResult(name="bt_on", expected=True, actual=False, passed=False),
    ]
    verdict = Verdict.from_checks(checks)
    assert (verdict.success, verdict.progress) == (False, 0.5)
    assert Verdict.from_checks([]).success is False
    with pytest.raises(ValidationError, match=r"checks failed: \['bt_on'\]"):
        Verdict(success=True, progress=1.0, checks=checks)
    with pytest.raises(ValidationError, match="progress"):
        Verdict(success=False, progress=1.5)


def test_policy_output_without_action_needs_a_reason() -> None:
    with pytest.raises(ValidationError, match="must say why"):
        PolicyOutput(action=None, raw_text="blah")
    out = PolicyOutput(action=None, raw_text="blah", error="no <tool_call> block")
    assert out.action is None


def test_answer_field_choices() -> None:
    with pytest.raises(ValidationError, match="choices"):
        schema.AnswerField(name="city", kind="choice")
    with pytest.raises(ValidationError, match="choices"):
        schema.AnswerField(name="n", kind="number", choices=["1"])


def test_episode_record_outcome_must_match_verdict() -> None:
    task = TaskInstance(task_id="settings/TurnOffWifi-v1", instruction="Turn off Wi-Fi")
    good = Verdict.from_checks([CheckResult(name="wifi", passed=True)])
    common = {"episode_id": "e1", "task": task, "policy": "scripted", "backend": BACKEND}
    record = EpisodeRecord(**common, outcome="success", termination="finish", verdict=good, steps=3)
    assert EpisodeRecord.model_validate_json(record.model_dump_json()) == record
    with pytest.raises(ValidationError, match="disagrees"):
        EpisodeRecord(**common, outcome="failure", termination="finish", verdict=good, steps=3)
    with pytest.raises(ValidationError, match="must carry the error"):
        EpisodeRecord(**common, outcome="infra_error", termination="infra_error", steps=1)
    with pytest.raises(ValidationError, match="needs a verdict"):
        EpisodeRecord(**common, outcome="failure", termination="max_steps", steps=30)


def test_top_level_records_carry_schema_version() -> None:
    for stem, text in json_schemas().items():
        document = json.loads(text)
        if stem.startswith(("action", "policy_output")):
            continue
        assert "schema_version" in document["properties"], stem


def test_checked_in_json_schemas_are_current() -> None:
    directory = REPO / "docs" / "schema"
    expected = json_schemas()
    on_disk = {p.name: p.read_text(encoding="utf-8") for p in directory.glob("*.schema.json")}
    stale = sorted(name for name in expected if on_disk.get(name) != expected[name])
    extra = sorted(set(on_disk) - set(expected))
    assert not stale and not extra, (
        f"docs/schema is stale ({stale}) or has unknown files ({extra}): run `mgb schema`"
    )


def test_screenshot_base64_is_standard_and_validated() -> None:
    shot = Screenshot(format="jpeg", width=1, height=1, data=b"\xfb\xff\xfe")
    assert shot.model_dump(mode="json")["data"] == "+//+"
    assert shot.data_url == "data:image/jpeg;base64,+//+"
    assert (
        Screenshot.model_validate({"format": "jpeg", "width": 1, "height": 1, "data": "+//+"})
        == shot
    )
    with pytest.raises(ValidationError, match="not valid base64"):
        Screenshot.model_validate({"format": "png", "width": 1, "height": 1, "data": "***"})


def test_a_guard_decides_success_but_is_no_step_of_progress() -> None:
    goal = CheckResult(name="starred", passed=True)
    kept = CheckResult(name="source kept", passed=True, guard=True)
    broken = kept.model_copy(update={"passed": False})
    assert Verdict.from_checks([goal, kept]).progress == 1.0
    assert Verdict.from_checks([goal.model_copy(update={"passed": False}), kept]).progress == 0.0
    verdict = Verdict.from_checks([goal, broken])
    assert not verdict.success and verdict.progress == 1.0
    assert not Verdict.from_checks([kept]).success  # guards alone are no goal
