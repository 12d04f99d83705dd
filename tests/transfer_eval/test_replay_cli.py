"""`mgb replay` on single-world run directories (sim run, device run, console), written
directly with RunStore and EpisodeWriter: listing, one episode's page with who decided each
step, the MP4 of one episode, and one-line errors. The paired path is tested end to end in
test_transfer_eval.py."""

from __future__ import annotations

from pathlib import Path

import cv2
import pytest
from click.testing import Result
from markupsafe import escape as html_escape
from typer.testing import CliRunner

from bridge.records import EpisodeRecord, StepRecord, TaskInstance
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
from transfer_eval.paired import PairedConfig

OVERRIDDEN = "toy.Counter-v1_s0_en"
STOPPED = "toy.Reset-v1_s1_en"
PROPOSED_THOUGHT = "The counter looks done, I will finish."


def _tap_step(step: int, **decision: object) -> StepRecord:
    """A tap on "+" that was executed, with a tiny real JPEG frame (cv2.imencode)."""
    seen = screen_observation(step, step=step, image_format="jpeg")
    tap = TapAction(target=Target.node(BUTTON))
    executed = ExecutedAction(action=tap, point_px=(54.0, 174.0), element=seen.ui[BUTTON])
    after = screen_observation(step + 1, step=step + 1, image_format="jpeg")
    return StepRecord(
        step=step,
        observation=seen,
        output=PolicyOutput(action=tap),
        result=StepResult(observation=after, executed=executed),
        **decision,  # type: ignore[arg-type]
    )


def _finish_step(step: int, **decision: object) -> StepRecord:
    seen = screen_observation(step, step=step, image_format="jpeg")
    done = StepResult(observation=seen, done=True)
    output = PolicyOutput(action=FinishAction(), thought="done")
    return StepRecord(step=step, observation=seen, output=output, result=done, **decision)  # type: ignore[arg-type]


def _commit(
    store: RunStore, episode_id: str, task: TaskInstance, steps: list[StepRecord], **end: object
) -> None:
    writer = store.begin_episode(episode_id)
    for step in steps:
        writer.write_step(step)
    success = end.pop("success", True)
    check = CheckResult(
        name="counter", expected=1, actual=1 if success else 0, passed=bool(success)
    )
    writer.finish(
        EpisodeRecord(
            episode_id=episode_id,
            task=task,
            policy="scripted",
            backend=BACKEND,
            outcome="success" if success else "failure",
            verdict=Verdict.from_checks([check]),
            steps=len(steps),
            **end,  # type: ignore[arg-type]
        )
    )


def _console_run(root: Path) -> Path:
    """Two episodes: one where a person overrode the policy's finish with a tap, then
    approved its finish; one the person stopped after a step the policy took alone."""
    store = RunStore.create(root, RunManifest(config={"console": True, "policy": "scripted"}))
    proposal = PolicyOutput(action=FinishAction(), thought=PROPOSED_THOUGHT)
    steps = [
        _tap_step(0, decided_by="override", proposal=proposal),
        _finish_step(1, decided_by="approved"),
    ]
    _commit(store, OVERRIDDEN, counter_task(1), steps, termination="finish")
    reset_task = counter_task(2, seed=1).model_copy(update={"task_id": "toy/Reset-v1"})
    _commit(
        store,
        STOPPED,
        reset_task,
        [_tap_step(0, decided_by="policy")],
        termination="stopped",
        stop_reason="a person reset the episode",
        success=False,
    )
    return root


@pytest.fixture
def console_run(tmp_path: Path) -> Path:
    return _console_run(tmp_path / "run")


def _invoke(*args: str) -> Result:
    return CliRunner().invoke(mgb_app, ["replay", *args], terminal_width=200)


def _one_line_error(result: Result, code: int = 1) -> str:
    """The error's text; fails unless it is exit ``code`` (2: the command line itself is
    wrong) through typer.Exit (not a traceback)."""
    assert result.exit_code == code, result.output
    assert isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.output
    return lines[0]


def test_lists_every_episode_with_who_decided_and_where_the_pages_are(console_run: Path) -> None:
    listed = _invoke(str(console_run))
    assert listed.exit_code == 0, listed.output
    rows = {line.split("│")[1].strip(): line for line in listed.output.splitlines() if "│" in line}
    overridden = [cell.strip() for cell in rows[OVERRIDDEN].split("│")[1:-1]]
    stopped = [cell.strip() for cell in rows[STOPPED].split("│")[1:-1]]
    assert overridden == [OVERRIDDEN, "toy/Counter-v1", "success", "2", "1 / 1", "finish"]
    assert stopped == [STOPPED, "toy/Reset-v1", "failure", "1", "0 / 0", "stopped"]
    for episode_id in (OVERRIDDEN, STOPPED):
        page = console_run / "episodes" / episode_id / "index.html"
        assert f"  {page}" in listed.output.splitlines() and page.is_file()
    index = (console_run / "index.html").read_text(encoding="utf-8")
    assert "<th>steps</th><th>overrides</th></tr>" in index
    assert "<td>2</td><td>1</td></tr>" in index  # two steps, one overridden


