"""The registry's learned:CHECKPOINT branch against the learned policy (lands with it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge.policy import Policy
from bridge.runner import run_episode
from policies.errors import PolicySpecError
from policies.registry import load
from tests.bridge.toy_env import CounterEnv, counter_task


@pytest.mark.asyncio
async def test_learned_spec_loads_the_checkpoint_and_plays(tmp_path: Path) -> None:
    from policies.learned.policy import LearnedPolicy

    checkpoint = LearnedPolicy().save(tmp_path / "checkpoint")
    policy = load(f"learned:{checkpoint}")
    assert isinstance(policy, LearnedPolicy) and isinstance(policy, Policy)
    assert policy.name == f"learned:{checkpoint}"
    record = await run_episode(policy, CounterEnv(), counter_task(2), episode_id="learned")
    assert record.outcome in ("success", "failure") and record.policy == policy.name


def test_the_shipped_checkpoints_load_from_any_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``learned:checkpoints/trained`` (transfer-eval's default) works outside the checkout."""
    monkeypatch.chdir(tmp_path)
    policy = load("learned:checkpoints/trained")
    assert policy.name.startswith("learned:")
    with pytest.raises(PolicySpecError, match="no checkpoint at checkpoints/nope"):
        load("learned:checkpoints/nope")
