"""The lock of a run directory, held by real processes: a second writer is refused in one
line naming the first and writes nothing; a lock whose holder died (``kill -9``) or whose
file names a process that is gone is taken over without a word; readers need no lock."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bridge.errors import RunLocked
from bridge.run_lock import LOCK_NAME, RunHolder, RunLock, check_unlocked
from bridge.trajectory import RunManifest, RunStore

MANIFEST = RunManifest(config={"policy": "scripted"}, seeds=[0])

_HOLD = """
import sys
from pathlib import Path
from bridge.run_lock import RunLock
lock = RunLock.acquire(Path(sys.argv[1]))
print("locked", flush=True)
sys.stdin.read()  # hold it until the test closes our stdin (or kills us)
lock.release()
"""


@pytest.fixture
def holder(tmp_path: Path) -> Iterator[subprocess.Popen[str]]:
    """Another process holding the lock of ``tmp_path / "run"`` until its stdin closes."""
    run = tmp_path / "run"
    RunStore.create(run, MANIFEST)
    child = subprocess.Popen(
        [sys.executable, "-c", _HOLD, str(run), "--out", str(run)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None and child.stdout.readline() == "locked\n"
    try:
        yield child
    finally:
        _stop(child)


def _stop(child: subprocess.Popen[str]) -> None:
    if child.poll() is None:
        child.kill()
    child.wait(timeout=10)
    for pipe in (child.stdin, child.stdout):
        if pipe is not None:
            pipe.close()


def test_a_second_writer_is_refused_naming_the_first_and_writes_nothing(
    tmp_path: Path, holder: subprocess.Popen[str]
) -> None:
    run = tmp_path / "run"
    before = {p.name: p.read_bytes() for p in run.iterdir() if p.is_file()}
    wanted = MANIFEST.model_copy(update={"seeds": [0, 1]})  # a resume would grow the manifest
    with pytest.raises(RunLocked) as caught:
        RunStore.create(run, wanted, resume=True, extendable=["seeds"], lock=True)
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"{run} is being written by another run (pid {holder.pid}, started ")
    assert f": python -c {run} --out {run}); wait for it to finish or give another --out" in message
    assert {p.name: p.read_bytes() for p in run.iterdir() if p.is_file()} == before
    with pytest.raises(RunLocked):
        check_unlocked(run)
    assert RunStore.open(run).manifest == MANIFEST  # readers need no lock


def test_a_lock_is_released_on_exit_and_its_file_removed(
    tmp_path: Path, holder: subprocess.Popen[str]
) -> None:
    run = tmp_path / "run"
    assert holder.stdin is not None
    holder.stdin.close()
    assert holder.wait(timeout=10) == 0
    assert not (run / LOCK_NAME).exists()
    check_unlocked(run)
    with RunStore.create(run, MANIFEST, resume=True, lock=True) as store:
        named = RunHolder.model_validate_json((run / LOCK_NAME).read_bytes())
        assert named.pid == os.getpid() and named.alive()
        assert store.completed() == {}
    assert not (run / LOCK_NAME).exists()


def test_the_lock_of_a_killed_writer_is_taken_over_silently(
    tmp_path: Path, holder: subprocess.Popen[str]
) -> None:
    run = tmp_path / "run"
    holder.send_signal(signal.SIGKILL)
    holder.wait(timeout=10)
    assert (run / LOCK_NAME).exists()  # left behind, but no process holds it any more
    check_unlocked(run)
    with RunLock.acquire(run) as lock:
        assert lock.held
        assert json.loads((run / LOCK_NAME).read_text())["pid"] == os.getpid()
    assert not lock.held


def test_a_lock_held_for_a_process_that_is_gone_is_taken_over(tmp_path: Path) -> None:
    """An inherited descriptor can keep the flock after its writer died: the file's pid and
    start time then name no live process, and the run is not left locked forever."""
    run = tmp_path / "run"
    RunStore.create(run, MANIFEST)
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    ghost = RunHolder(pid=int(gone.stdout), started=time.time() - 60, command="transfer-eval")
    keeper = subprocess.Popen(
        [sys.executable, "-c", _KEEP, str(run / LOCK_NAME), ghost.model_dump_json()],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert keeper.stdout is not None and keeper.stdout.readline() == "kept\n"
        with RunStore.create(run, MANIFEST, resume=True, lock=True):
            assert RunHolder.model_validate_json((run / LOCK_NAME).read_bytes()).pid == os.getpid()
    finally:
        _stop(keeper)


_KEEP = """
import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT)
fcntl.flock(fd, fcntl.LOCK_EX)
os.write(fd, sys.argv[2].encode())
print("kept", flush=True)
sys.stdin.read()
"""


def test_a_new_run_holds_its_lock_and_a_folder_with_only_a_lock_is_empty(tmp_path: Path) -> None:
    run = tmp_path / "new"
    run.mkdir()
    (run / LOCK_NAME).write_text("")  # what a writer killed before its manifest leaves
    store = RunStore.create(run, MANIFEST, lock=True)
    try:
        assert (run / "manifest.json").is_file()
        with pytest.raises(RunLocked, match=f"pid {os.getpid()}"):
            check_unlocked(run)  # another open file of this very process is refused too
    finally:
        store.close()
        store.close()  # idempotent
    check_unlocked(run)
    assert sorted(p.name for p in run.iterdir()) == ["episodes", "manifest.json"]


def test_a_refused_resume_releases_the_lock(tmp_path: Path) -> None:
    run = tmp_path / "run"
    RunStore.create(run, MANIFEST)
    other = RunManifest(config={"policy": "random:1"}, seeds=[0])
    with pytest.raises(Exception, match="holds a run with other settings"):
        RunStore.create(run, other, resume=True, lock=True)
    assert not (run / LOCK_NAME).exists()
    check_unlocked(run)
