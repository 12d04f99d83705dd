"""The phone text env as a SkyRL-gym ``BaseTextEnv`` (skyrl-gym 0.4.0).

SkyRL's generator makes one env per trajectory with ``skyrl_gym.make(env_class,
env_config=..., extras=row_extras)``, then calls ``init(prompt) -> (chat, metadata)`` and
``step(reply) -> BaseTextEnvStepOutput(observations, reward, done, metadata)``, appending
``observations`` to the chat. :class:`PhoneSkyRLEnv` wraps
:class:`trainers.gem_env.PhoneTextEnv`:

* ``init`` ignores the dataset's prompt and returns the VLM adapter's first prompt;
* ``step`` returns as ``observations`` the **last message** of the adapter's next prompt
  (the user turn showing the new screen). SkyRL keeps the conversation itself, so this is
  exact for adapters that replay the conversation (``uitars15``); adapters that rebuild
  the whole prompt each turn (``qwen3vl``, ``generic``: history as text) see their history
  twice — use the GEM env, verl loop or rLLM flow for those;
* the reward is 0 until ``done``, then the shaped reward (0 and ``metadata["infra_error"]``
  for an infra error).

``env_config``: ``env_factory`` (``"pkg.mod:name"``), ``adapter``, ``adapter_options``,
``max_steps``, ``step_timeout_s``, and optionally ``loop`` (a
:class:`~bridge.sync.LoopThread`; by default one loop thread per process, started with the
first env, serves them all). ``extras``: the row, with its task (:func:`trainers.rows.
task_row`). skyrl-gym is optional: :func:`make_skyrl_env` / the first access of
``trainers.skyrl_env.PhoneSkyRLEnv`` import it, or raise
:class:`~trainers.errors.MissingExtra`.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

from bridge.sync import LoopThread
from trainers.errors import import_extra
from trainers.factories import load_factory
from trainers.gem_env import PhoneTextEnv
from trainers.rows import task_from_row

__all__ = ["SKYRL_ENV_ID", "make_skyrl_env", "register_skyrl"]

SKYRL_ENV_ID = "mobilegym_bridge"
"""The id :func:`register_skyrl` registers by default (a row's ``env_class``)."""

_CLASS = "PhoneSkyRLEnv"
_BASE = "skyrl_gym.envs.base_text_env"
_shared: list[LoopThread] = []
_shared_lock = threading.Lock()


def _shared_loop() -> LoopThread:
    """The process's loop thread for SkyRL envs, started with the first one."""
    with _shared_lock:
        if not _shared or _shared[0].closed:
            _shared[:] = [LoopThread(name="skyrl-phone-envs")]
        return _shared[0]


class _SkyRLPhone:
    """The SkyRL env's behaviour; :func:`make_skyrl_env` puts it on ``BaseTextEnv``."""

    _skyrl: Any = None
    turns: int
    max_turns: int

    def __init__(self, env_config: Any = None, extras: Mapping[str, Any] | None = None) -> None:
        super().__init__()  # BaseTextEnv's: turns, max_turns, tool groups
        config = dict(env_config or {})
        task = task_from_row(dict(extras or {}))
        self._text = PhoneTextEnv(
            load_factory(config.get("env_factory")),
            task=task,
            adapter=config.get("adapter", "generic"),
            adapter_options=config.get("adapter_options"),
            max_steps=config.get("max_steps"),
            loop=config.get("loop") or _shared_loop(),
            step_timeout_s=float(config.get("step_timeout_s", 120.0)),
        )
        self.max_turns = config.get("max_steps") or task.max_steps
        self._final: dict[str, Any] = {}

    def init(self, prompt: Any = None) -> tuple[list[dict[str, object]], dict[str, Any]]:
        """The adapter's first prompt (the dataset's ``prompt`` is not used)."""
        messages, info = self._text.reset()
        return messages, {"task_id": info["task"].task_id}

    def step(self, action: str) -> Any:
        """Send the reply; the next screen's message, or ``[]`` and the reward at the end."""
        self.turns += 1
        messages, reward, terminated, truncated, info = self._text.step(action)
        done = terminated or truncated
        if done:
            self._final = info
        metadata = {
            "invalid": info["invalid"],
            "error": info["error"],
            "infra_error": bool(info.get("infra_error", False)),
        }
        return self._skyrl.BaseTextEnvStepOutput(
            observations=messages[-1:],
            reward=reward,
            done=done,
            metadata=metadata,
            postprocessed_action=None,
        )

    def get_metrics(self) -> dict[str, Any]:
        """Per-episode numbers SkyRL averages: turns, success, progress, infra errors."""
        verdict = self._final.get("verdict")
        return {
            "turns": self.turns,
            "success": float(bool(self._final.get("success"))),
            "progress": verdict.progress if verdict is not None else 0.0,
            "infra_error": float(bool(self._final.get("infra_error"))),
        }

    def close(self) -> None:
        """Abandon an unfinished episode (its env is closed); idempotent."""
        self._text.close()


def make_skyrl_env() -> type:
    """The SkyRL env class, built on skyrl-gym's ``BaseTextEnv``.

    Raises:
        MissingExtra: skyrl-gym is not installed (``pip install mobilegym-bridge[skyrl]``).
    """
    base = import_extra(_BASE, "skyrl", "skyrl-gym")
    namespace = {
        "__module__": __name__,
        "__qualname__": _CLASS,
        "__doc__": "A phone task as a SkyRL-gym BaseTextEnv (see trainers.skyrl_env).",
        "_skyrl": base,
    }
    return type(_CLASS, (_SkyRLPhone, base.BaseTextEnv), namespace)


def register_skyrl(env_id: str = SKYRL_ENV_ID, **kwargs: Any) -> str:
    """Register the env with skyrl-gym as ``env_id`` (a row's ``env_class``), with
    ``kwargs`` for every env ``skyrl_gym.make`` makes (e.g. ``env_config``).

    Raises:
        MissingExtra: skyrl-gym is not installed.
    """
    skyrl_gym = import_extra("skyrl_gym", "skyrl", "skyrl-gym")
    skyrl_gym.register(id=env_id, entry_point=f"{__name__}:{_CLASS}", kwargs=kwargs)
    return env_id


def __getattr__(name: str) -> Any:
    """``trainers.skyrl_env.PhoneSkyRLEnv``: built on first use (what ``entry_point``
    strings resolve)."""
    if name != _CLASS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    cls = make_skyrl_env()
    globals()[_CLASS] = cls
    return cls
