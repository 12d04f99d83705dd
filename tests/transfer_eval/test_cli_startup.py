"""The command lines answer at once: importing them, and drawing their help pages, loads
none of the machinery that does the work (the simulator, the console's server, the
numerics). Checked on the import graph of a fresh process, not on a timing; the timings
are ``benchmarks/cli_startup.py``'s."""

from __future__ import annotations

import json
import subprocess
import sys
import typing
from pathlib import Path

import pytest

from transfer_eval import guards
from transfer_eval.commands import options
from transfer_eval.suites import split_names, suite_names

REPO = Path(__file__).resolve().parents[2]

HEAVY = (
    "fastapi",
    "playwright",
    "pypinyin",
    "numpy",
    "torch",
    "ray",
    "uvicorn",
    "cv2",
    "sim.simulator",
    "transfer_eval.console.server",
    "bridge.schema",
)
"""Modules a help page must not wait for."""

_LOADED = """
import io, json, runpy, sys
from contextlib import redirect_stdout
sys.argv = {argv!r}
if len(sys.argv) > 1:
    try:
        with redirect_stdout(io.StringIO()):
            runpy.run_module({module!r}, run_name="__main__")
    except SystemExit as exit:
        assert exit.code == 0, exit.code
else:
    import {module}
print(json.dumps(sorted(name for name in {heavy!r} if name in sys.modules)))
"""


def _heavy_loaded(module: str, *argv: str) -> list[str]:
    """The modules of :data:`HEAVY` a fresh process holds after importing ``module`` (and,
    with ``argv``, running it as ``python -m module ARGV``)."""
    code = _LOADED.format(argv=["prog", *argv], module=module, heavy=HEAVY)
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    loaded: list[str] = json.loads(done.stdout.splitlines()[-1])
    return loaded


def test_importing_the_commands_loads_no_heavy_module() -> None:
    assert _heavy_loaded("transfer_eval.commands") == []


@pytest.mark.parametrize(
    ("module", "argv"),
    [
        ("transfer_eval.commands", ["--help"]),
        ("transfer_eval.commands", ["sim", "--help"]),
        ("transfer_eval.commands", ["sim", "run", "--help"]),
        ("transfer_eval.commands", ["device", "virtual", "--help"]),
        ("transfer_eval", ["--help"]),
    ],
)
def test_help_pages_load_no_heavy_module(module: str, argv: list[str]) -> None:
    assert _heavy_loaded(module, *argv) == []


def test_what_help_pages_spell_again_matches_its_source() -> None:
    """The light copies the command modules keep so as not to import the real thing."""
    from sim.gallery import SYSTEM

    assert typing.get_args(options.GuardMode) == typing.get_args(guards.GuardMode)
    assert options.shipped("suites") == suite_names()
    assert options.shipped("splits") == split_names()
    assert SYSTEM == "system"  # named in `mgb sim gallery --app`'s help
