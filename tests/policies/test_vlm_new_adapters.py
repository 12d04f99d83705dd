"""The adapters for UI-Venus, MAI-UI, GELab-Zero, Step-GUI and generic_v2.

Each adapter reads its model's grammar with its coordinate convention, takes the action the
model committed to (never one quoted in its reasoning), refuses several actions, truncated
and malformed replies as invalid steps with a reason, and runs an episode end to end against
the local OpenAI-compatible test server of test_vlm_http.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest

from bridge.runner import run_episode
from bridge.schema import AnswerField, PolicyContext
from policies.vlm.apps import resolve_app
from policies.vlm.base import ADAPTERS, VLMPolicy
from policies.vlm.messages import image_urls, message_text
from tests.bridge.toy_env import CounterEnv, counter_task
from tests.policies.test_vlm_http import FAST, MODEL, Reply, Served, served  # noqa: F401
from tests.policies.test_vlm_parsing import observation, samples, screen_of

NEW = ("uivenus", "maiui", "gelab", "stepgui", "generic_v2")


def _mai(arguments: dict[str, object], thinking: str = "plan") -> str:
    call = json.dumps({"name": "mobile_use", "arguments": arguments}, ensure_ascii=False)
    return f"<thinking>\n{thinking}\n</thinking>\n<tool_call>\n{call}\n</tool_call>"


def _v2(action: dict[str, object], think: str = "plan") -> str:
    return f"<think>{think}</think><answer>{json.dumps({'action': action})}</answer>"


def _venus(action: str, think: str = "plan") -> str:
    return f"<think>{think}</think>\n<action>{action}</action>\n<conclusion>did it</conclusion>"


def _gelab(fields: str, think: str = "plan") -> str:
    return f"<THINK> {think} </THINK>\nexplain:why\t{fields}\tsummary:so far"


TAP = {
    "uivenus": _venus("Click(box=(500,725))"),
    "maiui": _mai({"action": "click", "coordinate": [500, 725]}),
    "gelab": _gelab("action:CLICK\tpoint:500,725"),
    "stepgui": _gelab("action:CLICK\tpoint:500,725"),
    "generic_v2": _v2({"type": "tap", "target": {"point": {"x": 0.5, "y": 0.725}}}),
}
"""A tap on the counter's "+" button (normalized ~(0.5, 0.725)) in each grammar."""

FINISH = {
    "uivenus": _venus("Finished(content='')"),
    "maiui": _mai({"action": "terminate", "status": "success"}),
    "gelab": _gelab("action:COMPLETE\treturn:done"),
    "stepgui": _gelab("action:COMPLETE\treturn:done"),
    "generic_v2": _v2({"type": "finish", "status": "success"}),
}

FINISH_TALK = {
    "uivenus": "Finished(content='done') would be wrong now; <action>Finished()</action>",
    "maiui": 'terminate? <tool_call>{"name": "mobile_use", "arguments": {"action": '
    '"terminate", "status": "success"}}</tool_call> not yet',
    "gelab": "action:COMPLETE\treturn:done is for later",
    "stepgui": "DONE? no. action:ABORT is wrong too",
    "generic_v2": 'not <answer>{"action": {"type": "finish"}}</answer> yet',
}
"""Reasoning that quotes a finish in each grammar, before a real non-finish action."""


@pytest.mark.parametrize("adapter", NEW)
def test_a_tap_reads_on_the_adapter_grid(adapter: str) -> None:
    parsed = ADAPTERS[adapter]().parse(TAP[adapter], observation())
    assert parsed.action is not None and parsed.action.type == "tap", parsed.error
    point = parsed.action.target.point
    grid = {"maiui": 999, "generic_v2": None}.get(adapter, 1000)
    expected = (0.5, 0.725) if grid is None else (500 / grid, 725 / grid)
    assert point.x == pytest.approx(expected[0]) and point.y == pytest.approx(expected[1])
    assert parsed.thought == "plan"


