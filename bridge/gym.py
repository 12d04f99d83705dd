"""A Gymnasium env over any bridge Env: the simulator and a phone for Gymnasium trainers.

:class:`PhoneGymEnv` wraps an async env factory (run through :class:`~bridge.sync.SyncEnv`,
so no asyncio is needed) in Gymnasium's ``reset`` / ``step`` / ``render`` / ``close``.

Spaces:
    * **action**: one action of the contract as JSON text, e.g.
      ``'{"type": "tap", "target": {"element": 12}}'`` — a :class:`gymnasium.spaces.Text` of
      up to ``action_max_length`` (2048) characters from :data:`CHARSET`. Any Unicode text
      fits: characters outside the charset can be written as JSON ``\\uXXXX`` escapes
      (``json.dumps`` does that by default).
    * **observation**: a :class:`gymnasium.spaces.Dict` of what a policy may use as tensors:
      ``screenshot``, the screen as decoded RGB, ``Box(0, 255, (H, W, 3), uint8)``, and
      ``ui``, the UI tree as text (:func:`bridge.uitree_text.render_text`; characters outside
      :data:`CHARSET` become U+FFFD, text past ``ui_max_length`` is cut). A world that sent
      no screenshot gives a black frame. The full :class:`~bridge.schema.Observation` is
      ``info["observation"]``: it alone says ``ui_status``, the foreground app, the keyboard.

Decisions:
    * An action that does not parse is an *invalid step*, as in :mod:`bridge.runner`: the env
      is not called, the step counts against ``max_steps`` and costs nothing, the observation
      is the previous one and ``info["error"]`` says what was wrong.
    * Rewards: ``"terminal"`` (default) gives 0 until the last step, which gets
      :func:`bridge.reward.shaped_reward` of the verdict — the score ``mgb train`` uses.
      ``"dense"`` gives each step's change of ``verdict.progress`` (it may be negative), at
      the cost of one verdict per step (and one at reset).
    * ``terminated``: the agent finished or answered, or the env said ``done``;
      ``truncated``: ``max_steps`` (the task's by default) were taken. The last step's info
      has ``verdict`` and ``shaped_reward``.
    * Env exceptions (:class:`~bridge.errors.EnvError`) propagate; the episode is then over.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any, Literal

import cv2
import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.envs.registration import EnvSpec
from pydantic import ValidationError

from bridge.actions import Action, AnswerAction, FinishAction, parse_action
from bridge.errors import EnvError, EnvUsageError
from bridge.records import TaskInstance
from bridge.reward import shaped_reward
from bridge.schema import ExecutedAction, Observation, Screenshot, Verdict
from bridge.sync import EnvFactory, LoopThread, SyncEnv
from bridge.uitree_text import render_text

__all__ = ["CHARSET", "SPEC_ID", "PhoneGymEnv", "RewardMode", "TaskSampler"]


def _ranges(*spans: tuple[int, int]) -> str:
    return "".join(chr(code) for low, high in spans for code in range(low, high + 1))


CHARSET: str = (
    "\t\n\r"
    + _ranges(
        (0x0020, 0x007E),  # printable ASCII: JSON syntax, English, \uXXXX escapes
        (0x00A0, 0x00FF),  # Latin-1 supplement: ° · × é
        (0x2000, 0x206F),  # general punctuation: … “ ” — (render_text clips with …)
        (0x3000, 0x303F),  # CJK symbols and punctuation: 、 。 「 」
        (0x4E00, 0x9FFF),  # CJK Unified Ideographs
        (0xFF00, 0xFFEF),  # half-width and full-width forms: ， ！ ？ ：
    )
    + "\ufffd"
)
"""The characters of the action and ``ui`` spaces: JSON whitespace, printable ASCII,
Latin-1, general punctuation, CJK punctuation, CJK Unified Ideographs (U+4E00–U+9FFF),
full-width forms, and U+FFFD (what ``ui`` shows for anything else)."""

_ALLOWED = frozenset(CHARSET)

SPEC_ID = "mobilegym-bridge/Phone-v0"
"""The id in every PhoneGymEnv's ``spec`` (``gymnasium.make(env.spec)`` makes another)."""

RewardMode = Literal["terminal", "dense"]
"""``terminal``: the shaped verdict at the end; ``dense``: per-step progress deltas."""

TaskSampler = Callable[[int], TaskInstance]
"""Makes the task for a seed, e.g. ``lambda seed: registry.instantiate(id, seed)``."""

