"""Simulator benchmark (what `mgb sim bench` runs): prints one JSON object.

.venv/bin/python benchmarks/sim_bench.py [--quick]
"""

from __future__ import annotations

import json
import sys

from sim.bench import run_bench

if __name__ == "__main__":

    def stage(name: str) -> None:
        print(f"bench: {name}", file=sys.stderr, flush=True)

    print(json.dumps(run_bench(quick="--quick" in sys.argv[1:], on_stage=stage), indent=2))
