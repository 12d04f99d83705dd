"""trainers.verl_loop against verl **0.7.1**'s documented agent-loop interface.

verl needs torch, so it is not installed here. The module ``verl.experimental.agent_loop.
agent_loop`` is replaced by the minimal stand-in below, written from verl 0.7.1's source:
``AgentLoopBase.__init__(trainer_config, server_manager, tokenizer, processor, dataset_cls,
data_config, **kwargs)`` (``trainer_config`` and ``data_config`` are ``DictConfigWrap``),
``async apply_chat_template(messages, tools=None, images=None, videos=None,
remove_system_prompt=False) -> list[int]`` (the processor's template and ``processor(text,
images)`` when there is a processor, else the tokenizer's), the ``AgentLoopOutput`` and
``AgentLoopMetrics`` models, ``register(name)`` recording ``{"_target_": fqdn}`` in
``_agent_loop_registry``, and ``AsyncLLMServerManager.generate(request_id, *, prompt_ids,
sampling_params, image_data=None, video_data=None) -> TokenOutput(token_ids, log_probs)``.
The stand-in server manager decodes the prompt with a byte-level stand-in tokenizer and
asks the stand-in model endpoint over HTTP, so each episode runs end to end on an
in-process simulator.
"""

from __future__ import annotations

import importlib
import json
import sys
import types
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from pydantic import BaseModel

from sim.simulator import Simulator
from tests.trainers.helpers import (
    MODEL,
    Endpoint,
    airplane_point,
    airplane_task,
    generic_script,
    losing_factory,
    qwen_script,
)
from trainers import verl_loop
from trainers.errors import MissingExtra
from trainers.verl_loop import TokenTurn, dataset_row, make_agent_loop, merge_turns

on_sim = pytest.mark.asyncio(loop_scope="module")
_VERL = "verl.experimental.agent_loop.agent_loop"
_ASSISTANT = "\n<|assistant|>\n"

# ---------------------------------------------------------------- the verl 0.7.1 stand-in


class AgentLoopMetrics(BaseModel):
    generate_sequences: float = 0.0
    tool_calls: float = 0.0
    num_preempted: int = -1


class AgentLoopOutput(BaseModel):
    prompt_ids: list[int]
    response_ids: list[int]
    response_mask: list[int]
    response_logprobs: list[float] | None = None
    routed_experts: Any | None = None
    multi_modal_data: dict[str, Any] | None = None
    reward_score: float | None = None
    num_turns: int = 0
    metrics: AgentLoopMetrics
    extra_fields: dict[str, Any] = {}


class TokenOutput(BaseModel):
    token_ids: list[int]
    log_probs: list[float] | None = None


class DictConfigWrap:
    def __init__(self, config: Any) -> None:
        self.config = config


class ByteTokenizer:
    """Token ids are UTF-8 bytes; the chat template is the messages' JSON."""

    def encode(self, text: str) -> list[int]:
        return list(text.encode("utf-8"))

    def decode(self, ids: list[int], skip_special_tokens: bool = False) -> str:
        return bytes(ids).decode("utf-8")

    def apply_chat_template(self, messages: list[dict], **kwargs: Any) -> Any:
        text = json.dumps(messages) + _ASSISTANT
        return self.encode(text) if kwargs.get("tokenize") else text


class PlaceholderProcessor:
    """A VLM processor: ``{"type": "image"}`` parts become ``<image>`` tokens."""

    def __init__(self) -> None:
        self.tokenizer, self.seen_images = ByteTokenizer(), []

    def apply_chat_template(self, messages: list[dict], **kwargs: Any) -> str:
        for message in messages:
            for part in message["content"] if isinstance(message["content"], list) else []:
                assert part["type"] in ("text", "image"), part  # what HF templates take
        return self.tokenizer.apply_chat_template(messages)

    def __call__(self, text: list[str], images: list[Any] | None = None, **kwargs: Any) -> dict:
        self.seen_images.append(images)
        return {"input_ids": [self.tokenizer.encode(text[0])]}


