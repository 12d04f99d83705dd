"""Scale-out benchmark: a closed-loop step load on 1, 2 and 4 Ray hosts, on a pool of one
host in this process and on bare in-process envs; prints one JSON object.

    .venv/bin/python benchmarks/scale_bench.py [--quick] [--envs E] [--steps N]
        [--hosts 1,2,4] [--screenshots]

Each of E envs is reset to a Settings task, opens Settings, and then steps N times back to
back (a closed loop: the next step is sent when the last one answered), alternating a tap
on the Wi-Fi row and ``back``. The same load runs on:

* ``sim_env``: E bare :class:`~sim.env.SimEnv` of one in-process simulator (the baseline);
* ``local_pool``: E envs of ``EnvPool.local(1)`` (the pool's own cost, no transport);
* ``ray_K``: E envs of an ``EnvPool.ray`` of K hosts on a local cluster
  (``ray.cluster_utils.Cluster``) grown to K nodes of one CPU each, so that each host has
  a node of its own. Every host runs its own Chromium with the same pages as the baseline.

Each run measures one env stepping alone (what a step and its transport cost) and then all
E at once (the throughput, and latencies that include waiting for a page). It also times
``fork(8)`` of a posed env on its own host (a copy in memory) and, with two hosts or more,
a spread ``fork(8)`` (the parent's host full: a snapshot, then a create and a restore on
the other hosts). The ratios to ``sim_env`` are the pool's overhead, measured in one run.

The nodes of a local cluster share this machine's cores: hosts beyond ``cpus`` are
oversubscribed, and the JSON says so rather than implying parallelism the machine does not
have. Screenshots are off unless ``--screenshots`` (then their bytes cross Ray). Progress
lines go to stderr. Every process started here (Chromium, Ray's nodes and workers) is
stopped when it exits, after Ctrl-C too (see :class:`Runner`; exit status 130).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import statistics
import sys
import time
from collections.abc import Awaitable, Callable, Coroutine, Iterator, Sequence
from dataclasses import dataclass
from types import FrameType
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict, Field, PositiveInt

from bridge.records import TaskInstance
from bridge.schema import (
    Action,
    KeyAction,
    Observation,
    OpenAppAction,
    StepResult,
    TapAction,
    Target,
)
from scaleout.host import HostConfig
from scaleout.pool import EnvPool
from scaleout.ray_hosts import import_ray
from sim.simulator import SimConfig, Simulator
from sim.tasks.registry import default_registry

PAGES = 2
"""Chromium pages per host (and of the baseline simulator)."""
FORK_N = 8
TASK_ID = "settings/SetAirplaneMode-v1"
ROW = "wifi_settings"
"""The Settings row the load taps (then ``back``)."""
NODE = {"num_cpus": 1, "include_dashboard": False}
"""Each node of the local cluster: one CPU, so a host (which reserves one) has it alone."""
PLAN = f"reset to {TASK_ID}, open Settings; then alternate a tap on the Wi-Fi row and back"

T = TypeVar("T")
Stage = Callable[[str], None]


class Options(BaseModel):
    """What to run."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    quick: bool = False
    envs: int = Field(default=16, ge=1)
    steps: int = Field(default=30, ge=1)
    """Timed steps per env."""
    hosts: tuple[PositiveInt, ...] = Field(default=(1, 2, 4), min_length=1)
    screenshots: bool = False
    fork_repeats: int = Field(default=5, ge=1)

    @property
    def max_envs(self) -> int:
        """Each host's limit: the whole load fits on one host, and so do a parent and its
        fork."""
        return max(self.envs, 1 + FORK_N)


class Load(BaseModel):
    """What one closed loop measured."""

    envs: int
    steps: int
    seconds: float
    steps_per_s: float
    step_ms_p50: float
    step_ms_p95: float
    step_ms_max: float
    first_env_done_s: float
    last_env_done_s: float
    """When the first and the last env had made their steps: far apart when some envs
    wait while others step (an unfair queue for pages), close when the load is shared."""
    step_errors: int
    """Steps whose action failed (``last_action_error``): 0 unless the plan broke."""


