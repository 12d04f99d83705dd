"""GRPO for the learned policy over forkable envs, depending only on bridge's protocols.

Each iteration picks ``envs`` training task instances; for each, one env is reset to the
task and forked ``group`` ways, and the policy (sampling, seeded per rollout) plays every
fork to the end, all concurrently. A rollout's reward is the verdict's progress shaped as
MobileGym's RL evaluator does (:func:`shaped_reward`); advantages are normalized within the
group (:func:`group_advantages`), and the weights take one optimizer step (Adam by default)
along the advantage-weighted log-probability gradients of the moves taken, averaged per
rollout as in the original GRPO (so a short success counts as much as a long one), plus an
entropy bonus and L2 decay. One update per batch, so the ratio clipping of PPO/GRPO is not
needed: every gradient is taken on-policy. Evaluation plays held-out instances greedily
with :func:`bridge.runner.run_episode`.

Deterministic given the seed: the batch is drawn from ``(seed, iteration)``, each rollout's
sampler from ``(seed, iteration, task, member)``, envs are deterministic, and results are
summed in a fixed order whatever order the concurrent rollouts finish in.

Failures are classified by :mod:`bridge.failures`, as in the runner: an infrastructure
failure of an env (reset, fork, step, verdict) makes the rollout, or the whole group, an
infra error that gets no reward and is left out of the gradient; misuse and bugs (a
``TypeError`` in a judge, say) stop the training with their traceback.

The trainer never imports the simulator: the caller hands in ``make_env``, a factory of
:class:`bridge.env.ForkableEnv` (the CLI builds simulator envs).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Literal, TypeVar

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from bridge.env import Env, ForkableEnv
from bridge.errors import InfraFailure
from bridge.failures import guarded
from bridge.records import TaskInstance
from bridge.reward import shaped_reward
from bridge.runner import run_episode
from bridge.schema import Observation
from policies.learned.checkpoint import CheckpointConfig
from policies.learned.optim import SGD, Adam
from policies.learned.policy import LearnedPolicy, StepTrace

__all__ = [
    "CurveRow",
    "EnvFactory",
    "EvalResult",
    "GRPOConfig",
    "Rollout",
    "TrainResult",
    "evaluate",
    "group_advantages",
    "policy_gradient",
    "shaped_reward",
    "train",
]

_T = TypeVar("_T")

EnvFactory = Callable[[], Awaitable[ForkableEnv]]
"""Makes a fresh env (the caller decides the backend; the trainer closes what it gets)."""


class GRPOConfig(BaseModel):
    """Hyperparameters of a GRPO run."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    envs: int = Field(default=4, ge=1, description="task instances per iteration")
    group: int = Field(default=8, ge=2, description="rollouts per instance (forks)")
    iters: int = Field(default=20, ge=0)
    lr: float = Field(default=0.1, gt=0)
    optimizer: Literal["adam", "sgd"] = "adam"
    entropy_coef: float = Field(default=0.01, ge=0)
    l2: float = Field(default=1e-4, ge=0)
    seed: int = 0
    eval_every: int = Field(default=0, ge=0, description="0: evaluate only before and after")
    eval_concurrency: int = Field(default=8, ge=1)
    step_timeout_s: float = Field(default=60.0, gt=0)


@dataclass(frozen=True)
class Rollout:
    """One sampled episode in a fork: its reward, whether it is a success
    (:mod:`bridge.outcome`), and per-step gradients."""

    reward: float
    success: bool
    steps: int
    traces: list[StepTrace]
    infra_error: str | None = None


@dataclass(frozen=True)
class EvalResult:
    """Greedy episodes on held-out instances."""

    episodes: int
    successes: int
    infra_errors: int
    steps: int
    outcomes: tuple[bool, ...] = ()
    """Success of each episode (:mod:`bridge.outcome`), in task order (for paired
    comparisons)."""
    goals: tuple[bool, ...] = ()
    """Whether each episode's goal held at its end (``Verdict.success``), however it ended:
    what a success also asks is that the agent said so and changed nothing else."""

    @property
    def goal_rate(self) -> float:
        """Episodes whose goal held, over the episodes that were judged."""
        judged = self.episodes - self.infra_errors
        return sum(self.goals) / judged if judged else 0.0

    @property
    def success_rate(self) -> float:
        """Successes over the episodes that were judged (infra errors excluded)."""
        judged = self.episodes - self.infra_errors
        return self.successes / judged if judged else 0.0


@dataclass(frozen=True)
class CurveRow:
    """One line of the training curve."""

    iteration: int
    mean_reward: float | None
    train_success: float | None
    eval_success: float | None
    wall_s: float
    steps: int
    infra_errors: int = 0


@dataclass
class TrainResult:
    """What a run produced: final weights, the curve, evaluations, counts and timings."""

    weights: np.ndarray
    curve: list[CurveRow] = field(default_factory=list)
    init_eval: EvalResult | None = None
    final_eval: EvalResult | None = None
    train_steps: int = 0
    eval_steps: int = 0
    train_wall_s: float = 0.0
    eval_wall_s: float = 0.0
    wall_s: float = 0.0


