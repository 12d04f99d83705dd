"""Policy specs: parsing literal strings, error messages, and load() for every kind."""

from __future__ import annotations

from pathlib import Path

import pytest

import policies
from bridge.errors import BridgeError
from bridge.plans import FinishStep, Plan, Selector, TapStep
from bridge.policy import Policy
from bridge.runner import run_episode
from bridge.schema import PolicyContext
from policies.errors import PolicySpecError
from policies.random_policy import RandomPolicy
from policies.registry import (
    LearnedSpec,
    PolicySpec,
    RandomSpec,
    ReplaySpec,
    ScriptedSpec,
    VLMSpec,
    load,
    parse_spec,
    valid_forms,
)
from policies.scripted import PlanPolicy
from tests.bridge.toy_env import CounterEnv, counter_task

QWEN = "vlm:qwen3vl@http://127.0.0.1:8000/v1#Qwen/Qwen3-VL-8B-Instruct"


# --------------------------------------------------------------------------- parse_spec

GOOD: list[tuple[str, PolicySpec]] = [
    ("scripted", ScriptedSpec()),
    ("  scripted\n", ScriptedSpec()),
    ("random", RandomSpec()),
    ("random:0", RandomSpec(seed=0)),
    ("random:1234567", RandomSpec(seed=1234567)),
    (
        "replay:runs/base/settings.SetWifi-v1_s0_en",
        ReplaySpec(run="runs/base", episode="settings.SetWifi-v1_s0_en"),
    ),
    ("replay:/tmp/a b/run:2/ep", ReplaySpec(run="/tmp/a b/run:2", episode="ep")),
    ("replay:./ep_1", ReplaySpec(run=".", episode="ep_1")),
    (
        QWEN,
        VLMSpec(
            adapter="qwen3vl",
            base_url="http://127.0.0.1:8000/v1",
            model="Qwen/Qwen3-VL-8B-Instruct",
        ),
    ),
    (
        "vlm:uitars15@https://api.example.com/v1",
        VLMSpec(adapter="uitars15", base_url="https://api.example.com/v1"),
    ),
    (
        "vlm:generic@http://[::1]:8000/v1#org/model#v2",
        VLMSpec(adapter="generic", base_url="http://[::1]:8000/v1", model="org/model#v2"),
    ),
    (
        "vlm:autoglm@http://host:9000#glm@rev:1",
        VLMSpec(adapter="autoglm", base_url="http://host:9000", model="glm@rev:1"),
    ),
    ("learned:checkpoints/grpo.npz", LearnedSpec(checkpoint="checkpoints/grpo.npz")),
    ("learned:/abs/path with space/ck", LearnedSpec(checkpoint="/abs/path with space/ck")),
]


@pytest.mark.parametrize(("text", "expected"), GOOD, ids=[text.strip() for text, _ in GOOD])
def test_parse_spec_accepts(text: str, expected: PolicySpec) -> None:
    parsed = parse_spec(text)
    assert parsed == expected and type(parsed) is type(expected)
    assert parse_spec(str(parsed)) == parsed  # str() is the spec again


BAD: list[tuple[str, str]] = [
    ("", "empty"),
    ("   ", "empty"),
    ("scripted:oracle", "takes no arguments"),
    ("random:", "non-negative integer"),
    ("random:-1", "non-negative integer"),
    ("random:1.5", "non-negative integer"),
    ("random:seven", "non-negative integer"),
    ("random:٣", "non-negative integer"),  # a digit, but not an ASCII one
    ("replay", "RUN/EPISODE"),
    ("replay:", "RUN/EPISODE"),
    ("replay:just_an_episode", "RUN/EPISODE"),
    ("replay:/ep", "RUN/EPISODE"),
    ("replay:runs/base/", "names no episode"),
    ("replay:runs/..", "not a safe directory name"),
    ("vlm", "ADAPTER@BASE_URL"),
    ("vlm:qwen3vl", "ADAPTER@BASE_URL"),
    ("vlm:@http://127.0.0.1:8000/v1", "ADAPTER@BASE_URL"),
    ("vlm:qwen 3@http://127.0.0.1:8000/v1", "not an adapter name"),
    ("vlm:qwen3vl@", "needs a BASE_URL"),
    ("vlm:qwen3vl@#model", "needs a BASE_URL"),
    ("vlm:qwen3vl@127.0.0.1:8000/v1", "http(s)://HOST"),
    ("vlm:qwen3vl@ftp://host/v1", "http(s)://HOST"),
    ("vlm:qwen3vl@http:///v1", "http(s)://HOST"),
    ("vlm:qwen3vl@http://host:99999/v1", "bad port"),
    ("vlm:qwen3vl@http://host:80a/v1", "bad port"),
    ("vlm:qwen3vl@http://host:8000/v1#", "nothing after '#'"),
    ("learned", "CHECKPOINT"),
    ("learned:", "CHECKPOINT"),
    ("oracle", "unknown policy kind 'oracle'"),
]