_NO_TASK = (
    "PhoneGymEnv has no task to reset to: pass one with reset(options={'task': task}) "
    "or give a default with PhoneGymEnv(make_env, task=task)"
)


class _Text(spaces.Text):
    """A Text space whose repr names its charset instead of printing 22,000 characters."""

    def __repr__(self) -> str:
        count = len(self.character_set)
        return f"Text({self.min_length}, {self.max_length}, charset=<{count} characters>)"


_StepReturn = tuple[dict[str, Any], float, bool, bool, dict[str, Any]]


@dataclass
class _Episode:
    max_steps: int
    observation: Observation
    frame: np.ndarray | None
    steps: int = 0
    final_action: Action | None = None
    verdict: Verdict | None = None
    """The last verdict taken (dense rewards), still true while nothing was executed."""
    over: bool = False


class PhoneGymEnv(gymnasium.Env[dict[str, Any], str]):
    """A bridge env as a Gymnasium env (see the module docstring for spaces and rewards).

    Args:
        make_env: an async factory of the bridge env, e.g. ``sim.env`` for a simulator.
        task: the task ``reset()`` poses when its options give none: a
            :class:`~bridge.records.TaskInstance` (``reset(seed=s)`` then overrides its seed;
            its parameters stay as drawn), or a :data:`TaskSampler` called with the reset's
            seed (a seed drawn from ``np_random`` when none is given).
        reward: ``"terminal"`` or ``"dense"``.
        max_steps: steps before truncation; the task's ``max_steps`` when None.
        screenshot: ``(height, width)`` to resize frames to; ``"auto"`` for the size of the
            first screenshot (learnt by one reset of ``task`` here); None for no screenshot.
        ui_max_length: the most characters of UI text in an observation.
        action_max_length: the longest action JSON the action space holds.
        render_mode: ``"rgb_array"`` for :meth:`render` to return the full-size frame.
        nondeterministic: True for worlds that do not repeat themselves (a phone).
        loop: a shared :class:`~bridge.sync.LoopThread` (one simulator, many envs).
        timeout_s: a time budget for every env call.
    """

    # Gymnasium declares metadata a plain class attribute; render_fps is the playback rate of
    # recorded episodes (steps per second), as a phone has no frame rate of its own.
    metadata: dict[str, Any] = {"render_modes": ["rgb_array"], "render_fps": 2}  # noqa: RUF012
    observation_space: spaces.Dict

    def __init__(
        self,
        make_env: EnvFactory,
        *,
        task: TaskInstance | TaskSampler | None = None,
        reward: RewardMode = "terminal",
        max_steps: int | None = None,
        screenshot: tuple[int, int] | Literal["auto"] | None = "auto",
        ui_max_length: int = 16384,
        action_max_length: int = 2048,
        render_mode: Literal["rgb_array"] | None = None,
        nondeterministic: bool = False,
        loop: LoopThread | None = None,
        timeout_s: float | None = None,
    ) -> None:
        _check_options(reward, render_mode, max_steps, ui_max_length, screenshot, task)
        entry_point = partial(
            PhoneGymEnv,
            make_env,
            task=task,
            reward=reward,
            max_steps=max_steps,
            screenshot=screenshot,
            ui_max_length=ui_max_length,
            action_max_length=action_max_length,
            render_mode=render_mode,
            nondeterministic=nondeterministic,
            loop=loop,
            timeout_s=timeout_s,
        )
        self.spec = EnvSpec(SPEC_ID, entry_point=entry_point, nondeterministic=nondeterministic)
        self.render_mode = render_mode
        self._task, self._reward, self._max_steps = task, reward, max_steps
        self._ui_max_length = ui_max_length
        self._episode: _Episode | None = None
        self._sync = SyncEnv.open(make_env, loop=loop, timeout_s=timeout_s)
        try:
            shape = self._probe_shape() if screenshot == "auto" else screenshot
        except BaseException:
            self._sync.close()
            raise
        self._shape: tuple[int, int] | None = shape
        self.action_space = _Text(action_max_length, min_length=1, charset=CHARSET)
        self.observation_space = spaces.Dict(_observation_spaces(shape, ui_max_length))

    @property
    def sync_env(self) -> SyncEnv:
        """The bridge env behind this one (``snapshot``, ``fork``, ``verdict`` on demand)."""
        return self._sync

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Start an episode of ``options["task"]`` (a TaskInstance or its dict) or the default.

        ``seed`` seeds ``np_random`` (Gymnasium's contract) and overrides the task's seed.
        Info: ``observation`` (the full Observation) and ``task`` (the TaskInstance posed).

        Raises:
            ValueError: no task was given here nor to the constructor, or unknown options.
        """
        super().reset(seed=seed)
        task = self._resolve_task(seed, options)
        self._episode = None
        observation = self._sync.reset(task)
        max_steps = self._max_steps or task.max_steps
        episode = _Episode(max_steps, observation, self._decode(observation))
        if self._reward == "dense":
            episode.verdict = self._sync.verdict()
        self._episode = episode
        return self._tensors(episode), {"observation": observation, "task": task}

    def step(self, action: str) -> _StepReturn:
        """Parse ``action`` (JSON text) and execute it; an unparseable one is an invalid step.

        Info: ``observation``, ``executed`` (what the env did, None for an invalid step),
        ``error`` (the agent's mistake, or why the action was invalid), ``invalid``; on the
        last step also ``verdict`` and ``shaped_reward``.

        Raises:
            EnvUsageError: no episode is running (call :meth:`reset`).
        """
        episode = self._running()
        episode.steps += 1
        try:
            parsed = parse_action(action)
        except ValidationError as exc:
            return self._invalid_step(episode, f"invalid action: {_why(exc)}")
        episode.final_action = parsed
        self._episode = None  # an exception from the env ends the episode
        result = self._sync.step(parsed)
        self._episode = episode
        episode.observation, episode.frame = result.observation, self._decode(result.observation)
        terminated = isinstance(parsed, (FinishAction, AnswerAction)) or result.done
        info = _info(result.observation, result.executed, result.error, invalid=False)
        return self._conclude(episode, info, terminated, changed=True)

    def render(self) -> np.ndarray | None:
        """The current frame, full size RGB, with ``render_mode="rgb_array"``; else None."""
        if self.render_mode != "rgb_array" or self._episode is None:
            return None
        frame = self._episode.frame
        return None if frame is None else frame.copy()

    def close(self) -> None:
        """Close the bridge env and its loop thread; idempotent."""
        self._episode = None
        self._sync.close()

    # ---- episodes

    def _running(self) -> _Episode:
        if self._episode is None:
            raise EnvUsageError("no episode is running: call reset() first")
        if self._episode.over:
            raise EnvUsageError("the episode is over: call reset() to start the next one")
        return self._episode

    def _invalid_step(self, episode: _Episode, error: str) -> _StepReturn:
        """As the runner does: the same observation, one step on, with the error in it."""
        update = {"step": episode.observation.step + 1, "last_action_error": error}
        episode.observation = episode.observation.model_copy(update=update)
        info = _info(episode.observation, None, error, invalid=True)
        return self._conclude(episode, info, False, changed=False)

    def _conclude(
        self, episode: _Episode, info: dict[str, Any], terminated: bool, changed: bool
    ) -> _StepReturn:
        reward = self._score(episode, info, terminated, changed)
        episode.over = terminated or episode.steps >= episode.max_steps
        return self._tensors(episode), reward, terminated, episode.over and not terminated, info

    def _score(
        self, episode: _Episode, info: dict[str, Any], terminated: bool, changed: bool
    ) -> float:
        """The step's reward; on the last step, the verdict goes into ``info``."""
        reward = 0.0
        if self._reward == "dense" and changed:
            before = episode.verdict.progress if episode.verdict is not None else 0.0
            episode.verdict = self._sync.verdict()
            reward = episode.verdict.progress - before
        if terminated or episode.steps >= episode.max_steps:
            verdict = episode.verdict if self._reward == "dense" else None
            verdict = verdict if verdict is not None else self._sync.verdict()
            shaped = shaped_reward(verdict, episode.final_action, infra_error=False)
            info["verdict"], info["shaped_reward"] = verdict, shaped
            reward = shaped if self._reward == "terminal" else reward
        return float(reward)

    def _resolve_task(self, seed: int | None, options: dict[str, Any] | None) -> TaskInstance:
        extra = sorted(set(options or {}) - {"task"})
        if extra:
            raise ValueError(f"unknown reset options {extra}; PhoneGymEnv takes only 'task'")
        source: TaskInstance | TaskSampler | dict[str, Any] | None = (options or {}).get(
            "task", self._task
        )
        if source is None:
            raise ValueError(_NO_TASK)
        if isinstance(source, dict):
            source = TaskInstance.model_validate(source)
        if isinstance(source, TaskInstance):
            return source if seed is None else source.model_copy(update={"seed": seed})
        drawn = seed if seed is not None else int(self.np_random.integers(2**31 - 1))
        return source(drawn)

    # ---- observations

    def _probe_shape(self) -> tuple[int, int] | None:
        """The first screenshot's (height, width), from one reset of the default task."""
        if self._task is None:
            raise ValueError(
                "screenshot='auto' learns the frame size from a first reset, which needs a "
                "task: pass task=..., or screenshot=(height, width), or screenshot=None"
            )
        observation = self._sync.reset(self._resolve_task(None, None))
        shot = observation.screenshot
        return None if shot is None else (shot.height, shot.width)

    def _decode(self, observation: Observation) -> np.ndarray | None:
        wanted = self._shape is not None or self.render_mode is not None
        shot = observation.screenshot
        return _decode_rgb(shot) if wanted and shot is not None else None

    def _tensors(self, episode: _Episode) -> dict[str, Any]:
        tensors: dict[str, Any] = {}
        if self._shape is not None:
            tensors["screenshot"] = _fit(episode.frame, self._shape)
        tensors["ui"] = _ui_text(episode.observation, self._ui_max_length)
        return tensors


def _info(
    observation: Observation, executed: ExecutedAction | None, error: str | None, invalid: bool
) -> dict[str, Any]:
    return {"observation": observation, "executed": executed, "error": error, "invalid": invalid}


def _check_options(
    reward: str,
    render_mode: str | None,
    max_steps: int | None,
    ui_max_length: int,
    screenshot: object,
    task: object,
) -> None:
    if reward not in ("terminal", "dense"):
        raise ValueError(f"reward is 'terminal' or 'dense', not {reward!r}")
    if render_mode not in (None, "rgb_array"):
        raise ValueError(f"render_mode is None or 'rgb_array', not {render_mode!r}")
    for name, value in (("max_steps", max_steps), ("ui_max_length", ui_max_length)):
        if value is not None and value < 1:
            raise ValueError(f"{name} must be at least 1, got {value}")
    if screenshot not in ("auto", None) and not (
        isinstance(screenshot, tuple) and len(screenshot) == 2 and min(screenshot) > 0
    ):
        raise ValueError(f"screenshot is 'auto', None or (height, width), not {screenshot!r}")
    if task is not None and not isinstance(task, TaskInstance) and not callable(task):
        raise TypeError(f"task is a TaskInstance or a seed -> TaskInstance callable, not {task!r}")


def _observation_spaces(
    shape: tuple[int, int] | None, ui_max_length: int
) -> dict[str, spaces.Space[Any]]:
    members: dict[str, spaces.Space[Any]] = {}
    if shape is not None:
        members["screenshot"] = spaces.Box(0, 255, (*shape, 3), np.uint8)
    members["ui"] = _Text(ui_max_length, min_length=0, charset=CHARSET)
    return members


def _decode_rgb(shot: Screenshot) -> np.ndarray:
    image = cv2.imdecode(np.frombuffer(shot.data, np.uint8), cv2.IMREAD_COLOR)
    if image is None:
        raise EnvError(f"the env returned a {shot.format} screenshot that does not decode")
    return cv2.cvtColor(image, cv2.COLOR_BGR2RGB)


def _fit(frame: np.ndarray | None, shape: tuple[int, int]) -> np.ndarray:
    """A new (height, width, 3) array: the frame, resized if needed; black without one."""
    height, width = shape
    if frame is None:
        return np.zeros((height, width, 3), np.uint8)
    fitted: np.ndarray  # numpy and OpenCV's stubs leave both results untyped
    if frame.shape[:2] == shape:
        fitted = frame.copy()
    else:
        fitted = cv2.resize(frame, (width, height), interpolation=cv2.INTER_AREA)
    return fitted


def _ui_text(observation: Observation, max_length: int) -> str:
    text = render_text(observation.ui)
    text = "".join(char if char in _ALLOWED else "\ufffd" for char in text)
    return text if len(text) <= max_length else text[: max_length - 1] + "…"


def _why(exc: ValidationError) -> str:
    """A one-line summary of what did not validate (the first three errors)."""
    problems = [
        f"{'.'.join(str(part) for part in error['loc']) or 'action'}: {error['msg']}"
        for error in exc.errors()[:3]
    ]
    more = len(exc.errors()) - len(problems)
    return "; ".join(problems) + (f" (and {more} more)" if more > 0 else "")
