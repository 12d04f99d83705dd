"""The paired evaluation: base and trained policies, every suite task, in both worlds.

Each (task, policy, world, repeat) cell is one episode in the run directory, so a killed run
resumes with exactly the missing cells and ends with the same report. Simulator cells run
in parallel on the page pool; device cells run one at a time on the phone, posed and judged
by the same bound spec as their simulator twins (on a real phone, tasks a retail phone cannot
pose, :mod:`bridge.retail`, are left out of both worlds, so pairs stay pairs). Infra
errors are retried a bounded number of times and then reported apart — they never count as
policy failures; the same infra error ending ``infra_errors_in_a_row`` cells of one world
in a row stops the run (:mod:`bridge.breaker`). A guard, when asked for, ends episodes of both
worlds alike. Everything that can be checked before a run (the policies, the suite, a resumed
run's settings and harness, a real phone's adb server, serial and language) is checked
before the run directory is made, which is locked while the run writes it.
"""

from __future__ import annotations

import asyncio
import logging
import shlex
import subprocess
import sys
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, JsonValue, model_validator

from bridge.breaker import InfraBreaker
from bridge.env import Env
from bridge.errors import TrajectoryError
from bridge.records import EpisodeRecord, TaskInstance
from bridge.retail import retail_can_pose
from bridge.runner import EpisodeJob, gather_or_cancel, run_episodes
from bridge.trajectory import RunManifest, RunStore
from device.adb import AdbTarget
from device.env import AndroidEnv, AndroidEnvConfig, ui_locale
from device.errors import DeviceError
from device.profiles import DeviceProps
from device.session import AdbSession
from device.virtual.attach import attach_virtual_phone
from device.virtual.perturb import Perturbations
from policies.registry import LearnedSpec, parse_spec, preflight
from sim.state import InstanceState
from sim.tasks.base import TaskTemplate
from transfer_eval.guards import GuardMode, check_allow, task_guard
from transfer_eval.phone_twin import twin_of
from transfer_eval.policy_factory import (
    checkpoint_hash,
    fingerprint_changes,
    policy_factory,
    policy_fingerprint,
    run_versions,
    tree_xml,
)
from transfer_eval.sim_source import SimEnvs, SimSource, sim_envs
from transfer_eval.suites import Suite, load_suite

__all__ = [
    "Cell",
    "PairedConfig",
    "cell_id",
    "check_phone",
    "checkpoint_hash",
    "run_fingerprints",
    "run_paired",
]

log = logging.getLogger(__name__)

ROLES = ("base", "trained")
WORLDS = ("sim", "real")


class PairedConfig(BaseModel):
    """A transfer evaluation: which phone, which policies, which suite, where to write.

    ``guard`` (see :mod:`transfer_eval.guards`) is applied to the simulator's cells
    and the phone's alike: the guard reads only what a phone gives (the foreground app, the
    touched element), so it means the same in both worlds, and guarding one side only would
    count the phone's guard stops as failures its simulator twins never had.
    """

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
    source: SimSource = SimSource()
    """Where the simulator cells' envs live (``--ray`` / ``--hosts``); not measured."""
    max_infra_retries: int = Field(default=2, ge=0)
    infra_errors_in_a_row: int = Field(default=3, ge=0)
    """Stop the run when this many cells of one world in a row end in the same infra error
    (0: never); how the run is watched, not what it measures (not in the manifest)."""
    step_timeout_s: float = Field(default=90.0, gt=0)
    gap: Perturbations = Field(default_factory=Perturbations)
    """Reality-gap perturbations; only for ``device="virtual"``."""
    guard: GuardMode = "off"
    """Ends an episode of either world that leaves its task's apps (``apps``), or that also
    touches a consequential element (``all``)."""
    allow: list[str] = Field(default_factory=list)
    """App ids or packages the guard also lets both worlds use."""

    @model_validator(mode="after")
    def _allow_needs_a_guard(self) -> PairedConfig:
        check_allow(self.guard, self.allow)
        return self

    @model_validator(mode="after")
    def _gap_needs_the_virtual_phone(self) -> PairedConfig:
        if self.gap.active and self.device != "virtual":
            raise ValueError(
                "reality-gap perturbations (--popup-rate, --animation-ms, --latency-ms, "
                f"--font-scale) apply to --device virtual only, not to {self.device!r}: a "
                "real phone brings its own"
            )
        return self


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