@pytest.mark.parametrize("adapter", NEW)
def test_a_thought_quoting_a_finish_never_finishes(adapter: str) -> None:
    raw = TAP[adapter].replace("plan", FINISH_TALK[adapter], 1)
    parsed = ADAPTERS[adapter]().parse(raw, observation())
    assert parsed.action is not None and parsed.action.type == "tap", (raw, parsed.error)
    finished = ADAPTERS[adapter]().parse(FINISH[adapter], observation()).action
    assert finished is not None and finished.type == "finish" and finished.status == "success"


@pytest.mark.parametrize("adapter", NEW)
@pytest.mark.parametrize("cut", [0.3, 0.6, 0.9])
def test_a_truncated_reply_is_an_invalid_step(adapter: str, cut: float) -> None:
    raw = FINISH[adapter]
    head = raw[: int(len(raw) * cut)]
    parsed = ADAPTERS[adapter]().parse(head, observation())
    assert parsed.action is None or parsed.action.type != "finish", head
    assert parsed.action is None and parsed.error, head


@pytest.mark.parametrize(
    ("adapter", "raw", "reason"),
    [
        ("uivenus", _venus("Click(box=(1,2)),Click(box=(3,4))"), "several actions"),
        ("uivenus", _venus("Hover(box=(1,2))"), "not in UI-Venus's mobile action space"),
        ("uivenus", "I would tap the button.", "no <action>"),
        ("uivenus", _venus("Click(box=(1500,20))"), "outside the model's 0-1000 grid"),
        ("maiui", _mai({"action": "wait"}) + _mai({"action": "wait"}), "several actions"),
        ("maiui", "<tool_call>{not json}</tool_call>", "not valid JSON"),
        ("maiui", _mai({"action": "system_button", "button": "menu"}), "menu has no equiv"),
        ("maiui", _mai({"action": "click"}), "click needs 'coordinate'"),
        ("gelab", _gelab("action:CLICK\tpoint:1,1\naction:COMPLETE\treturn:x"), "several"),
        ("gelab", _gelab("action:FLY"), "unknown"),
        ("gelab", _gelab("value:3"), "no action:NAME"),
        ("generic_v2", '{"action": {"type": "wait"}}', "no <answer>"),
        ("generic_v2", "<think>t</think><answer>{oops}</answer>", "not valid JSON"),
        ("generic_v2", _v2({"type": "tap", "target": {"point": {"x": 3, "y": 0}}}), "less"),
    ],
)
def test_malformed_replies_are_invalid_with_a_reason(adapter: str, raw: str, reason: str) -> None:
    parsed = ADAPTERS[adapter]().parse(raw, observation())
    assert parsed.action is None and reason in (parsed.error or ""), parsed


@pytest.mark.parametrize(
    ("adapter", "raw", "expected"),
    [
        ("uivenus", _venus("Type(content='it's 5')"), {"type": "type", "text": "it's 5"}),
        ("uivenus", _venus("Launch(app='设置')"), {"type": "open_app", "app": "settings"}),
        ("uivenus", _venus("PressRecent()"), {"type": "key", "key": "recents"}),
        ("uivenus", _venus("Scroll(direction='down')"), {"type": "scroll", "direction": "down"}),
        (
            "uivenus",
            _venus("Scroll(start=(500,800), end=(500,200))"),
            {"type": "swipe", "start": {"x": 0.5, "y": 0.8}, "end": {"x": 0.5, "y": 0.2}},
        ),
        (
            "uivenus",
            _venus("CallUser(content='which one?')"),
            {"type": "finish", "status": "abort"},
        ),
        (
            "maiui",
            _mai({"action": "swipe", "direction": "up"}),
            {"type": "scroll", "direction": "down"},
        ),
        (
            "maiui",
            _mai({"action": "open", "text": "Contacts"}),
            {"type": "open_app", "app": "contacts"},
        ),
        (
            "maiui",
            _mai({"action": "terminate", "status": "fail"}),
            {"type": "finish", "status": "infeasible"},
        ),
        (
            "maiui",
            _mai({"action": "system_button", "button": "back"}),
            {"type": "key", "key": "back"},
        ),
        (
            "gelab",
            _gelab("action:TYPE\tvalue:北京\tpoint:500,100"),
            {"type": "type", "text": "北京", "clear": True},
        ),
        ("gelab", _gelab("action:AWAKE\tvalue:设置"), {"type": "open_app", "app": "settings"}),
        ("gelab", _gelab("action:WAIT\tvalue:3"), {"type": "wait", "seconds": 3.0}),
        (
            "gelab",
            _gelab("action:ABORT\tvalue:no network"),
            {"type": "finish", "status": "infeasible"},
        ),
        ("gelab", "<TINK>t</TINK>action:LONGPRESS\tpoint:250,500", {"type": "long_press"}),
        ("generic_v2", _v2({"type": "key", "key": "home"}), {"type": "key", "key": "home"}),
    ],
)
def test_grammar_maps_to_contract_actions(
    adapter: str, raw: str, expected: dict[str, object]
) -> None:
    parsed = ADAPTERS[adapter]().parse(raw, observation())
    assert parsed.action is not None, parsed.error
    dumped = parsed.action.model_dump(exclude_none=True)
    assert {key: dumped[key] for key in expected} == expected


