"""The existing adapters' parsers under the noise real replies carry (issue 17, item 1).

Per adapter, a table of literal replies: full-width syntax, thoughts that quote action syntax
before the committed action, several actions, special tokens and code fences, replies cut
mid-call, and thoughts that talk about finishing while the action is something else. Then
Hypothesis property tests: valid actions — generated in each grammar, and the real samples of
samples.jsonl — wrapped in noise must parse as their clean form, and never into a finish
unless the clean action is one.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bridge.schema import Observation
from policies.vlm.adapter import Adapter, ParsedOutput
from policies.vlm.base import ADAPTERS
from policies.vlm.reply_text import SEVERAL_ACTIONS
from tests.policies.test_vlm_parsing import observation, route, samples, screen_of

PROPERTY = settings(derandomize=True, max_examples=30, deadline=None, database=None)


@cache
def screen(width: int = 1080, height: int = 2400) -> Observation:
    """One observation per screen size (building the JPEG is the slow part)."""
    return observation(width, height)


def read(adapter: str, raw: str, **options: object) -> ParsedOutput:
    """``raw`` parsed by a fresh ``adapter`` on a 1080x2400 phone."""
    instance: Adapter = ADAPTERS[adapter](**options)
    return instance.parse(raw, screen())


def tool_call(action: str, **arguments: object) -> str:
    """A mobile_use call as JSON."""
    payload = {"name": "mobile_use", "arguments": {"action": action, **arguments}}
    return json.dumps(payload, ensure_ascii=False)


def tagged(call: str) -> str:
    """A call inside its ``<tool_call>`` tags."""
    return f"<tool_call>\n{call}\n</tool_call>"


TAP = tool_call("click", coordinate=[500, 250])
END = tool_call("terminate", status="success")
JSON_TAP = (
    '{"thought": "open it", "action": {"type": "tap", "target": {"point": {"x": 0.5, "y": 0.25}}}}'
)
JSON_END = '{"type": "finish", "status": "success"}'
Q3 = {"scale": 1000}
U = {"relative1000": True}
V3 = {"version": "v3"}

# (adapter, options, reply, expected action dump subset | None, reason substring)
CASES: list[tuple[str, dict[str, object], str, dict[str, object] | None, str]] = [
    # full-width punctuation and digits in the action part
    (
        "qwen3vl",
        Q3,
        '<tool_call>{"name"："mobile_use"，"arguments"：{"action"："click"，"coordinate"：[５００，２５０]}}</tool_call>',
        {"type": "tap"},
        "",
    ),
    (
        "qwen25vl",
        {},
        'Action：tap\n<tool_call>{"name"："mobile_use"，"arguments"：{"action"："type"，"text"："你好，世界！"}}</tool_call>',
        {"type": "type", "text": "你好，世界！"},
        "",
    ),
    (
        "uitars15",
        U,
        "Thought: 点击搜索框\nAction：click(start_box='(500,250)')",
        {"type": "tap"},
        "",
    ),
    (
        "uitars15",
        U,
        "Thought: 输入\nAction：type（content＝'北京，天气（明天）'）",
        {"type": "type", "text": "北京，天气（明天）"},
        "",
    ),
    (
        "autoglm",
        {},
        '<think>点</think><answer>do（action＝"Tap"，element=［５００，２５０］）</answer>',
        {"type": "tap"},
        "",
    ),
    (
        "autoglm",
        {},
        '<answer>do(action="Type", text="你好，世界：（一）")</answer>',
        {"type": "type", "text": "你好，世界：（一）"},
        "",
    ),
    (
        "guiowl",
        {},
        'Action：点击\n<tool_call>{"name"："mobile_use"，"arguments"：{"action"："click"，"coordinate"：[５００，２５０]}}</tool_call>',
        {"type": "tap"},
        "",
    ),
    (
        "generic",
        {},
        '{"thought"："x"，"action"：{"type"："ｔａｐ"，"target"：{"point"：{"x"：0.5，"y"：0.25}}}}',
        {"type": "tap"},
        "",
    ),
    # a thought quoting action syntax before the committed action
    (
        "qwen3vl",
        Q3,
        f"Thought: last time {tagged(END)} was wrong.\nAction: tap\n{tagged(TAP)}",
        {"type": "tap"},
        "",
    ),
    (
        "qwen25vl",
        {},
        f"<think>I could call {tagged(END)} but no.</think>\n{tagged(TAP)}",
        {"type": "tap"},
        "",
    ),
    (
        "uitars15",
        U,
        "Thought: not finished(content='done') yet; Action: finished(content='x') later.\n"
        "Action: click(start_box='(500,250)')",
        {"type": "tap"},
        "",
    ),
    (
        "uitars15",
        U,
        "Thought: type it\nAction: type(content='Action: finished(content=\\'x\\')')",
        {"type": "type", "text": "Action: finished(content='x')"},
        "",
    ),
    (
        "autoglm",
        {},
        '我不应该直接 finish(message="完成")，也不是 do(action="Back")。\n'
        'do(action="Tap", element=[500,250])',
        {"type": "tap"},
        "",
    ),
    (
        "autoglm",
        {},
        '<think>先 do(action="Home") 再 finish(message="x")</think>\n'
        '<answer>do(action="Tap", element=[500,250])</answer>',
        {"type": "tap"},
        "",
    ),
    (
        "guiowl",
        V3,
        f"<thinking>maybe {tagged(END)}</thinking>\n{tagged(TAP)}\n<conclusion>tapped</conclusion>",
        {"type": "tap"},
        "",
    ),
    (
        "generic",
        {},
        f"Sending {JSON_END} now would be wrong, so:\n{JSON_TAP}",
        {"type": "tap"},
        "",
    ),
    # several actions: the documented rule, else an invalid step saying so
    ("qwen3vl", Q3, f"{tagged(TAP)}\n{tagged(END)}", None, SEVERAL_ACTIONS),
    ("qwen25vl", {}, f"{tagged(TAP)}{tagged(TAP)}", {"type": "tap"}, ""),  # the same call twice
    (
        "uitars15",
        U,
        "Thought: x\nAction: click(start_box='(1,2)')\n\nAction: press_back()",
        {"type": "key", "key": "back"},
        "",
    ),
    (
        "uitars15",
        U,
        "Thought: x\nAction: press_back()\n\npress_home()",
        {"type": "key", "key": "back"},
        "",
    ),
    (
        "autoglm",
        {},
        '<answer>do(action="Back")\nfinish(message="done")</answer>',
        None,
        SEVERAL_ACTIONS,
    ),
    ("autoglm", {}, 'do(action="Back") do(action="Home")', None, SEVERAL_ACTIONS),
    ("guiowl", {}, f"Action: go\n{tagged(TAP)}\n{tagged(END)}", None, SEVERAL_ACTIONS),
    ("generic", {}, f"{JSON_TAP}\n{JSON_END}", None, SEVERAL_ACTIONS),
    (
        "generic",
        {},
        '{"thought": "x", "action": [{"type": "key", "key": "back"}]}',
        None,
        SEVERAL_ACTIONS,
    ),
    # stray special tokens and code fences
    (
        "qwen3vl",
        Q3,
        f"<|im_start|>assistant\nThought: x\nAction: y\n{tagged(TAP)}<|im_end|>",
        {"type": "tap"},
        "",
    ),
    ("qwen25vl", {}, f"```\n{TAP}\n```<|endoftext|>", {"type": "tap"}, ""),
    (
        "uitars15",
        U,
        "```\nThought: x\n"
        "Action: `click(start_box='<|box_start|>(500,250)<|box_end|>')`\n```<|im_end|>",
        {"type": "tap"},
        "",
    ),
    (
        "autoglm",
        {},
        '<think>x</think><answer><|begin_of_box|>do(action="Home")<|end_of_box|></answer><|user|>',
        {"type": "key", "key": "home"},
        "",
    ),
    ("guiowl", {}, f"```xml\nAction: tap\n{tagged(TAP)}\n```", {"type": "tap"}, ""),
    ("generic", {}, f"```json\n{JSON_TAP}\n```<|im_end|>", {"type": "tap"}, ""),
    # a reply cut mid-call
    ("qwen3vl", Q3, f"Thought: x\nAction: y\n{tagged(TAP)[:-30]}", None, "cut off"),
    ("qwen25vl", {}, f"<think>I may {tagged(END)}", None, "ends inside"),
    ("uitars15", U, "Thought: x\nAction: finished(content='all do", None, "not closed"),
    ("uitars15", U, "<think>Then Action: finished(content='done')", None, "no 'Action:'"),
    ("autoglm", {}, '<think>ok</think><answer>do(action="Tap", element=[50', None, "cut off"),
    ("autoglm", {}, '不要 finish(message="x")。\ndo(action="Type", text="ab', None, "cut off"),
    ("guiowl", V3, f"<thinking>x</thinking>\n{tagged(TAP)[:40]}", None, "cut off"),
    ("generic", {}, f"{JSON_END} is not it:\n{JSON_TAP[:-3]}", None, "cut off"),
    # thoughts about finishing, with a real non-finish action
    (
        "qwen3vl",
        Q3,
        f"Thought: DONE soon; I will terminate after this.\nAction: finish the task\n{tagged(TAP)}",
        {"type": "tap"},
        "",
    ),
    (
        "qwen25vl",
        {},
        f"The task is finished, terminate.\n{tagged(tool_call('system_button', button='Back'))}",
        {"type": "key"},
        "",
    ),
    (
        "uitars15",
        U,
        "Thought: finished? DONE? terminate! Not yet: finished(content='ok')\nAction: press_back()",
        {"type": "key"},
        "",
    ),
    (
        "autoglm",
        {},
        '<think>任务完成了吗？finish(message="完成") DONE terminate</think>\n'
        '<answer>do(action="Back")</answer>',
        {"type": "key"},
        "",
    ),
    (
        "autoglm",
        {},
        'finish(message="done") is for later, first I scroll',
        None,
        "not on a line of its own",
    ),
    (
        "guiowl",
        {},
        f"<thinking>DONE, {tagged(END)}</thinking>\nAction: terminate? no\n{tagged(TAP)}",
        {"type": "tap"},
        "",
    ),
    (
        "generic",
        {},
        '{"thought": "finish/terminate: DONE after this", '
        '"action": {"type": "key", "key": "back"}}',
        {"type": "key"},
        "",
    ),
]


@pytest.mark.parametrize(("adapter", "options", "raw", "expected", "reason"), CASES)
def test_noisy_reply(
    adapter: str,
    options: dict[str, object],
    raw: str,
    expected: dict[str, object] | None,
    reason: str,
) -> None:
    parsed = read(adapter, raw, **options)
    if expected is None:
        assert parsed.action is None and reason in (parsed.error or ""), parsed
        return
    assert parsed.action is not None, parsed.error
    dumped = parsed.action.model_dump(exclude_none=True)
    assert {key: dumped[key] for key in expected} == expected


def test_every_existing_adapter_has_each_kind_of_case() -> None:
    names = {"qwen3vl", "qwen25vl", "uitars15", "autoglm", "guiowl", "generic"}
    assert {case[0] for case in CASES} == names
    assert sum(case[3] is None for case in CASES) >= len(names) * 2


NEW_CASES: list[tuple[str, str, dict[str, object] | None, str]] = [
    # (adapter, reply, expected action dump subset | None, reason substring)
    (
        "uivenus",
        "<think>x</think><action>Type（content＝'北京，（明天）：２'）</action>",
        {"type": "type", "text": "北京，（明天）：２"},
        "",
    ),
    (
        "uivenus",
        "<think>not <action>Finished(content='x')</action></think>\n"
        "```\n<action>PressBack()</action><|im_end|>\n```",
        {"type": "key", "key": "back"},
        "",
    ),
    ("uivenus", "<think>x</think><action>Finished(content='do", None, "cut off"),
    (
        "maiui",
        '<thinking>x</thinking><tool_call>{"name"："mobile_use"，"arguments"：'
        '{"action"："type"，"text"："你好，世界：１"}}</tool_call>',
        {"type": "type", "text": "你好，世界：１"},
        "",
    ),
    (
        "maiui",
        f"<thinking>x</thinking>{tagged(TAP)}\n{tagged(END)}",
        None,
        "several actions",
    ),
    (
        "gelab",
        "<THINK> 不要 action:COMPLETE\treturn:x </THINK>\n"
        "explain:e\taction：TYPE\tvalue：ａ，１：２\tsummary:s<|im_end|>",
        {"type": "type", "text": "ａ，１：２"},
        "",
    ),
    ("gelab", "<THINK> t </THINK>\nexplain:e\taction:COMPLETE\tretu", None, "cut off"),
    (
        "stepgui",
        "```\n<THINK> t </THINK>\nexplain:e\taction：CLICK\tpoint：５００，２５０\n```",
        {"type": "tap"},
        "",
    ),
    (
        "generic_v2",
        '<think>x</think><answer>｛"action"：｛"type"："type"，"text"："ａ，ｂ"｝｝</answer>',
        {"type": "type", "text": "ａ，ｂ"},
        "",
    ),
    (
        "generic_v2",
        '<think>not <answer>{"action": {"type": "finish"}}</answer></think>'
        '<answer>{"action": {"type": "finish", "status": "succ',
        None,
        "cut off",
    ),
]
"""The new adapters' literal noisy replies: typed text kept as written, cut replies refused."""


