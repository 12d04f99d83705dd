"""The circuit breaker: the same infra error N episodes in a row stops a run in one line,
leaving the episodes it did not finish to the next run; anything else starts the count
again."""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge.breaker import InfraBreaker
from bridge.errors import InfraErrorsInARow
from bridge.failures import error_class
from bridge.records import EpisodeRecord, TaskInstance
from bridge.runner import EpisodeJob, run_episodes
from bridge.schema import Verdict
from bridge.trajectory import RunManifest, RunStore
from tests.bridge.toy_env import CounterEnv, ScriptedPolicy, counter_task

TASK = TaskInstance(task_id="settings/SetWifi-v1", instruction="Turn off Wi-Fi.")


def _infra(n: int, error: str, source: str = "policy") -> EpisodeRecord:
    return EpisodeRecord(episode_id=f"e{n}", task=TASK, policy="vlm", outcome="infra_error",
                         termination="infra_error", steps=0, error=error,
                         error_source=source)  # type: ignore[arg-type]  # fmt: skip


def _judged(n: int) -> EpisodeRecord:
    verdict = Verdict(success=False, progress=0.0)
    return EpisodeRecord(episode_id=f"e{n}", task=TASK, policy="vlm", outcome="failure",
                         termination="max_steps", steps=3, verdict=verdict)  # fmt: skip


DOWN = "PolicyError: POST http://127.0.0.1:9/v1/chat/completions failed: ConnectError"


def test_three_of_a_kind_in_a_row_stop_with_one_line_naming_the_error() -> None:
    breaker = InfraBreaker(3)
    breaker.observe(_infra(0, DOWN))
    breaker.observe(_infra(1, DOWN.replace("ConnectError", "ReadTimeout")))  # same class
    with pytest.raises(InfraErrorsInARow) as caught:
        breaker.observe(_infra(2, DOWN + "\n  a second line of detail"))
    message = str(caught.value)
    assert "\n" not in message
    assert message == (
        f"stopped after 3 episodes in a row failed the same way ({DOWN}); fix that and run "
        "the same command again: it runs only the episodes that did not finish"
    )


def test_a_judged_episode_or_another_kind_of_error_starts_the_count_again() -> None:
    breaker = InfraBreaker(2, "cells")
    breaker.observe(_infra(0, DOWN))
    breaker.observe(_judged(1))
    breaker.observe(_infra(2, DOWN))
    breaker.observe(_infra(3, "EnvError: the phone went away", "env"))
    breaker.observe(_infra(4, "PolicyError: same class, other side", "env"))
    with pytest.raises(InfraErrorsInARow, match=r"^stopped after 2 cells in a row .*the cells"):
        breaker.observe(_infra(5, "PolicyError: again", "env"))


def test_zero_never_stops_and_a_negative_limit_is_refused() -> None:
    breaker = InfraBreaker(0)
    for n in range(20):
        breaker.observe(_infra(n, DOWN))
    with pytest.raises(ValueError, match="0 \\(never stop\\) or more"):
        InfraBreaker(-1)


def test_error_class_reads_what_describe_wrote() -> None:
    assert error_class("EnvError: the phone went away") == "EnvError"
    assert error_class("EnvTimeout()") == "EnvTimeout"
    assert error_class("PolicyError: a: b (c)") == "PolicyError"


@pytest.mark.asyncio
async def test_a_breaker_stops_run_episodes_and_the_rest_stays_pending(tmp_path: Path) -> None:
    """A policy whose endpoint is down fails every episode: the run stops at the third,
    those three are recorded as infra errors and the rest never started; a rerun runs
    exactly the episodes without a judged result."""
    store = RunStore.create(tmp_path / "run", RunManifest(), lock=True)
    seen: list[EpisodeRecord] = []

    def job(n: int, policy: ScriptedPolicy) -> EpisodeJob:
        async def make_env() -> CounterEnv:
            return CounterEnv()

        return EpisodeJob(f"ep{n}", counter_task(), make_env, lambda: policy)

    down = [job(n, ScriptedPolicy(raise_at=0)) for n in range(8)]
    breaker = InfraBreaker(3)
    with store, pytest.raises(InfraErrorsInARow, match="toy policy endpoint is down"):
        await run_episodes(down, store=store, on_episode_done=breaker.watch(seen.append))
    done = RunStore.open(tmp_path / "run").completed()
    assert 3 <= len(done) < 8  # the one that started as the third ended may finish too
    assert sorted(done) == sorted(r.episode_id for r in seen)
    assert {r.outcome for r in done.values()} == {"infra_error"}
    with RunStore.create(tmp_path / "run", RunManifest(), resume=True, lock=True) as again:
        assert again.pending([f"ep{n}" for n in range(8)]) == [f"ep{n}" for n in range(8)]
        up = [job(n, ScriptedPolicy(taps=3)) for n in range(8)]
        records = await run_episodes(up, store=again, on_episode_done=InfraBreaker(3).watch())
    assert [r.outcome for r in records] == ["success"] * 8
