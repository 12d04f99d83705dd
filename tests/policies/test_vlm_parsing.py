"""The VLM adapters' parsers on the 46 real model outputs of tests/fixtures/model_outputs.

Each sample is parsed by the adapter of its family with its screen size, and compared with
the sample's human reading (``expected``): the action type, the points after converting both
sides to normalized screen coordinates (the sample's ``coord_convention`` for ``expected``,
the adapter's convention for ours), and the text. Samples marked malformed, desktop actions
without a mobile equivalent, and points outside the model's grid must give ``action=None``
with a clear error. Per-adapter counts make a regression visible.

Where ``screen_size`` is null the screen is unknown; the test assumes :data:`ASSUMED_SCREEN`
(most such samples are desktop/web outputs) for both sides, so the check is of the parser's
arithmetic, not of the unknown screen.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from bridge.actions import Action, Point
from bridge.coords import smart_resize
from bridge.schema import (
    BackendInfo,
    Observation,
    PolicyContext,
    Screenshot,
    ScreenSpec,
    UINode,
    UIStatus,
)
from policies.vlm.adapter import Adapter, ParsedOutput
from policies.vlm.apps import resolve_app
from policies.vlm.base import ADAPTERS

SAMPLES = Path(__file__).resolve().parents[1] / "fixtures" / "model_outputs" / "samples.jsonl"
ASSUMED_SCREEN = (1920, 1080)
TOLERANCE = 0.002  # normalized; covers the 999-vs-1000 grid difference of AutoGLM readings

EXPECTED_TYPES = {
    "click": "tap", "Tap": "tap", "left_click": "tap",
    "type": "type", "Type": "type", "Input": "type",
    "scroll": "scroll", "drag": "swipe", "finished": "finish", "terminate": "finish",
    "Launch": "open_app",
}  # fmt: skip
"""Expected readings' action names -> our action types (hotkey and None are invalid)."""


# --------------------------------------------------------------------------- helpers


@cache
def samples() -> tuple[dict[str, Any], ...]:
    """The samples, in file order."""
    lines = SAMPLES.read_text(encoding="utf-8").splitlines()
    return tuple(json.loads(line) for line in lines if line.strip())


def sample(sample_id: str) -> dict[str, Any]:
    """One sample by id."""
    return next(s for s in samples() if s["id"] == sample_id)


def observation(
    width: int = 1080,
    height: int = 2400,
    *,
    shade: int = 0,
    ui: list[UINode] | None = None,
    app: str | None = None,
    error: str | None = None,
) -> Observation:
    """An observation with a real JPEG screenshot of ``width x height`` (``shade`` varies it)."""
    ok, jpeg = cv2.imencode(".jpg", np.full((height, width, 3), shade, dtype=np.uint8))
    assert ok
    shot = Screenshot(format="jpeg", width=width, height=height, data=jpeg.tobytes())
    return Observation(
        step=0,
        screenshot=shot,
        screen=ScreenSpec(width_px=width, height_px=height),
        ui=ui or [],
        ui_status=UIStatus.OK if ui else UIStatus.UNAVAILABLE,
        foreground={"app": app},
        last_action_error=error,
        backend=BackendInfo(kind="sim"),
    )


def screen_of(item: dict[str, Any]) -> tuple[int, int]:
    """The sample's screen (width, height) in pixels."""
    size = item["screen_size"] or {}
    for key in ("original", "emulator_profile", "input_image", "test_assumed"):
        if key in size:
            return size[key][0], size[key][1]
    if "viewport" in size:
        dpr = size.get("dpr", 1)
        return round(size["viewport"][0] * dpr), round(size["viewport"][1] * dpr)
    if "model_input_resized" in size:  # multiples of 28: smart_resize is the identity
        return size["model_input_resized"][0], size["model_input_resized"][1]
    return ASSUMED_SCREEN


def convention(item: dict[str, Any]) -> str:
    """The sample's coordinate convention: grid999, grid1000, resized, grid_or_pixels, none."""
    text = item["coord_convention"]
    if text.startswith("n/a"):
        return "none"
    if any(word in text for word in ("ambiguous", "suggests absolute", "exceed bounds")):
        return "grid_or_pixels"
    if "0-999" in text:
        return "grid999"
    if "0-1000" in text or "factor-based relative" in text:
        return "grid1000"
    if "absolute pixels" in text and ("smart_resize" in text or "resized" in text):
        return "resized"
    raise AssertionError(f"{item['id']}: unclassified coord_convention {text!r}")