@pytest.mark.parametrize(("adapter", "raw", "expected", "reason"), NEW_CASES)
def test_noisy_reply_of_a_new_adapter(
    adapter: str, raw: str, expected: dict[str, object] | None, reason: str
) -> None:
    parsed = read(adapter, raw)
    if expected is None:
        assert parsed.action is None and reason in (parsed.error or ""), parsed
        return
    assert parsed.action is not None, parsed.error
    dumped = parsed.action.model_dump(exclude_none=True)
    assert {key: dumped[key] for key in expected} == expected


# --------------------------------------------------------------------------- properties


@dataclass(frozen=True)
class Act:
    """A generated action: its kind and its values (0..999 grid points, text)."""

    kind: str
    values: tuple[Any, ...]


TEXT = st.text(alphabet="ab Zé中文，。！：（）()[]{}=,;:1２", min_size=1, max_size=12).filter(
    lambda t: t.strip() == t and t != ""
)
COORD = st.integers(min_value=0, max_value=999)
ACTS = st.one_of(
    st.tuples(COORD, COORD).map(lambda p: Act("tap", p)),
    TEXT.map(lambda t: Act("type", (t,))),
    st.tuples(COORD, COORD, COORD, COORD).map(lambda p: Act("swipe", p)),
    st.just(Act("back", ())),
    TEXT.map(lambda t: Act("finish", (t,))),
)


