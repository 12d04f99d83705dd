"""Starting a console: the world (simulator, virtual phone, phone, MobileGym), the task, the
policy, the run directory, the guard, and the web server — and taking all of it down again.

Everything a user can get wrong is checked before the world starts (:func:`check_config`):
the policy spec, the task id, the language, a reused ``--out`` that holds another kind of run,
the guard option. The same ``bridge.Env`` is used underneath in every world. With
``--policy human`` the person is the policy in the page itself (no terminal prompt, no
proposals): the session records their steps as ``human``.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import socket
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Literal

import uvicorn
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from bridge.env import Env
from bridge.errors import TrajectoryError
from bridge.guard import ActionGuard
from bridge.policy import Policy
from bridge.records import TaskInstance
from bridge.taskspec import TaskSpec
from bridge.trajectory import RunManifest, RunStore
from device.adb import AdbTarget
from device.doctor import check_ready
from device.env import AndroidEnv, AndroidEnvConfig
from device.profiles import VIRTUAL_PROFILE, load_profile
from device.virtual.perturb import Perturbations
from mobilegym.errors import MobileGymSourceError
from mobilegym.poseable import mobilegym_refusal
from mobilegym.source import is_mobilegym, parse_source
from mobilegym.world import MobileGym
from policies.registry import load, parse_spec, preflight
from sim.env import SimEnv
from sim.server import is_loopback
from sim.simulator import SimConfig, Simulator
from sim.tasks.registry import default_registry
from transfer_eval.console.live import LiveFeed
from transfer_eval.console.server import build_console_app
from transfer_eval.console.session import ConsoleSession
from transfer_eval.device_run import describe_device
from transfer_eval.errors import ConsoleSetupError
from transfer_eval.guards import task_guard
from transfer_eval.jobs import attended, episode_id
from transfer_eval.policy_factory import policy_factory, run_versions, tree_xml

__all__ = ["ConsoleConfig", "RunningConsole", "check_config", "open_console"]

FREE_TASK = "console/free"
"""The task id of a console started without ``--task`` (no checks; the person's goal)."""
GuardChoice = Literal["auto", "off", "apps", "all"]


class ConsoleConfig(BaseModel):
    """What ``mgb console`` starts: a world, an optional policy and task, a run directory."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    device: str = Field(min_length=1)
    """``sim``, ``virtual``, ``mobilegym:PATH``/``mobilegym:URL``, or an adb serial."""
    policy: str | None = None
    """A policy spec; ``human``: the person decides every step in the page."""
    task: str | None = None
    seed: int = 0
    lang: Literal["en", "zh"] = "en"
    instruction: str | None = None
    out: Path | None = None
    host: str = "127.0.0.1"
    port: int = Field(default=8770, ge=0, le=65535)
    token: str | None = None
    adb_host: str = "127.0.0.1"
    adb_port: int = 5037
    profile: str | None = None
    guard: GuardChoice = "auto"
    """``auto``: the full guard on a real phone, none in the simulator or virtual phone."""
    allow: list[str] = Field(default_factory=list)
    """More app ids or packages the guard lets the run use."""

    @property
    def human(self) -> bool:
        """Whether the person is the policy (``--policy human``)."""
        return self.policy is not None and attended(self.policy)

    @field_validator("device")
    @classmethod
    def _a_build_is_there(cls, device: str) -> str:
        if is_mobilegym(device):
            try:
                parse_source(device)
            except MobileGymSourceError as exc:  # the option and value are said before it
                raise ValueError(str(exc).removeprefix(f"{device}: ")) from None
        return device

    @property
    def world(self) -> Literal["sim", "virtual", "device", "mobilegym"]:
        """Which kind of world ``device`` names."""
        if self.device == "sim":
            return "sim"
        if is_mobilegym(self.device):
            return "mobilegym"
        return "virtual" if self.device == "virtual" else "device"

    def run_dir(self, now: datetime | None = None) -> Path:
        """``--out``, or ``runs/console-<world>-<time>``."""
        stamp = (now or datetime.now()).strftime("%Y%m%d-%H%M%S")
        return self.out or Path("runs") / f"console-{self.world}-{stamp}"

    def guard_for(self, task: TaskInstance | None) -> ActionGuard | None:
        """The guard this console runs with (None: no guard)."""
        if self.guard == "auto":
            return task_guard("all" if self.world == "device" else "off", task, self.allow)
        return task_guard(self.guard, task, self.allow)


def check_config(config: ConsoleConfig) -> None:
    """Fail before anything starts on what cannot work.

    Raises:
        PolicySpecError: a malformed policy spec.
        UnknownTask: no template has the task id (naming the nearest).
        ConsoleSetupError: ``--seed``/``--lang`` without a task, ``scripted`` without a
            task, an ``--out`` that holds a run of another kind, a ``--profile`` the virtual
            phone cannot play.
    """
    if config.policy is not None:
        parse_spec(config.policy)
    if config.world == "virtual" and config.profile is not None:
        try:
            Perturbations(profile=config.profile)  # the phone the virtual phone plays
        except ValidationError as exc:
            raise ConsoleSetupError(f"--profile: {exc.errors()[0]['msg']}") from exc
    if config.task is not None:
        default_registry().get(config.task)
        if config.world == "mobilegym":
            spec = default_registry().instantiate(config.task, config.seed, config.lang).spec
            why = "it carries no spec" if spec is None else mobilegym_refusal(spec)
            if why is not None:
                raise ConsoleSetupError(
                    f"--task {config.task} (seed {config.seed}, {config.lang}): MobileGym "
                    f"cannot pose it: {why}"
                )
    elif config.policy is not None and config.policy.strip().startswith("scripted"):
        raise ConsoleSetupError(
            "--policy scripted follows a task's oracle plan: give --task ID, or another policy"
        )
    if config.out is not None and (config.out / "manifest.json").exists():
        try:
            store = RunStore.open(config.out)
        except TrajectoryError as exc:
            raise ConsoleSetupError(f"--out {config.out}: {exc}") from exc
        if store.manifest.config.get("console") is not True:
            raise ConsoleSetupError(
                f"--out {config.out} holds a run that is not a console run; pick a new folder"
            )
    elif config.out is not None and config.out.exists() and any(config.out.iterdir()):
        raise ConsoleSetupError(
            f"--out {config.out} is not empty and is not a run directory; pick a new folder"
        )


def _task(config: ConsoleConfig) -> tuple[TaskInstance, bool, Callable[[], Policy] | None]:
    """The task, whether it is judged, and the policy factory (None when the person
    decides: no policy, or ``human``)."""
    if config.task is None:
        instruction = config.instruction or "Explore the phone; the person gives the goal."
        task = TaskInstance(
            task_id=FREE_TASK, seed=config.seed, instruction=instruction, lang=config.lang,
            max_steps=200, spec=TaskSpec(open_ended=True),
        )  # fmt: skip
        spec = None if config.human else config.policy
        make = (lambda: load(spec, seed=config.seed)) if spec is not None else None
        return task, False, make
    registry = default_registry()
    task = registry.instantiate(config.task, config.seed, config.lang)
    if config.instruction:
        task = task.model_copy(update={"instruction": config.instruction})
    make = None
    if config.policy is not None and not config.human:
        skin = (
            load_profile(config.profile).skin
            if config.world == "virtual" and config.profile
            else "aosp"
        )
        make = policy_factory(config.policy, registry.get(config.task), task, skin=skin)
    return task, True, make


def _store(config: ConsoleConfig, root: Path) -> RunStore:
    manifest = RunManifest(
        config={"console": True, "device": config.world, "policy": config.policy},
        versions=run_versions(),
        seeds=[config.seed],
    )
    if (root / "manifest.json").exists():
        store = RunStore.open(root)  # a console run: new attempts are added to it
        store.repair()
        return store
    return RunStore.create(root, manifest)


@dataclass
class RunningConsole:
    """A console that serves its page: the URL to open and the session behind it."""

    url: str
    session: ConsoleSession
    feed: LiveFeed | None
    token: str | None
    serving: asyncio.Task[None]

    async def wait(self) -> None:
        """Until the server stops (Ctrl-C)."""
        await asyncio.shield(self.serving)

    @property
    def run_dir(self) -> Path:
        """Where the console records."""
        return self.session.store.root


@contextlib.asynccontextmanager
async def _world(config: ConsoleConfig) -> AsyncIterator[Callable[[], Env]]:
    """A factory of the env for the configured world, alive for the block."""
    if config.world == "sim":
        async with Simulator(SimConfig(pages=1)) as sim:
            yield lambda: SimEnv(sim, sim.create_instance(config.seed))
        return
    if config.world == "mobilegym":
        async with MobileGym(parse_source(config.device)) as gym:
            env = await gym.env()
            yield lambda: env  # the console makes its env once
        return
    if config.world == "virtual":
        from device.virtual.attach import attach_virtual_phone

        plays = Perturbations(profile=config.profile or VIRTUAL_PROFILE)  # checked already
        with attach_virtual_phone(seed=config.seed, perturbations=plays) as attached:
            target = AdbTarget(port=attached.adb_port, serial=attached.serial)
            yield lambda: AndroidEnv(AndroidEnvConfig(target=target))  # it says what it plays
        return
    target = AdbTarget(host=config.adb_host, port=config.adb_port, serial=config.device)
    await describe_device(target, config.profile)  # a wrong serial fails here, in one line
    await check_ready(target, config.profile)  # and a phone a run cannot use yet
    yield lambda: AndroidEnv(AndroidEnvConfig(target=target, profile=config.profile))


def _listening(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise ConsoleSetupError(
            f"cannot listen on {host}:{port} ({exc.strerror}); pick another --port (0: any)"
        ) from exc
    sock.listen(64)
    return sock


class _Server(uvicorn.Server):
    """uvicorn without its signal handlers: Ctrl-C reaches asyncio, which cancels the
    console's task, and the console shuts down in order (episode, feed, server, world)."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield

    def install_signal_handlers(self) -> None:  # uvicorn before 0.29
        return None


@contextlib.asynccontextmanager
async def open_console(config: ConsoleConfig) -> AsyncIterator[RunningConsole]:
    """Start the world, the session and the web server; stop them all on exit (the episode
    in progress is committed as ``stopped``)."""
    check_config(config)
    if config.policy is not None and not config.human:  # a person here needs no terminal
        await preflight(config.policy)  # a dead endpoint fails before the world starts
    token = config.token
    if token is None and not is_loopback(config.host):
        token = secrets.token_urlsafe(24)
    sock = _listening(config.host, config.port)  # a taken port fails before the world starts
    task, judged, make_policy = _task(config)
    guard = config.guard_for(task if judged else None)
    async with _world(config) as make_env:
        store = _store(config, config.run_dir())
        prefix = episode_id(task.task_id, task.seed, task.lang)
        session = ConsoleSession(
            make_env(),
            task,
            store,
            make_policy=make_policy,
            episode_prefix=prefix,
            guard=guard,
            attended=config.world == "device",
            tree_xml=tree_xml,
            judged=judged,
            human=config.human,
        )
        try:
            await session.start()
            live = session.live
            feed = LiveFeed(live) if live is not None else None
            app = build_console_app(session, feed, token)
            server = _Server(
                uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off")
            )
            serving = asyncio.create_task(server.serve(sockets=[sock]))
            host, port = sock.getsockname()[:2]
            shown = f"[{host}]" if ":" in host else host
            url = f"http://{shown}:{port}/" + (f"?token={token}" if token else "")
            try:
                yield RunningConsole(url, session, feed, token, serving)
            finally:
                server.should_exit = True
                await session.release_waiters()  # the server waits for requests in flight
                if feed is not None:
                    await feed.close()
                await serving
        finally:
            await session.close()
            sock.close()