ADB_SERVER_RECORD = "adb-server.json"
"""In a run directory while its virtual phone runs: the private adb server's process."""


@dataclass(frozen=True)
class _Phone:
    target: AdbTarget
    backend: str
    start_from: Callable[[int], Awaitable[None]] | None = None
    """Puts the phone in the state a simulator cell of that seed starts from (the virtual
    phone's; a real phone cannot be, and is put back after each episode instead)."""


@contextmanager
def _phone(config: PairedConfig) -> Iterator[_Phone]:
    """The phone side: attach the virtual phone, or point at a real one."""
    if config.device != "virtual":
        yield _Phone(AdbTarget(port=config.adb_port, serial=config.device), "device")
        return
    record = config.out / ADB_SERVER_RECORD  # reaped by --resume after a kill -9
    gap = config.gap
    with attach_virtual_phone(seed=0, perturbations=gap, server_record=record) as attached:

        async def start_from(seed: int) -> None:
            fresh = InstanceState(seed=seed)  # what a simulator cell's reset starts from
            await asyncio.to_thread(attached.phone.call, lambda phone: phone.reset_to(fresh))

        target = AdbTarget(port=attached.adb_port, serial=attached.serial)
        yield _Phone(target, "virtual", start_from)


async def phone_language(target: AdbTarget) -> str:
    """The language (``en``/``zh``) of a real phone's UI, which its tasks are posed in: a
    phone switches language only through Settings, so the suite follows the phone."""
    session = AdbSession(target)
    try:
        await session.open()
        locale = await ui_locale(session.shell)
    finally:
        await session.close()
    language = DeviceProps(serial=target.serial or "", locale=locale).ui_lang
    if language is None:
        raise DeviceError(
            f"the phone's UI is in {locale or 'an unknown locale'}; tasks exist in English and "
            "Chinese: switch the phone to one of them (Settings > System > Languages)"
        )
    return language


def _cells(
    sims: SimEnvs, suite: Suite, repeats: int, lang: str | None = None, retail: bool = False
) -> list[Cell]:
    cells = []
    for entry in suite.instances(lang):
        task = sims.tasks.instantiate(entry.task_id, entry.seed, entry.lang)
        if retail and not retail_can_pose(task):
            continue  # simulator and virtual phone only (bridge.retail.retail_refusal says why)
        template = sims.tasks.get(entry.task_id)
        for repeat in range(repeats):
            for role in ROLES:
                for side in WORLDS:
                    cells.append(Cell(entry.label, task, template, role, side, repeat))
    return cells


def _jobs(
    cells: Sequence[Cell],
    config: PairedConfig,
    env_for: Callable[[Cell], Callable[[], Awaitable[Env]]],
) -> list[EpisodeJob]:
    specs = {"base": config.base, "trained": config.trained}
    return [
        EpisodeJob(
            episode_id=cell.episode_id,
            task=cell.task,
            make_env=env_for(cell),
            make_policy=policy_factory(specs[cell.role], cell.template, cell.task, cell.repeat),
            guard=task_guard(config.guard, cell.task, config.allow),  # the same in both worlds
        )
        for cell in cells
    ]


_Done = Callable[[EpisodeRecord], None]


async def _twin_base(config: PairedConfig, phone: _Phone) -> InstanceState | None:
    """Where the simulator cells start when the phone cannot be reset to theirs: the
    phone's own state, read once (:mod:`transfer_eval.phone_twin`); None for the virtual
    phone (reset before each cell instead) and for simulator hosts elsewhere, which take no
    state of ours (their pairs then show what differs in their start-state parity)."""
    if phone.start_from is not None:
        return None
    if not config.source.local:
        log.warning(
            "the simulator cells start from the simulator's own phone: %s cannot "
            "start from this phone's state",
            config.source.describe(),
        )
        return None
    return (await twin_of(phone.target)).state


