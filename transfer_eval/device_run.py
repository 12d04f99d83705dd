"""Running episodes on a phone into a run directory (what ``mgb device run`` does).

The composition root for the phone: the simulator's task registry instantiates the task (same
parameters and the same bound spec from the same seed as in the simulator),
:class:`device.env.AndroidEnv` poses and judges that spec on the phone and drives it, and
:mod:`bridge.runner` records frames, trees, steps and verdicts. One phone runs one episode
at a time. Also: listing the devices of an adb server and describing one of them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, model_validator

from bridge.breaker import InfraBreaker
from bridge.guard import ActionGuard
from bridge.records import EpisodeRecord, TaskInstance
from bridge.retail import retail_refusal
from bridge.runner import EpisodeJob, run_episodes
from bridge.schema import BackendInfo, Foreground, ScreenSpec
from bridge.trajectory import RunManifest, RunStore
from device.adb import AdbTarget, AttachedDevice
from device.doctor import check_ready
from device.driver import AndroidDriver
from device.env import AndroidEnv, AndroidEnvConfig, read_props
from device.errors import TaskUnsupported
from device.profiles import DeviceProps, ProfileChoice, load_profile, select_profile
from device.session import AdbSession
from policies.registry import preflight
from sim.tasks.registry import TaskRegistry, default_registry
from transfer_eval.episode_view import write_run_index
from transfer_eval.guards import GuardMode, check_allow, task_guard
from transfer_eval.jobs import GRID, EpisodeGrid, grid_jobs
from transfer_eval.policy_factory import run_versions, tree_xml
from transfer_eval.resume_notes import announce_resume

__all__ = [
    "DeviceReport",
    "DeviceRunConfig",
    "check_retail",
    "check_tasks",
    "describe_device",
    "list_devices",
    "run_device",
]


class DeviceRunConfig(EpisodeGrid):
    """What to run on one phone: tasks x seeds x languages with one policy, into ``out``.

    ``guard`` (see :mod:`transfer_eval.guards`) ends an episode that leaves its
    task's apps and ``allow`` (``apps``), or that also touches a consequential element
    (``all``), with the reason, instead of asking a person.
    """

    target: AdbTarget
    policy: str = "scripted"
    out: Path
    profile: str | None = None
    step_timeout_s: float = Field(default=120.0, gt=0)
    guard: GuardMode = "off"
    allow: list[str] = Field(default_factory=list)
    """App ids or packages the guard also lets the run use."""
    infra_errors_in_a_row: int = Field(default=3, ge=0)
    """Stop after this many episodes in a row end in the same infra error (0: never); how
    the run is watched, not what it measures (not in the manifest)."""

    @model_validator(mode="after")
    def _allow_needs_a_guard(self) -> DeviceRunConfig:
        check_allow(self.guard, self.allow)
        return self

    def env_config(self) -> AndroidEnvConfig:
        """The env every episode of the run gets."""
        return AndroidEnvConfig(target=self.target, profile=self.profile)

    def guard_for(self, task: TaskInstance, handoff: Sequence[str] = ()) -> ActionGuard | None:
        """The guard of one episode of ``task`` (None with ``guard="off"``) on a phone whose
        apps pass through ``handoff`` packages (its profile's)."""
        return task_guard(self.guard, task, self.allow, handoff)


class DeviceReport(BaseModel):
    """What ``mgb device info`` shows: the phone, its profile, its screen, what is on top."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    props: DeviceProps
    backend: BackendInfo
    profile: ProfileChoice
    screen: ScreenSpec
    foreground: Foreground


def list_devices(target: AdbTarget) -> list[AttachedDevice]:
    """Every device of the adb server (``adb devices -l``)."""
    return target.devices()


async def describe_device(target: AdbTarget, profile: str | None = None) -> DeviceReport:
    """Props, profile choice, screen and foreground of one device (no uiautomator2 needed)."""
    session = AdbSession(target)
    try:
        await session.open()
        props = await read_props(session, session.serial)
        driver = AndroidDriver(session)
        facts = await driver.screen()
        package, activity = await driver.foreground()
    finally:
        await session.close()
    choice = select_profile(props, profile)
    backend = BackendInfo(
        kind="virtual" if props.virtual else "device",
        model=props.model or None,
        android_version=props.android_version or None,
        serial=props.serial,
    )
    foreground = Foreground(app=choice.profile.app_of(package), package=package, activity=activity)
    return DeviceReport(
        props=props, backend=backend, profile=choice, screen=facts.spec(), foreground=foreground
    )


def check_tasks(tasks: Sequence[str], registry: TaskRegistry | None = None) -> None:
    """Raise ``UnknownTask`` (naming the closest ids) for a task id no template has."""
    registry = default_registry() if registry is None else registry
    for task_id in tasks:
        registry.get(task_id)


def check_retail(tasks: Sequence[str], registry: TaskRegistry | None = None) -> None:
    """Raise ``TaskUnsupported`` naming the tasks a retail phone cannot be made to pose, each
    with :func:`bridge.retail.retail_refusal`'s reason."""
    registry = default_registry() if registry is None else registry
    refused = []
    for task_id in tasks:
        reason = retail_refusal(registry.instantiate(task_id, 0))
        if reason is not None:
            refused.append(f"{task_id} ({reason})")
    if refused:
        raise TaskUnsupported(
            "a retail phone cannot pose these tasks (a spec that requires a fact runs only in "
            "the simulator and on the virtual phone): " + ", ".join(refused)
        )


def _jobs(config: DeviceRunConfig, handoff: Sequence[str]) -> list[EpisodeJob]:
    env_config = config.env_config()

    async def make_env() -> AndroidEnv:
        return AndroidEnv(env_config)

    def guard_for(task: TaskInstance) -> ActionGuard | None:
        return config.guard_for(task, handoff)

    return grid_jobs(config, default_registry(), config.policy, make_env, guard_for=guard_for)


async def run_device(
    config: DeviceRunConfig,
    on_done: Callable[[EpisodeRecord], None] | None = None,
) -> list[EpisodeRecord]:
    """Run every (task, seed, lang) episode on the phone, resuming a run that exists.

    Raises:
        UnknownTask: no template has a task id (nothing is run).
        TaskUnsupported: a real phone, and a task a retail phone cannot pose
            (:func:`bridge.retail.retail_refusal`).
        DeviceError: the phone cannot be reached (a wrong serial, no adb server).
        ProfileError: an unknown profile name.
        ValueError: an unknown policy spec.
        RunLocked: another process writes ``config.out`` (nothing is written).
        InfraErrorsInARow: the same infra error ended too many episodes in a row.
    """
    await preflight(config.policy)  # a typo or a dead endpoint: one error, not one per episode
    check_tasks(config.tasks)
    if config.profile is not None:
        load_profile(config.profile)  # an unknown name fails here, not in every episode
    report = await describe_device(config.target, config.profile)  # a wrong serial: here
    if report.backend.kind == "device":
        check_retail(config.tasks)
    await check_ready(config.target, config.profile)  # what the doctor finds: one line
    jobs = _jobs(config, report.profile.profile.handoff_packages)
    manifest = RunManifest(
        config=config.model_dump(mode="json", exclude={"out", "infra_errors_in_a_row"}),
        versions=run_versions(),
        seeds=list(config.seeds),
    )
    announce_resume(config.out)  # a damaged episode is re-run: say so first
    done = InfraBreaker(config.infra_errors_in_a_row).watch(on_done)
    with RunStore.create(config.out, manifest, resume=True, extendable=GRID, lock=True) as store:
        records = await run_episodes(
            jobs,
            store=store,
            concurrency=1,
            step_timeout_s=config.step_timeout_s,
            tree_xml=tree_xml,
            on_episode_done=done,
        )
        write_run_index(store)
    return records
