"""trainers.gem_env: the GEM text env, one episode end to end on an in-process simulator.

gem-llm is not installed here (0.1.0 pulls ~30 packages: sympy, nltk, matplotlib,
reasoning-gym, and configures the root logger on import), so :func:`register_gem` is
tested against gem-llm **0.1.0**'s documented interface — ``gem.register(env_id,
entry_point, **kwargs)`` and ``gem.make(env_id, **kwargs)`` calling
``entry_point(**{**kwargs, **overrides})`` (``gem/envs/registration.py``) — through the
stand-in module below. The env itself is GEM's ``gem.core.Env`` contract:
``reset(seed) -> (obs, info)``, ``step(action) -> (obs, reward, terminated, truncated,
info)``.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Callable
from typing import Any

import pytest

from bridge.errors import EnvError
from tests.trainers.helpers import airplane_task, generic_script, losing_factory, qwen_script
from tests.trainers.sync_world import SyncWorld
from trainers.errors import MissingExtra, TrainerError
from trainers.gem_env import GEM_ENV_ID, PhoneTextEnv, register_gem

pytestmark = pytest.mark.browser


def _text_env(world: SyncWorld, **options: Any) -> PhoneTextEnv:
    options.setdefault("make_env", lambda: world.sim.env(screenshot=False))
    return PhoneTextEnv(task=airplane_task(world.sim), loop=world.loop, **options)


def _play(world: SyncWorld, env: PhoneTextEnv, obs: list[dict[str, Any]]) -> tuple:
    """Ask the endpoint and step until the episode ends; the last step's return."""
    while True:
        result = env.step(world.ask(obs))
        obs, _, terminated, truncated, _ = result
        if terminated or truncated:
            return result


def test_the_model_solves_the_task_from_screenshot_prompts(world: SyncWorld) -> None:
    world.endpoint.script(qwen_script(world.point))
    with _text_env(world, make_env=world.sim.env, adapter="qwen3vl") as env:
        obs, info = env.reset(seed=0)
        assert info["task"].task_id == "settings/SetAirplaneMode-v1"
        assert [m["role"] for m in obs] == ["system", "user"]
        images = [p for p in obs[-1]["content"] if p["type"] == "image_url"]
        assert len(images) == 1 and images[0]["image_url"]["url"].startswith("data:image/")
        obs, reward, terminated, truncated, info = _play(world, env, obs)
    assert obs == [] and reward == 1.0 and terminated and not truncated
    assert info["success"] and info["verdict"].success and not info["infra_error"]
    assert info["turn"] == 3 and info["action"].type == "finish"


def test_an_invalid_reply_is_a_step_with_its_error_and_the_episode_goes_on(
    world: SyncWorld,
) -> None:
    with _text_env(world) as env:
        env.reset()
        obs, reward, terminated, truncated, info = env.step("no idea, sorry")
        assert info["invalid"] and "no JSON object" in info["error"]
        assert reward == 0.0 and not (terminated or truncated) and obs
        assert "Last action error: invalid policy output" in obs[-1]["content"][0]["text"]
        script = generic_script(world.point)
        for reply in script[:-1]:
            env.step(reply)
        _, reward, terminated, _, info = env.step(script[-1])
    assert terminated and reward == 1.0 and info["turn"] == 4


def test_a_lost_host_truncates_with_reward_zero_and_the_flag(world: SyncWorld) -> None:
    factory = losing_factory(world.sim, fail_at=1, screenshot=False)
    with _text_env(world, make_env=factory) as env:
        env.reset()
        script = generic_script(world.point)
        assert env.step(script[0])[2:4] == (False, False)
        obs, reward, terminated, truncated, info = env.step(script[1])
    assert obs == [] and reward == 0.0 and truncated and not terminated
    assert info["infra_error"] and info["error_source"] == "env"
    assert "host went away" in info["error"]


def test_reset_mid_episode_starts_afresh_and_closes_the_old_env(world: SyncWorld) -> None:
    before = len(world.sim.instances)
    with _text_env(world) as env:
        env.reset()
        env.step(generic_script(world.point)[0])
        obs, _ = env.reset()
        assert len(world.sim.instances) == before + 1  # the abandoned one was dropped
        assert "Previous steps:\nnone yet" in obs[-1]["content"][0]["text"]
    assert len(world.sim.instances) == before


def test_misuse_is_a_trainer_error_and_a_failed_start_an_env_error(world: SyncWorld) -> None:
    async def no_host() -> Any:
        raise EnvError("no simulator host is free (test)")

    with _text_env(world) as env, pytest.raises(TrainerError, match="call reset"):
        env.step("{}")
    with _text_env(world, make_env=no_host) as env, pytest.raises(EnvError, match="no simulator"):
        env.reset()


def _stand_in_gem() -> types.ModuleType:
    """gem-llm 0.1.0's registry, as documented (``gem/envs/registration.py``)."""
    registry: dict[str, tuple[Callable[..., Any], dict[str, Any]]] = {}
    gem = types.ModuleType("gem")

    def register(env_id: str, entry_point: Callable[..., Any], **kwargs: Any) -> None:
        if env_id in registry:
            raise ValueError(f"Environment {env_id} already registered.")
        registry[env_id] = (entry_point, kwargs)

    def make(env_id: str, **kwargs: Any) -> Any:
        entry_point, registered = registry[env_id]
        return entry_point(**{**registered, **kwargs})

    gem.register, gem.make = register, make  # type: ignore[attr-defined]
    return gem


def test_registered_with_gem_it_is_made_and_played_through_gem_make(
    world: SyncWorld, monkeypatch: pytest.MonkeyPatch
) -> None:
    gem = _stand_in_gem()
    monkeypatch.setitem(sys.modules, "gem", gem)
    task = airplane_task(world.sim)
    register_gem(make_env=lambda: world.sim.env(screenshot=False), task=task, loop=world.loop)
    world.endpoint.script(generic_script(world.point))
    env = gem.make(GEM_ENV_ID, max_steps=5)
    try:
        obs, _ = env.reset(seed=0)
        _, reward, terminated, _, _ = _play(world, env, obs)
    finally:
        env.close()
    assert terminated and reward == 1.0


def test_without_gem_register_gem_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "gem", None)
    with pytest.raises(MissingExtra, match=r"pip install 'mobilegym-bridge\[gem\]'"):
        register_gem()
