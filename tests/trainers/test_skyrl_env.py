"""trainers.skyrl_env with the real skyrl-gym package (0.4.0; CPU-only, light: pandas,
omegaconf, func_timeout, requests), registered and made through ``skyrl_gym.make`` as
SkyRL's generator does (``make(env_class, env_config=..., extras=row)``)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import Any

import pytest

from tests.trainers.helpers import airplane_task, generic_script, losing_factory
from tests.trainers.sync_world import SyncWorld
from trainers.errors import MissingExtra
from trainers.rows import task_row
from trainers.skyrl_env import SKYRL_ENV_ID, make_skyrl_env, register_skyrl

skyrl_gym = pytest.importorskip("skyrl_gym", reason="skyrl-gym (the [skyrl] extra) is absent")
pytestmark = pytest.mark.browser


@pytest.fixture
def registered() -> Iterator[str]:
    """The env registered for one test (skyrl-gym's registry is process-global)."""
    env_id = register_skyrl(f"{SKYRL_ENV_ID}-test")
    try:
        yield env_id
    finally:
        skyrl_gym.envs.registration.deregister(env_id)


def _make(world: SyncWorld, env_id: str, factory: Any = None) -> Any:
    config = {
        "env_factory": factory or (lambda: world.sim.env(screenshot=False)),
        "adapter": "generic",
        "loop": world.loop,
    }
    return skyrl_gym.make(env_id, env_config=config, extras=task_row(airplane_task(world.sim)))


def _generate(world: SyncWorld, env: Any) -> tuple[list[dict[str, Any]], list[Any]]:
    """SkyRL's multi-turn loop: ask, step, append the observations, until done."""
    chat, _ = env.init([{"role": "user", "content": "(the dataset's prompt)"}])
    outputs = []
    while True:
        reply = world.ask(chat)
        output = env.step(reply)
        outputs.append(output)
        chat = [*chat, {"role": "assistant", "content": reply}, *output["observations"]]
        if output["done"]:
            return chat, outputs


def test_made_by_skyrl_gym_it_plays_an_episode_to_the_shaped_reward(
    world: SyncWorld, registered: str
) -> None:
    world.endpoint.script(generic_script(world.point))
    env = _make(world, registered)
    try:
        assert isinstance(env, skyrl_gym.envs.base_text_env.BaseTextEnv)
        chat, outputs = _generate(world, env)
        metrics = env.get_metrics()
    finally:
        env.close()
    assert [o["reward"] for o in outputs] == [0.0, 0.0, 1.0]
    assert outputs[-1]["observations"] == [] and not outputs[-1]["metadata"]["infra_error"]
    assert all(len(o["observations"]) == 1 for o in outputs[:-1])
    assert [m["role"] for m in chat[:2]] == ["system", "user"]
    assert metrics == {"turns": 3, "success": 1.0, "progress": 1.0, "infra_error": 0.0}


def test_a_lost_host_ends_with_reward_zero_and_the_flag(world: SyncWorld, registered: str) -> None:
    world.endpoint.script(generic_script(world.point))
    env = _make(world, registered, losing_factory(world.sim, fail_at=1, screenshot=False))
    try:
        _, outputs = _generate(world, env)
        metrics = env.get_metrics()
    finally:
        env.close()
    assert outputs[-1]["done"] and outputs[-1]["reward"] == 0.0
    assert outputs[-1]["metadata"]["infra_error"] and metrics["infra_error"] == 1.0


def test_without_skyrl_gym_the_error_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "skyrl_gym.envs.base_text_env", None)
    with pytest.raises(MissingExtra, match=r"pip install 'mobilegym-bridge\[skyrl\]'"):
        make_skyrl_env()
