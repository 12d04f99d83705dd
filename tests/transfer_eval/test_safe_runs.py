"""Runs nothing can corrupt, as a user meets them: a second run on one ``--out`` is refused
in one line while the first goes on; a command refused by a check leaves no folder, so the
corrected one runs; a model server that dies stops the run in one line and the same command
then finishes it; ``kill -INT`` on a background run is a Ctrl-C; every run ends with a line
that counts its infra errors."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bridge.records import EpisodeRecord, TaskInstance
from bridge.run_lock import LOCK_NAME, RunLock
from bridge.schema import Verdict
from bridge.trajectory import RunStore
from tests.transfer_eval.model_stub import ModelStub
from transfer_eval.commands import mgb_app, transfer_eval_app
from transfer_eval.episode_table import closing_line

REPO = Path(__file__).resolve().parents[2]
runner = CliRunner()
_WAIT_S = 180.0


def _suite(tmp: Path, *task_ids: str) -> Path:
    path = tmp / "suite.json"
    tasks = [{"task_id": task_id, "seed": 0} for task_id in task_ids]
    path.write_text(json.dumps({"lang": "en", "tasks": tasks}))
    return path


def _lines(output: str) -> list[str]:
    return [line for line in output.splitlines() if line.strip()]


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def _free_port() -> int:
    """A loopback port nothing listens on (bound, then closed)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def _served(stub: ModelStub) -> Iterator[ModelStub]:
    stub.start()
    try:
        yield stub
    finally:
        stub.stop()


def _locked_line(out: Path, pid: int, command: str) -> re.Pattern[str]:
    return re.compile(
        rf"error: {re.escape(str(out))} is being written by another run \(pid {pid}, "
        rf"started .+?: {command}.*\); wait for it to finish or give another --out"
    )