# --------------------------------------------------------------------------- advantages


def group_advantages(rewards: Sequence[float], eps: float = 1e-6) -> np.ndarray:
    """``(r - mean) / (std + eps)`` within one group; all zeros when every reward is equal."""
    values = np.asarray(rewards, dtype=np.float64)
    if values.size == 0:
        return values
    centered = values - values.mean()
    std = values.std()
    return np.zeros_like(values) if std < eps else centered / (std + eps)


def policy_gradient(
    groups: Sequence[Sequence[Rollout]],
    weights: np.ndarray,
    entropy_coef: float,
    l2: float,
) -> np.ndarray:
    """The ascent direction: the mean over rollouts of advantage x the rollout's mean
    log-probability gradient of its moves, plus ``entropy_coef`` x the mean per-step
    entropy gradient, minus ``l2`` x weights.

    Rollouts with an infra error are left out (their reward says nothing of the policy).
    """
    grad = np.zeros_like(weights)
    entropy_sum = np.zeros_like(weights)
    rollouts = steps = 0
    for group in groups:
        judged = [rollout for rollout in group if rollout.infra_error is None]
        advantages = group_advantages([rollout.reward for rollout in judged])
        for rollout, advantage in zip(judged, advantages, strict=True):
            weight = advantage / max(len(rollout.traces), 1)
            for trace in rollout.traces:
                if weight != 0.0:
                    grad += weight * trace.log_prob_grad
                entropy_sum += trace.entropy_grad
            rollouts += 1
            steps += len(rollout.traces)
    grad /= max(rollouts, 1)
    grad += entropy_coef * entropy_sum / max(steps, 1)
    return grad - l2 * weights


# --------------------------------------------------------------------------- rollouts


def _rollout_seed(seed: int, iteration: int, task: int, member: int) -> int:
    sequence = np.random.SeedSequence([seed, iteration, task, member])
    return int(sequence.generate_state(1)[0])


async def _play(
    env: ForkableEnv, start: Observation, task: TaskInstance, policy: LearnedPolicy, timeout: float
) -> Rollout:
    """Play ``task`` from ``start`` in an already set-up ``env`` through the runner's
    episode loop (:func:`bridge.runner.run_episode`); close the env afterwards.

    Failures are classified as in :mod:`bridge.failures`: an infrastructure failure of the
    env (an ``EnvError``, a step over its budget) ends the rollout as an infra error with no
    reward; misuse, bugs and any failure of the (local) policy propagate and stop training.
    """
    try:
        record = await run_episode(
            policy, env, task, episode_id="rollout", step_timeout_s=timeout, start=start
        )
    finally:
        await env.close()
    trace = list(policy.trace)
    if record.outcome == "infra_error":
        return Rollout(0.0, False, record.steps, trace, infra_error=record.error)
    reward = shaped_reward(record.verdict, record.final_action, infra_error=False)
    return Rollout(reward, record.outcome == "success", record.steps, trace)


async def _group(
    weights: np.ndarray,
    config: CheckpointConfig,
    task: TaskInstance,
    make_env: EnvFactory,
    seeds: Sequence[int],
    timeout: float,
) -> list[Rollout]:
    """Reset one env to ``task``, fork it once per seed, and play every fork.

    An infrastructure failure of the reset or the fork makes the whole group infra errors;
    anything else propagates (see :mod:`bridge.failures`).
    """
    root = await make_env()
    try:
        start = await guarded(partial(root.reset, task), "env", "env.reset", timeout)
        forks = await guarded(partial(root.fork, len(seeds)), "env", "env.fork", timeout)
    except InfraFailure as failure:
        return [Rollout(0.0, False, 0, [], infra_error=str(failure)) for _ in seeds]
    finally:
        await root.close()
    policies = [
        LearnedPolicy(weights, config, sample=True, seed=seed, record=True) for seed in seeds
    ]
    plays = [_play(env, start, task, p, timeout) for env, p in zip(forks, policies, strict=True)]
    return await _gather(plays)


async def _gather(coroutines: Sequence[Coroutine[object, object, _T]]) -> list[_T]:
    """``asyncio.gather``, except that when one fails (a bug, misuse) the others are
    cancelled and awaited, so their envs are closed before the error propagates."""
    tasks = [asyncio.ensure_future(coroutine) for coroutine in coroutines]
    try:
        return list(await asyncio.gather(*tasks))
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise


