"""How ``make test`` shares its tests between xdist workers (``--dist loadgroup``).

A work unit is one test file, so that a file's module fixtures (a started simulator, a
virtual phone) are set up once per worker. A file whose tests are independent episodes over
task templates can say ``SHARD_BY_APP = True``: its tests parametrized by ``task_id`` are
then split by app, since those files grow with the catalogue and would otherwise leave one
worker running the biggest of them alone at the end.

Work units are handed out longest first (``--no-loadscope-reorder`` keeps this order), by
the seconds each took in a recorded run, ``group_durations.json``; a unit not recorded
there is estimated from its number of tests. ``make test-durations`` records them again
(``--save-group-durations``) when the suite has changed shape.

It also holds the fixtures many test packages share, once: ``sim``, a started simulator per
module (a module may set ``SIM_PAGES`` for another page-pool size).
"""

from __future__ import annotations

import json
import os
import tempfile
from collections import defaultdict
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
import pytest_asyncio

if TYPE_CHECKING:
    from sim.simulator import Simulator

DURATIONS = Path(__file__).with_name("group_durations.json")
UNRECORDED_TEST_S = 2.0
"""The estimate for one test of a work unit that ``group_durations.json`` does not know."""

_UNIT = pytest.StashKey[str]()


def pytest_addoption(parser: pytest.Parser) -> None:
    """``--save-group-durations``: record each work unit's seconds for the next runs."""
    parser.addoption(
        "--save-group-durations",
        action="store_true",
        help=f"write the seconds each work unit took to tests/{DURATIONS.name} at the end",
    )


def work_unit(item: pytest.Item) -> str:
    """The work unit of a test: its file, split by app where the file says so."""
    group = item.nodeid.split("::", 1)[0]
    callspec = getattr(item, "callspec", None)
    task_id = callspec.params.get("task_id") if callspec is not None else None
    module = getattr(item, "module", None)
    if getattr(module, "SHARD_BY_APP", False) and isinstance(task_id, str) and "/" in task_id:
        group += ":" + task_id.split("/", 1)[0]
    return group


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Give every test its work unit (runs before xdist names the units by these marks)."""
    for item in items:
        item.stash[_UNIT] = work_unit(item)
        item.add_marker(pytest.mark.xdist_group(item.stash[_UNIT]))


class LongestFirst:
    """Orders the work units by cost and, when asked, records what each one cost."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.unit_of: dict[str, str] = {}
        self.spent: defaultdict[str, float] | None = (
            defaultdict(float) if config.getoption("save_group_durations") else None
        )

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        """Sort the tests by their unit's cost, longest first; a stable sort, so each
        unit stays contiguous and in its own order (after xdist has renamed the ids)."""
        recorded = _recorded()
        sizes: defaultdict[str, int] = defaultdict(int)
        first: dict[str, int] = {}
        for index, item in enumerate(items):
            sizes[item.stash[_UNIT]] += 1
            first.setdefault(item.stash[_UNIT], index)

        def key(pair: tuple[int, pytest.Item]) -> tuple[float, int, int]:
            index, item = pair
            unit = item.stash[_UNIT]
            return (-recorded.get(unit, sizes[unit] * UNRECORDED_TEST_S), first[unit], index)

        items[:] = [item for _, item in sorted(enumerate(items), key=key)]
        self.unit_of = {item.nodeid: item.stash[_UNIT] for item in items}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Add each phase's seconds to its unit (on the controller, under xdist)."""
        if self.spent is not None:
            self.spent[self._unit(report.nodeid)] += report.duration

    def _unit(self, nodeid: str) -> str:
        _, sep, tail = nodeid.rpartition("@")  # xdist's "@unit" suffix on the controller
        if sep and "]" not in tail:
            return tail
        return self.unit_of.get(nodeid, nodeid.split("::", 1)[0])

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        """Write the recorded seconds per unit atomically (the controller's tally only)."""
        if not self.spent or hasattr(session.config, "workerinput"):
            return
        rounded = {unit: round(seconds, 1) for unit, seconds in sorted(self.spent.items())}
        fd, tmp = tempfile.mkstemp(dir=DURATIONS.parent, prefix=".durations-")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(rounded, handle, indent=1)
            handle.write("\n")
        os.chmod(tmp, 0o644)
        os.replace(tmp, DURATIONS)


def pytest_configure(config: pytest.Config) -> None:
    """Register the work-unit ordering (and recording) for this run, and the mark even
    when xdist is not loaded (``-p no:xdist``)."""
    config.addinivalue_line("markers", "xdist_group(name): the work unit of a test")
    config.pluginmanager.register(LongestFirst(config), "mgb-longest-first")


def _recorded() -> dict[str, float]:
    try:
        data = json.loads(DURATIONS.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    return {str(unit): float(seconds) for unit, seconds in data.items()}


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def sim(request: pytest.FixtureRequest) -> AsyncIterator[Simulator]:
    """A started simulator with every app and the default task registry, for one module
    (Chromium starts once); its page pool has the module's ``SIM_PAGES`` pages (2)."""
    from sim.simulator import SimConfig, Simulator

    pages = getattr(request.module, "SIM_PAGES", 2)
    async with Simulator(SimConfig(pages=pages)) as simulator:
        yield simulator


@pytest.fixture(scope="module")
def mobilegym_build() -> str:
    """The MobileGym build the tests drive, as a world string (``mobilegym:PATH``), or a
    skip saying how to point at one (:mod:`tests.mobilegym.conftest` finds it)."""
    from tests.mobilegym.conftest import NO_BUILD, build_source

    source = build_source()
    if source is None:
        pytest.skip(NO_BUILD)
    return source.spec
