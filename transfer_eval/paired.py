"""The paired evaluation: base and trained policies, every suite task, in both worlds.

Each (task, policy, world, repeat) cell is one episode in the run directory, so a killed run
resumes with exactly the missing cells and ends with the same report. Simulator cells run
in parallel on the page pool; device cells run one at a time on the phone, each posed by
its device variant. Infra errors are retried a bounded number of times and then reported
apart — they never count as policy failures.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from bridge.env import Env
from bridge.runner import EpisodeJob, run_episodes
from bridge.schema import EpisodeRecord, TaskInstance
from bridge.trajectory import RunManifest, RunStore
from device.adb import AdbTarget
from device.env import AndroidEnv, AndroidEnvConfig
from device.tasks.registry import default_variants
from device.virtual.attach import attach_virtual_phone
from policies.registry import parse_spec
from sim.simulator import SimConfig, Simulator
from sim.tasks.base import TaskTemplate
from transfer_eval.policy_factory import policy_factory, run_versions, tree_xml
from transfer_eval.suites import Suite, load_suite

__all__ = ["Cell", "PairedConfig", "cell_id", "run_paired"]

ROLES = ("base", "trained")
WORLDS = ("sim", "real")


class PairedConfig(BaseModel):
    """A transfer evaluation: which phone, which policies, which suite, where to write."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    device: str = "virtual"
    """An adb serial, or ``virtual`` for the virtual phone behind a private adb server."""
    base: str = "learned:checkpoints/base"
    trained: str = "learned:checkpoints/trained"
    suite: str = "paired"
    repeats: int = Field(default=1, ge=1)
    out: Path
    adb_port: int = Field(default=5037, ge=1, le=65535)
    """The adb server of a real phone (the user's own, 5037 by default)."""
    sim_pages: int = Field(default=2, ge=1)
    max_infra_retries: int = Field(default=2, ge=0)
    step_timeout_s: float = Field(default=90.0, gt=0)


@dataclass(frozen=True)
class Cell:
    """One episode of the grid."""

    label: str
    """The suite entry's label (its task id unless the suite holds the task twice)."""
    task: TaskInstance
    template: TaskTemplate
    role: str
    world: str
    repeat: int

    @property
    def episode_id(self) -> str:
        """The cell's id in the run directory."""
        return cell_id(self.label, self.role, self.world, self.repeat)


def cell_id(label: str, role: str, world: str, repeat: int) -> str:
    """``settings.SetWifi-v1__trained__real__r0`` (``label``: a suite entry's label)."""
    return f"{label.replace('/', '.')}__{role}__{world}__r{repeat}"


@dataclass(frozen=True)
class _Phone:
    target: AdbTarget
    backend: str


@contextmanager
def _phone(config: PairedConfig) -> Iterator[_Phone]:
    """The phone side: attach the virtual phone, or point at a real one."""
    if config.device != "virtual":
        yield _Phone(AdbTarget(port=config.adb_port, serial=config.device), "device")
        return
    with attach_virtual_phone(seed=0) as attached:
        yield _Phone(AdbTarget(port=attached.adb_port, serial=attached.serial), "virtual")


def _cells(sim: Simulator, suite: Suite, repeats: int) -> list[Cell]:
    world = {app_id: app.world for app_id, app in sim.phone.apps.items()}
    cells = []
    for entry in suite.instances():
        task = sim.tasks.instantiate(entry.task_id, entry.seed, world, entry.lang)
        template = sim.tasks.get(entry.task_id)
        for repeat in range(repeats):
            for role in ROLES:
                for side in WORLDS:
                    cells.append(Cell(entry.label, task, template, role, side, repeat))
    return cells


def _jobs(
    cells: Sequence[Cell], config: PairedConfig, env_for: Callable[[Cell], object]
) -> list[EpisodeJob]:
    specs = {"base": config.base, "trained": config.trained}
    return [
        EpisodeJob(
            episode_id=cell.episode_id,
            task=cell.task,
            make_env=env_for(cell),  # type: ignore[arg-type]
            make_policy=policy_factory(specs[cell.role], cell.template, cell.task, cell.repeat),
        )
        for cell in cells
    ]


async def _run_grid(
    config: PairedConfig,
    store: RunStore,
    phone: _Phone,
    on_done: Callable[[EpisodeRecord], None] | None,
) -> list[Cell]:
    variants = default_variants()
    async with Simulator(SimConfig(pages=config.sim_pages)) as sim:
        cells = _cells(sim, load_suite(config.suite), config.repeats)

        async def sim_env() -> Env:
            return await sim.env()

        async def device_env() -> Env:
            env_config = AndroidEnvConfig(target=phone.target, step_timeout_s=config.step_timeout_s)
            return AndroidEnv(env_config, variants)

        sim_jobs = _jobs([c for c in cells if c.world == "sim"], config, lambda _c: sim_env)
        device_jobs = _jobs([c for c in cells if c.world == "real"], config, lambda _c: device_env)
        common = {
            "store": store,
            "step_timeout_s": config.step_timeout_s,
            "tree_xml": tree_xml,
            "on_episode_done": on_done,
        }
        for _attempt in range(config.max_infra_retries + 1):
            await asyncio.gather(
                run_episodes(sim_jobs, concurrency=config.sim_pages, **common),  # type: ignore[arg-type]
                run_episodes(device_jobs, concurrency=1, **common),  # type: ignore[arg-type]
            )
            if not any(r.outcome == "infra_error" for r in store.completed().values()):
                break
    return cells


def _manifest(config: PairedConfig) -> RunManifest:
    suite = load_suite(config.suite)
    return RunManifest(
        config=config.model_dump(mode="json", exclude={"out"}),
        versions=run_versions(),
        seeds=[task.seed for task in suite.tasks],
    )


async def run_paired(
    config: PairedConfig, on_done: Callable[[EpisodeRecord], None] | None = None
) -> tuple[RunStore, list[Cell], str]:
    """Run (or resume) every missing cell; returns the store, the grid and the phone backend."""
    for spec in (config.base, config.trained):
        parse_spec(spec)
    store = RunStore.create(config.out, _manifest(config), resume=True)
    with _phone(config) as phone:
        cells = await _run_grid(config, store, phone, on_done)
    return store, cells, phone.backend


def out_dir(path: Path) -> Path:
    """The run directory, made absolute."""
    return path.resolve()
