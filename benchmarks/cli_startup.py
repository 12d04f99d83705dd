"""How soon the command lines answer, as a newcomer meets them: ``mgb --help``,
``mgb sim --help``, ``mgb sim tasks`` and ``transfer-eval --help``, each run N times in a
fresh process (stdout a pipe, as in ``| cat``). For each command, the median wall time to
its first line on stdout and to its exit, and the median CPU time the process used (less
sensitive to other work on a shared machine). Prints one JSON object; asserts nothing.

    .venv/bin/python benchmarks/cli_startup.py [--runs N] [--repo PATH]

``--repo`` times another checkout of the code with this interpreter (e.g. an export of an
older commit, ``git archive HEAD | tar -x -C /tmp/old``), to compare before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

COMMANDS = {
    "mgb --help": ["-m", "transfer_eval.commands", "--help"],
    "mgb sim --help": ["-m", "transfer_eval.commands", "sim", "--help"],
    "mgb sim tasks": ["-m", "transfer_eval.commands", "sim", "tasks"],
    "transfer-eval --help": ["-m", "transfer_eval", "--help"],
}
"""What each command runs (``python -m``: the console scripts import the same modules)."""


def _children_cpu_s() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _once(args: list[str], repo: Path) -> tuple[float, float, float]:
    """Seconds to the first line on stdout and to the exit of one run, and its CPU time."""
    env = {**os.environ, "PYTHONPATH": str(repo)}
    env.pop("COLUMNS", None)
    cpu = _children_cpu_s()
    started = time.perf_counter()
    child = subprocess.Popen(
        [sys.executable, *args],
        cwd=repo,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert child.stdout is not None
    child.stdout.readline()
    first = time.perf_counter() - started
    child.stdout.read()
    child.wait()
    total = time.perf_counter() - started
    if child.returncode != 0:
        raise SystemExit(f"{' '.join(args)} exited {child.returncode}")
    return first, total, _children_cpu_s() - cpu


def measure(runs: int, repo: Path) -> dict[str, object]:
    """The medians of ``runs`` runs of every command of :data:`COMMANDS`."""
    results: dict[str, object] = {}
    for name, args in COMMANDS.items():
        _once(args, repo)  # warm: compiled bytecode and the page cache, as a second run has
        times = [_once(args, repo) for _ in range(runs)]
        results[name] = {
            "first_line_s": round(statistics.median(t[0] for t in times), 3),
            "total_s": round(statistics.median(t[1] for t in times), 3),
            "cpu_s": round(statistics.median(t[2] for t in times), 3),
        }
    return results


def main() -> None:
    """Time the commands and print the JSON object."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="runs per command (median)")
    parser.add_argument(
        "--repo", type=Path, default=Path(__file__).resolve().parents[1], help="the checkout"
    )
    options = parser.parse_args()
    load = os.getloadavg()[0]
    commands = measure(options.runs, options.repo.resolve())
    report = {
        "benchmark": "cli_startup",
        "runs": options.runs,
        "repo": str(options.repo.resolve()),
        "load_average_1min": round(load, 2),
        "commands": commands,
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