def _uitars(act: Act) -> str:
    v = act.values
    return {
        "tap": lambda: f"click(start_box='({v[0]},{v[1]})')",
        "type": lambda: f"type(content='{v[0]}')",
        "swipe": lambda: f"drag(start_box='({v[0]},{v[1]})', end_box='({v[2]},{v[3]})')",
        "back": lambda: "press_back()",
        "finish": lambda: f"finished(content='{v[0]}')",
    }[act.kind]()


def _autoglm(act: Act) -> str:
    v = act.values
    return {
        "tap": lambda: f'do(action="Tap", element=[{v[0]},{v[1]}])',
        "type": lambda: f'do(action="Type", text="{v[0]}")',
        "swipe": lambda: f'do(action="Swipe", start=[{v[0]},{v[1]}], end=[{v[2]},{v[3]}])',
        "back": lambda: 'do(action="Back")',
        "finish": lambda: f'finish(message="{v[0]}")',
    }[act.kind]()


def _mobile_use(act: Act) -> str:
    v = act.values
    return {
        "tap": lambda: tool_call("click", coordinate=[v[0], v[1]]),
        "type": lambda: tool_call("type", text=v[0]),
        "swipe": lambda: tool_call("swipe", coordinate=[v[0], v[1]], coordinate2=[v[2], v[3]]),
        "back": lambda: tool_call("system_button", button="Back"),
        "finish": lambda: tool_call("terminate", status="success"),
    }[act.kind]()