@pytest.mark.browser
def test_a_second_run_on_one_out_gets_one_line_and_the_first_finishes(tmp_path: Path) -> None:
    out = tmp_path / "run"
    with _served(ModelStub(hold=True)) as stub:  # the first run waits in its first episode
        command = [sys.executable, "-m", "transfer_eval.commands", "sim", "run", "--task",
                   "settings/SetWifi-v1", "--policy", stub.spec, "--out", str(out)]  # fmt: skip
        first = subprocess.Popen(
            command, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        try:
            assert stub.wait_for_chats(1, _WAIT_S), "the first run never asked its model"
            assert (out / LOCK_NAME).is_file()
            before = _files(out)
            second = subprocess.run(
                command, cwd=REPO, capture_output=True, text=True, timeout=_WAIT_S
            )
            assert second.returncode == 2, second.stdout + second.stderr
            (line,) = _lines(second.stdout + second.stderr)
            pattern = _locked_line(out, first.pid, r"python -m transfer_eval\.commands sim run")
            assert pattern.fullmatch(line), line
            assert _files(out) == before  # nothing written: no results, manifest untouched
            assert not (out / "results.jsonl").exists()
        finally:
            stub.release()
            said, _ = first.communicate(timeout=_WAIT_S)
    assert first.returncode == 0, said
    assert "1 episode: 1 judged, 0 infra errors" in said
    assert not (out / LOCK_NAME).exists()
    store = RunStore.open(out)
    (record,) = store.completed().values()
    assert record.outcome == "failure" and record.termination == "finish"  # finished at once
    assert store.damaged() == {}
    with RunStore.create(out, store.manifest, resume=True, lock=True) as resumed:
        assert resumed.pending([record.episode_id]) == []


def test_every_writer_refuses_a_locked_out_before_anything_starts(tmp_path: Path) -> None:
    out = tmp_path / "run"
    out.mkdir()
    task = ["--task", "settings/SetWifi-v1", "--out", str(out)]
    commands = [
        (transfer_eval_app, ["--base", "scripted", "--trained", "scripted", "--suite", "smoke",
                             "--out", str(out)]),
        (mgb_app, ["sim", "run", *task]),
        (mgb_app, ["device", "run", "--device", "emulator-5554", "--adb-port",
                   str(_free_port()), *task]),
    ]  # fmt: skip
    with RunLock.acquire(out):  # held by this process (pytest), which the line names
        for app, args in commands:
            result = runner.invoke(app, args)
            assert result.exit_code == 2, result.output
            (line,) = _lines(result.output)
            assert _locked_line(out, os.getpid(), ".+").fullmatch(line), line
    assert list(out.iterdir()) == []  # the lock is gone and nothing else was written


@pytest.mark.browser
@pytest.mark.device_virtual
def test_refused_checks_leave_no_folder_and_a_dying_model_server_stops_the_run(
    tmp_path: Path,
) -> None:
    suite = _suite(tmp_path, "settings/SetWifi-v1", "settings/SetDarkTheme-v1")
    out = tmp_path / "run"
    dead = _free_port()
    refused = [
        ["--device", "emulator-5554", "--adb-port", str(dead), "--base", "scripted"],
        ["--base", "scriptd"],
        ["--base", f"vlm:generic@http://127.0.0.1:{dead}/v1#m"],
    ]
    for args in refused:
        result = runner.invoke(transfer_eval_app, [*args, "--suite", str(suite), "--out", str(out)])
        assert result.exit_code == 1 and result.output.startswith("error: "), result.output
        assert "Traceback" not in result.output
        assert not out.exists(), f"{args} left {sorted(p.name for p in out.iterdir())}"
    stub = ModelStub(replies=2)  # answers two requests, then its socket closes
    with _served(stub):
        args = ["--base", stub.spec, "--trained", stub.spec, "--suite", str(suite),
                "--out", str(out)]  # fmt: skip
        stopped = runner.invoke(transfer_eval_app, args)
        assert stopped.exit_code == 1, stopped.output
        (line,) = [line for line in stopped.output.splitlines() if line.startswith("error:")]
        assert re.fullmatch(
            r"error: stopped after 3 cells in a row failed the same way \(PolicyError: POST "
            rf"http://127\.0\.0\.1:{stub.port}/v1/chat/completions failed .*\); fix that and run "
            r"the same command again: it runs only the cells that did not finish",
            line,
        ), line
        assert "Traceback" not in stopped.output and not (out / "report.json").exists()
        assert not (out / LOCK_NAME).exists()
        judged = [r for r in RunStore.open(out).completed().values() if r.verdict is not None]
        assert len(judged) == 2  # one reply each, before the server died
        stub.restart()
        again = runner.invoke(transfer_eval_app, args)
    assert again.exit_code == 0, again.output
    assert stub.chats == 6  # only the cells that had not finished ran again
    assert _lines(again.output)[-1] == "8 cells: 8 judged, 0 infra errors"
    assert (out / "report.json").exists()


@pytest.mark.browser
def test_a_sim_run_stops_at_the_third_same_infra_error_and_resumes_the_rest(
    tmp_path: Path,
) -> None:
    out = tmp_path / "run"
    stub = ModelStub(replies=2)
    with _served(stub):
        args = ["sim", "run", "--task", "settings/SetWifi-v1", "--seeds", "0,1,2,3,4,5,6",
                "--concurrency", "1", "--policy", stub.spec, "--out", str(out)]  # fmt: skip
        stopped = runner.invoke(mgb_app, args)
        assert stopped.exit_code == 1, stopped.output
        errors = [line for line in stopped.output.splitlines() if line.startswith("error:")]
        assert len(errors) == 1 and errors[0].startswith(
            "error: stopped after 3 episodes in a row failed the same way (PolicyError: "
        )
        assert "┏" not in stopped.output  # no table of episodes that all failed alike
        done = RunStore.open(out).completed()
        assert 5 <= len(done) < 7
        assert [r.outcome for _, r in sorted(done.items())][:2] == ["failure", "failure"]
        stub.restart()
        again = runner.invoke(mgb_app, args)
    assert again.exit_code == 0, again.output
    assert stub.chats == 5  # the five episodes without a judged result, and no others
    assert _lines(again.output)[-1] == "7 episodes: 7 judged, 0 infra errors"


@pytest.mark.browser
@pytest.mark.device_virtual
def test_kill_int_on_a_background_run_is_a_ctrl_c_and_leaves_it_ready_to_resume(
    tmp_path: Path,
) -> None:
    """``transfer-eval ... &`` from a script: the shell starts it with SIGINT ignored, and
    ``kill -INT`` used to stop the simulator's web server under the running episodes (a
    330-line traceback). Now it is what a terminal's Ctrl-C is: one line, exit 130, and the
    run is left ready to resume."""
    suite = _suite(tmp_path, "settings/SetWifi-v1")
    out = tmp_path / "bg"
    command = [sys.executable, "-m", "transfer_eval", "--suite", str(suite), "--base",
               "scripted", "--trained", "scripted", "--out", str(out)]  # fmt: skip
    shell = subprocess.Popen(
        ["sh", "-c", '"$@" & echo "$!"; wait "$!"', "sh", *command],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    assert shell.stdout is not None
    pid = int(shell.stdout.readline())
    results = out / "results.jsonl"
    deadline = time.monotonic() + _WAIT_S
    while time.monotonic() < deadline and shell.poll() is None:
        if results.exists() and results.read_text().strip():
            break
        time.sleep(0.1)  # polling for a condition with a deadline
    assert shell.poll() is None, shell.communicate()[0]
    os.kill(pid, signal.SIGINT)  # the run alone, as `kill -INT PID` does
    said, _ = shell.communicate(timeout=_WAIT_S)
    assert shell.returncode == 130, said
    assert "Traceback" not in said and "Error" not in said, said
    assert (
        _lines(said)[-1]
        == f"stopped by Ctrl-C; what finished is kept: transfer-eval --resume {out}"
    )
    kept = len(results.read_text().splitlines())
    assert 1 <= kept < 4, "the signal should land mid-run"
    # what a resume needs (resuming itself is test_transfer_eval's and the breaker test's):
    # the lock given up, the private adb server stopped, the finished cells whole
    assert not (out / LOCK_NAME).exists() and not (out / "adb-server.json").exists()
    store = RunStore.open(out)
    assert store.damaged() == {} and len(store.completed()) == kept
    with RunStore.create(out, store.manifest, resume=True, lock=True) as resumed:
        cells = [f"settings.SetWifi-v1__{role}__{world}__r0"
                 for role in ("base", "trained") for world in ("sim", "real")]  # fmt: skip
        assert len(resumed.pending(cells)) == 4 - kept


def _ended(episode_id: str, infra: bool) -> EpisodeRecord:
    task = TaskInstance(task_id="settings/SetWifi-v1", instruction="Turn off Wi-Fi.")
    if infra:
        return EpisodeRecord(episode_id=episode_id, task=task, policy="vlm", steps=0,
                             outcome="infra_error", termination="infra_error",
                             error="PolicyError: the model server is gone")  # fmt: skip
    return EpisodeRecord(episode_id=episode_id, task=task, policy="vlm", steps=2,
                         outcome="failure", termination="max_steps",
                         verdict=Verdict(success=False, progress=0.0))  # fmt: skip


def test_the_closing_line_counts_the_infra_errors_the_next_run_retries() -> None:
    records = [_ended(f"e{n}", infra=n >= 10) for n in range(12)]
    assert closing_line(records, "cells") == (
        "12 cells: 10 judged, 2 infra errors (retried on the next run of this command)"
    )
    assert closing_line(records[:1]) == "1 episode: 1 judged, 0 infra errors"
    assert closing_line(records[10:11]) == (
        "1 episode: 0 judged, 1 infra error (retried on the next run of this command)"
    )
