"""Prompt building of the VLM adapters: image once, instruction, history in each model's style."""

from __future__ import annotations

import pytest

from bridge.schema import AnswerField, PolicyContext, UINode
from policies.vlm.adapter import HistoryStep
from policies.vlm.base import ADAPTERS
from policies.vlm.messages import ChatMessage, image_urls, message_text
from policies.vlm.uitars import with_box_tokens
from tests.policies.test_vlm_parsing import observation, sample

INSTRUCTION = "Turn on Wi-Fi in Settings"
CONTEXT = PolicyContext()


def _history(adapter_name: str, raws: list[str], **options: object) -> list[HistoryStep]:
    """History steps as VLMPolicy records them, each with its own screenshot."""
    adapter = ADAPTERS[adapter_name](**options)
    steps = []
    for shade, raw in enumerate(raws, start=1):
        obs = observation(shade=shade * 20)
        assert obs.screenshot is not None
        steps.append(HistoryStep(obs.screenshot.data_url, raw, adapter.parse(raw, obs), "settings"))
    return steps


def _texts(messages: list[ChatMessage]) -> str:
    return "\n".join(message_text(m) for m in messages)


@pytest.mark.parametrize("name", sorted(ADAPTERS))
def test_first_step_has_the_image_once_and_the_instruction(name: str) -> None:
    obs = observation()
    assert obs.screenshot is not None
    messages = ADAPTERS[name]().build_messages(INSTRUCTION, CONTEXT, obs, [])
    assert image_urls(messages) == [obs.screenshot.data_url]
    assert INSTRUCTION in _texts(messages)
    assert messages[-1].role == "user"  # UI-Venus and GELab send one user turn, no system
    assert all(message.role != "system" for message in messages[1:])
    for message in messages:  # every message serializes to the OpenAI shape
        dumped = message.model_dump(mode="json")
        assert set(dumped) == {"role", "content"}


def test_qwen25vl_states_the_resized_resolution() -> None:
    messages = ADAPTERS["qwen25vl"]().build_messages(INSTRUCTION, CONTEXT, observation(), [])
    assert "The screen's resolution is 1092x2408." in message_text(messages[0])
    small = observation(720, 1280)
    messages = ADAPTERS["qwen25vl"]().build_messages(INSTRUCTION, CONTEXT, small, [])
    assert "728x1288" in message_text(messages[0])


def test_qwen3vl_states_its_grid_and_response_format() -> None:
    text = message_text(ADAPTERS["qwen3vl"]().build_messages(INSTRUCTION, CONTEXT,
                                                             observation(), [])[0])  # fmt: skip
    assert "999x999" in text and "<tools>" in text and "Thought:" in text
    grid = ADAPTERS["qwen3vl"](scale=1000).build_messages(INSTRUCTION, CONTEXT, observation(), [])
    assert "1000x1000" in message_text(grid[0])


def test_qwen_history_is_text_with_one_image() -> None:
    raw = sample("qwen-004")["raw"]
    history = _history("qwen3vl", [raw])
    messages = ADAPTERS["qwen3vl"]().build_messages(INSTRUCTION, CONTEXT, observation(), history)
    assert len(image_urls(messages)) == 1
    assert "Step 1: I tapped on the search bar to begin searching for Musk.;" in _texts(messages)
    raw25 = sample("qwen-001")["raw"]
    history = _history("qwen25vl", [raw25])
    messages = ADAPTERS["qwen25vl"]().build_messages(INSTRUCTION, CONTEXT, observation(), history)
    assert 'Step 1: {"name": "mobile_use", "arguments": {"action": "click"' in _texts(messages)


def test_invalid_steps_are_reported_in_text_history() -> None:
    history = _history("qwen3vl", ["no tool call here"])
    messages = ADAPTERS["qwen3vl"]().build_messages(INSTRUCTION, CONTEXT, observation(), history)
    assert "Step 1: (invalid output: no <tool_call> block in the output)" in _texts(messages)


def test_uitars_replays_turns_with_box_tokens_and_few_images() -> None:
    raws = [f"Thought: step {i}\nAction: click(start_box='({i}00,200)')" for i in (1, 2, 3)]
    history = _history("uitars15", raws)
    obs = observation()
    messages = ADAPTERS["uitars15"](max_images=2).build_messages(INSTRUCTION, CONTEXT, obs, history)
    replies = [message_text(m) for m in messages if m.role == "assistant"]
    assert replies == [f"Thought: step {i}\nAction: click(start_box='<|box_start|>({i}00,200)"
                       "<|box_end|>')" for i in (1, 2, 3)]  # fmt: skip
    assert image_urls(messages) == [history[-1].image_url, obs.screenshot.data_url]
    prompt = message_text(messages[1])
    assert "## Action Space" in prompt and INSTRUCTION in prompt