def _generic(act: Act) -> str:
    v = [x / 1000 if isinstance(x, int) else x for x in act.values]
    action = {
        "tap": lambda: {"type": "tap", "target": {"point": {"x": v[0], "y": v[1]}}},
        "type": lambda: {"type": "type", "text": v[0]},
        "swipe": lambda: {
            "type": "swipe",
            "start": {"x": v[0], "y": v[1]},
            "end": {"x": v[2], "y": v[3]},
        },
        "back": lambda: {"type": "key", "key": "back"},
        "finish": lambda: {"type": "finish", "status": "success", "message": v[0]},
    }[act.kind]()
    return json.dumps({"thought": "next step", "action": action}, ensure_ascii=False)


@dataclass(frozen=True)
class Grammar:
    """How one adapter's model writes a call, and where its thought goes."""

    adapter: str
    options: dict[str, object]
    call: Callable[[Act], str]
    reply: Callable[[str, str], str]
    quote: Callable[[str], str] | None = None
    """How a call is quoted in the thought (None: mobile_use calls tagged, others bare)."""
    widen: Callable[[str], str] | None = None
    """The full-width noise for this syntax (None: :func:`to_fullwidth`)."""


GRAMMARS = {
    "uitars15": Grammar("uitars15", U, _uitars, lambda t, c: f"Thought: {t}\nAction: {c}"),
    "autoglm": Grammar(
        "autoglm", {}, _autoglm, lambda t, c: f"<think>{t}</think>\n<answer>{c}</answer>"
    ),
    "autoglm_bare": Grammar("autoglm", {}, _autoglm, lambda t, c: f"{t}\n{c}"),
    "qwen3vl": Grammar(
        "qwen3vl", Q3, _mobile_use, lambda t, c: f"Thought: {t}\nAction: go\n{tagged(c)}"
    ),
    "qwen25vl": Grammar(
        "qwen25vl", {}, _mobile_use, lambda t, c: f"<think>{t}</think>\n{tagged(c)}"
    ),
    "guiowl": Grammar(
        "guiowl", {}, _mobile_use, lambda t, c: f"<thinking>{t}</thinking>\nAction: go\n{tagged(c)}"
    ),
    "guiowl_v3": Grammar(
        "guiowl",
        V3,
        _mobile_use,
        lambda t, c: f"<thinking>{t}</thinking>\n{tagged(c)}\n<conclusion>ok</conclusion>",
    ),
    "generic": Grammar("generic", {}, _generic, lambda t, c: f"{t}\n{c}"),
}

