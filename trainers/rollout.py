"""The one episode loop every trainer adapter shares: a task, an env, and a model call.

:func:`rollout` plays one task with a model whose replies come from an injected async
callable (:data:`ModelCall`: OpenAI chat messages in, reply text out) and returns a
:class:`RolloutOutcome`: the shaped reward :func:`bridge.reward.shaped_reward` gives (the
score ``mgb train`` uses), the verdict, the turns, whether it was an infrastructure error,
and the messages and reply of every turn (what token-level trainers need).

There is no second stepping loop here. The loop is :func:`bridge.runner.run_episodes` (one
job), so invalid replies, ``max_steps``, timeouts and infra errors mean what they mean in
``mgb sim run``; the prompts, history and parsing are :class:`policies.vlm.base.VLMPolicy`
with a model adapter, unchanged. The only new piece is :class:`_InjectedClient`, a
:class:`~policies.vlm.client.ChatClient` whose reply comes from the model call instead of
HTTP (and which records each exchange).

Decisions:
    * A model call that fails raises :class:`~bridge.errors.PolicyError`; the rollout then
      ends as ``infra_error`` (reward 0, flagged), as does an env that raises
      :class:`~bridge.errors.EnvError` (creating it, resetting, stepping or judging). Any
      other exception is a bug and propagates.
    * The env comes from a factory (:data:`bridge.sync.EnvFactory`: ``sim.env``, or a
      client pool's ``pool.env``) and is closed when the rollout ends.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from bridge.actions import Action
from bridge.records import EpisodeRecord, TaskInstance
from bridge.reward import shaped_reward
from bridge.runner import EpisodeJob, run_episodes
from bridge.schema import Verdict
from bridge.sync import EnvFactory
from policies.vlm.adapter import Adapter
from policies.vlm.base import ADAPTERS, VLMPolicy
from policies.vlm.client import ChatClient, ClientConfig, Completion
from policies.vlm.errors import VLMConfigError
from policies.vlm.messages import ChatMessage

__all__ = [
    "EpisodeDriver",
    "ModelCall",
    "RolloutOutcome",
    "Turn",
    "make_adapter",
    "message_dicts",
    "rollout",
]

ModelCall = Callable[[list[ChatMessage]], Awaitable[str]]
"""Asks the model for its reply to OpenAI chat messages (the adapter's prompt for one turn).
Raises :class:`~bridge.errors.PolicyError` when the model's infrastructure fails."""


class Turn(BaseModel):
    """One model call of an episode: the prompt, the reply, and how the adapter read it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    messages: list[ChatMessage]
    reply: str
    action: Action | None
    """The parsed action; None when the reply was invalid (``error`` says why)."""
    error: str | None = None
    thought: str | None = None


class RolloutOutcome(BaseModel):
    """What one rollout produced: the reward, the verdict and every turn."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    reward: float
    """:func:`bridge.reward.shaped_reward` of the verdict; 0 for an infra error."""
    record: EpisodeRecord
    """The runner's record of the episode (outcome, termination, steps, error)."""
    turns: list[Turn] = Field(default_factory=list)

    @property
    def verdict(self) -> Verdict | None:
        """The env's verdict; None when the episode ended as an infra error."""
        return self.record.verdict

    @property
    def success(self) -> bool:
        """Whether the episode is a success as :mod:`bridge.outcome` defines it (the goal
        holds, the agent said it was done, nothing else changed)."""
        return self.record.outcome == "success"

    @property
    def infra_error(self) -> bool:
        """Whether the env or the model's infrastructure failed (never a policy failure)."""
        return self.record.outcome == "infra_error"

    @property
    def error(self) -> str | None:
        """What failed, for an infra error."""
        return self.record.error

    @property
    def error_source(self) -> Literal["env", "policy"] | None:
        """``env`` or ``policy`` (the model call), for an infra error."""
        return self.record.error_source

    @property
    def num_turns(self) -> int:
        """The model calls made (invalid replies included)."""
        return len(self.turns)

    @property
    def terminated(self) -> bool:
        """The agent ended the episode (finish or answer) or the env said it is done."""
        return self.record.termination in ("finish", "answer")


def message_dicts(messages: Sequence[ChatMessage]) -> list[dict[str, object]]:
    """Messages as the OpenAI API takes them (what outside frameworks and tokenizers eat)."""
    return [message.model_dump(mode="json") for message in messages]


def make_adapter(adapter: Adapter | str, options: Mapping[str, object] | None = None) -> Adapter:
    """An adapter instance: ``adapter`` itself, or the one :data:`ADAPTERS` names.

    Raises:
        VLMConfigError: an unknown adapter name, bad options, or options for an instance.
    """
    if isinstance(adapter, Adapter):
        if options:
            raise VLMConfigError("adapter options go with an adapter name, not an instance")
        return adapter
    if adapter not in ADAPTERS:
        raise VLMConfigError(
            f"unknown VLM adapter {adapter!r}; available: {', '.join(sorted(ADAPTERS))}"
        )
    try:
        return ADAPTERS[adapter](**dict(options or {}))
    except TypeError as exc:
        raise VLMConfigError(f"bad options for the {adapter} adapter: {exc}") from exc


class _InjectedClient(ChatClient):
    """A ChatClient whose reply comes from a :data:`ModelCall` instead of HTTP, so that
    :class:`VLMPolicy` runs unchanged; it keeps every exchange, in order."""

    def __init__(self, model: ModelCall, name: str) -> None:
        super().__init__(ClientConfig(base_url=f"trainer://{name}", model=name))
        self._model = model
        self.exchanges: list[tuple[list[ChatMessage], str]] = []

    async def complete(self, messages: Sequence[ChatMessage]) -> Completion:
        """The injected model's reply to ``messages``."""
        prompt = list(messages)
        text = await self._model(prompt)
        if not isinstance(text, str):
            raise TypeError(f"the model call returned {type(text).__name__}, not str")
        self.exchanges.append((prompt, text))
        return Completion(text=text, model=self.config.model)


class EpisodeDriver:
    """A VLM policy over a model call, and the turns it has taken so far.

    :func:`rollout` plays one episode with it; :mod:`trainers.stepwise` drives one from
    outside. Not reusable: one driver, one episode.
    """

    def __init__(self, model: ModelCall, adapter: Adapter, name: str = "trainer") -> None:
        self._client = _InjectedClient(model, name)
        self.policy = VLMPolicy(self._client, adapter, name=f"vlm:{adapter.name}@{name}")

    def turns(self) -> list[Turn]:
        """Every model call so far with the adapter's reading of it."""
        history = self.policy.history
        return [
            Turn(
                messages=messages,
                reply=reply,
                action=step.parsed.action,
                error=step.parsed.error,
                thought=step.parsed.thought,
            )
            for (messages, reply), step in zip(self._client.exchanges, history, strict=False)
        ]

    async def play(
        self,
        make_env: EnvFactory,
        task: TaskInstance,
        *,
        episode_id: str = "rollout",
        step_timeout_s: float = 120.0,
        model_timeout_s: float | None = None,
    ) -> RolloutOutcome:
        """Play ``task`` in a fresh env from ``make_env`` (closed afterwards)."""
        job = EpisodeJob(episode_id, task, make_env, lambda: self.policy)
        (record,) = await run_episodes(
            [job], step_timeout_s=step_timeout_s, policy_timeout_s=model_timeout_s
        )
        infra = record.outcome == "infra_error"
        reward = shaped_reward(record.verdict, record.final_action, infra_error=infra)
        return RolloutOutcome(reward=reward, record=record, turns=self.turns())


async def rollout(
    make_env: EnvFactory,
    task: TaskInstance,
    model: ModelCall,
    adapter: Adapter | str = "generic",
    *,
    adapter_options: Mapping[str, object] | None = None,
    max_steps: int | None = None,
    episode_id: str = "rollout",
    step_timeout_s: float = 120.0,
    model_timeout_s: float | None = None,
) -> RolloutOutcome:
    """Play ``task`` once: prompt with ``adapter``, ask ``model``, parse, step, judge.

    Args:
        make_env: An async factory of a fresh env (``sim.env``, ``pool.env``); the env is
            closed when the rollout ends.
        task: The task to pose (as the registry instantiates it, with its spec).
        model: The model's reply to a list of chat messages.
        adapter: A :class:`~policies.vlm.adapter.Adapter` or its name in :data:`ADAPTERS`.
        adapter_options: Options for a named adapter (``{"scale": 1000}``).
        max_steps: Steps before the episode is cut; the task's ``max_steps`` when None.
        episode_id: The id in the episode's record.
        step_timeout_s: Budget of each env call; overrunning it is an infra error.
        model_timeout_s: Budget of each model call (None: as long as it takes).

    Returns:
        The outcome: reward, verdict, infra-error flag and every turn.

    Raises:
        VLMConfigError: an unknown adapter or bad adapter options.
        EnvUsageError: the env was used out of order (a bug, never an infra error).
    """
    if max_steps is not None:
        task = task.model_copy(update={"max_steps": max_steps})
    driver = EpisodeDriver(model, make_adapter(adapter, adapter_options))
    return await driver.play(
        make_env,
        task,
        episode_id=episode_id,
        step_timeout_s=step_timeout_s,
        model_timeout_s=model_timeout_s,
    )
