"""trainers.rollout: one episode on an in-process simulator with the stand-in endpoint."""

from __future__ import annotations

import pytest
import pytest_asyncio

from bridge.env import Env
from bridge.errors import PolicyError
from policies.vlm.client import ClientConfig
from policies.vlm.messages import ChatMessage, image_urls
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
from trainers.rollout import ModelCall, rollout

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.browser]


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def point(sim: Simulator) -> tuple[float, float]:
    return await airplane_point(sim)


def _http_model(endpoint: Endpoint) -> ModelCall:
    client = ClientConfig(base_url=endpoint.base_url, model=MODEL, max_retries=0).build()

    async def model(messages: list[ChatMessage]) -> str:
        return (await client.complete(messages)).text

    return model


async def test_a_scripted_model_solves_the_task_through_the_generic_adapter(
    sim: Simulator, endpoint: Endpoint, point: tuple[float, float]
) -> None:
    endpoint.script(generic_script(point))

    async def make_env() -> Env:
        return await sim.env(screenshot=False)

    outcome = await rollout(make_env, airplane_task(sim), _http_model(endpoint), "generic")
    assert outcome.reward == 1.0 and outcome.success and not outcome.infra_error
    assert outcome.verdict is not None and outcome.verdict.progress == 1.0
    assert outcome.num_turns == 3 and outcome.terminated
    assert [turn.action.type for turn in outcome.turns] == ["open_app", "tap", "finish"]
    assert outcome.turns[0].reply == generic_script(point)[0]
    assert "Turn airplane mode off." in str(outcome.turns[0].messages[-1].content)
    assert len(endpoint.fake.requests) == 3


async def test_qwen3vl_gets_the_screenshot_and_its_grammar_solves_the_task(
    sim: Simulator, endpoint: Endpoint, point: tuple[float, float]
) -> None:
    endpoint.script(qwen_script(point))
    outcome = await rollout(sim.env, airplane_task(sim), _http_model(endpoint), "qwen3vl")
    assert outcome.reward == 1.0 and outcome.success
    assert all(len(image_urls(turn.messages)) == 1 for turn in outcome.turns)


async def test_an_invalid_reply_costs_a_step_and_the_episode_goes_on(
    sim: Simulator, endpoint: Endpoint, point: tuple[float, float]
) -> None:
    script = generic_script(point)
    endpoint.script([script[0], "I would rather not.", *script[1:]])
    outcome = await rollout(
        lambda: sim.env(screenshot=False), airplane_task(sim), _http_model(endpoint)
    )
    assert outcome.success and outcome.num_turns == 4
    assert outcome.turns[1].action is None and outcome.turns[1].error
    assert outcome.record.invalid_steps == 1


async def test_a_lost_env_host_is_an_infra_error_with_reward_zero(
    sim: Simulator, endpoint: Endpoint, point: tuple[float, float]
) -> None:
    endpoint.script(generic_script(point))
    make_env = losing_factory(sim, fail_at=1, screenshot=False)
    outcome = await rollout(make_env, airplane_task(sim), _http_model(endpoint))
    assert outcome.infra_error and outcome.reward == 0.0 and not outcome.success
    assert outcome.error_source == "env" and "host went away" in (outcome.error or "")
    assert outcome.verdict is None and outcome.num_turns == 2


async def test_a_failing_model_call_is_an_infra_error_of_the_policy(sim: Simulator) -> None:
    async def broken(messages: list[ChatMessage]) -> str:
        raise PolicyError("the inference server is down (test)")

    outcome = await rollout(lambda: sim.env(screenshot=False), airplane_task(sim), broken)
    assert outcome.infra_error and outcome.reward == 0.0
    assert outcome.error_source == "policy" and outcome.num_turns == 0


async def test_max_steps_cuts_the_episode_and_the_reward_is_shaped(
    sim: Simulator, endpoint: Endpoint, point: tuple[float, float]
) -> None:
    endpoint.script(generic_script(point)[:2])  # toggled, but never finished
    outcome = await rollout(
        lambda: sim.env(screenshot=False),
        airplane_task(sim),
        _http_model(endpoint),
        max_steps=2,
    )
    assert outcome.verdict is not None and outcome.verdict.success  # the goal holds ...
    assert not outcome.success and not outcome.terminated  # ... but the budget ended it
    assert outcome.record.outcome_class == "goal_at_budget"
    assert outcome.record.termination == "max_steps" and outcome.reward == 0.5
