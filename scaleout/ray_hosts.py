"""Simulator hosts as Ray actors, placed over a cluster's nodes and restarted when they die.

Each host is one actor running :class:`~scaleout.host.SimHost` (its own Chromium and page
pool, many instances). :func:`start_ray_hosts` places them: one per alive node
(``per_node``) or ``count`` spread over the nodes, each reserving ``cpus`` and any custom
``resources`` (``ray start --resources='{"sim": 4}'`` and ``resources={"sim": 1}`` keeps
hosts on the machines meant for them). :class:`RayHost` is the pool's side of one actor.

Failure semantics (why a dead host is an infra error, never a hang):
    * actors are created with ``max_restarts`` and ``max_task_retries=0``: Ray starts a
      dead host again, but never replays a step on it (a step is not idempotent);
    * a call in flight when the host dies raises :class:`~bridge.errors.EnvError`; a call
      about an env of the dead incarnation, after the restart, raises
      :class:`~scaleout.host.HostRestarted` (an ``EnvError`` too); a call that takes
      longer than ``call_timeout_s`` raises :class:`~bridge.errors.EnvTimeout`;
    * an exception of ours raised on the host (``EnvUsageError``, ``EnvRefused``) comes
      back as itself; anything else raised there is a bug and comes back as Ray's error.

Ray is an optional extra (``pip install mobilegym-bridge[ray]``); this module imports it
when hosts are started, and says how to install it when it is missing.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import TYPE_CHECKING, Any, Literal

from bridge.errors import BridgeError, EnvError, EnvTimeout, EnvUsageError
from bridge.records import TaskInstance
from bridge.schema import Action, Observation, StepResult, Verdict
from scaleout.errors import HostsUnavailable
from scaleout.host import HostConfig, HostInfo, SimHost
from sim.skins import DEFAULT_SKIN

if TYPE_CHECKING:
    from ray.actor import ActorHandle

__all__ = ["RayHost", "connect_ray", "import_ray", "start_ray_hosts"]

RESTART_POLL_S = 0.2
"""How often a call that waits for a restarting host (or for room) asks again."""
ROOM_WAIT_S = 10.0
"""How long a shortfall of cluster resources must last before hosts are refused."""
_INSTALL = "Ray is not installed: pip install 'mobilegym-bridge[ray]'"


def import_ray() -> Any:
    """The ``ray`` module, or one clear error saying how to install it."""
    try:
        import ray
    except ImportError as exc:
        raise HostsUnavailable(_INSTALL) from exc
    return ray


def connect_ray(address: str | None) -> bool:
    """Connect this process to Ray; True if this call started a local cluster.

    ``address``: ``None`` or ``"local"`` starts a one-node cluster on this machine (no
    dashboard; Ray binds the machine's address, not loopback, and guards it with its token
    authentication) unless this process is connected already; ``"auto"``, a
    ``HOST:PORT`` or a ``ray://HOST:PORT`` joins an existing cluster.
    """
    ray = import_ray()
    if ray.is_initialized():
        return False
    if address in (None, "local"):
        ray.init(
            include_dashboard=False,
            log_to_driver=False,
            configure_logging=False,
        )
        return True
    try:
        ray.init(address=address, log_to_driver=False, configure_logging=False)
    except ConnectionError as exc:
        raise HostsUnavailable(
            f"--ray {address}: no Ray cluster answers there ({exc}); start one with "
            "`ray start --head`, or give --ray alone for a local one"
        ) from exc
    return False


def start_ray_hosts(
    count: int | None = None,
    *,
    config: HostConfig | None = None,
    cpus: float = 1.0,
    resources: dict[str, float] | None = None,
    max_restarts: int = 3,
    call_timeout_s: float = 120.0,
) -> list[RayHost]:
    """Start simulator hosts on the connected cluster.

    Args:
        count: how many hosts, spread over the nodes; ``None``: one per alive node.
        config: each host's pages and limits.
        cpus: CPUs each host reserves (Ray schedules no more hosts on a node than fit).
        resources: custom resources each host reserves, e.g. ``{"sim": 1}``.
        max_restarts: how often Ray may restart a host that died.
        call_timeout_s: a call on a host that takes longer is an ``EnvTimeout``.
    """
    ray = import_ray()
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    actor_class = ray.remote(SimHost)
    base = {
        "num_cpus": cpus,
        "resources": resources or {},
        "max_restarts": max_restarts,
        "max_task_retries": 0,
        "max_concurrency": 1000,
    }
    if count is None:
        nodes = [node["NodeID"] for node in ray.nodes() if node["Alive"]]
        strategies: list[Any] = [NodeAffinitySchedulingStrategy(n, soft=False) for n in nodes]
    else:
        if count < 1:
            raise EnvUsageError(f"hosts: give at least 1, not {count}")
        strategies = ["SPREAD"] * count
    _check_room(ray, len(strategies), cpus, resources or {})
    hosts = []
    for index, strategy in enumerate(strategies):
        name = f"ray-host-{index}"
        actor = actor_class.options(scheduling_strategy=strategy, **base).remote(config, name)
        hosts.append(RayHost(actor, name, call_timeout_s=call_timeout_s))
    return hosts


def _check_room(ray: Any, count: int, cpus: float, resources: dict[str, float]) -> None:
    """Refuse hosts the cluster has no room for (Ray would leave them pending, and every
    call on them would wait out its timeout). Room that hosts just stopped give back is
    freed a moment later, so a shortfall is confirmed for :data:`ROOM_WAIT_S` first."""
    wanted = {"CPU": cpus * count} | {name: amount * count for name, amount in resources.items()}
    deadline = time.monotonic() + ROOM_WAIT_S
    while True:
        free = ray.available_resources()
        short = {name: amount for name, amount in wanted.items() if free.get(name, 0) < amount}
        if not short or time.monotonic() > deadline:
            break
        time.sleep(RESTART_POLL_S)  # poll interval while Ray frees what stopped hosts held
    if short:
        total = ray.cluster_resources()
        have = ", ".join(
            f"{name} {free.get(name, 0):g} free of {total.get(name, 0):g}" for name in short
        )
        need = ", ".join(f"{name} {amount:g}" for name, amount in short.items())
        raise HostsUnavailable(
            f"{count} simulator hosts need {need} but the cluster has {have}: start fewer "
            "hosts (--ray-hosts), add nodes, or stop what holds them"
        )


class RayHost:
    """One simulator host on a Ray actor (the pool's :class:`~scaleout.hosts.Host`)."""

    def __init__(self, actor: ActorHandle, name: str, *, call_timeout_s: float = 120.0) -> None:
        self.actor = actor
        self.name = name
        self.call_timeout_s = call_timeout_s

    async def info(self) -> HostInfo:
        """Where the host runs and how full it is (waiting out a restart)."""
        return await self._call_when_up("info")

    async def start(self) -> HostInfo:
        """Start the host's Chromium now rather than on its first env."""
        return await self._call_when_up("start")

    async def create(
        self,
        seed: int = 0,
        *,
        screenshot: bool = True,
        answer_mode: Literal["action", "sheet"] = "action",
        skin: str = DEFAULT_SKIN,
    ) -> str:
        """A new env on the host; its id (waiting out a restart of the host)."""
        return await self._call_when_up(
            "create", seed, screenshot=screenshot, answer_mode=answer_mode, skin=skin
        )

    async def reset(self, env_id: str, task: TaskInstance) -> Observation:
        """Pose ``task`` and observe."""
        return await self._call("reset", env_id, task)

    async def step(self, env_id: str, action: Action) -> StepResult:
        """Execute ``action``."""
        return await self._call("step", env_id, action)

    async def observe(self, env_id: str) -> Observation:
        """The current screen."""
        return await self._call("observe", env_id)

    async def verdict(self, env_id: str) -> Verdict:
        """Judge the task."""
        return await self._call("verdict", env_id)

    async def snapshot(self, env_id: str) -> bytes:
        """State and task as JSON bytes."""
        return await self._call("snapshot", env_id)

    async def restore(self, env_id: str, snapshot: bytes) -> Observation:
        """Return to ``snapshot`` and observe."""
        return await self._call("restore", env_id, snapshot)

    async def fork(self, env_id: str, n: int) -> list[str]:
        """``n`` copies on this host; their ids."""
        return await self._call("fork", env_id, n)

    async def close(self, env_id: str) -> None:
        """Close one env; an env lost with a dead host is closed already."""
        with contextlib.suppress(EnvError):  # gone or restarted: nothing left to close
            await self._call("close", env_id)

    async def shutdown(self) -> None:
        """Stop the host's simulator and end the actor."""
        ray = import_ray()
        with contextlib.suppress(EnvError):  # dead already
            await self._call("shutdown")
        ray.kill(self.actor, no_restart=True)

    async def _call_when_up(self, method: str, *args: Any, **kwargs: Any) -> Any:
        """:meth:`_call` for a call that holds no env (an info, a create): while Ray restarts
        the host it is unavailable, so ask again until it is back, within the call timeout.
        A call about an env does not wait: that env died with the host."""
        ray = import_ray()
        deadline = asyncio.get_running_loop().time() + self.call_timeout_s
        while True:
            try:
                return await self._call(method, *args, **kwargs)
            except EnvError as exc:
                unavailable = isinstance(exc.__cause__, ray.exceptions.ActorUnavailableError)
                if not unavailable or asyncio.get_running_loop().time() > deadline:
                    raise
            await asyncio.sleep(RESTART_POLL_S)  # poll interval while Ray restarts the actor

    async def _call(self, method: str, *args: Any, **kwargs: Any) -> Any:
        ray = import_ray()
        ref = getattr(self.actor, method).remote(*args, **kwargs)
        try:
            return await asyncio.wait_for(ref, self.call_timeout_s)
        except asyncio.TimeoutError as exc:
            ray.cancel(ref)
            raise EnvTimeout(
                f"{self.name} did not answer {method} in {self.call_timeout_s:g} s; it may be "
                "overloaded: run fewer envs per host or add hosts"
            ) from exc
        except ray.exceptions.RayTaskError as exc:
            cause = exc.cause
            if isinstance(cause, BridgeError):
                raise cause from None  # ours, raised on the host: it says what happened
            raise
        except ray.exceptions.RayActorError as exc:
            raise EnvError(
                f"{self.name} died during {method} ({type(exc).__name__}); Ray restarts it, "
                "but the envs it held are lost"
            ) from exc