def route(item: dict[str, Any]) -> tuple[str, dict[str, object]]:
    """The adapter (and options) that reads the sample's family and convention."""
    family, kind = item["family"], convention(item)
    if family == "qwen_mobile_use":
        return ("qwen25vl" if "Qwen2.5-VL" in item["model"] else "qwen3vl"), {}
    if family == "ui_tars":
        return "uitars15", {} if kind == "resized" else {"relative1000": True}
    if family == "gui_owl":
        return "guiowl", {"version": "v3"} if kind == "resized" else {}
    if family == "autoglm":
        return "autoglm", {}
    if family == "mai_ui":
        return "maiui", {}
    return "generic", {}


def parse(item: dict[str, Any], **extra: object) -> ParsedOutput:
    """The sample parsed by its adapter on its screen."""
    name, options = route(item)
    adapter: Adapter = ADAPTERS[name](**{**options, **extra})
    return adapter.parse(item["raw"], observation(*screen_of(item)))


def expected_points(item: dict[str, Any], *, pixels: bool = False) -> list[tuple[float, float]]:
    """The expected points, normalized with the sample's convention (``pixels``: read as
    screen pixels, the harness reading of out-of-grid values)."""
    coords = item["expected"]["coords"]
    if coords is None:
        return []
    raw = [tuple(p) for p in coords] if isinstance(coords[0], list) else [_centre(coords)]
    width, height = screen_of(item)
    kind = convention(item)
    if pixels:
        extent = (width, height)
    elif kind in ("grid999", "grid1000", "grid_or_pixels"):
        scale = 999 if kind == "grid999" else 1000
        extent = (scale, scale)
    else:
        resized = (item["screen_size"] or {}).get("model_input_resized")
        frame = smart_resize(height, width, 28, 100 * 28 * 28, 16384 * 28 * 28)
        extent = tuple(resized) if resized else (frame.width, frame.height)
    return [(x / extent[0], y / extent[1]) for x, y in raw]


def _centre(values: list[float]) -> tuple[float, float]:
    if len(values) == 4:
        return (values[0] + values[2]) / 2, (values[1] + values[3]) / 2
    return values[0], values[1]


def action_points(action: Action) -> list[Point]:
    """The normalized points an action carries."""
    if action.type == "swipe":
        return [action.start, action.end]
    target = getattr(action, "target", None)
    return [target.point] if target is not None and target.point is not None else []


def out_of_grid(item: dict[str, Any]) -> bool:
    """Whether the expected reading has values beyond a 0-1000 grid."""
    coords = item["expected"]["coords"] or []
    flat = [v for c in coords for v in (c if isinstance(c, list) else [c])]
    return convention(item) == "grid_or_pixels" and any(v > 1000 for v in flat)


def assert_matches(item: dict[str, Any], parsed: ParsedOutput, *, pixels: bool = False) -> None:
    """The parsed action agrees with the expected reading."""
    expected = item["expected"]
    assert parsed.action is not None, f"{item['id']}: {parsed.error}"
    assert parsed.error is None
    assert parsed.action.type == EXPECTED_TYPES[expected["type"]], item["id"]
    points = action_points(parsed.action)
    wanted = expected_points(item, pixels=pixels)
    if parsed.action.type == "scroll" and not wanted:
        points = []  # uitars-002: scroll without a start point; the reading has none either
    for got, (x, y) in zip(points, wanted, strict=True):
        assert math.isclose(got.x, x, abs_tol=TOLERANCE), (item["id"], got, x)
        assert math.isclose(got.y, y, abs_tol=TOLERANCE), (item["id"], got, y)
    _assert_text(item, parsed.action)


def _assert_text(item: dict[str, Any], action: Action) -> None:
    expected, other = item["expected"], item["expected"]["other"]
    if action.type == "type":
        wanted = expected["text"].replace("\\n", "\n")
        assert action.text + ("\n" if action.submit else "") == wanted, item["id"]
    elif action.type == "open_app":
        assert action.app == resolve_app(expected["text"]), item["id"]
    elif action.type == "finish":
        assert action.message == expected["text"], item["id"]
        assert action.status == other.get("status", "success"), item["id"]
    elif action.type == "scroll":
        assert action.direction == other["direction"], item["id"]


# --------------------------------------------------------------------------- the samples

ADAPTER_FAMILIES = ("qwen_mobile_use", "ui_tars", "autoglm", "gui_owl")


def test_the_fixture_is_the_documented_one() -> None:
    families = Counter(item["family"] for item in samples())
    assert len(samples()) == 50
    assert families == {"autoglm": 8, "gui_owl": 8, "mai_ui": 4, "other": 3,
                        "qwen_mobile_use": 3, "ui_tars": 24}  # fmt: skip