class AgentLoopBase:
    def __init__(
        self,
        trainer_config: DictConfigWrap,
        server_manager: Any,
        tokenizer: Any,
        processor: Any,
        dataset_cls: Any,
        data_config: DictConfigWrap,
        **kwargs: Any,
    ) -> None:
        self.config = trainer_config.config
        self.rollout_config = types.SimpleNamespace(**self.config["rollout"])
        self.server_manager, self.tokenizer, self.processor = server_manager, tokenizer, processor
        self.dataset_cls, self.data_config = dataset_cls, data_config.config

    async def apply_chat_template(
        self, messages: list[dict], tools: Any = None, images: Any = None, videos: Any = None,
        remove_system_prompt: bool = False,
    ) -> list[int]:  # fmt: skip
        if self.processor is not None:
            text = self.processor.apply_chat_template(messages, add_generation_prompt=True)
            return self.processor(text=[text], images=images)["input_ids"][0]
        return self.tokenizer.apply_chat_template(
            messages, add_generation_prompt=True, tokenize=True
        )

    async def run(self, sampling_params: dict[str, Any], **kwargs: Any) -> AgentLoopOutput:
        raise NotImplementedError


class ServerManager:
    """Generates by asking the stand-in endpoint with the decoded prompt."""

    def __init__(self, endpoint: Endpoint) -> None:
        self.endpoint, self.calls, self.tokenizer = endpoint, [], ByteTokenizer()

    async def generate(
        self, request_id: str, *, prompt_ids: list[int], sampling_params: dict[str, Any],
        image_data: list[Any] | None = None, video_data: list[Any] | None = None,
    ) -> TokenOutput:  # fmt: skip
        self.calls.append((request_id, sampling_params, image_data))
        messages = json.loads(self.tokenizer.decode(prompt_ids).removesuffix(_ASSISTANT))
        async with httpx.AsyncClient() as http:
            response = await http.post(
                f"{self.endpoint.base_url}/chat/completions",
                json={"model": MODEL, "messages": messages},
            )
        ids = self.tokenizer.encode(response.json()["choices"][0]["message"]["content"])
        return TokenOutput(token_ids=ids, log_probs=[-0.5] * len(ids))


def _stand_in_verl() -> types.ModuleType:
    module = types.ModuleType(_VERL)
    registry: dict[str, dict[str, str]] = {}

    def register(agent_name: str) -> Any:
        def decorator(subclass: type) -> type:
            registry[agent_name] = {"_target_": f"{subclass.__module__}.{subclass.__qualname__}"}
            return subclass

        return decorator

    module.__dict__.update(
        AgentLoopBase=AgentLoopBase, AgentLoopOutput=AgentLoopOutput, register=register,
        _agent_loop_registry=registry, DictConfigWrap=DictConfigWrap,
    )  # fmt: skip
    return module


# ---------------------------------------------------------------- fixtures


@pytest.fixture
def verl(monkeypatch: pytest.MonkeyPatch) -> Iterator[types.ModuleType]:
    """The stand-in installed as verl's agent loop module (and nothing left behind)."""
    module = _stand_in_verl()
    for name in ("verl", "verl.experimental", "verl.experimental.agent_loop"):
        monkeypatch.setitem(sys.modules, name, types.ModuleType(name))
    monkeypatch.setitem(sys.modules, _VERL, module)
    yield module
    vars(verl_loop).pop("MobileGymAgentLoop", None)


def _loop(cls: type, endpoint: Endpoint, processor: Any = None, **options: Any) -> Any:
    """An agent loop as verl's worker instantiates one (hydra: the fixed kwargs + YAML)."""
    config = {"rollout": {"response_length": 4096, "prompt_length": 65536}}
    return cls(
        trainer_config=DictConfigWrap(config),
        server_manager=ServerManager(endpoint),
        tokenizer=ByteTokenizer(),
        processor=processor,
        dataset_cls=None,
        data_config=DictConfigWrap({}),
        **options,
    )


def _row(task: Any) -> dict[str, Any]:
    row = dataset_row(task, index=7)
    return {**row, "raw_prompt": row["prompt"]}  # RLHFDataset adds raw_prompt


# ---------------------------------------------------------------- tests


