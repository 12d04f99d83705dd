"""The console's demonstration export says how each attempt ended — outcome by the one
definition of success, termination, ``clean`` — and never calls an aborted attempt a
success, even when its goal happens to hold."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from bridge.records import EpisodeRecord, StepRecord
from bridge.schema import (
    CheckResult,
    ExecutedAction,
    FinishAction,
    PolicyOutput,
    StepResult,
    TapAction,
    Target,
    Verdict,
)
from bridge.trajectory import RunManifest, RunStore
from tests.bridge.toy_env import BACKEND, BUTTON, counter_task, screen_observation
from transfer_eval.commands import mgb_app
from transfer_eval.demonstrations import export_demonstrations

ABORTED = "toy.Counter-v1_s0_en_a1"
FINISHED = "toy.Counter-v1_s0_en_a2"


def _tap(step: int) -> StepRecord:
    seen = screen_observation(step, step=step, image_format="jpeg")
    tap = TapAction(target=Target.node(BUTTON))
    executed = ExecutedAction(action=tap, point_px=(54.0, 174.0), element=seen.ui[BUTTON])
    after = screen_observation(step + 1, step=step + 1, image_format="jpeg")
    result = StepResult(observation=after, executed=executed)
    return StepRecord(step=step, observation=seen, output=PolicyOutput(action=tap),
                      result=result, decided_by="override")  # fmt: skip


def _finish(step: int) -> StepRecord:
    seen = screen_observation(step, step=step, image_format="jpeg")
    return StepRecord(step=step, observation=seen, output=PolicyOutput(action=FinishAction()),
                      result=StepResult(observation=seen, done=True),
                      decided_by="approved")  # fmt: skip


def _attempt(store: RunStore, episode_id: str, steps: list[StepRecord], **end: object) -> None:
    writer = store.begin_episode(episode_id)
    for step in steps:
        writer.write_step(step)
    writer.finish(EpisodeRecord(episode_id=episode_id, task=counter_task(1), policy="scripted",
                                backend=BACKEND, steps=len(steps), **end))  # type: ignore[arg-type]  # fmt: skip


def _console_run(root: Path) -> RunStore:
    """Two attempts at one task: a person stopped the first after a tap that reached the
    goal and changed something else too; the second the agent finished, clean."""
    store = RunStore.create(root, RunManifest(config={"console": True, "policy": "scripted"}))
    goal = Verdict.from_checks([CheckResult(name="counter", expected=1, actual=1, passed=True)])
    unclean = goal.model_copy(update={"clean": False, "clean_reason": "dark theme turned on"})
    _attempt(store, ABORTED, [_tap(0), _tap(1)], outcome="failure", termination="stopped",
             verdict=unclean, stop_reason="a person reset the episode")  # fmt: skip
    _attempt(store, FINISHED, [_tap(0), _finish(1)], outcome="success", termination="finish",
             verdict=goal, final_action=FinishAction())  # fmt: skip
    return store


def test_an_aborted_unclean_attempt_is_never_exported_as_a_success(tmp_path: Path) -> None:
    store = _console_run(tmp_path / "run")
    demo = tmp_path / "demo.jsonl"
    exported = CliRunner().invoke(mgb_app, ["replay", str(store.root), "--export", str(demo)])
    assert exported.exit_code == 0, exported.output
    lines = [json.loads(line) for line in demo.read_text().splitlines()]
    by_attempt = {line["episode_id"]: line for line in lines}
    assert [line["episode_id"] for line in lines] == [ABORTED, ABORTED, FINISHED, FINISHED]
    aborted, finished = by_attempt[ABORTED], by_attempt[FINISHED]
    assert {key: aborted[key] for key in _ENDING} == {
        "episode_outcome": "failure",
        "episode_outcome_class": "failure",
        "episode_termination": "stopped",
        "episode_clean": False,
        "goal_reached": True,
        "episode_stop_reason": "a person reset the episode",
    }
    assert {key: finished[key] for key in _ENDING} == {
        "episode_outcome": "success",
        "episode_outcome_class": "success",
        "episode_termination": "finish",
        "episode_clean": True,
        "goal_reached": True,
        "episode_stop_reason": None,
    }
    kept = [line["step"] for line in lines if line["episode_outcome"] == "success"]
    assert kept == [0, 1]  # a filter for successes keeps the finished attempt alone


def test_every_step_of_an_attempt_carries_its_ending(tmp_path: Path) -> None:
    store = _console_run(tmp_path / "run")
    demo = tmp_path / "aborted.jsonl"
    assert export_demonstrations(store, [ABORTED], demo) == 2
    lines = [json.loads(line) for line in demo.read_text().splitlines()]
    assert [line["episode_termination"] for line in lines] == ["stopped", "stopped"]
    assert [line["decided_by"] for line in lines] == ["override", "override"]


_ENDING = (
    "episode_outcome",
    "episode_outcome_class",
    "episode_termination",
    "episode_clean",
    "goal_reached",
    "episode_stop_reason",
)