@pytest.mark.parametrize(
    "sample_id", [s["id"] for s in samples() if s["family"] in ADAPTER_FAMILIES]
)
def test_sample_reads_as_expected(sample_id: str) -> None:
    item = sample(sample_id)
    expected = item["expected"]
    parsed = parse(item)
    if "malformed" in expected["other"] or expected["type"] is None:
        assert parsed.action is None and parsed.error, (sample_id, parsed)
    elif expected["type"] == "hotkey":
        assert parsed.action is None and "no mobile equivalent" in (parsed.error or "")
    elif out_of_grid(item):
        assert parsed.action is None and "outside the model's 0-1000 grid" in (parsed.error or "")
    else:
        assert_matches(item, parsed)


@pytest.mark.parametrize("sample_id", ["autoglm-011", "owl-006", "owl-007"])
def test_out_of_grid_points_read_as_pixels_when_asked(sample_id: str) -> None:
    item = sample(sample_id)
    assert out_of_grid(item)
    assert_matches(item, parse(item, out_of_range="pixels"), pixels=True)


def test_per_adapter_counts() -> None:
    """How many samples each adapter reads into an action (the rest: invalid, with reason)."""
    read, seen = Counter[str](), Counter[str]()
    for item in samples():
        name, _ = route(item)
        seen[name] += 1
        read[name] += parse(item).action is not None
    assert seen == {"uitars15": 24, "autoglm": 8, "guiowl": 8, "generic": 3, "qwen25vl": 2,
                    "qwen3vl": 1, "maiui": 4}  # fmt: skip
    assert read == {"uitars15": 22, "autoglm": 4, "guiowl": 5, "generic": 0, "qwen25vl": 2,
                    "qwen3vl": 1, "maiui": 2}  # fmt: skip


def test_other_family_is_refused_by_the_generic_adapter() -> None:
    """Midscene planning JSON is not our schema: a clear refusal, never a guess."""
    errors = [parse(item).error or "" for item in samples() if item["family"] == "other"]
    assert len(errors) == 3
    assert "Input tag 'Tap'" in errors[0] and "Input tag 'Input'" in errors[1]
    assert 'no "action"' in errors[2]


# --------------------------------------------------------------------------- edge cases


def test_uitars_edge_cases_of_the_samples() -> None:
    thought_has_a_call = parse(sample("uitars-002"))
    assert thought_has_a_call.action is not None and thought_has_a_call.action.type == "scroll"
    assert thought_has_a_call.thought == "swipe(start_box='(693,685)', end_box='(724,300)')"
    assert parse(sample("uitars-014")).action.type == "tap"  # first of six calls
    assert parse(sample("uitars-008")).action.type == "type"  # the last Action: line
    summary = parse(sample("uitars-003")).thought or ""
    assert summary.startswith("左键单击")
    assert "no 'Action:'" in (parse(sample("uitars-007")).error or "")
    odd_think = parse(sample("uitars-013"))
    assert (odd_think.thought or "").startswith("Hmm, the previous action")


def test_qwen_and_owl_prose_is_kept() -> None:
    qwen = parse(sample("qwen-004"))
    assert qwen.thought and qwen.thought.startswith("To search for Musk")
    assert qwen.summary == "I tapped on the search bar to begin searching for Musk."
    owl = parse(sample("owl-001"))
    assert owl.summary == "Typed 'mPLUG-Owl3' into the search bar"
    assert owl.thought and owl.thought.startswith("Observation:")
    assert "not valid JSON" in (parse(sample("owl-009")).error or "")


def test_uitars_grammar_beyond_the_samples() -> None:
    adapter = ADAPTERS["uitars15"](relative1000=True)
    obs = observation()

    def read(text: str) -> Action | None:
        return adapter.parse(text, obs).action

    assert read("Action: hotkey(key='enter')").type == "key"
    assert read("Action: type(content='it's done')").text == "it's done"
    press = read("Action: long_press(start_box='<|box_start|>(10,20)<|box_end|>', time='2')")
    assert press.type == "long_press" and press.duration_ms == 2000
    assert read("Action: open_app(app_name='Settings')").app == "settings"
    assert read("Action: press_back()").key == "back"
    swipe = read("Action: scroll(start_box='(500,800)', end_box='(500,200)')")
    assert swipe.type == "swipe" and swipe.end.y == pytest.approx(0.2)
    finger = ADAPTERS["uitars15"](relative1000=True, scroll_semantics="finger")
    assert finger.parse("Action: scroll(direction='up')", obs).action.direction == "down"
    assert "desktop action" in (adapter.parse("Action: right_single(start_box='(1,1)')", obs)
                                .error or "")  # fmt: skip