def test_answers_follow_the_task_answer_fields() -> None:
    one = PolicyContext(answer_fields=[AnswerField(name="count", kind="number")])
    venus = ADAPTERS["uivenus"]().parse(_venus("CallUser(content='3')"), observation(), one)
    assert venus.action.type == "answer" and venus.action.fields == {"count": "3"}
    mai = ADAPTERS["maiui"]().parse(_mai({"action": "answer", "text": "4"}), observation(), one)
    assert mai.action.type == "answer" and mai.action.fields == {"count": "4"}
    gelab = ADAPTERS["gelab"]().parse(_gelab("action:COMPLETE\treturn:5"), observation(), one)
    assert gelab.action.type == "answer" and gelab.action.fields == {"count": "5"}


def test_uivenus_1_0_reads_pixels_of_the_resized_screenshot() -> None:
    adapter = ADAPTERS["uivenus"](version="1.0")
    frame = adapter.frame(observation())
    parsed = adapter.parse(_venus(f"Click(box=({frame.width // 2},{frame.height}))"), observation())
    assert parsed.action.target.point.x == pytest.approx(0.5, abs=0.001)
    assert parsed.action.target.point.y == pytest.approx(1.0)
    prompt = message_text(adapter.build_messages("t", PolicyContext(), observation(), [])[0])
    assert f"{frame.width}x{frame.height}" in prompt


@pytest.mark.asyncio
@pytest.mark.parametrize("adapter", NEW)
async def test_an_episode_against_the_local_server(served: Served, adapter: str) -> None:  # noqa: F811
    """Two taps on "+", one garbage reply (an invalid step), then a finish: a success."""
    served.fake.replies = [Reply(TAP[adapter]), Reply("hmm"), Reply(TAP[adapter]),
                           Reply(FINISH[adapter])]  # fmt: skip
    policy = VLMPolicy.from_spec(adapter, served.base_url, MODEL, **FAST)
    record = await run_episode(policy, CounterEnv(), counter_task(2), episode_id=adapter)
    assert record.outcome == "success", record
    assert record.steps == 4 and record.invalid_steps == 1
    first, last = served.fake.requests[0], served.fake.requests[-1]
    assert first["model"] == MODEL
    assert "counter" in json.dumps(first["messages"]).lower() or first["messages"]
    assert len([m for m in last["messages"] if m["role"] == "assistant"]) in (0, 3)
    assert all(url.startswith("data:image/") for url in _urls(last))


def _urls(body: dict) -> list[str]:
    return [part["image_url"]["url"] for message in body["messages"]
            if isinstance(message["content"], list) for part in message["content"]
            if part["type"] == "image_url"]  # fmt: skip