async def _run_grid(
    config: PairedConfig,
    suite: Suite,
    store: RunStore,
    phone: _Phone,
    lang: str | None,
    on_done: Callable[[EpisodeRecord], None] | None,
) -> list[Cell]:
    async with sim_envs(config.source, pages=config.sim_pages) as sims:
        retail = phone.backend == "device"
        cells = _cells(sims, suite, config.repeats, lang, retail)

        base = await _twin_base(config, phone)

        async def sim_env() -> Env:
            if base is None:
                return await sims.env()
            return await sims.env(base=base)  # type: ignore[call-arg]  # a base only with a local Simulator, whose env() takes one

        def device_env(cell: Cell) -> Callable[[], Awaitable[Env]]:
            async def make() -> Env:
                if phone.start_from is not None:
                    await phone.start_from(cell.task.seed)
                env_config = AndroidEnvConfig(
                    target=phone.target, step_timeout_s=config.step_timeout_s
                )
                return AndroidEnv(env_config)

            return make

        sim_jobs = _jobs([c for c in cells if c.world == "sim"], config, lambda _c: sim_env)
        device_jobs = _jobs([c for c in cells if c.world == "real"], config, device_env)
        limit = config.infra_errors_in_a_row  # one breaker per world: a dead phone
        sim_done = InfraBreaker(limit, "cells").watch(on_done)  # is not hidden by sim cells
        device_done = InfraBreaker(limit, "cells").watch(on_done)

        async def run(jobs: list[EpisodeJob], at_once: int, done: _Done) -> object:
            return await run_episodes(
                jobs,
                store=store,
                concurrency=at_once,
                step_timeout_s=config.step_timeout_s,
                tree_xml=tree_xml,
                on_episode_done=done,
            )

        for _attempt in range(config.max_infra_retries + 1):
            worlds = (run(sim_jobs, config.sim_pages, sim_done), run(device_jobs, 1, device_done))
            await gather_or_cancel([asyncio.ensure_future(world) for world in worlds])
            if not any(r.outcome == "infra_error" for r in store.completed().values()):
                break
    return cells


_CHECKOUT = Path(__file__).resolve().parents[1]


def git_commit(checkout: Path = _CHECKOUT) -> tuple[str, bool | None]:
    """The commit checked out at ``checkout`` and whether tracked files differ from it, or
    ``("unknown", None)`` when it is not the top of a git checkout (an installed wheel) or
    git is missing — never an error."""

    def git(*args: str) -> str:
        done = subprocess.run(
            ["git", "-C", str(checkout), *args], capture_output=True, text=True, timeout=10
        )
        if done.returncode != 0:
            raise subprocess.CalledProcessError(done.returncode, args)
        return done.stdout.strip()

    try:
        if Path(git("rev-parse", "--show-toplevel")).resolve() != checkout.resolve():
            return "unknown", None  # inside someone else's repository
        return git("rev-parse", "HEAD"), bool(git("status", "--porcelain", "-uno"))
    except (OSError, subprocess.SubprocessError):
        return "unknown", None


def run_provenance(config: PairedConfig, argv: Sequence[str] | None = None) -> dict[str, str]:
    """Where a run came from, for its manifest's ``versions`` (which resuming does not
    compare, so a run started on one commit can be finished on another): the commit, the
    exact command line, and a hash of each learned policy's checkpoint."""
    commit, dirty = git_commit()
    found = {"git_commit": commit, "command": shlex.join(sys.argv if argv is None else argv)}
    if dirty is not None:
        found["git_dirty"] = "yes" if dirty else "no"
    for role, spec in (("base", config.base), ("trained", config.trained)):
        parsed = parse_spec(spec)
        if isinstance(parsed, LearnedSpec):
            path = parsed.path()
            found[f"checkpoint_{role}"] = "missing" if path is None else checkpoint_hash(path)
    return found


