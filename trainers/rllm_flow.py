"""An rLLM rollout flow and evaluator: one phone episode per task row.

Written against rLLM's documented AgentFlow interface (rllm-org/rllm, 0.3.0.pre, 2026-08;
the shape MobileGym-RL's cookbook uses): a flow decorated with ``@rllm.rollout`` is
``async (task, config) -> rllm.Episode``, where ``config.base_url`` is the OpenAI-compatible
endpoint of this rollout's session (rLLM's model gateway, which captures the token ids)
and ``config.model`` the served model; an evaluator decorated with ``@rllm.evaluator`` is
``(task_row, episode) -> rllm.eval.types.EvalOutput(reward, is_correct, signals,
metadata)``. rLLM is not on PyPI, so it is imported only by :func:`make_flow` and
:func:`make_evaluator`; without it they raise :class:`~trainers.errors.MissingExtra`.

The flow plays the row's task (:func:`trainers.rows.task_row` builds rows) in a fresh env
from the factory with :func:`trainers.rollout.rollout`, asking the endpoint through
:class:`~policies.vlm.client.ChatClient` (so retries and errors are the VLM policy's). The
episode has one trajectory with one step per model call (rLLM matches them to the
gateway's traces in order), ``is_correct`` from the verdict, and artifacts ``reward``
(shaped, 0 for an infra error), ``success``, ``progress``, ``infra_error``, ``error``,
``termination``, ``turns``. The evaluator reads them back: the reward is the flow's, as
MobileGym's evaluator scores from the episode's artifacts.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from bridge.sync import EnvFactory
from policies.vlm.adapter import Adapter
from policies.vlm.client import ClientConfig
from policies.vlm.errors import VLMConfigError
from policies.vlm.messages import ChatMessage
from trainers.errors import RLLM_INSTALL, TrainerError, import_extra
from trainers.rollout import RolloutOutcome, make_adapter, rollout
from trainers.rows import task_from_row

__all__ = ["episode_artifacts", "evaluate", "make_evaluator", "make_flow", "task_row_of"]

_ARTIFACTS = ("reward", "success", "progress", "infra_error")


def task_row_of(task: Any) -> Mapping[str, Any]:
    """The dataset row an rLLM task carries: ``task.data`` (what rLLM's AgentFlowEngine
    passes, ``Task(data=row)``), ``task.metadata`` (``rllm.types.Task``), or the row itself.

    Raises:
        TrainerError: none of these is a mapping.
    """
    for row in (getattr(task, "data", None), getattr(task, "metadata", None), task):
        if isinstance(row, Mapping):
            return row
    raise TrainerError(f"the rLLM task {type(task).__name__} carries no dataset row")


def episode_artifacts(outcome: RolloutOutcome) -> dict[str, Any]:
    """What the evaluator scores, as the episode's artifacts (JSON values only)."""
    verdict = outcome.verdict
    return {
        "answer": "",
        "reward": outcome.reward,
        "success": outcome.success,
        "progress": verdict.progress if verdict is not None else 0.0,
        "infra_error": outcome.infra_error,
        "error": outcome.error,
        "error_source": outcome.error_source,
        "termination": outcome.record.termination,
        "turns": outcome.num_turns,
        "task_id": outcome.record.task.task_id,
    }


def _episode(rllm: Any, outcome: RolloutOutcome, name: str) -> Any:
    steps = [
        rllm.Step(
            output=turn.reply,
            action=turn.action.model_dump(mode="json") if turn.action is not None else None,
            metadata={"error": turn.error, "thought": turn.thought},
        )
        for turn in outcome.turns
    ]
    if steps:
        steps[-1].done = True
    trajectory = rllm.Trajectory(name=name, steps=steps)
    return rllm.Episode(
        trajectories=[trajectory],
        is_correct=outcome.success,
        artifacts=episode_artifacts(outcome),
    )


def make_flow(
    make_env: EnvFactory,
    *,
    adapter: Adapter | str = "qwen3vl",
    adapter_options: Mapping[str, object] | None = None,
    client_options: Mapping[str, Any] | None = None,
    max_steps: int | None = None,
    step_timeout_s: float = 120.0,
    name: str = "agent",
) -> Any:
    """The rLLM AgentFlow (``@rllm.rollout(name=name)``) that plays one episode per task.

    Args:
        make_env: An async factory of a fresh env (``sim.env``, ``pool.env``).
        adapter: The VLM adapter (or its name) for prompts and parsing.
        adapter_options: Options of a named adapter.
        client_options: :class:`~policies.vlm.client.ClientConfig` fields besides the URL
            and model (``temperature``, ``max_tokens``, ``max_retries``, ``extra_body``…).
        max_steps: Steps before the episode is cut; the task's when None.
        step_timeout_s: Budget of each env call; overrunning it is an infra error.
        name: The trajectory's name (the agent rLLM trains).

    Raises:
        MissingExtra: rLLM is not installed.
        VLMConfigError: an unknown adapter or bad options.
    """
    rllm = import_extra("rllm", None, "rLLM", RLLM_INSTALL)
    chosen = make_adapter(adapter, adapter_options)
    options = dict(client_options or {})
    _client_config("http://127.0.0.1/v1", None, options)  # bad options fail here, not later

    async def flow(task: Any, config: Any) -> Any:
        client = _client_config(config.base_url, config.model, options).build()

        async def model(messages: list[ChatMessage]) -> str:
            return (await client.complete(messages)).text

        outcome = await rollout(
            make_env,
            task_from_row(task_row_of(task)),
            model,
            chosen,
            max_steps=max_steps,
            step_timeout_s=step_timeout_s,
            episode_id=str(getattr(config, "session_uid", "rollout")),
        )
        return _episode(rllm, outcome, name)

    flow.__name__ = flow.__qualname__ = "mobilegym_flow"
    return rllm.rollout(name=name)(flow)


def _client_config(base_url: str, model: str | None, options: dict[str, Any]) -> ClientConfig:
    try:
        return ClientConfig(base_url=base_url, model=model, **options)
    except ValidationError as exc:
        raise VLMConfigError(f"bad client_options for the rLLM flow: {exc}") from exc


def evaluate(task: Mapping[str, Any], episode: Any) -> Any:
    """The ``EvalOutput`` of an episode the flow made: its shaped reward, ``is_correct``
    from the verdict, signals ``progress`` and ``infra_error`` (1.0 when flagged).

    Raises:
        MissingExtra: rLLM is not installed.
        TrainerError: the episode was not made by :func:`make_flow` (no reward artifact).
    """
    types = import_extra("rllm.eval.types", None, "rLLM", RLLM_INSTALL)
    art = getattr(episode, "artifacts", None) or {}
    missing = [key for key in _ARTIFACTS if key not in art]
    if missing:
        raise TrainerError(
            f"the episode has no {', '.join(missing)} artifact: score episodes made by "
            "trainers.rllm_flow.make_flow"
        )
    infra = 1.0 if art["infra_error"] else 0.0
    return types.EvalOutput(
        reward=0.0 if infra else float(art["reward"]),
        is_correct=bool(art["success"]) and not infra,
        signals=[
            types.Signal(name="progress", value=float(art["progress"])),
            types.Signal(name="infra_error", value=infra),
        ],
        metadata={"infra_error": infra, "turns": float(art.get("turns", 0))},
    )


def make_evaluator() -> Any:
    """:func:`evaluate` as an rLLM evaluator (``@rllm.evaluator``).

    Raises:
        MissingExtra: rLLM is not installed.
    """
    rllm = import_extra("rllm", None, "rLLM", RLLM_INSTALL)
    return rllm.evaluator(evaluate)
