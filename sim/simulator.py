"""The simulator process: apps, instances, a Chromium page pool and the loopback server.

:class:`Simulator` is the one object a program needs: ``async with Simulator() as sim`` starts
Chromium and a FastAPI server on 127.0.0.1 (the page runtime talks to it), then
``await sim.env()`` gives a :class:`~sim.env.SimEnv` (bridge.Env) on a fresh instance. Many
instances share the few pages; an instance costs only its JSON state.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import socket
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AsyncExitStack
from typing import TYPE_CHECKING, Any, Literal

import uvicorn
from pydantic import BaseModel, ConfigDict, Field

from bridge.browser import launch_chromium
from bridge.records import TaskInstance
from sim.app import App
from sim.errors import SimError, UnknownInstance
from sim.instance import Instance
from sim.launcher import grid_for_screen
from sim.pages import PagePool, SimProfile
from sim.phone import Phone
from sim.state import InstanceState

if TYPE_CHECKING:
    from sim.env import SimEnv
    from sim.tasks.registry import TaskRegistry

__all__ = ["SimConfig", "Simulator", "installed_apps"]


class _Server(uvicorn.Server):
    """uvicorn without its signal handlers: it would stop the server at Ctrl-C (and keep a
    background job's ignored SIGINT ignored) while the pages still fetch from it; the
    program that runs the simulator decides what a signal does, and closes it in order."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


class SimConfig(BaseModel):
    """How to run a simulator: pages, screen, server address, screenshot encoding."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    pages: int = Field(default=2, ge=1, le=64)
    profile: SimProfile = Field(default_factory=SimProfile)
    host: str = "127.0.0.1"
    port: int = Field(default=0, ge=0, le=65535)
    token: str | None = Field(default=None, min_length=16)
    """Required (Bearer header or ``?token=``) from clients that are not on loopback."""
    image_format: Literal["jpeg", "png"] = "jpeg"
    jpeg_quality: int = Field(default=80, ge=1, le=100)
    serve_env_api: bool = True
    max_envs: int = Field(default=1024, ge=1)
    """Envs the env API keeps at once; a create or fork beyond it is refused (429)."""
    idle_expiry_s: float | None = Field(default=3600.0, gt=0, allow_inf_nan=False)
    """An env of the env API unused this long is closed (None: never)."""
    allowed_hosts: tuple[str, ...] = ()
    """Host names loopback clients may use besides loopback ones and ``host``."""


def installed_apps() -> list[App]:
    """The apps installed on a fresh simulated phone: every app under ``sim/apps/``."""
    from sim.discovery import scan_apps

    return scan_apps()


def _listening_socket(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET  # [::1], ::
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(512)
    sock.setblocking(False)
    return sock


class Simulator:
    """Owns the phone model, the instances, Chromium, the page pool and the HTTP server."""

    def __init__(
        self,
        config: SimConfig | None = None,
        apps: Iterable[App] | None = None,
        tasks: TaskRegistry | None = None,
    ) -> None:
        self.config = config or SimConfig()
        grid = grid_for_screen(*self.config.profile.css_size)
        self.phone = Phone(installed_apps() if apps is None else apps, launcher_grid=grid)
        self._tasks = tasks
        self.instances: dict[str, Instance] = {}
        self._ids = itertools.count(1)
        self._stack: AsyncExitStack | None = None
        self._pool: PagePool | None = None
        self._server: uvicorn.Server | None = None
        self._serve_task: asyncio.Task[None] | None = None
        self._ready = False
        self.clock: Callable[[], float] = time.monotonic
        """Seconds for the env API's idle expiry (a test may put a clock of its own)."""
        self.base_url = ""

    @property
    def ready(self) -> bool:
        """Whether Chromium and the page pool are up, so envs can be served."""
        return self._ready and self._pool is not None

    @property
    def tasks(self) -> TaskRegistry:
        """The task registry (the default one unless another was given)."""
        if self._tasks is None:
            from sim.tasks.registry import default_registry

            self._tasks = default_registry(self.phone.apps.values())
        return self._tasks

    def bind(self, task: TaskInstance) -> TaskInstance:
        """``task`` with its spec bound by this simulator's registry (from its id, seed and
        language), for tasks that arrive without one.

        Raises:
            SimError: the parameters ``task`` carries are not the ones its seed gives.
        """
        bound = self.tasks.instantiate(task.task_id, task.seed, task.lang)
        if task.params and task.params != bound.params:
            raise SimError(
                f"{task.task_id} seed {task.seed}: the task's parameters are not the ones its "
                "seed gives; send the task as the registry instantiates it (with its spec)"
            )
        return task.model_copy(update={"spec": bound.spec, "params": bound.params})

    @property
    def pool(self) -> PagePool:
        """The page pool; only available between ``start`` and ``close``."""
        if self._pool is None:
            raise SimError("the simulator is not started: use `async with Simulator() as sim`")
        return self._pool

    # ---- lifecycle
    async def start(self) -> Simulator:
        """Start the server and Chromium and load the page pool."""
        from sim.server import build_app

        self._stack = AsyncExitStack()
        sock = _listening_socket(self.config.host, self.config.port)
        host, port = sock.getsockname()[:2]
        self.base_url = f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"
        server_config = uvicorn.Config(
            build_app(self), log_level="warning", access_log=False, lifespan="off"
        )
        self._server = _Server(server_config)
        self._serve_task = asyncio.create_task(self._server.serve(sockets=[sock]))
        browser = await self._stack.enter_async_context(launch_chromium())
        self._pool = PagePool(browser, self.base_url, self.config.profile, self.config.pages)
        await self._pool.start()
        self._ready = True
        return self

    async def close(self) -> None:
        """Stop everything; idempotent."""
        self._ready = False
        if self._pool is not None:
            await self._pool.close()
            self._pool = None
        if self._stack is not None:
            await self._stack.aclose()
            self._stack = None
        if self._server is not None and self._serve_task is not None:
            self._server.should_exit = True
            await self._serve_task
            self._server = self._serve_task = None

    async def __aenter__(self) -> Simulator:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # ---- instances
    def create_instance(self, seed: int = 0, state: InstanceState | None = None) -> Instance:
        """A new instance: factory state (or ``state``) with this seed."""
        instance_id = f"i{next(self._ids)}"
        instance = Instance(instance_id, state or InstanceState(seed=seed), self.phone)
        self.instances[instance_id] = instance
        return instance

    def instance(self, instance_id: str) -> Instance:
        """The live instance ``instance_id``."""
        try:
            return self.instances[instance_id]
        except KeyError:
            raise UnknownInstance(f"no live instance {instance_id!r}") from None

    def fork_instance(self, parent: Instance, n: int) -> list[Instance]:
        """``n`` new instances whose state equals ``parent``'s (route, scroll, focus too)."""
        if n < 1:
            raise ValueError(f"fork needs n >= 1, got {n}")
        return [self.create_instance(state=parent.state.model_copy(deep=True)) for _ in range(n)]

    def drop_instance(self, instance_id: str) -> None:
        """Forget an instance; idempotent."""
        instance = self.instances.pop(instance_id, None)
        if instance is not None:
            instance.closed = True

    async def env(self, seed: int = 0, **options: Any) -> SimEnv:
        """A bridge Env on a fresh instance of this simulator."""
        from sim.env import SimEnv

        return SimEnv(self, self.create_instance(seed), **options)

    def app_ids(self) -> Sequence[str]:
        """Installed app ids."""
        return list(self.phone.apps)