def run_fingerprints(config: PairedConfig) -> dict[str, JsonValue]:
    """Each policy's harness fingerprint (:func:`policy_fingerprint`) with the phone side
    it is paired on (the serial or ``virtual``, and the virtual phone's perturbations)."""
    phone: dict[str, JsonValue] = {"device": config.device, "gap": config.gap.describe() or "none"}
    return {
        role: {**policy_fingerprint(spec), "phone": phone}
        for role, spec in (("base", config.base), ("trained", config.trained))
    }


_NOT_MEASURED = {"out", "source", "infra_errors_in_a_row"}
"""Settings of how a run is carried out, not of what it measures: a resume may change them."""


def _manifest(config: PairedConfig, suite: Suite | None = None) -> RunManifest:
    """The run's manifest; ``suite``: ``config.suite`` loaded (loaded here when not given)."""
    suite = load_suite(config.suite) if suite is None else suite
    return RunManifest(
        config=config.model_dump(mode="json", exclude=_NOT_MEASURED),
        versions={**run_versions(), **run_provenance(config)},
        seeds=[task.seed for task in suite.entries],
        fingerprints=run_fingerprints(config),
    )


def _check_fingerprints(out: Path, wanted: RunManifest) -> None:
    """Refuse, in one line, to resume a run with the same settings whose harness differs
    (other settings are :meth:`RunStore.create`'s to name; a run made before fingerprints
    has none to compare)."""
    if not (out / "manifest.json").is_file():
        return
    recorded = RunStore.open(out).manifest
    if (recorded.config, recorded.seeds) != (wanted.config, wanted.seeds):
        return
    changes = fingerprint_changes(recorded.fingerprints, wanted.fingerprints)
    if recorded.fingerprints and changes:
        shown = "; ".join(changes[:4]) + (f"; and {len(changes) - 4} more" if changes[4:] else "")
        raise TrajectoryError(
            f"{out} was run with another harness ({shown}); give a new --out, or resume with "
            "the code, checkpoints and settings the run began with"
        )


async def check_phone(config: PairedConfig) -> str | None:
    """A real phone's adb server answers and lists the serial, and the language its tasks
    are posed in (its UI's); None for the virtual phone, which has nothing to check yet.

    Raises:
        DeviceError: no adb server, the serial is not attached, or the phone's UI is in a
            language no task is written in.
    """
    if config.device == "virtual":
        return None
    target = AdbTarget(port=config.adb_port, serial=config.device)
    await asyncio.to_thread(target.resolve)
    return await phone_language(target)


async def run_paired(
    config: PairedConfig,
    on_done: Callable[[EpisodeRecord], None] | None = None,
    on_start: Callable[[], None] | None = None,
    suite: Suite | None = None,
) -> tuple[RunStore, list[Cell], str]:
    """Run (or resume) every missing cell; returns the store, the grid and the phone backend.

    Every check comes before the run directory is made (a refused command leaves nothing
    that would refuse the corrected one); ``on_start`` is called once they all passed (to
    show progress from then on). ``suite``: ``config.suite`` already loaded (a selection
    takes a while to resolve; loaded here when not given). The returned store holds the run's
    lock: close it (``with store:``) once the reports are written.

    Raises:
        TrajectoryError: ``config.out`` holds a run with other settings or another harness
            fingerprint (:class:`~bridge.errors.RunLocked`: another process writes it).
        DeviceError: the real phone cannot be reached (see :func:`check_phone`).
        InfraErrorsInARow: the same infra error ended too many cells in a row.
    """
    for spec in (config.base, config.trained):
        await preflight(spec)  # before the phone or the simulator is touched
    suite = load_suite(config.suite) if suite is None else suite
    manifest = _manifest(config, suite)
    _check_fingerprints(config.out, manifest)
    lang = await check_phone(config)
    store = RunStore.create(config.out, manifest, resume=True, lock=True)
    try:
        if on_start is not None:
            on_start()
        with _phone(config) as phone:
            cells = await _run_grid(config, suite, store, phone, lang, on_done)
    except BaseException:
        store.close()
        raise
    return store, cells, phone.backend


def out_dir(path: Path) -> Path:
    """The run directory, made absolute."""
    return path.resolve()
