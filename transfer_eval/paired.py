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
from collections.abc import (
    AsyncIterator,
    Awaitable,
    Callable,
    Collection,
    Iterator,
    Mapping,
    Sequence,
)
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, JsonValue, ValidationInfo, model_validator

from bridge.breaker import InfraBreaker
from bridge.env import Env
from bridge.errors import TrajectoryError
from bridge.records import EpisodeRecord, TaskInstance
from bridge.runner import EpisodeJob, gather_or_cancel, run_episodes
from bridge.trajectory import RunManifest, RunStore
from device.adb import AdbTarget
from device.doctor import check_ready
from device.env import AndroidEnv, AndroidEnvConfig, ui_locale
from device.errors import DeviceError
from device.profiles import DeviceProps, load_profile
from device.session import AdbSession
from device.virtual.attach import attach_virtual_phone
from device.virtual.perturb import Perturbations
from mobilegym.source import MobileGymSource, is_mobilegym, parse_source
from policies.registry import LearnedSpec, parse_spec, preflight
from sim.state import InstanceState
from sim.tasks.base import TaskTemplate
from sim.tasks.registry import TaskRegistry, default_registry
from transfer_eval.guards import GuardMode, check_allow, task_guard
from transfer_eval.pair_sides import (
    GainSide,
    checked_world,
    gain_side,
    gain_world,
    mobilegym_envs,
    pair_refusal,
)
from transfer_eval.phone_twin import twin_of
from transfer_eval.policy_factory import (
    checkpoint_hash,
    fingerprint_changes,
    policy_factory,
    policy_fingerprint,
    run_versions,
    tree_xml,
)
from transfer_eval.sim_source import SimSource
from transfer_eval.suites import Suite, load_suite

__all__ = [
    "RECORDED",
    "Cell",
    "PairedConfig",
    "PairedRun",
    "PhoneCheck",
    "cell_id",
    "check_phone",
    "checkpoint_hash",
    "run_fingerprints",
    "run_paired",
]

log = logging.getLogger(__name__)

ROLES = ("base", "trained")
WORLDS = ("sim", "real")


RECORDED = "recorded"
"""Validation context key: the config is a recorded run's (``{RECORDED: True}``), read to
replay or report it, so a MobileGym build it names need not be on this machine."""


