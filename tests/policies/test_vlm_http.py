"""VLMPolicy end to end against a local OpenAI-compatible server started by the test.

The fake serves ``/v1/chat/completions`` (and ``/v1/models``) with FastAPI + uvicorn on
127.0.0.1 at an ephemeral port, answers with scripted replies in order (recorded model outputs
from samples.jsonl, or HTTP errors), and records every request it gets.
"""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import pytest
import pytest_asyncio
import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from bridge.errors import PolicyError
from bridge.policy import Policy
from bridge.runner import run_episode
from bridge.schema import PolicyContext
from policies.vlm.base import ADAPTERS, VLMPolicy
from policies.vlm.errors import VLMConfigError
from tests.bridge.toy_env import CounterEnv, counter_task
from tests.policies.test_vlm_parsing import observation, sample

MODEL = "Qwen/Qwen3-VL-8B-Instruct"
INSTRUCTION = "Search for Musk in X"
FAST = {"backoff_s": 0.001, "max_retries": 2}


@dataclass
class Reply:
    """One scripted answer: a completion text (status 200) or an error status."""

    text: str = ""
    status: int = 200


@dataclass
class FakeVLM:
    """A scripted OpenAI-compatible server that records the requests it receives."""

    replies: list[Reply] = field(default_factory=list)
    requests: list[dict] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    models: list[str] = field(default_factory=lambda: [MODEL])

    def app(self) -> FastAPI:
        """The FastAPI app serving this fake's state."""
        app = FastAPI()

        @app.post("/v1/chat/completions")
        async def chat(request: Request) -> JSONResponse:
            body = await request.json()
            self.requests.append(body)
            self.headers.append(dict(request.headers))
            reply = self.replies.pop(0) if self.replies else Reply("nothing scripted", 500)
            if reply.status != 200:
                return JSONResponse({"error": {"message": reply.text}}, reply.status)
            message = {"role": "assistant", "content": reply.text}
            choice = {"index": 0, "message": message, "finish_reason": "stop"}
            return JSONResponse({"id": "cmpl-1", "object": "chat.completion",
                                 "model": body["model"], "choices": [choice]})  # fmt: skip

        @app.get("/v1/models")
        async def models() -> JSONResponse:
            return JSONResponse({"object": "list", "data": [{"id": m} for m in self.models]})

        return app


@dataclass
class Served:
    """A running fake and its base URL."""

    fake: FakeVLM
    base_url: str


@pytest_asyncio.fixture
async def served() -> AsyncIterator[Served]:
    """The fake on 127.0.0.1 at an ephemeral port (the socket listens before serving)."""
    fake = FakeVLM()
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    port = sock.getsockname()[1]
    config = uvicorn.Config(fake.app(), log_level="warning", access_log=False, lifespan="off")
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        yield Served(fake, f"http://127.0.0.1:{port}/v1")
    finally:
        server.should_exit = True
        await task
        sock.close()


def _policy(served: Served, adapter: str = "qwen3vl", **options: object) -> VLMPolicy:
    return VLMPolicy.from_spec(adapter, served.base_url, MODEL, **{**FAST, **options})


def _image_urls(body: dict) -> list[str]:
    return [part["image_url"]["url"] for message in body["messages"]
            if isinstance(message["content"], list) for part in message["content"]
            if part["type"] == "image_url"]  # fmt: skip


def _text(body: dict) -> str:
    texts = []
    for message in body["messages"]:
        content = message["content"]
        parts = content if isinstance(content, list) else [{"type": "text", "text": content}]
        texts += [part["text"] for part in parts if part["type"] == "text"]
    return "\n".join(texts)


