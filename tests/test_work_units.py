"""``make test``'s work units: each test file runs on one worker (its module fixtures start
once), files that say ``SHARD_BY_APP`` split by app, and the longest units go first.

These run pytest itself, on a small suite under this repository's ``tests/conftest.py``,
so a pytest or xdist upgrade that silently stops the grouping fails here (pytest 9.2 with
xdist 3.8 did: every file's fixtures started on both workers).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

CONFTEST = Path(__file__).with_name("conftest.py")

SUITE = {
    "test_files.py": """
import os
import pytest

@pytest.fixture(scope="module")
def started():
    with open(os.environ["SETUPS"], "a") as log:
        log.write(f"files {os.environ.get('PYTEST_XDIST_WORKER')}\\n")

@pytest.mark.parametrize("case", ["one", "two", "three", "four", "five", "six"])
def test_case(started, case):
    pass
""",
    "test_sharded.py": """
import pytest

SHARD_BY_APP = True

@pytest.mark.parametrize("task_id", ["clock/A-v1", "clock/B-v1", "files/C-v1"])
def test_task(task_id):
    pass
""",
    "test_quick.py": "def test_quick():\n    pass\n",
}


def _suite(root: Path) -> Path:
    tests = root / "tests"
    tests.mkdir()
    (tests / "__init__.py").write_text("")
    (tests / "conftest.py").write_text(CONFTEST.read_text(encoding="utf-8"), encoding="utf-8")
    for name, text in SUITE.items():
        (tests / name).write_text(text, encoding="utf-8")
    (root / "pytest.ini").write_text("[pytest]\ntestpaths = tests\n", encoding="utf-8")
    return tests


def _pytest(root: Path, *args: str) -> str:
    env = {"SETUPS": str(root / "setups.log"), "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_a_file_runs_on_one_worker_sharded_files_split_by_app_and_a_run_records_them(
    tmp_path: Path,
) -> None:
    tests = _suite(tmp_path)
    out = _pytest(
        tmp_path, "-n", "2", "--dist", "loadgroup", "--no-loadscope-reorder", "-v",
        "--save-group-durations",
    )  # fmt: skip
    setups = (tmp_path / "setups.log").read_text().splitlines()
    assert len(setups) == 1, f"the module fixture started on {setups}"
    assert "test_files.py::test_case[six]@tests/test_files.py" in out
    assert "test_sharded.py::test_task[clock/B-v1]@tests/test_sharded.py:clock" in out
    assert "test_sharded.py::test_task[files/C-v1]@tests/test_sharded.py:files" in out
    recorded = json.loads((tests / "group_durations.json").read_text())
    assert set(recorded) == {
        "tests/test_files.py",
        "tests/test_sharded.py:clock",
        "tests/test_sharded.py:files",
        "tests/test_quick.py",
    }
    assert all(seconds >= 0 for seconds in recorded.values())


def test_the_longest_units_come_first(tmp_path: Path) -> None:
    tests = _suite(tmp_path)
    unrecorded = _pytest(tmp_path, "--collect-only", "-q").splitlines()
    assert unrecorded[0].startswith("tests/test_files.py::")  # 6 tests, the most
    (tests / "group_durations.json").write_text(
        json.dumps({"tests/test_quick.py": 90.0, "tests/test_sharded.py:files": 60.0})
    )
    order = _pytest(tmp_path, "--collect-only", "-q").splitlines()
    assert order[:2] == [
        "tests/test_quick.py::test_quick",
        "tests/test_sharded.py::test_task[files/C-v1]",
    ]
    assert order[2].startswith("tests/test_files.py::test_case[one]")