class PairedConfig(BaseModel):
    """A transfer evaluation: which phone, which policies, which suite, where to write.

    ``guard`` (see :mod:`transfer_eval.guards`) is applied to the simulator's cells
    and the phone's alike: the guard reads only what a phone gives (the foreground app, the
    touched element), so it means the same in both worlds, and guarding one side only would
    count the phone's guard stops as failures its simulator twins never had.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    device: str = "virtual"
    """Where the gain is checked: an adb serial, ``virtual`` for the virtual phone behind a
    private adb server, or ``mobilegym:PATH``/``mobilegym:URL`` (:mod:`.pair_sides`)."""
    sim: str = "sim"
    """Where the gain was made: ``sim`` (our simulator) or ``mobilegym:…``."""
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
    def _two_worlds(self, info: ValidationInfo) -> PairedConfig:
        check = not (info.context or {}).get(RECORDED, False)
        gain = gain_world(self.sim, check=check)
        checked = checked_world(self.device, check=check)
        if gain == checked == "mobilegym":
            raise ValueError(
                "--sim and --device both name MobileGym: pair two different worlds (e.g. "
                "--sim sim --device mobilegym:…, or --sim mobilegym:… --device SERIAL)"
            )
        if gain == "mobilegym" and not self.source.local:
            raise ValueError(
                f"{self.source.describe()} runs our simulator elsewhere, but --sim names "
                "MobileGym: leave out --ray/--hosts, or pair with --sim sim"
            )
        return self

    @model_validator(mode="after")
    def _gap_needs_the_virtual_phone(self) -> PairedConfig:
        if self.gap.active and self.device != "virtual":
            raise ValueError(
                "reality-gap perturbations (--popup-rate, --animation-ms, --latency-ms, --profile, "
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
    """The checked world: a phone (``target``) or a MobileGym build (``mobilegym``)."""

    target: AdbTarget | None
    backend: str
    start_from: Callable[[int], Awaitable[None]] | None = None
    """Puts the phone in the state a simulator cell of that seed starts from (the virtual
    phone's; a real phone cannot be, and is put back after each episode instead)."""
    mobilegym: MobileGymSource | None = None
    handoff: tuple[str, ...] = ()
    """Packages the phone's own apps hand off to (its device profile's): the guard allows
    them in both worlds."""


@dataclass(frozen=True)
class PhoneCheck:
    """What checking the phone side found before a run: the language its tasks are posed
    in (None: the suite's own) and the packages its apps hand off to."""

    lang: str | None = None
    handoff: tuple[str, ...] = ()


@contextmanager
def _phone(config: PairedConfig, checked: PhoneCheck) -> Iterator[_Phone]:
    """The checked side: attach the virtual phone, point at a real one, or name the
    MobileGym build (started with the grid)."""
    backend = _backend(config)
    if backend == "mobilegym":
        yield _Phone(None, backend, mobilegym=parse_source(config.device))
        return
    if backend == "device":
        target = AdbTarget(port=config.adb_port, serial=config.device)
        yield _Phone(target, backend, handoff=checked.handoff)
        return
    record = config.out / ADB_SERVER_RECORD  # reaped by --resume after a kill -9
    gap = config.gap
    with attach_virtual_phone(seed=0, perturbations=gap, server_record=record) as attached:

        async def start_from(seed: int) -> None:
            fresh = InstanceState(seed=seed)  # what a simulator cell's reset starts from
            await asyncio.to_thread(attached.phone.call, lambda phone: phone.reset_to(fresh))

        target = AdbTarget(port=attached.adb_port, serial=attached.serial)
        yield _Phone(target, backend, start_from, handoff=checked.handoff)


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


def left_out(
    suite: Suite,
    config: PairedConfig,
    lang: str | None = None,
    registry: TaskRegistry | None = None,
) -> dict[str, str]:
    """The suite entries one of the two worlds cannot pose, by label, with why: they are
    left out of both (:func:`~transfer_eval.pair_sides.pair_refusal`; ``registry``: the
    catalogue, ours by default)."""
    registry = default_registry() if registry is None else registry
    gain, checked = gain_world(config.sim), checked_world(config.device)
    refused = {}
    for entry in suite.instances(lang):
        task = registry.instantiate(entry.task_id, entry.seed, entry.lang)
        if (why := pair_refusal(task, gain, checked)) is not None:
            refused[entry.label] = why
    return refused


def _cells(
    tasks: TaskRegistry,
    suite: Suite,
    repeats: int,
    lang: str | None = None,
    skip: Collection[str] = (),
) -> list[Cell]:
    cells = []
    for entry in suite.instances(lang):
        if entry.label in skip:
            continue  # one world cannot pose it (left_out says why)
        task = tasks.instantiate(entry.task_id, entry.seed, entry.lang)
        template = tasks.get(entry.task_id)
        for repeat in range(repeats):
            for role in ROLES:
                for side in WORLDS:
                    cells.append(Cell(entry.label, task, template, role, side, repeat))
    return cells


def _jobs(
    cells: Sequence[Cell],
    config: PairedConfig,
    env_for: Callable[[Cell], Callable[[], Awaitable[Env]]],
    handoff: Sequence[str] = (),
) -> list[EpisodeJob]:
    specs = {"base": config.base, "trained": config.trained}
    return [
        EpisodeJob(
            episode_id=cell.episode_id,
            task=cell.task,
            make_env=env_for(cell),
            make_policy=policy_factory(specs[cell.role], cell.template, cell.task, cell.repeat),
            guard=task_guard(config.guard, cell.task, config.allow, handoff),  # both worlds
        )
        for cell in cells
    ]


_Done = Callable[[EpisodeRecord], None]


async def _twin_base(config: PairedConfig, phone: _Phone, gain: GainSide) -> InstanceState | None:
    """Where the simulator cells start when the phone cannot be reset to theirs: the
    phone's own state, read once (:mod:`transfer_eval.phone_twin`); None for the virtual
    phone (reset before each cell instead), for MobileGym on either side (each world starts
    from its own data with the task posed) and for simulator hosts elsewhere, which take no
    state of ours (their pairs then show what differs in their start-state parity)."""
    if phone.start_from is not None or phone.target is None or gain.kind != "sim":
        return None
    if not gain.takes_base:
        log.warning(
            "the simulator cells start from the simulator's own phone: %s cannot "
            "start from this phone's state",
            config.source.describe(),
        )
        return None
    return (await twin_of(phone.target)).state


@asynccontextmanager
async def _checked_envs(
    config: PairedConfig, phone: _Phone
) -> AsyncIterator[Callable[[Cell], Callable[[], Awaitable[Env]]]]:
    """A maker of the checked world's env for each cell: the phone's (put in the cell's
    start state first when it can be) or a new phone of the MobileGym build."""
    if phone.mobilegym is not None:
        async with mobilegym_envs(phone.mobilegym, config.step_timeout_s) as make:
            yield lambda _cell: make
        return
    target = phone.target
    assert target is not None

    def device_env(cell: Cell) -> Callable[[], Awaitable[Env]]:
        async def make() -> Env:
            if phone.start_from is not None:
                await phone.start_from(cell.task.seed)
            env_config = AndroidEnvConfig(target=target, step_timeout_s=config.step_timeout_s)
            return AndroidEnv(env_config)

        return make

    yield device_env


async def _run_grid(
    config: PairedConfig,
    cells: Sequence[Cell],
    store: RunStore,
    phone: _Phone,
    skip: Mapping[str, str],
    on_done: Callable[[EpisodeRecord], None] | None,
) -> None:
    """Run the grid's missing ``cells`` in both worlds (the ones ``skip`` names are left
    out of both, said once)."""
    for label, why in skip.items():
        log.warning("%s is left out of both worlds: %s", label, why)
    gain_ctx = gain_side(config.sim, config.source, config.sim_pages, config.step_timeout_s)
    async with gain_ctx as gain, _checked_envs(config, phone) as checked_env:
        base = await _twin_base(config, phone, gain)

        async def sim_env() -> Env:
            if base is None or gain.sims is None:
                return await gain.make_env()
            return await gain.sims.env(base=base)  # type: ignore[call-arg]  # a base only with a local Simulator, whose env() takes one

        # a phone runs one episode at a time; MobileGym as many as the simulator's pages
        checked_at_once = 1 if phone.target is not None else config.sim_pages
        sim_jobs = _jobs(
            [c for c in cells if c.world == "sim"], config, lambda _c: sim_env, phone.handoff
        )
        device_jobs = _jobs(
            [c for c in cells if c.world == "real"], config, checked_env, phone.handoff
        )
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
            worlds = (
                run(sim_jobs, config.sim_pages, sim_done),
                run(device_jobs, checked_at_once, device_done),
            )
            await gather_or_cancel([asyncio.ensure_future(world) for world in worlds])
            if not any(r.outcome == "infra_error" for r in store.completed().values()):
                break


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
    worlds: dict[str, JsonValue] = {"sim": config.sim, "real": config.device}
    return {
        role: {**policy_fingerprint(spec), "phone": phone, "worlds": worlds}
        for role, spec in (("base", config.base), ("trained", config.trained))
    }


def _builds(config: PairedConfig) -> dict[str, str]:
    """Which MobileGym build a side ran on (``mobilegym-build-sim``/``-real``: a hash of its
    ``index.html``, :meth:`~mobilegym.source.MobileGymSource.build_id`)."""
    return {
        f"mobilegym-build-{side}": parse_source(world).build_id()
        for side, world in (("sim", config.sim), ("real", config.device))
        if is_mobilegym(world)
    }


_NOT_MEASURED = {"out", "source", "infra_errors_in_a_row"}
"""Settings of how a run is carried out, not of what it measures: a resume may change them."""


def _measured(config: PairedConfig) -> dict[str, JsonValue]:
    """The settings a run's manifest keeps: what it measures (``sim`` only when it is not
    our simulator, so runs made before there was a choice resume as they were)."""
    measured: dict[str, JsonValue] = config.model_dump(mode="json", exclude=_NOT_MEASURED)
    if measured["sim"] == "sim":
        del measured["sim"]
    return measured


def _manifest(config: PairedConfig, suite: Suite | None = None) -> RunManifest:
    """The run's manifest; ``suite``: ``config.suite`` loaded (loaded here when not given)."""
    suite = load_suite(config.suite) if suite is None else suite
    return RunManifest(
        config=_measured(config),
        versions={**run_versions(), **run_provenance(config), **_builds(config)},
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


async def check_phone(config: PairedConfig) -> PhoneCheck:
    """A real phone's adb server answers and lists the serial, the phone is ready for a run
    (:mod:`device.doctor`), and the language its tasks are posed in (its UI's); the packages
    its profile's apps hand off to. The virtual phone this run starts (set up ready) has its
    profile's; MobileGym has none.

    Raises:
        DeviceError: no adb server, the serial is not attached, the phone's UI is in a
            language no task is written in, or it is not ready (:class:`PhoneNotReady`).
    """
    if is_mobilegym(config.device):
        return PhoneCheck()
    if config.device == "virtual":
        return PhoneCheck(handoff=tuple(load_profile(config.gap.profile).handoff_packages))
    target = AdbTarget(port=config.adb_port, serial=config.device)
    await asyncio.to_thread(target.resolve)
    report = await check_ready(target)
    handoff = tuple(load_profile(report.profile).handoff_packages)
    return PhoneCheck(await phone_language(target), handoff)


@dataclass(frozen=True)
class PairedRun:
    """A paired run whose grid is done: its store (locked: close it once the reports are
    written), the grid, the checked world's backend (``virtual``, ``device`` or
    ``mobilegym``) and the suite entries left out of both worlds, with why."""

    store: RunStore
    cells: list[Cell]
    backend: str
    not_posed: dict[str, str]


async def run_paired(
    config: PairedConfig,
    on_done: Callable[[EpisodeRecord], None] | None = None,
    on_start: Callable[[], None] | None = None,
    suite: Suite | None = None,
) -> PairedRun:
    """Run (or resume) every missing cell; returns the store, the grid, the checked world's
    backend and the entries left out of both worlds.

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
    checked = await check_phone(config)
    lang = checked.lang
    skip = left_out(suite, config, lang)  # posed in neither world, said once per run
    store = RunStore.create(config.out, manifest, resume=True, lock=True)
    try:
        if on_start is not None:
            on_start()
        cells = _cells(default_registry(), suite, config.repeats, lang, skip)
        if not store.pending([cell.episode_id for cell in cells]):
            return PairedRun(store, cells, _backend(config), skip)  # nothing to start
        with _phone(config, checked) as phone:
            await _run_grid(config, cells, store, phone, skip, on_done)
    except BaseException:
        store.close()
        raise
    return PairedRun(store, cells, phone.backend, skip)


def _backend(config: PairedConfig) -> str:
    """The checked world's kind: ``mobilegym``, ``virtual`` or ``device`` (a real phone)."""
    if is_mobilegym(config.device):
        return "mobilegym"
    return "virtual" if config.device == "virtual" else "device"


def out_dir(path: Path) -> Path:
    """The run directory, made absolute."""
    return path.resolve()