@pytest.mark.asyncio
async def test_act_returns_the_parsed_action_and_sends_model_image_instruction(
    served: Served,
) -> None:
    raw = sample("qwen-004")["raw"]
    served.fake.replies = [Reply(raw)]
    policy = _policy(served)
    assert isinstance(policy, Policy)
    assert policy.name == f"vlm:qwen3vl@{served.base_url}#{MODEL}"
    await policy.reset(INSTRUCTION, PolicyContext())
    obs = observation()
    out = await policy.act(obs)
    assert out.action is not None and out.action.type == "tap"
    assert out.action.target.point.x == pytest.approx(447 / 999)
    assert out.action.target.point.y == pytest.approx(81 / 999)
    assert out.raw_text == raw and out.error is None
    assert out.thought and out.thought.startswith("To search for Musk")
    (body,) = served.fake.requests
    assert body["model"] == MODEL and body["temperature"] == 0 and body["max_tokens"] == 1024
    assert _image_urls(body) == [obs.screenshot.data_url]
    assert _image_urls(body)[0].startswith("data:image/jpeg;base64,/9j/")
    assert INSTRUCTION in _text(body)


@pytest.mark.asyncio
async def test_recorded_outputs_in_order_build_a_multi_turn_history(served: Served) -> None:
    served.fake.replies = [Reply(sample(i)["raw"]) for i in ("owl-002", "owl-004", "owl-005")]
    policy = _policy(served, "guiowl")
    await policy.reset(INSTRUCTION, PolicyContext())
    outputs = [await policy.act(observation(shade=40 * i)) for i in range(3)]
    assert [o.action.type for o in outputs] == ["tap", "tap", "type"]
    assert outputs[2].action.text == "济南"
    third = served.fake.requests[2]
    replayed = [m["content"] for m in third["messages"] if m["role"] == "assistant"]
    assert replayed == [sample("owl-002")["raw"], sample("owl-004")["raw"]]
    assert len(_image_urls(third)) == 3 and len(policy.history) == 3
    await policy.reset("another task", PolicyContext())
    assert policy.history == ()


@pytest.mark.asyncio
async def test_a_500_then_200_is_retried(served: Served) -> None:
    served.fake.replies = [Reply("overloaded", 500), Reply(sample("qwen-004")["raw"])]
    policy = _policy(served)
    await policy.reset(INSTRUCTION, PolicyContext())
    out = await policy.act(observation())
    assert out.action is not None and out.action.type == "tap"
    assert len(served.fake.requests) == 2
    assert served.fake.requests[0] == served.fake.requests[1]


@pytest.mark.asyncio
async def test_repeated_503s_raise_policy_error(served: Served) -> None:
    served.fake.replies = [Reply("warming up", 503)] * 5
    policy = _policy(served)
    await policy.reset(INSTRUCTION, PolicyContext())
    with pytest.raises(PolicyError, match="failed after 3 attempts") as caught:
        await policy.act(observation())
    message = str(caught.value)
    assert "HTTP 503" in message and "warming up" in message
    assert f"{served.base_url}/chat/completions" in message
    assert len(served.fake.requests) == 3


