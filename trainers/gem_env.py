"""A phone task as a GEM-style text env: the model's raw reply in, the next prompt out.

:class:`PhoneTextEnv` follows GEM's ``gem.Env`` (gem-llm 0.1.0, what ROLL's agentic
pipeline and SkyRL-style generators drive): ``reset(seed) -> (observation, info)`` and
``step(action) -> (observation, reward, terminated, truncated, info)``, synchronous.

* **observation**: the chat messages a VLM adapter builds for the current screen, as the
  OpenAI API takes them (``[{"role": "system", ...}, {"role": "user", "content": [text,
  {"type": "image_url", ...}]}]``; the screenshot is a ``data:`` URL when the env sends
  screenshots). After the last step it is ``[]``: there is nothing more to ask.
* **action**: the model's raw reply, parsed by the adapter. A reply that does not parse is
  an invalid step (it costs a step, the episode goes on, ``info["error"]`` says why).
* **reward**: 0 until the episode ends, then :func:`bridge.reward.shaped_reward` (the
  score ``mgb train`` uses); 0 for an infra error, which also sets ``info["infra_error"]``.
* ``terminated``: the agent finished or answered; ``truncated``: ``max_steps`` ran out,
  or the env or model infrastructure failed (an infra error ends the episode, it is not
  part of the task's MDP).

The episode is :func:`trainers.rollout.rollout` driven one reply at a time
(:class:`trainers.stepwise.StepwiseRollout`) on a private event-loop thread, or on a shared
:class:`~bridge.sync.LoopThread` (pass the one your simulator runs on).
:func:`register_gem` registers the env with gem-llm (an optional extra).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

from bridge.errors import EnvError
from bridge.gym import TaskSampler
from bridge.records import TaskInstance
from bridge.sync import EnvFactory, LoopThread
from policies.vlm.adapter import Adapter
from trainers.errors import TrainerError, import_extra
from trainers.rollout import RolloutOutcome, make_adapter, message_dicts
from trainers.stepwise import StepwiseRollout

__all__ = ["GEM_ENV_ID", "PhoneTextEnv", "register_gem"]

GEM_ENV_ID = "mobilegym-bridge/PhoneText-v0"
"""The id :func:`register_gem` registers by default."""

_Messages = list[dict[str, object]]
_StepReturn = tuple[_Messages, float, bool, bool, dict[str, Any]]


class PhoneTextEnv:
    """A bridge env as a GEM text env (see the module docstring for the contract).

    Args:
        make_env: An async factory of a fresh bridge env per episode (``sim.env``,
            ``pool.env``); each episode's env is closed when it ends.
        task: The task each ``reset`` poses: a TaskInstance (``reset(seed)`` overrides its
            seed) or a sampler ``seed -> TaskInstance`` (``reset()`` without a seed gives
            seeds 0, 1, 2, … in turn).
        adapter: The VLM adapter (or its name) that builds prompts and parses replies.
        adapter_options: Options of a named adapter.
        max_steps: Steps before truncation; the task's when None.
        loop: The event-loop thread to run on (the one ``make_env``'s simulator lives on);
            a private one, closed by :meth:`close`, when None.
        step_timeout_s: Budget of each env call; overrunning it is an infra error.
        timeout_s: Budget of each ``reset`` / ``step`` call as a whole (None: no limit).
    """

    def __init__(
        self,
        make_env: EnvFactory,
        *,
        task: TaskInstance | TaskSampler,
        adapter: Adapter | str = "generic",
        adapter_options: Mapping[str, object] | None = None,
        max_steps: int | None = None,
        loop: LoopThread | None = None,
        step_timeout_s: float = 120.0,
        timeout_s: float | None = None,
    ) -> None:
        if max_steps is not None and max_steps < 1:
            raise TrainerError(f"max_steps must be at least 1, got {max_steps}")
        self._make_env, self._task, self._max_steps = make_env, task, max_steps
        self._adapter = make_adapter(adapter, adapter_options)
        self._own_loop = loop is None
        self._loop = loop or LoopThread(name="gem-env")
        self._step_timeout_s, self._timeout_s = step_timeout_s, timeout_s
        self._seeds = itertools.count()
        self._session: StepwiseRollout | None = None
        self._episodes = itertools.count()

    @property
    def unwrapped(self) -> PhoneTextEnv:
        """This env (gem's wrappers reach the base env through ``unwrapped``)."""
        return self

    @property
    def adapter(self) -> Adapter:
        """The adapter that builds the prompts and parses the replies."""
        return self._adapter

    def reset(self, seed: int | None = None) -> tuple[_Messages, dict[str, Any]]:
        """Start an episode and return its first prompt; info has ``task``.

        An unfinished episode is abandoned (its env closed).

        Raises:
            EnvError: the env could not be created or reset (an infrastructure failure).
        """
        self._abandon()
        task = self._next_task(seed)
        session = StepwiseRollout(
            self._make_env,
            task,
            self._adapter,
            episode_id=f"gem-{next(self._episodes)}",
            step_timeout_s=self._step_timeout_s,
        )
        first = self._loop.run(session.start(), self._timeout_s)
        if isinstance(first, RolloutOutcome):
            raise EnvError(f"the episode could not start: {first.error}")
        self._session = session
        return message_dicts(first), {"task": task, "turn": 0}

    def step(self, action: str) -> _StepReturn:
        """Send the model's reply; the next prompt, or ``[]`` with the reward at the end.

        Info: ``turn``, ``action`` (the parsed action, None if invalid), ``invalid``,
        ``error``; at the end also ``verdict``, ``success``, ``infra_error``,
        ``termination`` and ``outcome`` (the :class:`~trainers.rollout.RolloutOutcome`).

        Raises:
            TrainerError: no episode is running (call :meth:`reset`).
        """
        session = self._session
        if session is None or not session.waiting:
            raise TrainerError("no episode is running: call reset() first")
        if not isinstance(action, str):
            raise TrainerError(f"the action is the model's reply text, not {type(action)}")
        result = self._loop.run(session.reply(action), self._timeout_s)
        turns = session.turns()
        last = turns[-1] if turns else None
        info: dict[str, Any] = {
            "turn": len(turns),
            "action": last.action if last else None,
            "invalid": last is not None and last.action is None,
            "error": last.error if last else None,
        }
        if not isinstance(result, RolloutOutcome):
            return message_dicts(result), 0.0, False, False, info
        self._session = None
        info.update(_final_info(result))
        return [], result.reward, result.terminated, not result.terminated, info

    def close(self) -> None:
        """Abandon a running episode and stop a private loop thread; idempotent."""
        if not self._loop.closed:
            self._abandon()
        if self._own_loop:
            self._loop.close()

    def __enter__(self) -> PhoneTextEnv:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _abandon(self) -> None:
        session, self._session = self._session, None
        if session is not None:
            self._loop.run(session.cancel(), self._timeout_s)

    def _next_task(self, seed: int | None) -> TaskInstance:
        task = self._task
        if isinstance(task, TaskInstance):
            posed = task if seed is None else task.model_copy(update={"seed": seed})
        else:
            posed = task(next(self._seeds) if seed is None else seed)
        if self._max_steps is not None:
            posed = posed.model_copy(update={"max_steps": self._max_steps})
        return posed


def _final_info(outcome: RolloutOutcome) -> dict[str, Any]:
    info: dict[str, Any] = {
        "verdict": outcome.verdict,
        "success": outcome.success,
        "infra_error": outcome.infra_error,
        "error_source": outcome.error_source,
        "termination": outcome.record.termination,
        "outcome": outcome,
    }
    if outcome.infra_error:  # what broke, instead of the last reply's reading
        info["error"] = outcome.error
    return info


def register_gem(env_id: str = GEM_ENV_ID, **kwargs: Any) -> str:
    """Register :class:`PhoneTextEnv` with gem-llm, so ``gem.make(env_id)`` makes one.

    ``kwargs`` are the constructor's (``make_env``, ``task``, ``adapter``, …), passed by
    ``gem.make`` to every env it makes (``gem.make(env_id, **overrides)`` overrides them).
    Call it once per process (gem refuses to register an id twice).

    Raises:
        MissingExtra: gem-llm is not installed (``pip install mobilegym-bridge[gem]``).
    """
    gem = import_extra("gem", "gem", "gem-llm")
    gem.register(env_id, entry_point=PhoneTextEnv, **kwargs)
    return env_id
