"""Run directories: round trips, atomicity, torn and corrupt lines, ids, resuming a run."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import stat
from pathlib import Path

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bridge import durable
from bridge.errors import TrajectoryError
from bridge.records import EpisodeRecord, StepRecord
from bridge.runner import run_episode
from bridge.schema import (
    SCHEMA_VERSION,
    CheckResult,
    ExecutedAction,
    FinishAction,
    PolicyOutput,
    StepResult,
    TapAction,
    Target,
    Verdict,
)
from bridge.trajectory import RunManifest, RunStore, validate_episode_id
from tests.bridge.toy_env import (
    BACKEND,
    BUTTON,
    CounterEnv,
    ScriptedPolicy,
    counter_task,
    counter_tree_xml,
    screen_observation,
)

MANIFEST = RunManifest(
    config={"policy": "scripted", "episodes": 2, "nested": {"a": [1, 2.5, None, "ü"]}},
    versions={"mobilegym-bridge": "0.1.0"},
    seeds={"ep-0": 7},
)


def _play(store: RunStore, episode_id: str, **env_knobs: object) -> EpisodeRecord:
    """Run one toy episode (target 2) into ``store`` and commit it."""
    writer = store.begin_episode(episode_id)
    env = CounterEnv(**env_knobs)  # type: ignore[arg-type]
    coroutine = run_episode(
        ScriptedPolicy(2),
        env,
        counter_task(2),
        episode_id=episode_id,
        writer=writer,
        tree_xml=counter_tree_xml,
    )
    record = asyncio.run(coroutine)
    writer.finish(record)
    return record


def _temp_files(root: Path) -> list[Path]:
    return [path for path in root.rglob("*") if path.name.endswith(".tmp")]


EPISODE_ID = "ep.1_a-b"


def _sample_steps() -> list[StepRecord]:
    """A tap (png frame, with a result that executed it) and a finish (jpeg frame)."""
    first = screen_observation(0, image_format="png")
    second = screen_observation(1, step=1, image_format="jpeg")
    tap = TapAction(target=Target.node(BUTTON))
    executed = ExecutedAction(action=tap, point_px=(54.0, 174.0), element=first.ui[BUTTON])
    tapped = StepResult(observation=second, executed=executed)
    finished = StepResult(observation=screen_observation(1, step=2), done=True)
    return [
        StepRecord(
            step=0,
            observation=first,
            output=PolicyOutput(action=tap, thought="t", raw_text="r"),
            result=tapped,
            policy_ms=1.5,
        ),
        StepRecord(
            step=1, observation=second, output=PolicyOutput(action=FinishAction()), result=finished
        ),
    ]


def _sample_episode(store: RunStore) -> tuple[list[StepRecord], list[StepRecord], EpisodeRecord]:
    """Write the sample steps (a tree for the first only) and commit; returns what was given,
    what ``write_step`` returned, and the episode record."""
    steps = _sample_steps()
    writer = store.begin_episode(EPISODE_ID)
    tree = counter_tree_xml(steps[0].observation)
    stored = [writer.write_step(steps[0], tree_xml=tree), writer.write_step(steps[1])]
    verdict = Verdict.from_checks([CheckResult(name="counter", expected=1, actual=1, passed=True)])
    episode = EpisodeRecord(
        episode_id=EPISODE_ID,
        task=counter_task(1),
        policy="toy-scripted",
        backend=BACKEND,
        outcome="success",
        termination="finish",
        verdict=verdict,
        steps=2,
        final_action=FinishAction(),
        duration_s=0.25,
    )
    writer.finish(episode)
    return steps, stored, episode


def test_manifest_and_episode_round_trip(tmp_path: Path) -> None:
    store = RunStore.create(tmp_path / "run", MANIFEST)
    _, _, episode = _sample_episode(store)
    reopened = RunStore.open(store.root)
    assert reopened.manifest == MANIFEST
    assert json.loads((store.root / "manifest.json").read_text("utf-8"))["seeds"] == {"ep-0": 7}
    assert reopened.completed() == {EPISODE_ID: episode} == store.completed()
    assert reopened.read_episode(EPISODE_ID) == episode
    assert store.results_path.read_text("utf-8").splitlines() == [episode.model_dump_json()]
    assert _temp_files(store.root) == []


def test_steps_frames_and_trees_round_trip(tmp_path: Path) -> None:
    store = RunStore.create(tmp_path / "run", MANIFEST)
    steps, stored, _ = _sample_episode(store)
    read = RunStore.open(store.root).read_steps(EPISODE_ID)
    assert read == stored
    assert [(s.frame, s.tree) for s in read] == [
        ("frames/0000.png", "trees/0000.xml"),
        ("frames/0001.jpg", None),
    ]
    for original, back in zip(steps, read, strict=True):
        assert back.observation == original.observation.model_copy(update={"screenshot": None})
        assert back.observation.ui == original.observation.ui  # the tree stays in the record
        assert back.result is not None and original.result is not None
        assert back.result.observation.screenshot is None
        assert back.result.executed == original.result.executed
        assert (back.output, back.policy_ms) == (original.output, original.policy_ms)
        data = store.frame_path(EPISODE_ID, back.step).read_bytes()
        assert original.observation.screenshot is not None
        assert data == original.observation.screenshot.data
        assert cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR) is not None
    tree = store.tree_path(EPISODE_ID, 0).read_text("utf-8")
    assert tree == counter_tree_xml(steps[0].observation)
    with pytest.raises(TrajectoryError, match="no trees file for step 1"):
        store.tree_path(EPISODE_ID, 1)


def test_atomic_write_keeps_the_old_file_when_it_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = RunStore.create(tmp_path / "run", MANIFEST)
    _play(store, "ep-0")
    path = store.episode_dir("ep-0") / "episode.json"
    before = path.read_bytes()

    def refuse(*args: object) -> None:
        raise OSError("disk on fire")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(OSError, match="disk on fire"):
        durable.write_atomic(path, b"half-new")
    assert path.read_bytes() == before and _temp_files(store.root) == []


def test_torn_last_lines_are_ignored_and_repaired(tmp_path: Path) -> None:
    store = RunStore.create(tmp_path / "run", MANIFEST)
    _play(store, "ep-0")
    _play(store, "ep-1")
    steps_path = store.episode_dir("ep-1") / "steps.jsonl"
    intact = {path: path.read_bytes() for path in (store.results_path, steps_path)}
    for path, data in intact.items():
        with path.open("ab") as handle:  # a kill in the middle of an append
            handle.write(data.splitlines()[0][:40])
    reopened = RunStore.open(store.root)
    assert set(reopened.completed()) == {"ep-0", "ep-1"}
    assert len(reopened.read_steps("ep-1")) == 3
    assert reopened.repair() == [store.results_path, steps_path]
    assert {path: path.read_bytes() for path in intact} == intact
    assert reopened.repair() == []


def test_appending_after_a_torn_line_cuts_it_first(tmp_path: Path) -> None:
    store = RunStore.create(tmp_path / "run", MANIFEST)
    _play(store, "ep-0")
    intact = store.results_path.read_bytes()
    with store.results_path.open("ab") as handle:
        handle.write(b'{"schema_version": "1.0", "episo')
    reopened = RunStore.open(store.root)  # no explicit repair
    _play(reopened, "ep-1")
    assert set(RunStore.open(store.root).completed()) == {"ep-0", "ep-1"}
    assert store.results_path.read_bytes().startswith(intact + b"{")


def test_a_whole_line_without_its_newline_is_not_committed(tmp_path: Path) -> None:
    store = RunStore.create(tmp_path / "run", MANIFEST)
    _play(store, "ep-0")
    data = store.results_path.read_bytes()
    store.results_path.write_bytes(data.rstrip(b"\n"))
    assert RunStore.open(store.root).completed() == {}
    resumed = RunStore.create(store.root, MANIFEST, resume=True)
    assert resumed.results_path.read_bytes() == b"" and resumed.pending(["ep-0"]) == ["ep-0"]
    _play(resumed, "ep-0")
    assert len(resumed.results_path.read_bytes().splitlines()) == 1


@pytest.mark.parametrize("bad", [b"{not json", b'{"episode_id": "x"}', b"[]"])
def test_a_bad_line_in_the_middle_names_file_and_line(tmp_path: Path, bad: bytes) -> None:
    store = RunStore.create(tmp_path / "run", MANIFEST)
    for episode_id in ("ep-0", "ep-1"):
        _play(store, episode_id)
    lines = store.results_path.read_bytes().splitlines(keepends=True)
    store.results_path.write_bytes(lines[0] + bad + b"\n" + lines[1])
    with pytest.raises(TrajectoryError, match=r"results\.jsonl, line 2 is corrupt") as caught:
        RunStore.open(store.root)
    assert str(store.results_path) in str(caught.value)

    steps_path = store.episode_dir("ep-0") / "steps.jsonl"
    steps = steps_path.read_bytes().splitlines(keepends=True)
    steps_path.write_bytes(b"".join([*steps, bad + b"\n"]))  # complete, so not a torn line
    with pytest.raises(TrajectoryError, match=r"steps\.jsonl, line 4 is corrupt"):
        store.read_steps("ep-0")


def test_a_second_final_result_for_an_episode_is_corruption(tmp_path: Path) -> None:
    store = RunStore.create(tmp_path / "run", MANIFEST)
    _play(store, "ep-0")
    line = store.results_path.read_bytes()
    store.results_path.write_bytes(line + line)
    with pytest.raises(TrajectoryError, match="line 2: episode 'ep-0' already has a final"):
        RunStore.open(store.root)


@pytest.mark.parametrize(
    "bad", ["", ".", "..", "../x", "a/b", "a\\b", "a..b", "x y", "é", "a\x00", "a" * 201]
)
def test_unsafe_episode_ids_are_rejected(tmp_path: Path, bad: str) -> None:
    store = RunStore.create(tmp_path / "run", MANIFEST)
    with pytest.raises(TrajectoryError, match="not a safe directory name"):
        store.begin_episode(bad)
    with pytest.raises(TrajectoryError):
        store.pending(["ok", bad])
    assert list((store.root / "episodes").iterdir()) == []


@settings(database=None, max_examples=300)
@given(st.text(alphabet=st.sampled_from("aZ09._-/\\ é:"), max_size=8))
def test_accepted_ids_always_name_one_directory_inside_episodes(episode_id: str) -> None:
    try:
        validate_episode_id(episode_id)
    except TrajectoryError:
        return
    episodes = Path("/run/episodes")
    assert Path(episode_id).name == episode_id and episode_id not in {".", ".."}
    assert os.path.normpath(episodes / episode_id) == str(episodes / episode_id)


def test_open_explains_what_is_wrong(tmp_path: Path) -> None:
    with pytest.raises(TrajectoryError, match="does not exist"):
        RunStore.open(tmp_path / "nowhere")
    with pytest.raises(TrajectoryError, match=r"manifest\.json is missing"):
        RunStore.open(tmp_path)
    manifest_path = tmp_path / "manifest.json"
    manifest_path.write_text("{", "utf-8")
    with pytest.raises(TrajectoryError, match="not valid JSON"):
        RunStore.open(tmp_path)
    manifest_path.write_text(
        MANIFEST.model_copy(update={"schema_version": "2.0"}).model_dump_json()
    )
    with pytest.raises(
        TrajectoryError, match=rf"schema_version '2.0' but .* reads 1.0, .*{SCHEMA_VERSION};"
    ):
        RunStore.open(tmp_path)
    manifest_path.write_text(  # an older run still opens: its records are judged anew
        MANIFEST.model_copy(update={"schema_version": "1.3"}).model_dump_json()
    )
    assert RunStore.open(tmp_path).manifest.schema_version == "1.3"
    manifest_path.write_text(json.dumps({**MANIFEST.model_dump(), "colour": "red"}))
    with pytest.raises(TrajectoryError, match=r"manifest\.json has a key .* \('colour'\)"):
        RunStore.open(tmp_path)


def test_create_refuses_to_mix_runs(tmp_path: Path) -> None:
    store = RunStore.create(tmp_path / "run", MANIFEST)
    with pytest.raises(TrajectoryError, match="already holds a run"):
        RunStore.create(store.root, MANIFEST)
    changed = RunManifest(config={**MANIFEST.config, "episodes": 3}, seeds=[1])
    with pytest.raises(TrajectoryError, match=r"other settings \(episodes .* → 3; seeds") as e:
        RunStore.create(store.root, changed, resume=True)
    assert "give a new --out" in str(e.value)
    same = RunManifest(config=MANIFEST.config, seeds=MANIFEST.seeds, versions={"other": "1"})
    assert RunStore.create(store.root, same, resume=True).manifest == MANIFEST  # original kept
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("mine")
    with pytest.raises(TrajectoryError, match="not empty"):
        RunStore.create(tmp_path / "other", MANIFEST)


def test_a_resume_may_extend_the_grid_it_names(tmp_path: Path) -> None:
    first = RunManifest(config={"tasks": ["a"], "policy": "p"}, seeds=[0])
    store = RunStore.create(tmp_path / "run", first)
    more = RunManifest(config={"tasks": ["b", "a"], "policy": "p"}, seeds=[1, 0])
    grown = RunStore.create(store.root, more, resume=True, extendable=("tasks", "seeds"))
    assert grown.manifest.config["tasks"] == ["a"] and grown.manifest.seeds == [0]
    assert grown.manifest.grids == [{"tasks": ["b", "a"], "seeds": [1, 0]}]
    assert RunStore.open(store.root).manifest == grown.manifest  # written to disk
    again = RunStore.create(store.root, more, resume=True, extendable=("tasks", "seeds"))
    assert again.manifest == grown.manifest  # a grid it holds is not written twice
    just_b = RunManifest(config={"tasks": ["b"], "policy": "p"}, seeds=[5])
    third = RunStore.create(store.root, just_b, resume=True, extendable=("tasks", "seeds"))
    assert third.manifest.episode_grids() == [  # what was asked, never a cross product
        {"tasks": ["a"], "seeds": [0]},
        {"tasks": ["b", "a"], "seeds": [1, 0]},
        {"tasks": ["b"], "seeds": [5]},
    ]
    other = RunManifest(config={"tasks": ["a"], "policy": "q"}, seeds=[0])
    with pytest.raises(TrajectoryError, match=r"policy 'p' → 'q'"):
        RunStore.create(store.root, other, resume=True, extendable=("tasks", "seeds"))


def test_a_finished_episode_is_written_once(tmp_path: Path) -> None:
    store = RunStore.create(tmp_path / "run", MANIFEST)
    writer = store.begin_episode("ep-0")
    record = asyncio.run(
        run_episode(
            ScriptedPolicy(2), CounterEnv(), counter_task(2), episode_id="ep-0", writer=writer
        )
    )
    writer.finish(record)
    with pytest.raises(TrajectoryError, match="is closed"):
        writer.finish(record)
    with pytest.raises(TrajectoryError, match="already has a final result"):
        store.begin_episode("ep-0")
    with pytest.raises(TrajectoryError, match="already has a final result"):
        RunStore.open(store.root).begin_episode("ep-0")
    assert len(store.results_path.read_bytes().splitlines()) == 1


def test_writer_checks_what_it_is_given(tmp_path: Path) -> None:
    store = RunStore.create(tmp_path / "run", MANIFEST)
    writer = store.begin_episode("ep-0")
    with pytest.raises(TrajectoryError, match="already being written"):
        store.begin_episode("ep-0")
    output = PolicyOutput(action=FinishAction())
    with pytest.raises(TrajectoryError, match="expected step 0, got 1"):
        writer.write_step(StepRecord(step=1, observation=screen_observation(0), output=output))
    record = _play(store, "ep-1")
    with pytest.raises(TrajectoryError, match="not 'ep-0'"):
        writer.finish(record)
    with pytest.raises(TrajectoryError, match="record says 3 steps, 0 written"):
        writer.finish(record.model_copy(update={"episode_id": "ep-0"}))


def test_beginning_again_discards_a_partial_episode(tmp_path: Path) -> None:
    store = RunStore.create(tmp_path / "run", MANIFEST)
    writer = store.begin_episode("ep-0")
    output = PolicyOutput(action=FinishAction())
    writer.write_step(StepRecord(step=0, observation=screen_observation(0), output=output))
    writer.close()
    assert len(store.read_steps("ep-0")) == 1 and store.pending(["ep-0"]) == ["ep-0"]
    with pytest.raises(TrajectoryError, match="has no result"):
        store.read_episode("ep-0")
    store.begin_episode("ep-0")
    assert store.read_steps("ep-0") == []
    assert list((store.episode_dir("ep-0") / "frames").iterdir()) == []


@pytest.mark.parametrize("lost", [b"\0" * 64, b"\x8f#garbage{"])
def test_a_last_result_line_that_is_no_json_is_repaired_like_a_torn_one(
    tmp_path: Path, lost: bytes
) -> None:
    store = RunStore.create(tmp_path / "run", MANIFEST)
    _play(store, "ep-0")
    committed = store.results_path.read_bytes()
    store.results_path.write_bytes(committed + lost + b"\n")  # a power loss, not a kill
    reopened = RunStore.open(store.root)
    assert set(reopened.completed()) == {"ep-0"}
    assert reopened.resume_notices() == [
        f"{store.results_path}, line 2 is not JSON (a write lost to a power loss or a kill): "
        "cut, its bytes kept in damaged/"
    ]
    resumed = RunStore.create(store.root, MANIFEST, resume=True)
    assert store.results_path.read_bytes() == committed
    assert (store.root / "damaged" / "results-tail.1.bin").read_bytes() == lost + b"\n"
    _play(resumed, "ep-1")
    assert set(RunStore.open(store.root).completed()) == {"ep-0", "ep-1"}


def test_a_last_result_line_of_another_schema_is_never_cut(tmp_path: Path) -> None:
    store = RunStore.create(tmp_path / "run", MANIFEST)
    _play(store, "ep-0")
    newer = json.dumps({**json.loads(store.results_path.read_bytes()), "mood": "calm"})
    store.results_path.write_bytes(store.results_path.read_bytes() + newer.encode() + b"\n")
    before = store.results_path.read_bytes()
    with pytest.raises(TrajectoryError, match=r"line 2 has a key .* \('mood'\)"):
        RunStore.create(store.root, MANIFEST, resume=True)
    assert store.results_path.read_bytes() == before


def _damage(store: RunStore) -> dict[str, str]:
    """Damage ep-0..ep-3 four ways (ep-4 stays whole); what each damage should be called."""
    root = store.root / "episodes"
    (root / "ep-0" / "episode.json").unlink()
    (root / "ep-1" / "episode.json").write_bytes(b"\0" * 20)
    shutil.rmtree(root / "ep-2")
    steps = root / "ep-3" / "steps.jsonl"
    steps.write_bytes(b"".join(steps.read_bytes().splitlines(keepends=True)[1:]))
    return {
        "ep-0": "episode.json is missing",
        "ep-1": "episode.json is corrupt (Invalid JSON",
        "ep-2": "ep-2 is missing (the episode directory was deleted)",
        "ep-3": "steps.jsonl holds 2 steps but the episode's result says 3",
    }


def test_damaged_episodes_are_named_and_run_again_without_losing_a_result(
    tmp_path: Path,
) -> None:
    store = RunStore.create(tmp_path / "run", MANIFEST)
    ids = [f"ep-{n}" for n in range(5)]
    for episode_id in ids:
        _play(store, episode_id)
    committed = store.results_path.read_bytes()
    expected = _damage(store)
    reopened = RunStore.open(store.root)
    damaged = reopened.damaged()
    assert sorted(damaged) == sorted(expected)
    assert all(expected[i] in damaged[i] for i in expected), damaged
    assert reopened.pending(ids) == sorted(expected)
    with pytest.raises(TrajectoryError, match="is missing though the episode has a result"):
        reopened.read_episode("ep-0")
    for episode_id in reopened.pending(ids):
        _play(reopened, episode_id)
    again = RunStore.open(store.root)
    assert again.damaged() == {} and again.pending(ids) == [] and set(again.completed()) == set(ids)
    assert store.results_path.read_bytes().startswith(committed)  # nothing committed is lost
    aside = (store.root / "damaged" / "set_aside.jsonl").read_text().splitlines()
    kept = {json.loads(line)["episode_id"]: json.loads(line)["kept_in"] for line in aside}
    assert kept == {"ep-0": "damaged/ep-0.1", "ep-1": "damaged/ep-1.1", "ep-2": None,
                    "ep-3": "damaged/ep-3.1"}  # fmt: skip
    assert len((store.root / "damaged" / "ep-3.1" / "steps.jsonl").read_bytes().splitlines()) == 2


@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o644), (0o002, 0o664), (0o077, 0o600)])
def test_files_are_written_with_the_users_umask(tmp_path: Path, umask: int, mode: int) -> None:
    previous = os.umask(umask)
    try:
        store = RunStore.create(tmp_path / "run", MANIFEST)
        _play(store, "ep-0")
        durable.write_atomic(tmp_path / "report.html", b"<html>")
    finally:
        os.umask(previous)
    files = [tmp_path / "report.html", *(p for p in store.root.rglob("*") if p.is_file())]
    assert len(files) > 8
    assert {p.name: stat.S_IMODE(p.stat().st_mode) for p in files} == {p.name: mode for p in files}