@pytest.mark.parametrize(("text", "problem"), BAD, ids=[text or "<empty>" for text, _ in BAD])
def test_parse_spec_rejects_with_every_valid_form(text: str, problem: str) -> None:
    with pytest.raises(PolicySpecError) as caught:
        parse_spec(text)
    message = str(caught.value)
    assert problem in message
    for example in ("scripted", "random:7", "replay:runs/base/", QWEN, "learned:checkpoints/"):
        assert example in message


@pytest.mark.parametrize(
    ("text", "suggestion"),
    [
        ("scriptd", "scripted"),
        ("Scripted", "scripted"),
        ("rando:3", "random"),
        ("RANDOM:3", "random"),
        ("replai:runs/x/ep", "replay"),
        ("vllm:qwen3vl@http://127.0.0.1:8000/v1", "vlm"),
        ("vlm-qwen3vl@http://127.0.0.1:8000/v1", "vlm"),
        ("learnd:ck.npz", "learned"),
    ],
)
def test_typos_suggest_the_nearest_kind(text: str, suggestion: str) -> None:
    with pytest.raises(PolicySpecError, match=f"did you mean '{suggestion}'"):
        parse_spec(text)


def test_unrelated_kind_gets_no_suggestion() -> None:
    with pytest.raises(PolicySpecError) as caught:
        parse_spec("zzz")
    assert "did you mean" not in str(caught.value)


def test_the_error_is_a_bridge_error_and_a_value_error() -> None:
    assert issubclass(PolicySpecError, BridgeError) and issubclass(PolicySpecError, ValueError)
    assert policies.PolicySpecError is PolicySpecError and policies.load is load


def test_package_exports_resolve() -> None:
    for symbol in policies.__all__:
        assert getattr(policies, symbol) is not None, symbol


def test_valid_forms_lists_every_kind() -> None:
    text = valid_forms()
    forms = (
        "scripted",
        "random[:SEED]",
        "replay:RUN/EPISODE",
        "vlm:ADAPTER[,K=V...]@BASE_URL[#MODEL]",
    )
    for form in forms:
        assert form in text
    assert "learned:CHECKPOINT" in text


# --------------------------------------------------------------------------- load


def _counter_plan(instruction: str, context: PolicyContext) -> Plan:
    assert context.task_id == "toy/Counter-v1" and "counter" in instruction
    return [TapStep(on=Selector(text="+")), TapStep(on=Selector(text="+")), FinishStep()]


@pytest.mark.asyncio
async def test_scripted_follows_the_plan_from_plan_for() -> None:
    policy = load("scripted", plan_for=_counter_plan)
    assert isinstance(policy, PlanPolicy) and isinstance(policy, Policy)
    assert policy.name == "scripted"
    record = await run_episode(policy, CounterEnv(), counter_task(2), episode_id="scripted")
    assert (record.outcome, record.steps, record.policy) == ("success", 3, "scripted")


def test_scripted_without_plan_for_says_what_to_pass() -> None:
    with pytest.raises(PolicySpecError, match="plan_for"):
        load("scripted")


def test_random_takes_its_seed_from_the_spec_or_from_load() -> None:
    assert load("random:5").name == "random:5"
    assert load("random", seed=9).name == "random:9"
    assert load("random:5", seed=9).name == "random:5"  # the spec wins
    assert isinstance(load(RandomSpec(seed=3)), RandomPolicy)