@pytest.mark.asyncio
async def test_a_client_error_is_not_retried_and_the_key_is_never_shown(
    served: Served, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MGB_TEST_VLM_KEY", "sk-very-secret")
    served.fake.replies = [Reply("bad key", 401)]
    policy = _policy(served, api_key_env="MGB_TEST_VLM_KEY")
    await policy.reset(INSTRUCTION, PolicyContext())
    with pytest.raises(PolicyError, match="HTTP 401") as caught:
        await policy.act(observation())
    assert "sk-very-secret" not in str(caught.value) and "MGB_TEST_VLM_KEY" in str(caught.value)
    assert served.fake.headers[0]["authorization"] == "Bearer sk-very-secret"
    assert len(served.fake.requests) == 1


@pytest.mark.asyncio
async def test_garbage_is_an_invalid_step_with_the_raw_text(served: Served) -> None:
    garbage = "I think I should click somewhere nice. 🙂"
    served.fake.replies = [Reply(garbage), Reply(garbage)]
    for adapter in ("qwen3vl", "uitars15"):
        policy = _policy(served, adapter)
        await policy.reset(INSTRUCTION, PolicyContext())
        out = await policy.act(observation())
        assert out.action is None and out.raw_text == garbage and out.error


@pytest.mark.asyncio
async def test_no_model_in_the_spec_uses_the_adapter_default_or_the_served_one(
    served: Served,
) -> None:
    uitars = VLMPolicy.from_spec("uitars15", served.base_url, relative1000=True, **FAST)
    assert uitars.name == f"vlm:uitars15@{served.base_url}#ByteDance-Seed/UI-TARS-1.5-7B"
    served.fake.replies = [Reply('{"action": {"type": "wait"}}')]
    generic = VLMPolicy.from_spec("generic", served.base_url, **FAST)
    assert generic.name == f"vlm:generic@{served.base_url}"
    await generic.reset(INSTRUCTION, PolicyContext())
    out = await generic.act(observation())
    assert out.action is not None and out.action.type == "wait"
    assert served.fake.requests[0]["model"] == MODEL
    served.fake.models = ["a", "b"]
    other = VLMPolicy.from_spec("generic", served.base_url, **FAST)
    await other.reset(INSTRUCTION, PolicyContext())
    with pytest.raises(PolicyError, match="lists 2 models"):
        await other.act(observation())


@pytest.mark.asyncio
async def test_an_unreachable_endpoint_raises_policy_error() -> None:
    with socket.socket() as sock:  # a port nobody listens on once closed
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    policy = VLMPolicy.from_spec("qwen3vl", f"http://127.0.0.1:{port}/v1", MODEL, **FAST)
    await policy.reset(INSTRUCTION, PolicyContext())
    with pytest.raises(PolicyError, match="ConnectError"):
        await policy.act(observation())


@pytest.mark.asyncio
async def test_act_needs_reset_and_a_screenshot() -> None:
    policy = VLMPolicy.from_spec("qwen3vl", "http://127.0.0.1:9/v1", MODEL)
    with pytest.raises(PolicyError, match="reset"):
        await policy.act(observation())
    await policy.reset(INSTRUCTION, PolicyContext())
    blind = observation().model_copy(update={"screenshot": None})
    with pytest.raises(PolicyError, match="no screenshot"):
        await policy.act(blind)


def test_from_spec_splits_options_and_rejects_unknown_ones() -> None:
    policy = VLMPolicy.from_spec("qwen3vl", "http://h/v1", "m", scale=1000, temperature=0.3)
    assert policy.adapter.scale == 1000  # type: ignore[attr-defined]
    with pytest.raises(VLMConfigError, match=f"available: {', '.join(sorted(ADAPTERS))}"):
        VLMPolicy.from_spec("gpt", "http://h/v1", "m")
    with pytest.raises(VLMConfigError, match=r"unknown option.*colour.*takes scale, actions"):
        VLMPolicy.from_spec("qwen3vl", "http://h/v1", "m", colour="red")
    with pytest.raises(VLMConfigError, match="scale must be 999 or 1000"):
        VLMPolicy.from_spec("qwen3vl", "http://h/v1", "m", scale=512)
    with pytest.raises(VLMConfigError, match="bad client options"):
        VLMPolicy.from_spec("qwen3vl", "http://h/v1", "m", max_tokens=0)


def _click(x: int, y: int) -> str:
    call = {"name": "mobile_use", "arguments": {"action": "click", "coordinate": [x, y]}}
    return f"Thought: tap plus\nAction: tap\n<tool_call>\n{json.dumps(call)}\n</tool_call>"


@pytest.mark.asyncio
async def test_an_episode_through_the_runner(served: Served) -> None:
    """Two taps on "+", one garbage reply (an invalid step), then terminate: a success."""
    terminate = '<tool_call>{"name": "mobile_use", "arguments": {"action": "terminate", '
    terminate += '"status": "success"}}</tool_call>'
    served.fake.replies = [Reply(_click(500, 724)), Reply(_click(500, 724)), Reply("hmm"),
                           Reply(terminate)]  # fmt: skip
    policy = _policy(served)
    record = await run_episode(policy, CounterEnv(), counter_task(2), episode_id="vlm")
    assert record.outcome == "success" and record.steps == 4 and record.invalid_steps == 1
    assert record.policy == policy.name
    served.fake.replies = [Reply("down", 503)] * 3
    record = await run_episode(_policy(served), CounterEnv(), counter_task(2), episode_id="503")
    assert record.outcome == "infra_error" and "HTTP 503" in (record.error or "")
