"""Record a benchmark's figures with their date and machine, and regenerate the recorded
section of ``docs/benchmarks.md`` from every record.

    .venv/bin/python benchmarks/record.py run NAME [ARGS...]   # e.g. run cli_startup --runs 5
    .venv/bin/python benchmarks/record.py page

``run`` runs ``benchmarks/NAME.py ARGS`` (each benchmark prints one JSON object), and
appends one line to ``benchmarks/results/NAME.jsonl``: the date (UTC), the machine (CPU
model, cores, memory, OS, Python), the load when it started, the arguments and the
figures. ``page`` rewrites the part of ``docs/benchmarks.md`` between the
``recorded: begin`` and ``recorded: end`` markers: per benchmark, its newest records first,
each figure beside the date and machine it was measured on. Hand-written, dated sections
of the page stay as they are. Nothing here asserts a figure.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
PAGE = ROOT / "docs" / "benchmarks.md"
BEGIN = "<!-- recorded: begin (benchmarks/record.py page writes this part) -->"
END = "<!-- recorded: end -->"
SHOWN = 3
"""Records shown per benchmark on the page (all stay in the results file)."""


def machine() -> dict[str, Any]:
    """What the figures were measured on: CPU model, logical cores, memory, OS, Python."""
    model = platform.processor() or platform.machine()
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.is_file():
        found = re.search(r"^model name\s*:\s*(.+)$", cpuinfo.read_text(), re.MULTILINE)
        model = found.group(1).strip() if found else model
    memory_gb = None
    meminfo = Path("/proc/meminfo")
    if meminfo.is_file():
        found = re.search(r"^MemTotal:\s+(\d+) kB", meminfo.read_text(), re.MULTILINE)
        memory_gb = round(int(found.group(1)) / 1024 / 1024, 1) if found else None
    return {
        "cpu": model,
        "cores": os.cpu_count(),
        "memory_gb": memory_gb,
        "os": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
    }


def run(name: str, args: list[str], results: Path = RESULTS) -> dict[str, Any]:
    """Run ``benchmarks/NAME.py ARGS`` and append its record to ``results/NAME.jsonl``."""
    script = ROOT / "benchmarks" / f"{name}.py"
    if not script.is_file() or name == "record":
        known = sorted(p.stem for p in script.parent.glob("*.py") if p.stem != "record")
        raise SystemExit(f"error: no benchmark {name!r}; benchmarks are {', '.join(known)}")
    started = datetime.now(timezone.utc)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    done = subprocess.run(
        [sys.executable, str(script), *args], cwd=ROOT, stdout=subprocess.PIPE, check=False
    )
    if done.returncode != 0:
        raise SystemExit(f"error: benchmarks/{name}.py exited {done.returncode}; nothing recorded")
    figures = json.loads(done.stdout)
    record = {
        "date": started.isoformat(timespec="seconds"),
        "machine": machine(),
        "load_1min": load,
        "args": args,
        "figures": figures,
    }
    results.mkdir(parents=True, exist_ok=True)
    with (results / f"{name}.jsonl").open("a", encoding="utf-8") as out:
        out.write(json.dumps(record, ensure_ascii=False) + "\n")
    return record


def _leaves(value: Any, prefix: str = "") -> list[tuple[str, Any]]:
    """Every number of a JSON value with its dotted path (``commands.mgb --help.total_s``)."""
    if isinstance(value, dict):
        return [pair for key, item in value.items() for pair in _leaves(item, f"{prefix}{key}.")]
    if isinstance(value, bool) or not isinstance(value, int | float):
        return []
    return [(prefix.rstrip("."), value)]


def _machine_line(m: dict[str, Any]) -> str:
    memory = f", {m['memory_gb']:g} GB" if m.get("memory_gb") else ""
    return f"{m['cpu']}, {m['cores']} cores{memory}; {m['os']}; Python {m['python']}"


def section(results: Path = RESULTS) -> str:
    """The recorded part of the page, from every ``results/*.jsonl``."""
    lines = [BEGIN, "", "## Recorded by `benchmarks/record.py`", ""]
    files = sorted(results.glob("*.jsonl")) if results.is_dir() else []
    if not files:
        lines += ["No benchmark recorded yet: `benchmarks/record.py run NAME`.", ""]
    for path in files:
        records = [json.loads(line) for line in path.read_text("utf-8").splitlines() if line]
        lines += [f"### `{path.stem}`", ""]
        for record in reversed(records[-SHOWN:]):
            load = record.get("load_1min")
            loaded = f", load {load:.1f}" if isinstance(load, int | float) else ""
            args = " ".join(record["args"]) or "(defaults)"
            lines += [
                f"**{record['date'][:10]}** on {_machine_line(record['machine'])}{loaded}; "
                f"arguments: `{args}`",
                "",
                "| figure | value |",
                "|---|---|",
                *(f"| {key} | {value:g} |" for key, value in _leaves(record["figures"])),
                "",
            ]
    return "\n".join([*lines, END])


def page(results: Path = RESULTS, target: Path = PAGE) -> Path:
    """Rewrite the recorded part of ``target`` (appended at the end the first time)."""
    text = target.read_text("utf-8")
    fresh = section(results)
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        text = head + fresh + rest.split(END, 1)[1]
    else:
        text = text.rstrip("\n") + "\n\n" + fresh + "\n"
    target.write_text(text, encoding="utf-8")
    return target


def main(argv: list[str]) -> None:
    """``run NAME [ARGS...]`` or ``page`` (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    ran = commands.add_parser("run", help="run a benchmark and record its figures")
    ran.add_argument("name")
    ran.add_argument("args", nargs=argparse.REMAINDER)
    commands.add_parser("page", help="regenerate the recorded part of docs/benchmarks.md")
    options = parser.parse_args(argv)
    if options.command == "run":
        record = run(options.name, options.args)
        print(f"recorded {options.name} ({record['date']}) in {RESULTS / options.name}.jsonl")
    print(f"wrote {page()}")


if __name__ == "__main__":
    main(sys.argv[1:])