def test_a_run_without_decisions_has_no_override_columns(tmp_path: Path) -> None:
    store = RunStore.create(tmp_path / "run", RunManifest(config={"policy": "scripted"}))
    _commit(store, OVERRIDDEN, counter_task(1), [_finish_step(0)], termination="finish")
    listed = _invoke(str(tmp_path / "run"))
    assert listed.exit_code == 0, listed.output
    assert "termination" in listed.output and "overridden" not in listed.output
    assert "overrides" not in (tmp_path / "run" / "index.html").read_text(encoding="utf-8")


def test_episode_page_shows_the_override_badge_and_the_policys_proposal(
    console_run: Path,
) -> None:
    page = console_run / "episodes" / OVERRIDDEN / "index.html"
    assert not page.exists()
    written = _invoke(str(console_run), "--episode", OVERRIDDEN)
    assert written.exit_code == 0, written.output
    assert written.output.strip() == f"page: {page}"
    html = page.read_text(encoding="utf-8")
    assert "<h3>step 0 <span class='decided decided-override'>override</span></h3>" in html
    assert "<h3>step 1 <span class='decided decided-approved'>approved</span></h3>" in html
    assert html.count("policy proposed:") == 1  # only under the override
    finish = html_escape(FinishAction().model_dump_json(exclude_none=True))
    assert (
        f"policy proposed: <code class='action' title=\"{finish}\">finish (success)</code>" in html
    )
    assert PROPOSED_THOUGHT in html
    assert ".decided-override { background: #e37400; }" in html  # the warning colour


def test_task_with_one_episode_acts_like_episode_and_a_shared_one_lists_them(
    console_run: Path, tmp_path: Path
) -> None:
    by_task = _invoke(str(console_run), "--task", "toy.Reset-v1")
    assert by_task.exit_code == 0, by_task.output
    assert by_task.output.strip() == f"page: {console_run / 'episodes' / STOPPED / 'index.html'}"
    store = RunStore.create(tmp_path / "twice", RunManifest())
    for seed in (0, 1):
        episode_id = f"toy.Counter-v1_s{seed}_en"
        _commit(
            store, episode_id, counter_task(1, seed=seed), [_finish_step(0)], termination="finish"
        )
    shared = _one_line_error(_invoke(str(tmp_path / "twice"), "--task", "toy/Counter-v1"), code=2)
    assert "has 2 episodes" in shared and "toy.Counter-v1_s0_en, toy.Counter-v1_s1_en" in shared
    assert "--episode" in shared


def test_mp4_renders_the_one_episode(console_run: Path, tmp_path: Path) -> None:
    video = tmp_path / "overridden.mp4"
    written = _invoke(str(console_run), "--episode", OVERRIDDEN, "--mp4", str(video))
    assert written.exit_code == 0, written.output
    assert f"video: {video}" in written.output
    assert video.stat().st_size > 0
    capture = cv2.VideoCapture(str(video))
    try:
        assert capture.isOpened()
        assert int(capture.get(cv2.CAP_PROP_FRAME_COUNT)) == 2  # one frame per step
        assert int(capture.get(cv2.CAP_PROP_FRAME_WIDTH)) == 360  # one pane, not two
        ok, image = capture.read()
        assert ok and image.std() > 5, "the frame is blank"
    finally:
        capture.release()
    without = _one_line_error(_invoke(str(console_run), "--mp4", str(video)), code=2)
    assert "--mp4 renders one episode: add --episode ID" in without


def test_errors_are_one_line(console_run: Path, tmp_path: Path) -> None:
    """A name the run does not hold is the command line's mistake (exit 2); a run that
    cannot be read is the run's (exit 1)."""
    typo = _one_line_error(_invoke(str(console_run), "--episode", "toy.Counter-v1_s0_n"), code=2)
    assert f"did you mean {OVERRIDDEN}?" in typo
    unknown_task = _one_line_error(_invoke(str(console_run), "--task", "toy/Rset-v1"), code=2)
    assert "did you mean toy/Reset-v1?" in unknown_task
    (tmp_path / "plain").mkdir()
    not_a_run = _one_line_error(_invoke(str(tmp_path / "plain")))
    assert "is not a run directory" in not_a_run and "manifest.json is missing" in not_a_run
    RunStore.create(tmp_path / "empty", RunManifest(config={"console": True}))
    empty = _one_line_error(_invoke(str(tmp_path / "empty")))
    assert "has no finished episodes yet" in empty and "--out" in empty
    both = _invoke(str(console_run), "--episode", STOPPED, "--task", "toy/x")
    both = _one_line_error(both, code=2)
    assert "not both" in both


def test_a_transfer_eval_manifest_takes_the_paired_path(tmp_path: Path) -> None:
    config = PairedConfig(out=tmp_path / "paired").model_dump(mode="json", exclude={"out"})
    store = RunStore.create(tmp_path / "paired", RunManifest(config=config))
    episode_id = "settings.SetWifi-v1__trained__sim__r0"
    _commit(store, episode_id, counter_task(1), [_finish_step(0)], termination="finish")
    listed = _invoke(str(tmp_path / "paired"))
    assert listed.exit_code == 0, listed.output
    assert "trained sim / phone" in listed.output and "✓ / —" in listed.output
    refused = _one_line_error(_invoke(str(tmp_path / "paired"), "--episode", episode_id), code=2)
    assert "is a transfer-eval run" in refused and "--task" in refused