_WIDE = {c: chr(ord(c) + 0xFEE0) for c in "(),:=[]{}0123456789"}


def to_fullwidth(text: str) -> str:
    """``text`` with its syntax (outside quotes) in full-width forms: the noise to undo."""
    out, quote = [], ""
    for char in text:
        if quote:
            quote = "" if char == quote else quote
            out.append(char)
        elif char in "'\"":
            quote = char
            out.append(char)
        else:
            out.append(_WIDE.get(char, char))
    return "".join(out)


def _venus(act: Act) -> str:
    v = act.values
    return {
        "tap": lambda: f"Click(box=({v[0]},{v[1]}))",
        "type": lambda: f"Type(content='{v[0]}')",
        "swipe": lambda: f"Scroll(start=({v[0]},{v[1]}), end=({v[2]},{v[3]}))",
        "back": lambda: "PressBack()",
        "finish": lambda: f"Finished(content='{v[0]}')",
    }[act.kind]()


def _maiui(act: Act) -> str:
    v = act.values
    return {
        "tap": lambda: tool_call("click", coordinate=[v[0], v[1]]),
        "type": lambda: tool_call("type", text=v[0]),
        "swipe": lambda: tool_call(
            "drag", start_coordinate=[v[0], v[1]], end_coordinate=[v[2], v[3]]
        ),
        "back": lambda: tool_call("system_button", button="back"),
        "finish": lambda: tool_call("terminate", status="success"),
    }[act.kind]()