def test_history_is_replayed_as_each_model_documents() -> None:
    """MAI-UI replays replies as assistant turns with the last screenshots; GELab sends the
    model's last summary; UI-Venus lists conclusions."""
    from policies.vlm.adapter import HistoryStep

    obs = observation()
    steps = []
    for name, raw in (
        ("maiui", TAP["maiui"]),
        ("gelab", TAP["gelab"]),
        ("uivenus", TAP["uivenus"]),
    ):
        adapter = ADAPTERS[name]()
        step = HistoryStep(obs.screenshot.data_url, raw, adapter.parse(raw, obs))
        messages = adapter.build_messages("task", PolicyContext(), obs, [step, step, step])
        steps.append(messages)
    mai, gelab, venus = steps
    assert [m.role for m in mai].count("assistant") == 3 and len(image_urls(mai)) == 3
    assert "so far" in message_text(gelab[0]) and len(image_urls(gelab)) == 1
    assert "Step 2: did it" in message_text(venus[0]) and len(image_urls(venus)) == 1


# ------------------------------------------------- real outputs of the new families

NEW_FAMILIES = {"mai_ui": "maiui", "ui_venus": "uivenus", "gelab_zero": "gelab",
                "step_gui": "stepgui", "generic_v2": "generic_v2"}  # fmt: skip
"""Fixture family -> the adapter that reads it."""

NEW_TYPES = {"click": "tap", "open": "open_app", "Click": "tap", "Launch": "open_app",
             "CLICK": "tap", "AWAKE": "open_app", "terminate": "finish", "COMPLETE": "finish",
             "Finished": "finish", "tap": "tap", "finish": "finish"}  # fmt: skip
"""The samples' expected action names -> our action types."""

GRIDS = {"0-999": 999, "0-1000": 1000}


def _new_samples() -> list[dict[str, object]]:
    return [item for item in samples() if item["family"] in NEW_FAMILIES]


def test_the_new_families_have_the_documented_samples() -> None:
    """The README's counts for the new families; a lost or added line fails here."""
    assert Counter(item["family"] for item in _new_samples()) == {"mai_ui": 4}
    assert all(item["source"]["repo"] and item["source"]["commit"] for item in _new_samples())


@pytest.mark.parametrize("sample_id", [item["id"] for item in _new_samples()])
def test_new_family_sample_reads_as_expected(sample_id: str) -> None:
    """Each sample, parsed by its family's adapter on its screen, gives its human reading;
    a malformed one (or one of the wrong mode) is an invalid step with a reason."""
    item = next(s for s in _new_samples() if s["id"] == sample_id)
    expected = item["expected"]
    parsed = ADAPTERS[NEW_FAMILIES[item["family"]]]().parse(
        item["raw"], observation(*screen_of(item))
    )
    if "malformed" in expected["other"] or expected["type"] is None:
        assert parsed.action is None and parsed.error, (sample_id, parsed)
        return
    assert parsed.action is not None, (sample_id, parsed.error)
    assert parsed.action.type == NEW_TYPES[expected["type"]], sample_id
    if expected["coords"] is not None:
        scale = next(v for k, v in GRIDS.items() if item["coord_convention"].startswith(k))
        x, y = expected["coords"]
        point = parsed.action.target.point
        assert point.x == pytest.approx(x / scale) and point.y == pytest.approx(y / scale)
    if parsed.action.type == "open_app":
        assert parsed.action.app == resolve_app(expected["text"]), sample_id
    assert parsed.thought, sample_id


def test_a_grounding_reply_is_refused_by_the_navigation_adapter() -> None:
    """MAI-UI's real grounding replies carry a point but no tool call: never an action."""
    grounding = [item for item in _new_samples() if item["raw"].startswith("<grounding_think>")]
    assert len(grounding) == 2
    for item in grounding:
        parsed = ADAPTERS["maiui"]().parse(item["raw"], observation(*screen_of(item)))
        assert parsed.action is None and "no <tool_call>" in (parsed.error or ""), parsed