def test_with_box_tokens_leaves_other_point_forms() -> None:
    assert with_box_tokens("drag(start_box='(1,2)', end_box='(3,4)')") == (
        "drag(start_box='<|box_start|>(1,2)<|box_end|>', end_box='<|box_start|>(3,4)<|box_end|>')"
    )
    point = "click(point='<point>1 2</point>')"
    assert with_box_tokens(point) == point


def test_autoglm_keeps_only_the_current_image() -> None:
    raws = [sample("autoglm-001")["raw"], 'do(action="Tap", element=[500,500])</answer>']
    history = _history("autoglm", raws)
    obs = observation(app="contacts")
    messages = ADAPTERS["autoglm"]().build_messages(INSTRUCTION, CONTEXT, obs, history)
    assert image_urls(messages) == [obs.screenshot.data_url]
    roles = [m.role for m in messages]
    assert roles == ["system", "user", "assistant", "user", "assistant", "user"]
    assert message_text(messages[1]).startswith(INSTRUCTION)
    assert '"current_app": "settings"' in message_text(messages[1])
    assert message_text(messages[-1]).startswith("** Screen Info **")
    assert '"current_app": "contacts"' in message_text(messages[-1])
    tap = 'do(action="Tap", element=[500,500])'
    assert message_text(messages[4]) == f"<think></think><answer>{tap}</answer>"
    assert message_text(messages[2]).endswith('<answer>do(action="Launch", app="京东")</answer>')
    zh = ADAPTERS["autoglm"]().build_messages(INSTRUCTION, PolicyContext(lang="zh"), obs, [])
    assert "坐标系" in message_text(zh[0])


def test_guiowl_replays_recent_turns_and_summarises_older_ones() -> None:
    raws = [sample(i)["raw"] for i in ("owl-002", "owl-004", "owl-005", "owl-002", "owl-004")]
    history = _history("guiowl", raws)
    obs = observation()
    messages = ADAPTERS["guiowl"]().build_messages(INSTRUCTION, CONTEXT, obs, history)
    assert sum(m.role == "assistant" for m in messages) == 4
    assert image_urls(messages) == [*(s.image_url for s in history[1:]), obs.screenshot.data_url]
    first = message_text(messages[1])
    assert "Previous actions:\nStep 1: 点击应用更新通知弹窗" in first and "Step 2" not in first
    assert "1000x1000" in message_text(messages[0])


def test_guiowl_v3_lists_conclusions_and_states_the_resized_size() -> None:
    history = _history("guiowl", [sample("owl-001")["raw"]], version="v3")
    adapter = ADAPTERS["guiowl"](version="v3")
    messages = adapter.build_messages(INSTRUCTION, CONTEXT, observation(), history)
    assert len(image_urls(messages)) == 1
    assert "Step 1: Typed 'mPLUG-Owl3' into the search bar;" in _texts(messages)
    assert "1092x2408" in message_text(messages[0]) and "<conclusion>" in _texts(messages)


def test_generic_prompt_has_schema_tree_errors_and_answer_fields() -> None:
    node = UINode(id=0, class_name="android.widget.Button", text="Wi-Fi", clickable=True,
                  bounds_px=(0, 100, 1080, 200))  # fmt: skip
    obs = observation(ui=[node], app="settings", error="no element 7")
    context = PolicyContext(answer_fields=[AnswerField(name="ssid", kind="text")])
    raw = '{"thought": "tap it", "action": {"type": "tap", "target": {"element": 0}}}'
    history = _history("generic", [raw])
    messages = ADAPTERS["generic"]().build_messages(INSTRUCTION, context, obs, history)
    system, user = message_text(messages[0]), message_text(messages[1])
    assert '"open_app"' in system and '"scroll"' in system
    assert '[0] Button "Wi-Fi" clickable @(540,150)' in user
    assert "Last action error: no element 7" in user and "- ssid (text)" in user
    assert '1. {"type": "tap", "target": {"element": 0}}' in user
    text_only = ADAPTERS["generic"](include_image=False).build_messages(INSTRUCTION, context,
                                                                          obs, [])  # fmt: skip
    assert image_urls(text_only) == []
