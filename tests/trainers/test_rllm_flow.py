"""trainers.rllm_flow against rLLM's documented AgentFlow / Evaluator interface.

rLLM is not on PyPI, so ``rllm`` and ``rllm.eval.types`` are replaced by the minimal
stand-in below, written from rllm-org/rllm (0.3.0.pre, 2026-08): ``rllm.rollout(name=...)``
wraps ``async (task, config) -> Episode`` in an AgentFlow with ``arun`` (what
``run_agent_flow`` awaits), ``rllm.evaluator`` wraps ``(task_row, episode) -> EvalOutput``
in an object with ``evaluate``; ``Episode`` / ``Trajectory`` / ``Step`` are pydantic models
with those fields; ``AgentConfig(base_url, model, session_uid, metadata)``; the engine
passes ``Task(data=row)`` (``rllm.types.Task(id, instruction, metadata)`` in the newest
layout); ``EvalOutput(reward, is_correct, signals, metadata)`` and ``Signal(name, value,
metadata)`` are dataclasses. ``config.base_url`` is the stand-in model endpoint, so each
episode runs end to end on an in-process simulator.
"""

from __future__ import annotations

import sys
import types
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from pydantic import BaseModel, Field

from sim.simulator import Simulator
from tests.trainers.helpers import (
    MODEL,
    Endpoint,
    airplane_point,
    airplane_task,
    generic_script,
    losing_factory,
)
from trainers.errors import MissingExtra, TrainerError
from trainers.rllm_flow import evaluate, make_evaluator, make_flow
from trainers.rows import task_row

on_sim = pytest.mark.asyncio(loop_scope="module")

# ---------------------------------------------------------------- the rLLM stand-in


class Step(BaseModel):
    id: str = Field(default_factory=lambda: str(uuid.uuid4()))
    input: Any | None = None
    output: Any | None = None
    action: Any | None = None
    reward: float = 0.0
    done: bool = False
    metadata: dict | None = None


class Trajectory(BaseModel):
    uid: str = Field(default_factory=lambda: str(uuid.uuid4()))
    name: str = "agent"
    task: Any = None
    steps: list[Step] = Field(default_factory=list)
    reward: float | None = None
    metadata: dict | None = None


class Episode(BaseModel):
    id: str = Field(default_factory=lambda: str(uuid.uuid4()))
    task: Any = None
    is_correct: bool = False
    trajectories: list[Trajectory] = Field(default_factory=list)
    artifacts: dict[str, Any] = Field(default_factory=dict)
    metrics: dict = Field(default_factory=dict)
    metadata: dict = Field(default_factory=dict)


@dataclass
class AgentConfig:
    base_url: str
    model: str
    session_uid: str
    metadata: dict = field(default_factory=dict)


@dataclass
class Task:  # the engine's Task(data=row)
    data: dict
    spec: Any = None


@dataclass
class NewTask:  # rllm.types.Task
    id: str
    instruction: str
    metadata: dict = field(default_factory=dict)


@dataclass
class Signal:
    name: str
    value: float
    metadata: dict = field(default_factory=dict)


@dataclass
class EvalOutput:
    reward: float
    is_correct: bool
    signals: list[Signal] = field(default_factory=list)
    metadata: dict = field(default_factory=dict)


class AgentFlowFn:
    def __init__(self, fn: Any, name: str) -> None:
        self._fn, self._name = fn, name

    async def arun(self, task: Any, config: AgentConfig) -> Episode:
        result = await self._fn(task, config)
        assert isinstance(result, Episode)
        return result


class EvaluatorFn:
    def __init__(self, fn: Any) -> None:
        self._fn = fn

    def evaluate(self, task: dict, episode: Episode) -> EvalOutput:
        return self._fn(task, episode)


def _stand_in_rllm() -> tuple[types.ModuleType, types.ModuleType]:
    rllm = types.ModuleType("rllm")
    eval_types = types.ModuleType("rllm.eval.types")
    rllm.__dict__.update(
        rollout=lambda name="solver": lambda fn: AgentFlowFn(fn, name),
        evaluator=EvaluatorFn, Episode=Episode, Trajectory=Trajectory, Step=Step,
    )  # fmt: skip
    eval_types.__dict__.update(EvalOutput=EvalOutput, Signal=Signal)
    return rllm, eval_types


# ---------------------------------------------------------------- fixtures


@pytest.fixture
def rllm(monkeypatch: pytest.MonkeyPatch) -> Iterator[types.ModuleType]:
    module, eval_types = _stand_in_rllm()
    monkeypatch.setitem(sys.modules, "rllm", module)
    monkeypatch.setitem(sys.modules, "rllm.eval", types.ModuleType("rllm.eval"))
    monkeypatch.setitem(sys.modules, "rllm.eval.types", eval_types)
    yield module


def _config(endpoint: Endpoint) -> AgentConfig:
    return AgentConfig(base_url=endpoint.base_url, model=MODEL, session_uid="task-1:0")


# ---------------------------------------------------------------- tests


@on_sim
async def test_the_flow_plays_the_row_and_the_evaluator_scores_it(
    rllm: types.ModuleType, sim: Simulator, endpoint: Endpoint
) -> None:
    endpoint.script(generic_script(await airplane_point(sim)))
    flow = make_flow(lambda: sim.env(screenshot=False), adapter="generic",
                     client_options={"max_retries": 0, "temperature": 0.7})  # fmt: skip
    row = task_row(airplane_task(sim))
    episode = await flow.arun(Task(data=row), _config(endpoint))
    assert episode.is_correct and episode.artifacts["reward"] == 1.0
    (trajectory,) = episode.trajectories
    assert trajectory.name == "agent" and trajectory.reward is None  # the engine sets it
    assert [step.action["type"] for step in trajectory.steps] == ["open_app", "tap", "finish"]
    assert [step.done for step in trajectory.steps] == [False, False, True]
    assert all(body["temperature"] == 0.7 for body in endpoint.fake.requests)
    result = make_evaluator().evaluate(row, episode)
    assert isinstance(result, EvalOutput)
    assert result.reward == 1.0 and result.is_correct
    signals = {signal.name: signal.value for signal in result.signals}
    assert signals == {"progress": 1.0, "infra_error": 0.0}


@on_sim
async def test_a_lost_host_scores_zero_with_the_flag(
    rllm: types.ModuleType, sim: Simulator, endpoint: Endpoint
) -> None:
    endpoint.script(generic_script(await airplane_point(sim)))
    flow = make_flow(losing_factory(sim, fail_at=1, screenshot=False), adapter="generic")
    task = NewTask(id="t", instruction="airplane", metadata=task_row(airplane_task(sim)))
    episode = await flow.arun(task, _config(endpoint))
    assert episode.artifacts["infra_error"] and not episode.is_correct
    assert "host went away" in episode.artifacts["error"]
    result = evaluate({}, episode)
    assert result.reward == 0.0 and not result.is_correct
    assert result.metadata["infra_error"] == 1.0


def test_the_evaluator_refuses_episodes_it_did_not_make(rllm: types.ModuleType) -> None:
    with pytest.raises(TrainerError, match="no reward, success"):
        evaluate({}, Episode())


def test_without_rllm_the_error_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "rllm", None)
    with pytest.raises(MissingExtra, match=r"rllm-org/rllm \(rLLM is not on PyPI\)"):
        make_flow(lambda: None)  # type: ignore[arg-type,return-value]
