"""`mgb sim` commands: the task table, a recorded run a person can open, bad input."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bridge.trajectory import RunStore
from bridge.uitree import parse_hierarchy
from transfer_eval.commands import mgb_app

runner = CliRunner()
WIDE = {"COLUMNS": "220"}


def test_tasks_table_lists_every_template() -> None:
    result = runner.invoke(mgb_app, ["sim", "tasks"], env=WIDE)
    assert result.exit_code == 0, result.output
    assert "settings/SetWifi-v1" in result.output and "L1" in result.output
    shown, total = result.output.strip().splitlines()[-1].split()[0:3:2]
    assert shown == total and int(total) >= 25
    only = runner.invoke(mgb_app, ["sim", "tasks", "--level", "L4"], env=WIDE)
    assert "L1 " not in only.output and "L4" in only.output


def test_unknown_task_suggests_near_ids(tmp_path: Path) -> None:
    result = runner.invoke(
        mgb_app,
        ["sim", "run", "--task", "settings/SetWfi-v1", "--out", str(tmp_path / "r")],
        env=WIDE,
    )
    assert result.exit_code != 0
    assert "settings/SetWifi-v1" in result.output


@pytest.mark.browser
def test_run_writes_a_trajectory_with_frames_trees_and_pages(tmp_path: Path) -> None:
    out = tmp_path / "run"
    args = ["sim", "run", "--task", "settings/SetWifi-v1", "--seeds", "0,1", "--out", str(out)]
    result = runner.invoke(mgb_app, args, env=WIDE)
    assert result.exit_code == 0, result.output
    assert "2/2" in result.output and "2 succeeded" in result.output
    store = RunStore.open(out)
    completed = store.completed()
    assert set(completed) == {"settings.SetWifi-v1_s0_en", "settings.SetWifi-v1_s1_en"}
    assert all(record.outcome == "success" for record in completed.values())
    steps = store.read_steps("settings.SetWifi-v1_s0_en")
    assert steps and steps[0].frame is not None and steps[0].tree is not None
    episode_dir = store.episode_dir("settings.SetWifi-v1_s0_en")
    assert (episode_dir / steps[0].frame).read_bytes()[:2] == b"\xff\xd8"
    tree = parse_hierarchy((episode_dir / steps[0].tree).read_bytes())
    assert any(node.text == "Settings" for node in tree.nodes)
    page = (episode_dir / "index.html").read_text(encoding="utf-8")
    assert "wifi_on" in page and "&#34;type&#34;:&#34;open_app&#34;" in page
    assert "settings.SetWifi-v1_s1_en" in (out / "index.html").read_text(encoding="utf-8")
    # the same --out grows with a new seed; the episodes already there are not run again
    grown_args = [*args[:4], "--seeds", "1,2", "--out", str(out)]
    again = runner.invoke(mgb_app, grown_args, env=WIDE)
    assert again.exit_code == 0, again.output
    assert len(store.results_path.read_text().splitlines()) == 3
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["config"]["tasks"] == ["settings/SetWifi-v1"]
    assert manifest["seeds"] == [0, 1] and manifest["config"]["seeds"] == [0, 1]
    task, english = ["settings/SetWifi-v1"], ["en"]  # what the second run asked, no more
    assert manifest["grids"] == [{"langs": english, "seeds": [1, 2], "tasks": task}]
    # progress off a terminal: a timestamped line per episode, in the run's log
    lines = (out / "progress.log").read_text().splitlines()
    assert len(lines) == 3 and lines[2].endswith(
        "episodes 2/2 · 2 succeeded · settings.SetWifi-v1_s2_en success"
    )
    assert lines[0][:4].isdigit() and "T" in lines[0].split()[0]


def test_a_bad_policy_spec_is_one_clear_error(tmp_path: Path) -> None:
    args = [
        "sim",
        "run",
        "--task",
        "settings/SetWifi-v1",
        "--policy",
        "rando",
        "--out",
        str(tmp_path / "r"),
    ]
    result = runner.invoke(mgb_app, args, env=WIDE)
    assert result.exit_code != 0 and "random[:SEED]" in result.output
    assert not (tmp_path / "r" / "results.jsonl").exists()


# --------------------------------------------------------------------------- bad input, up front


def _one_error_line(result: object) -> str:
    """The ``error:`` line of a refused command line (exit 2), with no traceback."""
    assert result.exit_code == 2, result.output  # type: ignore[attr-defined]
    assert "Traceback" not in result.output  # type: ignore[attr-defined]
    lines = [line for line in result.output.splitlines() if line.startswith("error:")]  # type: ignore[attr-defined]
    assert len(lines) == 1, result.output  # type: ignore[attr-defined]
    return lines[0]


@pytest.mark.parametrize(
    ("option", "value", "says"),
    [
        ("--lang", "fr", "--lang 'fr': Input should be 'en' or 'zh'"),
        ("--answer-mode", "grid", "--answer-mode 'grid': Input should be 'action' or 'sheet'"),
    ],
)
def test_bad_options_fail_before_the_run_folder_exists(
    tmp_path: Path, option: str, value: str, says: str
) -> None:
    out = tmp_path / "r"
    args = ["sim", "run", "--task", "settings/SetWifi-v1", option, value, "--out", str(out)]
    assert _one_error_line(runner.invoke(mgb_app, args, env=WIDE)) == f"error: {says}"
    assert not out.exists()  # the folder can be used as it is once the option is right


def test_a_dead_vlm_endpoint_is_found_before_any_episode(tmp_path: Path) -> None:
    out = tmp_path / "r"
    args = ["sim", "run", "--task", "settings/SetWifi-v1", "--out", str(out),
            "--policy", "vlm:qwen3vl@http://127.0.0.1:9/v1"]  # fmt: skip
    result = runner.invoke(mgb_app, args, env=WIDE)
    assert result.exit_code != 0 and "http://127.0.0.1:9/v1/models" in result.output
    assert not out.exists()


def test_tasks_of_an_unknown_level_or_app_is_an_error_and_json_lists_all() -> None:
    line = _one_error_line(runner.invoke(mgb_app, ["sim", "tasks", "--level", "L9"]))
    assert line == "error: --level 'L9': no template has it; levels are L1, L2, L3, L4"
    assert "apps are" in _one_error_line(runner.invoke(mgb_app, ["sim", "tasks", "--app", "x"]))
    listed = runner.invoke(mgb_app, ["sim", "tasks", "--json"])
    rows = [json.loads(line) for line in listed.output.splitlines()]
    assert len(rows) >= 25 and {"id", "apps", "level", "kind", "max_steps"} <= set(rows[0])


def test_task_ids_never_wrap_on_a_narrow_terminal() -> None:
    result = runner.invoke(mgb_app, ["sim", "tasks"], env={"COLUMNS": "80"})
    ids = [
        json.loads(line)["id"]
        for line in runner.invoke(mgb_app, ["sim", "tasks", "--json"]).output.splitlines()
    ]
    assert all(task_id in result.output for task_id in ids)


def _session_processes(sid: int) -> list[int]:
    """The processes still alive in session ``sid`` (Linux ``/proc``)."""
    alive = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[3]) == sid and fields[0] != "Z":
            alive.append(int(entry.name))
    return alive


@pytest.mark.browser
def test_ctrl_c_stops_a_run_says_how_to_resume_and_leaves_nothing_running(
    tmp_path: Path,
) -> None:
    """Ctrl-C as a terminal sends it (SIGINT to the whole foreground process group): exit
    130, the resume hint, finished episodes kept, no process of the run left over."""
    out = tmp_path / "run"
    argv = ["mgb", "sim", "run", "--task", "settings/SetWifi-v1", "--seeds", "0,1,2,3,4,5,6,7",
            "--concurrency", "1", "--out", str(out)]  # fmt: skip
    # A background job (make test under nohup) ignores SIGINT, and children inherit that:
    # the child restores Python's own handler, as a terminal's foreground job has it.
    boot = (
        "import runpy, signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
        f"sys.argv = {argv!r}; runpy.run_module('transfer_eval.commands', run_name='__main__')"
    )
    child = subprocess.Popen(
        [sys.executable, "-c", boot],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        text=True,
    )
    results = out / "results.jsonl"
    deadline = time.monotonic() + 120
    while (
        time.monotonic() < deadline
        and child.poll() is None
        and not (results.exists() and results.read_text().strip())
    ):
        time.sleep(0.1)  # polling for a condition with a deadline
    assert child.poll() is None, child.communicate()[0]
    os.killpg(child.pid, signal.SIGINT)
    output, _ = child.communicate(timeout=60)
    assert child.returncode == 130, output
    said = " ".join(output.split())
    assert "stopped by Ctrl-C" in said and "run the same command again to resume" in said
    kept = [json.loads(line) for line in results.read_text().splitlines()]
    assert 1 <= len(kept) < 8, [(r["episode_id"], r["outcome"]) for r in kept]
    # Chromium is not in the terminal's process group: the episodes it rendered are not
    # turned into infra errors by the same Ctrl-C
    assert all(r["outcome"] == "success" for r in kept), [r.get("error") for r in kept]
    deadline = time.monotonic() + 20
    while _session_processes(child.pid) and time.monotonic() < deadline:
        time.sleep(0.1)  # Chromium's helpers exit after their parent: wait for it
    assert not _session_processes(child.pid)