def test_answers_follow_the_task_answer_fields() -> None:
    from bridge.schema import AnswerField

    one = PolicyContext(answer_fields=[AnswerField(name="count", kind="number")])
    qwen = ADAPTERS["qwen3vl"]()
    call = '<tool_call>{"name": "mobile_use", "arguments": {"action": "answer", "text": "3"}}'
    answer = qwen.parse(call + "</tool_call>", observation(), one).action
    assert answer.type == "answer" and answer.fields == {"count": "3"}
    finished = ADAPTERS["uitars15"]().parse("Action: finished(content='7')", observation(), one)
    assert finished.action.type == "answer" and finished.action.fields == {"count": "7"}
    plain = qwen.parse(call, observation(), PolicyContext()).action
    assert plain.type == "finish" and plain.message == "3"


@pytest.mark.parametrize(
    ("raw", "kind"),
    [
        ('do(action="Swipe", start=[500,800], end=[500,200])', "swipe"),
        ('do(action="Type", text="say "hi"")', "type"),
        ('do(action="Take_over", message="login")', "finish"),
        ('do(action="Wait", duration="3 seconds")', "wait"),
        ('finish(message="done")', "finish"),
    ],
)
def test_autoglm_commands(raw: str, kind: str) -> None:
    parsed = ADAPTERS["autoglm"]().parse(f"<think>t</think><answer>{raw}</answer>", observation())
    assert parsed.action is not None and parsed.action.type == kind, parsed.error


def test_autoglm_refuses_agent_internal_commands() -> None:
    parsed = ADAPTERS["autoglm"]().parse('do(action="Note", message="True")', observation())
    assert parsed.action is None and "not supported" in (parsed.error or "")


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"action": "system_button", "button": "Back"}, {"type": "key", "key": "back"}),
        ({"action": "system_button", "button": "Enter"}, {"type": "key", "key": "enter"}),
        ({"action": "open", "text": "设置"}, {"type": "open_app", "app": "settings"}),
        ({"action": "open", "text": "Contacts"}, {"type": "open_app", "app": "contacts"}),
        ({"action": "open", "text": "答题卡"}, {"type": "open_app", "app": "answersheet"}),
        ({"action": "open", "text": "Google Maps"}, {"type": "open_app", "app": "google_maps"}),
        ({"action": "key", "text": "volume_up"}, {"type": "key", "key": "volume_up"}),
        ({"action": "wait", "time": 3}, {"type": "wait", "seconds": 3.0}),
        ({"action": "terminate", "status": "failure"}, {"type": "finish", "status": "infeasible"}),
        ({"action": "type", "text": "hi\n"}, {"type": "type", "text": "hi", "submit": True}),
        (
            {"action": "swipe", "coordinate": [500, 800], "coordinate2": [500, 200]},
            {"type": "swipe", "start": {"x": 0.5, "y": 0.8}, "end": {"x": 0.5, "y": 0.2}},
        ),
        (
            {"action": "long_press", "coordinate": ["250", "500"], "time": 2},
            {"type": "long_press", "target": {"point": {"x": 0.25, "y": 0.5}}, "duration_ms": 2000},
        ),
    ],
)
def test_mobile_use_arguments(arguments: dict[str, object], expected: dict[str, object]) -> None:
    call = json.dumps({"name": "mobile_use", "arguments": arguments}, ensure_ascii=False)
    parsed = ADAPTERS["qwen3vl"](scale=1000).parse(f"<tool_call>{call}</tool_call>", observation())
    assert parsed.action is not None, parsed.error
    dumped = parsed.action.model_dump(exclude_none=True)
    assert {key: dumped[key] for key in expected} == expected


@pytest.mark.parametrize(
    ("arguments", "reason"),
    [
        ({"action": "system_button", "button": "Menu"}, "Menu has no equivalent"),
        ({"action": "key", "text": "camera"}, "no mobile equivalent"),
        ({"action": "click"}, "click needs 'coordinate'"),
        ({"action": "click", "coordinate": [1200, 10]}, "outside the model's 0-999 grid"),
        ({"action": "fly"}, "action 'fly' is not available"),
    ],
)
def test_mobile_use_refusals(arguments: dict[str, object], reason: str) -> None:
    call = json.dumps({"name": "mobile_use", "arguments": arguments})
    parsed = ADAPTERS["qwen3vl"]().parse(f"<tool_call>{call}</tool_call>", observation())
    assert parsed.action is None and reason in (parsed.error or "")