def test_learned_checkpoint_must_exist(tmp_path: Path) -> None:
    with pytest.raises(PolicySpecError, match="no checkpoint"):
        load(f"learned:{tmp_path / 'missing.npz'}")


# --------------------------------------------------------------------------- vlm & learned


def test_unknown_vlm_adapter_suggests_the_nearest() -> None:
    from policies.vlm.base import ADAPTERS

    assert {"qwen3vl", "qwen25vl", "uitars15", "autoglm", "guiowl", "generic"} <= set(ADAPTERS)
    with pytest.raises(PolicySpecError, match="did you mean 'qwen3vl'") as caught:
        parse_spec("vlm:qwen3v@http://127.0.0.1:8000/v1")
    assert "uitars15" in str(caught.value)  # the known adapters are listed
    with pytest.raises(PolicySpecError, match="unknown vlm adapter 'gpt'"):
        parse_spec("vlm:gpt@http://127.0.0.1:8000/v1")


@pytest.mark.parametrize(
    "spec",
    [
        QWEN,
        "vlm:uitars15@https://api.example.com/v1#ByteDance-Seed/UI-TARS-1.5-7B",
        "vlm:generic@http://[::1]:9/v1#org/model#v2",
    ],
)
def test_vlm_spec_builds_a_vlm_policy_named_by_the_spec(spec: str) -> None:
    from policies.vlm.base import VLMPolicy

    policy = load(spec)
    assert isinstance(policy, VLMPolicy) and isinstance(policy, Policy)
    assert policy.name == spec


def test_vlm_spec_without_model_takes_the_adapter_classs_default(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from policies.vlm.base import ADAPTERS

    adapter = ADAPTERS["generic"]
    monkeypatch.setattr(adapter, "default_model", "org/default-model", raising=False)
    policy = load("vlm:generic@http://127.0.0.1:8000/v1")
    assert policy.name == "vlm:generic@http://127.0.0.1:8000/v1#org/default-model"
    monkeypatch.setattr(adapter, "default_model", None)
    with pytest.raises(PolicySpecError, match="#MODEL"):
        load("vlm:generic@http://127.0.0.1:8000/v1")


def test_qwen3vl_without_model_uses_its_default() -> None:
    policy = load("vlm:qwen3vl@http://127.0.0.1:8000/v1")
    assert policy.name.startswith("vlm:qwen3vl@http://127.0.0.1:8000/v1#")


def test_vlm_options_are_typed_kept_in_the_name_and_reach_adapter_and_client() -> None:
    spec = parse_spec(
        "vlm:qwen3vl,scale=1000,temperature=0,top_p=0.9,stream=false"
        "@http://127.0.0.1:8000/v1#my/Qwen3-VL-ft"
    )
    assert spec.options == {"scale": 1000, "temperature": 0, "top_p": 0.9, "stream": False}
    assert str(spec) == (
        "vlm:qwen3vl,scale=1000,temperature=0,top_p=0.9,stream=false"
        "@http://127.0.0.1:8000/v1#my/Qwen3-VL-ft"
    )
    policy = load("vlm:qwen3vl,scale=1000,temperature=0@http://127.0.0.1:8000/v1#m")
    assert policy.adapter.scale == 1000  # type: ignore[attr-defined]
    assert policy._client.config.temperature == 0  # type: ignore[attr-defined]
    assert policy.name == "vlm:qwen3vl,scale=1000,temperature=0@http://127.0.0.1:8000/v1#m"


def test_bad_vlm_options_are_named() -> None:
    with pytest.raises(PolicySpecError, match="option 'scale' is not KEY=VALUE"):
        parse_spec("vlm:qwen3vl,scale@http://127.0.0.1:8000/v1")
    with pytest.raises(PolicySpecError, match="scale must be 999 or 1000"):
        load("vlm:qwen3vl,scale=500@http://127.0.0.1:8000/v1#m")
    with pytest.raises(PolicySpecError, match="wobble"):
        load("vlm:qwen3vl,wobble=1@http://127.0.0.1:8000/v1#m")