def _gelab(act: Act) -> str:
    v = act.values
    return {
        "tap": lambda: f"action:CLICK\tpoint:{v[0]},{v[1]}",
        "type": lambda: f"action:TYPE\tvalue:{v[0]}",
        "swipe": lambda: f"action:SLIDE\tpoint1:{v[0]},{v[1]}\tpoint2:{v[2]},{v[3]}",
        "back": lambda: "action:WAIT\tvalue:3",  # GELab has no back key
        "finish": lambda: f"action:COMPLETE\treturn:{v[0]}",
    }[act.kind]()


def _gelab_fullwidth(fields: str) -> str:
    """GELab fields with full-width key separators and points; values (text) as written."""
    out = []
    for field in fields.split("\t"):
        key, _, value = field.partition(":")
        if key.startswith("point"):
            value = "".join(_WIDE.get(char, char) for char in value)
        out.append(f"{key}：{value}")
    return "\t".join(out)


def _gelab_reply(thought: str, fields: str) -> str:
    return f"<THINK> {thought} </THINK>\nexplain:why\t{fields}\tsummary:so far"


NEW_GRAMMARS = {
    "uivenus": Grammar(
        "uivenus",
        {},
        _venus,
        lambda t, c: f"<think>{t}</think>\n<action>{c}</action>\n<conclusion>ok</conclusion>",
        quote=lambda c: f"<action>{c}</action>",
    ),
    "maiui": Grammar(
        "maiui",
        {},
        _maiui,
        lambda t, c: f"<thinking>\n{t}\n</thinking>\n{tagged(c)}",
        quote=tagged,
    ),
    "gelab": Grammar("gelab", {}, _gelab, _gelab_reply, widen=_gelab_fullwidth),
    "stepgui": Grammar("stepgui", {}, _gelab, _gelab_reply, widen=_gelab_fullwidth),
    "generic_v2": Grammar(
        "generic_v2",
        {},
        _generic,
        lambda t, c: f"<think>{t}</think><answer>{c}</answer>",
        quote=lambda c: f"<answer>{c}</answer>",
    ),
}
"""The new adapters' grammars (issue 17, item 2) under the same noise."""
GRAMMARS.update(NEW_GRAMMARS)


@dataclass(frozen=True)
class Noise:
    """What to wrap a clean reply in."""

    quote_others: bool
    fullwidth: bool
    token: str
    fence: bool
    space: str


NOISE = st.builds(
    Noise,
    quote_others=st.booleans(),
    fullwidth=st.booleans(),
    token=st.sampled_from(["", "<|im_end|>", "<|endoftext|>", "<|end_of_box|>"]),
    fence=st.booleans(),
    space=st.sampled_from(["", "\n", "  \n\t"]),
)
OTHERS = (Act("finish", ("DONE",)), Act("tap", (1, 2)), Act("back", ()))