@on_sim
async def test_one_episode_per_sample_with_the_shaped_reward(
    verl: types.ModuleType, sim: Simulator, endpoint: Endpoint
) -> None:
    point = await airplane_point(sim)
    endpoint.script(generic_script(point))
    cls = make_agent_loop()
    assert verl._agent_loop_registry["mobilegym_bridge"] == {
        "_target_": "trainers.verl_loop.MobileGymAgentLoop"
    }
    agent = _loop(cls, endpoint, env_factory=lambda: sim.env(screenshot=False), adapter="generic")
    output = await agent.run({"temperature": 1.0}, **_row(airplane_task(sim)))
    assert isinstance(output, AgentLoopOutput)
    assert output.reward_score == 1.0 and output.num_turns == 6
    extra = output.extra_fields
    assert extra["success"] and not extra["infra_error"] and extra["sequence"] == "last_turn"
    assert len(extra["turns"]) == 3
    finish = json.loads(bytes(output.response_ids).decode())["action"]
    assert finish == {"type": "finish", "status": "success"}
    assert output.response_mask == [1] * len(output.response_ids)
    assert output.response_logprobs == [-0.5] * len(output.response_ids)
    manager = agent.server_manager
    assert len({call[0] for call in manager.calls}) == 1  # one sticky session per episode
    assert all(call[1] == {"temperature": 1.0} and call[2] is None for call in manager.calls)


@on_sim
async def test_screenshots_go_to_the_processor_and_the_server_as_images(
    verl: types.ModuleType, sim: Simulator, endpoint: Endpoint
) -> None:
    point = await airplane_point(sim)
    endpoint.script(qwen_script(point))
    processor = PlaceholderProcessor()
    agent = _loop(make_agent_loop(), endpoint, processor, env_factory=sim.env, adapter="qwen3vl")
    output = await agent.run({}, **_row(airplane_task(sim)))
    assert output.reward_score == 1.0
    (image,) = output.multi_modal_data["images"]
    assert image.size == (1080, 2400) and image.mode == "RGB"
    assert all(len(images) == 1 for images in processor.seen_images)
    assert all(call[2] is not None for call in agent.server_manager.calls)


@on_sim
async def test_a_lost_host_gives_reward_zero_and_the_flag(
    verl: types.ModuleType, sim: Simulator, endpoint: Endpoint
) -> None:
    endpoint.script(generic_script(await airplane_point(sim)))
    factory = losing_factory(sim, fail_at=1, screenshot=False)
    agent = _loop(make_agent_loop(), endpoint, env_factory=factory, adapter="generic")
    output = await agent.run({}, **_row(airplane_task(sim)))
    assert output.reward_score == 0.0
    assert output.extra_fields["infra_error"] and "host went away" in output.extra_fields["error"]


def test_the_hydra_target_resolves_to_the_registered_class(verl: types.ModuleType) -> None:
    target = verl_loop.AGENT_NAME
    module = importlib.import_module("trainers.verl_loop")
    cls = module.MobileGymAgentLoop
    assert issubclass(cls, AgentLoopBase) and verl._agent_loop_registry[target]
    assert module.MobileGymAgentLoop is cls  # built once


def test_without_verl_the_error_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, _VERL, None)
    with pytest.raises(MissingExtra, match=r"pip install 'mobilegym-bridge\[verl\]'"):
        make_agent_loop()


def test_turns_that_extend_each_other_merge_with_masks() -> None:
    first = TokenTurn([1, 2], [3, 4], [-1.0, -1.0])
    second = TokenTurn([1, 2, 3, 4, 9], [5], [-2.0])
    merged = merge_turns([first, second])
    assert merged.kind == "merged" and merged.prompt_ids == [1, 2]
    assert merged.response_ids == [3, 4, 9, 5] and merged.response_mask == [1, 1, 0, 1]
    assert merged.logprobs == [-1.0, -1.0, 0.0, -2.0]


def test_rebuilt_prompts_keep_the_last_turn() -> None:
    turns = [TokenTurn([1, 2], [3], None), TokenTurn([7, 8], [9, 9], None)]
    last = merge_turns(turns)
    assert last.kind == "last_turn" and last.prompt_ids == [7, 8]
    assert last.response_ids == [9, 9] and last.response_mask == [1, 1] and last.logprobs is None