async def evaluate(
    weights: np.ndarray,
    config: CheckpointConfig,
    tasks: Sequence[TaskInstance],
    make_env: Callable[[], Awaitable[Env]],
    concurrency: int = 8,
    step_timeout_s: float = 60.0,
) -> EvalResult:
    """Greedy episodes of the policy ``weights`` on ``tasks`` (one fresh env each: any world,
    a phone too, since evaluation forks nothing)."""
    semaphore = asyncio.Semaphore(concurrency)

    async def one(index: int, task: TaskInstance) -> tuple[bool, bool, int, bool]:
        async with semaphore:
            env = await make_env()
            try:
                policy = LearnedPolicy(weights, config)
                record = await run_episode(
                    policy, env, task, episode_id=f"eval-{index}", step_timeout_s=step_timeout_s
                )
            finally:
                await env.close()
        goal = record.verdict is not None and record.verdict.success
        return record.outcome == "success", record.outcome == "infra_error", record.steps, goal

    results = await _gather([one(i, task) for i, task in enumerate(tasks)])
    return EvalResult(
        episodes=len(results),
        successes=sum(ok for ok, _, _, _ in results),
        infra_errors=sum(bad for _, bad, _, _ in results),
        steps=sum(steps for _, _, steps, _ in results),
        outcomes=tuple(ok for ok, _, _, _ in results),
        goals=tuple(goal for _, _, _, goal in results),
    )


# --------------------------------------------------------------------------- training


IterationHook = Callable[[CurveRow], None]


@dataclass
class _Run:
    """The fixed inputs of a run and the bookkeeping of its evaluations."""

    config: GRPOConfig
    policy_config: CheckpointConfig
    train_tasks: Sequence[TaskInstance]
    test_tasks: Sequence[TaskInstance]
    make_env: EnvFactory
    started: float = field(default_factory=time.perf_counter)

    async def evaluate(self, weights: np.ndarray, result: TrainResult) -> EvalResult | None:
        if not self.test_tasks:
            return None
        began = time.perf_counter()
        evaluated = await evaluate(
            weights,
            self.policy_config,
            self.test_tasks,
            self.make_env,
            self.config.eval_concurrency,
            self.config.step_timeout_s,
        )
        result.eval_wall_s += time.perf_counter() - began
        result.eval_steps += evaluated.steps
        return evaluated

    async def groups(self, weights: np.ndarray, iteration: int) -> list[list[Rollout]]:
        config = self.config
        rng = np.random.default_rng([config.seed, iteration])
        size = min(config.envs, len(self.train_tasks))
        picked = rng.choice(len(self.train_tasks), size=size, replace=False)
        plays = [
            _group(
                weights,
                self.policy_config,
                self.train_tasks[int(task)],
                self.make_env,
                [_rollout_seed(config.seed, iteration, int(task), g) for g in range(config.group)],
                config.step_timeout_s,
            )
            for task in picked
        ]
        return await _gather(plays)

    def row(
        self, iteration: int, groups: list[list[Rollout]], evaluated: EvalResult | None
    ) -> CurveRow:
        judged = [r for group in groups for r in group if r.infra_error is None]
        return CurveRow(
            iteration=iteration,
            mean_reward=float(np.mean([r.reward for r in judged])) if judged else None,
            train_success=float(np.mean([r.success for r in judged])) if judged else None,
            eval_success=None if evaluated is None else evaluated.success_rate,
            wall_s=time.perf_counter() - self.started,
            steps=sum(r.steps for group in groups for r in group),
            infra_errors=sum(r.infra_error is not None for group in groups for r in group),
        )


async def train(
    init: LearnedPolicy,
    train_tasks: Sequence[TaskInstance],
    test_tasks: Sequence[TaskInstance],
    make_env: EnvFactory,
    config: GRPOConfig,
    on_iteration: IterationHook | None = None,
) -> TrainResult:
    """Train from ``init``'s weights on ``train_tasks``.

    Held-out ``test_tasks`` are played greedily before training (curve row 0), every
    ``eval_every`` iterations and after the last one. ``on_iteration`` gets each curve row.
    """
    if not train_tasks:
        raise ValueError("no training task instances: check the split")
    run = _Run(config, init.config, train_tasks, test_tasks, make_env)
    weights = np.array(init.weights, dtype=np.float64)
    result = TrainResult(weights=weights)
    result.init_eval = evaluated = await run.evaluate(weights, result)
    _append(result, run.row(0, [], evaluated), on_iteration)
    optimizer = (Adam if config.optimizer == "adam" else SGD)(weights.size, config.lr)
    for iteration in range(1, config.iters + 1):
        groups = await run.groups(weights, iteration)
        weights = optimizer.step(
            weights, policy_gradient(groups, weights, config.entropy_coef, config.l2)
        )
        last = iteration == config.iters
        due = last or (config.eval_every > 0 and iteration % config.eval_every == 0)
        evaluated = await run.evaluate(weights, result) if due else None
        _append(result, run.row(iteration, groups, evaluated), on_iteration)
    result.weights = weights
    result.final_eval = evaluated
    result.wall_s = time.perf_counter() - run.started
    result.train_wall_s = result.wall_s - result.eval_wall_s
    return result


def _append(result: TrainResult, row: CurveRow, hook: IterationHook | None) -> None:
    result.curve.append(row)
    result.train_steps += row.steps
    if hook is not None:
        hook(row)