def wrap(text: str, noise: Noise) -> str:
    """A clean reply in fences, special tokens and whitespace."""
    if noise.fence:
        text = f"```\n{text}\n```"
    return f"{noise.space}{text}{noise.token}{noise.space}"


def assert_same_or_invalid(clean: ParsedOutput, noisy: ParsedOutput) -> None:
    """The noisy reading is the clean one or an invalid step — never another action, and
    never a finish the clean reading is not."""
    assert clean.action is not None, clean.error
    if noisy.action is not None:
        assert noisy.action == clean.action, (noisy.action, clean.action)
    if noisy.action is not None and noisy.action.type == "finish":
        assert clean.action.type == "finish"


@pytest.mark.parametrize("grammar", sorted(GRAMMARS))
@PROPERTY
@given(act=ACTS, noise=NOISE)
def test_generated_actions_survive_noise(grammar: str, act: Act, noise: Noise) -> None:
    spec = GRAMMARS[grammar]
    call = spec.call(act)
    clean = read(spec.adapter, spec.reply("I look at the screen.", call), **spec.options)
    others = [spec.call(other) for other in OTHERS if other.kind != act.kind]
    thought = "I look at the screen."
    if noise.quote_others:
        quoted = [
            spec.quote(o) if spec.quote else tagged(o) if "mobile_use" in o else o for o in others
        ]
        if spec.adapter == "uitars15":
            quoted = [f"Action: {q}" for q in quoted]
        thought = f"Earlier {' and '.join(quoted)} were considered, but not now."
    body = (spec.widen or to_fullwidth)(call) if noise.fullwidth else call
    reply = spec.reply(thought, body)
    if noise.fullwidth and spec.adapter == "uitars15":
        reply = reply.replace("Action: " + body, "Action：" + body)
    noisy = read(spec.adapter, wrap(reply, noise), **spec.options)
    assert_same_or_invalid(clean, noisy)
    # all of this noise is readable: the committed action comes out unchanged
    assert noisy.action == clean.action, (reply, noisy.error)
    if act.kind == "type":
        assert getattr(clean.action, "text", None) == act.values[0]  # typed text untouched


def _readable_samples() -> list[dict[str, Any]]:
    found = []
    for item in samples():
        name, options = route(item)
        parsed = ADAPTERS[name](**options).parse(item["raw"], screen(*screen_of(item)))
        if parsed.action is not None:
            found.append(item)
    return found


READABLE = _readable_samples()


@pytest.mark.parametrize("sample_id", [item["id"] for item in READABLE])
@settings(derandomize=True, max_examples=8, deadline=None, database=None)
@given(noise=NOISE, think=st.booleans())
def test_real_samples_survive_noise(sample_id: str, noise: Noise, think: bool) -> None:
    item = next(s for s in READABLE if s["id"] == sample_id)
    name, options = route(item)
    adapter = ADAPTERS[name](**options)
    obs = screen(*screen_of(item))
    clean = adapter.parse(item["raw"], obs)
    raw = item["raw"]
    if think:  # a reasoning block that quotes other calls of every grammar
        quoted = " ".join(
            [_uitars(OTHERS[0]), _autoglm(OTHERS[0]), tagged(_mobile_use(OTHERS[0])), JSON_END]
        )
        raw = f"<think>Maybe Action: {quoted} DONE.</think>\n{raw}"
    noisy = adapter.parse(wrap(raw, Noise(False, False, noise.token, False, noise.space)), obs)
    assert_same_or_invalid(clean, noisy)
    assert noisy.action == clean.action, noisy.error
    if noise.fence and "```" not in raw:
        fenced = adapter.parse(wrap(raw, noise), obs)
        assert_same_or_invalid(clean, fenced)


def test_the_samples_exercise_every_family() -> None:
    assert len(READABLE) >= 30
    assert {route(item)[0] for item in READABLE} >= {"uitars15", "autoglm", "guiowl", "qwen3vl"}