@dataclass
class _Drive:
    """One env's closed loop: each step's milliseconds, when it ended, failed steps."""

    times_ms: list[float]
    done_s: float
    errors: int


class _Env(Protocol):
    """What the load needs of an env (a ``SimEnv`` and a ``PoolEnv`` both are)."""

    async def reset(self, task: TaskInstance) -> Observation: ...
    async def step(self, action: Action) -> StepResult: ...
    async def observe(self) -> Observation: ...
    async def close(self) -> None: ...


# ---- the load
def _pct(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def _timed(call: Awaitable[T]) -> tuple[float, T]:
    """Milliseconds ``call`` took, and its value."""
    started = time.perf_counter()
    value = await call
    return (time.perf_counter() - started) * 1000, value


def _next_action(observation: Observation) -> Action:
    """On the Settings list, tap the row; on the page it opens, go back."""
    row = next((n for n in observation.ui if n.resource_id.endswith(ROW)), None)
    return KeyAction(key="back") if row is None else TapAction(target=Target.node(row.id))


async def _drive(env: _Env, observation: Observation, steps: int) -> _Drive:
    """``steps`` steps back to back."""
    times, errors = [], 0
    for _ in range(steps):
        elapsed, result = await _timed(env.step(_next_action(observation)))
        times.append(elapsed)
        errors += result.error is not None
        observation = result.observation
    return _Drive(times, time.perf_counter(), errors)


async def _warm(env: _Env, task: TaskInstance) -> Observation:
    """Pose the task, open Settings, and step one untimed pair (first renders cost more)."""
    await env.reset(task)
    observation = (await env.step(OpenAppAction(app="settings"))).observation
    for _ in range(2):
        observation = (await env.step(_next_action(observation))).observation
    return observation


async def _loop(envs: Sequence[_Env], observations: Sequence[Observation], steps: int) -> Load:
    """Every env steps ``steps`` times, all at once."""
    started = time.perf_counter()
    drives = await asyncio.gather(
        *(_drive(env, obs, steps) for env, obs in zip(envs, observations, strict=True))
    )
    seconds = time.perf_counter() - started
    times = [t for drive in drives for t in drive.times_ms]
    done = sorted(drive.done_s - started for drive in drives)
    return Load(
        envs=len(envs),
        steps=len(times),
        seconds=round(seconds, 2),
        steps_per_s=round(len(times) / seconds, 2),
        step_ms_p50=round(_pct(times, 0.5), 1),
        step_ms_p95=round(_pct(times, 0.95), 1),
        step_ms_max=round(max(times), 1),
        first_env_done_s=round(done[0], 2),
        last_env_done_s=round(done[-1], 2),
        step_errors=sum(drive.errors for drive in drives),
    )


async def _loads(envs: Sequence[_Env], task: TaskInstance, steps: int) -> dict[str, Any]:
    """One env stepping alone (the cost of a step, no queue), then every env at once (the
    throughput); the envs are closed after."""
    observations = list(await asyncio.gather(*(_warm(env, task) for env in envs)))
    alone = await _loop(envs[:1], observations[:1], steps)
    observations[0] = await envs[0].observe()  # where the alone loop left it
    load = await _loop(envs, observations, steps)
    for env in envs:
        await env.close()
    alone_figures = alone.model_dump(exclude={"envs", "first_env_done_s", "last_env_done_s"})
    return {"alone": alone_figures, "load": load.model_dump()}


def _task() -> TaskInstance:
    return default_registry().instantiate(TASK_ID, 0, "en")


# ---- forks
async def _fork_ms(parent: Any, repeats: int, where: Callable[[Any], bool]) -> float:
    """Median milliseconds of ``parent.fork(8)``; ``where`` checks each copy's place."""
    times = []
    for _ in range(repeats):
        elapsed, group = await _timed(parent.fork(FORK_N))
        assert all(where(child) for child in group), "a copy is not where it should be"
        times.append(elapsed)
        await _close_all(group)
    return round(statistics.median(times), 2)


async def _fork_on_host(pool: EnvPool, task: TaskInstance, repeats: int) -> float:
    """``fork(8)`` of a posed env whose host has room for the group (copies in memory)."""
    parent = await pool.env(screenshot=False)
    await parent.reset(task)
    elapsed = await _fork_ms(parent, repeats, lambda child: child.host is parent.host)
    await parent.close()
    return elapsed


async def _fork_spread(pool: EnvPool, task: TaskInstance, repeats: int) -> float:
    """``fork(8)`` of a posed env whose host is full: all 8 copies are made on the other
    hosts from its snapshot."""
    parent = await pool.env(screenshot=False)
    await parent.reset(task)
    info = (await pool.load())[pool.hosts.index(parent.host)]
    room = info.max_envs - info.envs
    fillers = await parent.fork(room) if room else []  # in memory on its host: cheap
    elapsed = await _fork_ms(parent, repeats, lambda child: child.host is not parent.host)
    await _close_all([*fillers, parent])
    return elapsed


async def _close_all(envs: Sequence[Any]) -> None:
    for env in envs:
        await env.close()


# ---- running the stages
class Runner:
    """Runs the benchmark's stages: progress lines on stderr, and Ctrl-C handled so that
    what a stage started is stopped before the benchmark exits.

    Ctrl-C cancels the stage on the event loop (its ``async with`` blocks stop the pools,
    their hosts and Chromium); between stages it is raised at the next :meth:`check`, so a
    cluster step in progress (starting a node) ends first and the cluster knows every
    process it has to stop. A simulator's page server (uvicorn) takes SIGINT while it
    serves and passes it on here once it has stopped, so such a stage ends with the error
    of its broken pages instead: :attr:`interrupted` says that it was Ctrl-C all the same.
    """

    def __init__(self) -> None:
        self.began = time.perf_counter()
        self.interrupted = False
        self._task: asyncio.Task[Any] | None = None

    def stage(self, name: str) -> None:
        """A progress line, with the seconds since the start."""
        elapsed = time.perf_counter() - self.began
        print(f"scale_bench [{elapsed:5.1f} s]: {name}", file=sys.stderr, flush=True)

    def run(self, stage: Coroutine[Any, Any, T]) -> T:
        """Run an async stage on a fresh event loop."""
        self.check()
        return asyncio.run(self._main(stage))

    def check(self) -> None:
        """Raise ``KeyboardInterrupt`` if Ctrl-C was pressed."""
        if self.interrupted:
            raise KeyboardInterrupt

    @contextlib.contextmanager
    def handling_ctrl_c(self) -> Iterator[None]:
        """Take SIGINT while the benchmark runs."""
        previous = signal.signal(signal.SIGINT, self._on_sigint)
        try:
            yield
        finally:
            signal.signal(signal.SIGINT, previous)

    async def _main(self, stage: Coroutine[Any, Any, T]) -> T:
        self._task = asyncio.current_task()
        try:
            return await stage
        finally:
            self._task = None

    def _on_sigint(self, signum: int, frame: FrameType | None) -> None:
        if self.interrupted:  # once is enough: a second cancel would cut the clean-up short
            return
        self.interrupted = True  # no print here: a signal handler must not write to stderr
        if self._task is not None:
            self._task.get_loop().call_soon_threadsafe(self._task.cancel)


# ---- the runs
async def _sim_env_run(options: Options, task: TaskInstance) -> dict[str, Any]:
    """The baseline: bare envs of one simulator in this process."""
    async with Simulator(SimConfig(pages=PAGES)) as sim:
        envs = [await sim.env(screenshot=options.screenshots) for _ in range(options.envs)]
        loads = await _loads(envs, task, options.steps)
        parent = await sim.env(screenshot=False)
        await parent.reset(task)
        fork_ms = await _fork_ms(parent, options.fork_repeats, lambda _: True)
        await parent.close()
    return {"hosts": 0, **loads, "fork8_ms": fork_ms}


async def _pool_run(
    pool: EnvPool, options: Options, task: TaskInstance, stage: Stage
) -> dict[str, Any]:
    """Start the pool's hosts, run the load on it, and time its forks."""
    stage(f"  start {len(pool.hosts)} host(s)")
    started = time.perf_counter()
    infos = await asyncio.gather(*(host.start() for host in pool.hosts))  # type: ignore[attr-defined]  # local and Ray hosts start; the Host protocol does not
    result: dict[str, Any] = {
        "hosts": len(infos),
        "host_nodes": len({info.node for info in infos}),
        "host_start_s": round(time.perf_counter() - started, 2),
    }
    stage(f"  load: {options.envs} envs x {options.steps} steps")
    envs = [await pool.env(screenshot=options.screenshots) for _ in range(options.envs)]
    result |= await _loads(envs, task, options.steps)
    stage("  forks")
    result["fork8_on_host_ms"] = await _fork_on_host(pool, task, options.fork_repeats)
    if len(infos) > 1:
        result["fork8_spread_ms"] = await _fork_spread(pool, task, options.fork_repeats)
    return result


async def _local_run(options: Options, task: TaskInstance, stage: Stage) -> dict[str, Any]:
    config = HostConfig(pages=PAGES, max_envs=options.max_envs)
    async with EnvPool.local(1, config) as pool:
        return await _pool_run(pool, options, task, stage)


async def _ray_run(
    hosts: int, options: Options, task: TaskInstance, stage: Stage
) -> dict[str, Any]:
    config = HostConfig(pages=PAGES, max_envs=options.max_envs)
    async with await EnvPool.ray(hosts=hosts, config=config, cpus=1.0) as pool:
        return await _pool_run(pool, options, task, stage)


@contextlib.contextmanager
def _ray_cluster(runner: Runner) -> Iterator[Any]:
    """A local Ray cluster of one node of one CPU, this process connected to it; every
    process of it is stopped on the way out."""
    from ray.cluster_utils import Cluster

    ray = import_ray()
    cluster = Cluster(initialize_head=True, head_node_args=NODE)
    try:
        runner.check()
        ray.init(address=cluster.address, log_to_driver=False, configure_logging=False)
        yield cluster
    finally:
        ray.shutdown()
        cluster.shutdown()


def _grow(cluster: Any, nodes: int, runner: Runner) -> None:
    """Add nodes of one CPU until the cluster has ``nodes``."""
    for _ in range(nodes - len(cluster.list_all_nodes())):
        cluster.add_node(**NODE)
        runner.check()
    cluster.wait_for_nodes()


def _ray_runs(options: Options, task: TaskInstance, runner: Runner) -> tuple[float, dict[str, Any]]:
    """The load on K hosts for each K asked, on a cluster grown to K nodes of one CPU, so
    that each host has a node of its own; and the seconds the cluster's head took to start."""
    runs: dict[str, Any] = {}
    runner.stage("start a local Ray cluster (a head node)")
    started = time.perf_counter()
    with _ray_cluster(runner) as cluster:
        head_s = time.perf_counter() - started
        for hosts in sorted(set(options.hosts)):
            runner.stage(f"{hosts} Ray host(s): grow the cluster to {hosts} node(s)")
            started = time.perf_counter()
            _grow(cluster, hosts, runner)
            grown_s = time.perf_counter() - started
            run = runner.run(_ray_run(hosts, options, task, runner.stage))
            runs[f"ray_{hosts}"] = run | {
                "nodes": len(cluster.list_all_nodes()),
                "nodes_added_s": round(grown_s, 2),
                "oversubscribed": hosts > _cpus(),
            }
        runner.stage("stop the cluster")
    return round(head_s, 2), runs


def _cpus() -> int:
    return os.cpu_count() or 1


def _ratio(run: dict[str, Any], base: dict[str, Any], part: str, key: str) -> float:
    return round(run[part][key] / base[part][key], 2)


def _ratios(runs: dict[str, dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Each pool run against the bare envs: throughput under the load (below 1: slower),
    latency (above 1: slower), and what the transport adds to one step of an env alone."""
    base = runs["sim_env"]
    return {
        f"{name}_vs_sim_env": {
            "load_steps_per_s": _ratio(run, base, "load", "steps_per_s"),
            "load_step_ms_p50": _ratio(run, base, "load", "step_ms_p50"),
            "load_step_ms_p95": _ratio(run, base, "load", "step_ms_p95"),
            "alone_step_ms_p50": _ratio(run, base, "alone", "step_ms_p50"),
            "alone_step_ms_p50_added": round(
                run["alone"]["step_ms_p50"] - base["alone"]["step_ms_p50"], 1
            ),
        }
        for name, run in runs.items()
        if name != "sim_env"
    }


def run_bench(options: Options, runner: Runner) -> dict[str, Any]:
    """Every run of the benchmark; the JSON-ready figures."""
    task = _task()
    runs: dict[str, dict[str, Any]] = {}
    runner.stage(f"bare SimEnv in this process: {options.envs} envs x {options.steps} steps")
    runs["sim_env"] = runner.run(_sim_env_run(options, task))
    runner.stage("EnvPool.local(1)")
    runs["local_pool"] = runner.run(_local_run(options, task, runner.stage))
    head_start_s, ray_runs = _ray_runs(options, task, runner)
    runs |= ray_runs
    cpus = _cpus()
    over = [hosts for hosts in options.hosts if hosts > cpus]
    return {
        **options.model_dump(exclude={"fork_repeats"}),
        "cpus": cpus,
        "pages_per_host": PAGES,
        "max_envs_per_host": options.max_envs,
        "ray_head_start_s": head_start_s,
        "plan": PLAN,
        "runs": runs,
        "ratios": _ratios(runs),
        "notes": [
            (
                f"this machine has {cpus} cores: {over} hosts oversubscribe it (each host is "
                "a Chromium and a Ray node on these cores), so more hosts cannot add steps/s "
                "here; on a cluster, one host per node scales with the nodes"
                if over
                else f"this machine has {cpus} cores; every host count fits them"
            ),
            "load: every env at once, so its latencies include waiting for a page; alone: "
            "one env stepping by itself, the cost of a step and of its transport",
        ],
    }


def _options(argv: Sequence[str]) -> Options:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small counts (< 90 s)")
    parser.add_argument("--envs", type=int, help="envs stepping at once (default 16; quick 4)")
    parser.add_argument("--steps", type=int, help="timed steps per env (default 30; quick 8)")
    parser.add_argument("--hosts", default="1,2,4", help="Ray host counts, e.g. 1,2,4")
    parser.add_argument("--screenshots", action="store_true", help="observations with images")
    args = parser.parse_args(argv)
    quick = {"envs": 4, "steps": 8, "fork_repeats": 2} if args.quick else {}
    given = {"envs": args.envs, "steps": args.steps}
    try:
        return Options(
            quick=args.quick,
            hosts=tuple(int(part) for part in args.hosts.split(",")),
            screenshots=args.screenshots,
            **(quick | {key: value for key, value in given.items() if value is not None}),
        )
    except ValueError as exc:  # a count that is no number, or one Options refuses
        parser.error(str(exc))


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the options, run, print the JSON; 130 after Ctrl-C (everything stopped)."""
    options = _options(sys.argv[1:] if argv is None else argv)
    runner = Runner()
    with runner.handling_ctrl_c():
        try:
            result = run_bench(options, runner)
        except BaseException:
            if not runner.interrupted:
                raise
            runner.stage("interrupted; everything it started is stopped")
            return 130
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
