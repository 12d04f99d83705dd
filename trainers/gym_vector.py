"""A Gymnasium vector env over N bridge envs from one factory, stepped concurrently.

:class:`PhoneVectorEnv` holds ``num_envs`` :class:`bridge.gym.PhoneGymEnv` (the same
spaces, observations, action parsing, invalid steps and rewards, one sub-env each) on one
shared :class:`~bridge.sync.LoopThread`. A batch call waits for each sub-env in a small
thread pool while the envs' work itself runs as coroutines on that one event-loop thread
(one simulator, one Chromium, or one client pool): no sub-processes, and a slow sub-env
only delays the batch by its own time.

Gymnasium 1.x conventions:
    * ``metadata["autoreset_mode"]`` is ``AutoresetMode.NEXT_STEP``: the step after a
      sub-env terminated or truncated resets it (its action is ignored) and returns the
      first observation of the new episode with reward 0 and both flags False.
    * infos are a dict of per-env arrays with ``_key`` masks (``VectorEnv._add_info``).
      Every step's info has ``infra_error`` (a bool per env).

Infra errors: an :class:`~bridge.errors.EnvError` in a sub-env's step (a simulator host
lost, a timeout) does not stop the batch. That sub-env's step gets reward 0,
``truncated=True``, ``infra_error=True`` and ``error``, and repeats its last observation;
at its autoreset the sub-env is replaced by a fresh one from the factory. An explicit
:meth:`PhoneVectorEnv.reset` propagates the error, as a Gymnasium env does.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Literal, TypeVar

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space, concatenate, create_empty_array, iterate

from bridge.errors import EnvError
from bridge.gym import PhoneGymEnv
from bridge.sync import EnvFactory, LoopThread
from trainers.errors import TrainerError

__all__ = ["PhoneVectorEnv"]

_T = TypeVar("_T")
_Reset = tuple[dict[str, Any], dict[str, Any]]
_Step = tuple[dict[str, Any], float, bool, bool, dict[str, Any]]


class PhoneVectorEnv(VectorEnv):
    """``num_envs`` phone envs from ``make_env`` as one Gymnasium ``VectorEnv``.

    Args:
        make_env: An async factory of a bridge env (``sim.env``, ``pool.env``), awaited on
            ``loop`` once per sub-env (and again for a sub-env replaced after an infra
            error).
        num_envs: How many sub-envs.
        loop: The event-loop thread the envs run on (the one ``make_env``'s simulator was
            started on); a private one, stopped by :meth:`close`, when None.
        screenshot: As :class:`~bridge.gym.PhoneGymEnv`'s; ``"auto"`` learns the frame size
            from one reset of the first sub-env and gives it to the others.
        **options: The other :class:`~bridge.gym.PhoneGymEnv` options (``task`` — required
            for ``screenshot="auto"`` —, ``reward``, ``max_steps``, ``ui_max_length``,
            ``action_max_length``, ``render_mode``, ``timeout_s``).
    """

    metadata: dict[str, Any] = {  # noqa: RUF012 (Gymnasium declares it a class attribute)
        "autoreset_mode": AutoresetMode.NEXT_STEP,
        "render_modes": ["rgb_array"],
    }

    def __init__(
        self,
        make_env: EnvFactory,
        num_envs: int,
        *,
        loop: LoopThread | None = None,
        screenshot: tuple[int, int] | Literal["auto"] | None = "auto",
        **options: Any,
    ) -> None:
        if num_envs < 1:
            raise TrainerError(f"num_envs must be at least 1, got {num_envs}")
        self.num_envs = num_envs
        self._own_loop = loop is None
        self._loop = loop or LoopThread(name="phone-vector-env")
        self._pool = ThreadPoolExecutor(num_envs, thread_name_prefix="phone-vector-env")
        self._envs: list[PhoneGymEnv] = []
        try:
            first = PhoneGymEnv(make_env, loop=self._loop, screenshot=screenshot, **options)
            self._envs.append(first)
            shot = first.observation_space.spaces.get("screenshot")
            shape = None if shot is None or shot.shape is None else (shot.shape[0], shot.shape[1])
            self._make_sub = lambda: PhoneGymEnv(
                make_env, loop=self._loop, screenshot=shape, **options
            )
            made, error = self._settle([self._make_sub for _ in range(num_envs - 1)])
            self._envs += made  # closed with the rest if another one failed
            if error is not None:
                raise error
        except BaseException:
            self.close()
            raise
        self.render_mode = first.render_mode
        self.single_observation_space = first.observation_space
        self.single_action_space = first.action_space
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._last: list[dict[str, Any]] = [{} for _ in range(num_envs)]
        self._autoreset = np.zeros(num_envs, dtype=np.bool_)
        self._broken = np.zeros(num_envs, dtype=np.bool_)

    @property
    def envs(self) -> tuple[PhoneGymEnv, ...]:
        """The sub-envs (each one's ``sync_env`` reaches its bridge env)."""
        return tuple(self._envs)

    def reset(
        self,
        *,
        seed: int | Sequence[int | None] | None = None,
        options: dict[str, Any] | None = None,
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Reset every sub-env (``seed``: None, ``s`` for ``s, s+1, …``, or one per env).

        Raises:
            EnvError: a sub-env could not be reset.
        """
        seeds = _seeds(seed, self.num_envs)
        calls = [
            _bind(env.reset, seed=s, options=options)
            for env, s in zip(self._envs, seeds, strict=True)
        ]
        results = self._batch(calls)
        self._autoreset[:] = False
        infos: dict[str, Any] = {}
        for i, (obs, info) in enumerate(results):
            self._last[i] = obs
            infos = self._add_info(infos, info, i)
        return self._stack(), infos

    def step(
        self, actions: Sequence[str]
    ) -> tuple[dict[str, Any], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Step every sub-env with its action (JSON text); autoreset ones are reset."""
        batch = list(iterate(self.action_space, actions))
        if len(batch) != self.num_envs:
            raise TrainerError(f"expected {self.num_envs} actions, got {len(batch)}")
        calls = [_bind(self._step_one, i, action) for i, action in enumerate(batch)]
        results = self._batch(calls)
        rewards = np.zeros(self.num_envs, dtype=np.float64)
        terminated = np.zeros(self.num_envs, dtype=np.bool_)
        truncated = np.zeros(self.num_envs, dtype=np.bool_)
        infos: dict[str, Any] = {}
        for i, (obs, reward, term, trunc, info) in enumerate(results):
            self._last[i] = obs
            rewards[i], terminated[i], truncated[i] = reward, term, trunc
            infos = self._add_info(infos, info, i)
        self._autoreset = terminated | truncated
        return self._stack(), rewards, terminated, truncated, infos

    def render(self) -> tuple[np.ndarray | None, ...] | None:  # type: ignore[override]  # a sub-env not reset yet has no frame
        """Each sub-env's full-size frame, with ``render_mode="rgb_array"``."""
        if self.render_mode != "rgb_array":
            return None
        return tuple(env.render() for env in self._envs)

    def close_extras(self, **kwargs: Any) -> None:
        """Close every sub-env, the thread pool and a private loop thread (``close()``)."""
        try:
            for env in getattr(self, "_envs", ()):
                env.close()
        finally:
            if hasattr(self, "_pool"):
                self._pool.shutdown(wait=True)
            if getattr(self, "_own_loop", False):
                self._loop.close()

    def __enter__(self) -> PhoneVectorEnv:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- one sub-env

    def _step_one(self, i: int, action: str) -> _Step:
        """Runs in a worker thread: autoreset, or step, flagging infra errors."""
        if self._autoreset[i]:
            try:
                if self._broken[i]:
                    self._replace(i)
                obs, info = self._envs[i].reset()
            except EnvError as exc:
                return self._failed(i, exc)
            return obs, 0.0, False, False, {**info, "infra_error": False}
        try:
            obs, reward, term, trunc, info = self._envs[i].step(action)
        except EnvError as exc:
            return self._failed(i, exc)
        return obs, reward, term, trunc, {**info, "infra_error": False}

    def _failed(self, i: int, exc: EnvError) -> _Step:
        self._broken[i] = True
        info = {"infra_error": True, "error": f"{type(exc).__name__}: {exc}"}
        return self._last[i], 0.0, False, True, info

    def _replace(self, i: int) -> None:
        """A fresh sub-env for one whose env failed (its host may be gone)."""
        old = self._envs[i]
        with contextlib.suppress(EnvError):  # its world is what failed; so may its close
            old.close()
        self._envs[i] = self._make_sub()
        self._broken[i] = False

    # ---- batching

    def _batch(self, calls: Sequence[Callable[[], _T]]) -> list[_T]:
        """Run the blocking calls at once; the first error propagates after all ended."""
        results, error = self._settle(calls)
        if error is not None:
            raise error
        return results

    def _settle(self, calls: Sequence[Callable[[], _T]]) -> tuple[list[_T], BaseException | None]:
        """Run the blocking calls at once and wait for all: the results of those that
        returned, and the first error."""
        futures = [self._pool.submit(call) for call in calls]
        errors = [future.exception() for future in futures]
        results = [
            future.result() for future, error in zip(futures, errors, strict=True) if error is None
        ]
        return results, next((error for error in errors if error is not None), None)

    def _stack(self) -> dict[str, Any]:
        out = create_empty_array(self.single_observation_space, self.num_envs)
        return _batch(concatenate(self.single_observation_space, self._last, _batch(out)))


def _batch(value: object) -> dict[str, Any]:
    """A Dict space's batch (gymnasium types its helpers for every kind of space)."""
    if not isinstance(value, dict):
        raise TypeError(f"a Dict space's batch is a dict, not {type(value).__name__}")
    return value


def _bind(call: Callable[..., _T], *args: Any, **kwargs: Any) -> Callable[[], _T]:
    return lambda: call(*args, **kwargs)


def _seeds(seed: int | Sequence[int | None] | None, n: int) -> list[int | None]:
    if seed is None:
        return [None] * n
    if isinstance(seed, int):
        return [seed + i for i in range(n)]
    seeds = list(seed)
    if len(seeds) != n:
        raise TrainerError(f"reset got {len(seeds)} seeds for {n} envs; give one per env")
    return seeds
