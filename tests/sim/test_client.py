"""``HttpEnv`` against a real simulator serving the env API on a loopback port.

The ``sim`` fixture (tests/sim/conftest.py) runs uvicorn on a free 127.0.0.1 port and
stops it when the module ends; the client talks to it over real TCP.
"""

from __future__ import annotations

import ast
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from bridge.env import ForkableEnv
from bridge.env_checker import check_env
from bridge.errors import EnvError, EnvTimeout, EnvUsageError
from bridge.records import TaskInstance
from bridge.runner import run_episode
from bridge.schema import KeyAction, Observation, OpenAppAction, TapAction, Target
from policies.scripted import PlanPolicy
from sim import client
from sim.client import ERROR_HEADER, HttpEnv, error_for
from sim.simulator import Simulator

on_sim = pytest.mark.asyncio(loop_scope="module")


def _task(sim: Simulator, task_id: str = "settings/SetWifi-v1", seed: int = 1) -> TaskInstance:
    return sim.tasks.instantiate(task_id, seed, "en")


def _node_id(observation: Observation, resource_id: str) -> int:
    return next(n.id for n in observation.ui if n.resource_id.endswith(resource_id))


def _tree(observation: Observation) -> list[tuple[str, str, tuple[int, int, int, int]]]:
    return [(n.resource_id, n.text, tuple(n.bounds_px)) for n in observation.ui]


@pytest.fixture
def closed_port() -> Iterator[int]:
    """A loopback port that is bound (so nothing else takes it) but refuses connections."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield sock.getsockname()[1]


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A loopback port that accepts connections (in the kernel) and never answers."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(8)
        yield sock.getsockname()[1]


# ---- without a simulator
def test_importing_the_client_pulls_in_no_browser_and_no_server() -> None:
    code = (
        "import sys, sim.client\n"
        "heavy = {'playwright', 'fastapi', 'uvicorn'}\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in heavy"
        " or m in ('sim.simulator', 'sim.env', 'sim.env_api', 'sim.pages'))\n"
        "print(','.join(loaded))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == ""


def test_the_public_api_is_declared_and_documented() -> None:
    tree = ast.parse(Path(client.__file__).read_text(encoding="utf-8"))
    public = {
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        and not node.name.startswith("_")
    }
    assert public <= set(client.__all__)
    assert all(getattr(client, name).__doc__ for name in public)
    assert all(getattr(HttpEnv, name).__doc__ for name in vars(HttpEnv) if name[0] != "_")


def test_error_for_maps_responses_by_status_and_kind() -> None:
    request = httpx.Request("POST", "http://sim.test:8765/api/envs/i7/step")

    def answer(status: int, kind: str | None = None, **body: object) -> Exception:
        headers = {ERROR_HEADER: kind} if kind else {}
        return error_for(httpx.Response(status, json=body, headers=headers, request=request), "i7")

    gone = answer(404, "unknown-env", detail="no env 'i7'")
    assert type(gone) is EnvUsageError
    assert "env i7 does not exist on http://sim.test:8765 (closed or expired)" in str(gone)
    assert "env API" in str(answer(404, detail="Not Found"))
    assert "SetWifi-v1" in str(answer(404, "unknown-task", detail="did you mean SetWifi-v1"))
    assert type(answer(409, "usage", detail="EnvUsageError: call reset")) is EnvUsageError
    invalid = answer(422, detail=[{"loc": ["body", "action", "type"], "msg": "bad tag"}])
    assert type(invalid) is EnvUsageError and "body.action.type: bad tag" in str(invalid)
    assert "token" in str(answer(401, detail="a token is required"))
    assert type(answer(503, "infra", detail="EnvError: page crashed")) is EnvError
    assert type(answer(504, "timeout", detail="EnvTimeout: slow")) is EnvTimeout
    crashed = error_for(httpx.Response(500, text="Internal Server Error", request=request))
    assert type(crashed) is EnvError and "Internal Server Error" in str(crashed)


def test_error_for_maps_transport_errors() -> None:
    request = httpx.Request("GET", "http://sim.test:8765/api/envs/i7/verdict")
    refused = error_for(httpx.ConnectError("refused", request=request))
    assert type(refused) is EnvError and "mgb sim serve" in str(refused)
    assert "http://sim.test:8765/api/envs/i7/verdict" in str(refused)
    assert type(error_for(httpx.ReadTimeout("slow", request=request))) is EnvTimeout
    assert type(error_for(httpx.RemoteProtocolError("eof", request=request))) is EnvError
    assert type(error_for(httpx.UnsupportedProtocol("ftp", request=request))) is EnvUsageError


@pytest.mark.asyncio
async def test_a_server_that_is_down_is_an_env_error(closed_port: int) -> None:
    url = f"http://127.0.0.1:{closed_port}"
    with pytest.raises(EnvError) as raised:
        await HttpEnv.create(url, timeout_s=5)
    assert type(raised.value) is EnvError and url in str(raised.value)


@pytest.mark.asyncio
async def test_a_server_that_never_answers_is_a_timeout(silent_port: int) -> None:
    with pytest.raises(EnvTimeout):
        await HttpEnv.create(f"http://127.0.0.1:{silent_port}", timeout_s=0.3)


@pytest.mark.asyncio
async def test_calls_after_close_fail_locally(closed_port: int) -> None:
    # Any request to this env would fail with EnvError (connection refused), so an
    # EnvUsageError proves that the closed client sent none.
    env = HttpEnv.attach(f"http://127.0.0.1:{closed_port}", "i1")
    with pytest.raises(EnvError):
        await env.close()  # the server could not be told, but the env is closed
    await env.close()
    assert env.closed
    for call in (env.step(KeyAction(key="back")), env.verdict(), env.snapshot(), env.fork(2)):
        with pytest.raises(EnvUsageError, match="is closed"):
            await call


# ---- on a simulator
@on_sim
@pytest.mark.browser
async def test_create_reset_step_verdict(sim: Simulator) -> None:
    task = _task(sim)
    async with await HttpEnv.create(sim.base_url, task=task) as env:
        assert isinstance(env, ForkableEnv)
        first = env.observation
        assert first is not None and first.foreground.package == "com.android.launcher3"
        assert first.screenshot is not None and first.screenshot.data[:2] == b"\xff\xd8"
        assert (await env.verdict()).success is False
        opened = await env.step(OpenAppAction(app="settings"))
        assert opened.error is None and opened.observation.foreground.app == "settings"
        wifi = _node_id(opened.observation, "wifi_settings")
        page = await env.step(TapAction(target=Target.node(wifi)))
        toggle = _node_id(page.observation, "wifi_enable")
        await env.step(TapAction(target=Target.node(toggle)))
        verdict = await env.verdict()
        assert verdict.success is True, verdict
        assert (await env.reset(task)).foreground.package == "com.android.launcher3"
        assert (await env.verdict()).success is False


@on_sim
@pytest.mark.browser
async def test_the_runner_plays_an_episode_over_http(sim: Simulator) -> None:
    task = _task(sim, seed=2)
    policy = PlanPolicy(sim.tasks.get(task.task_id).oracle_for(task))
    async with await HttpEnv.create(sim.base_url, screenshot=False) as env:
        record = await run_episode(policy, env, task, episode_id="http-1")
    assert record.outcome == "success", record


@on_sim
@pytest.mark.browser
async def test_snapshot_and_restore_round_trip(sim: Simulator) -> None:
    async with await HttpEnv.create(sim.base_url, task=_task(sim), screenshot=False) as env:
        opened = (await env.step(OpenAppAction(app="settings"))).observation
        snapshot = await env.snapshot()
        assert len(snapshot) < 20_000
        home = (await env.step(KeyAction(key="home"))).observation
        assert _tree(home) != _tree(opened)
        restored = await env.restore(snapshot)
        assert _tree(restored) == _tree(opened)
        assert restored.foreground == opened.foreground


@on_sim
@pytest.mark.browser
async def test_fork_gives_independent_envs(sim: Simulator) -> None:
    env = await HttpEnv.create(sim.base_url, task=_task(sim), screenshot=False)
    start = env.observation
    assert start is not None
    left, right = await env.fork(2)
    assert len({env.env_id, left.env_id, right.env_id}) == 3
    assert left.base_url == right.base_url == env.base_url
    await env.close()  # the forks keep the shared connection open
    moved = (await left.step(OpenAppAction(app="settings"))).observation
    assert moved.foreground.app == "settings"
    stayed = await right.observe()
    assert _tree(stayed) == _tree(start) and stayed.foreground == start.foreground
    assert (await right.verdict()).success is False
    await left.close()
    await right.close()


@on_sim
@pytest.mark.browser
async def test_close_twice_and_step_after_close(sim: Simulator) -> None:
    env = await HttpEnv.create(sim.base_url, task=_task(sim), screenshot=False)
    other = HttpEnv.attach(sim.base_url, env.env_id)
    await env.close()
    await env.close()
    await other.close()  # already gone on the server: a 404 on close is fine
    with pytest.raises(EnvUsageError, match="is closed"):
        await env.step(KeyAction(key="back"))
    async with httpx.AsyncClient(base_url=sim.base_url) as http:
        listed = {e["env_id"] for e in (await http.get("/api/envs")).json()}
    assert env.env_id not in listed


@on_sim
@pytest.mark.browser
async def test_verdict_or_step_before_reset_is_a_usage_error(sim: Simulator) -> None:
    async with await HttpEnv.create(sim.base_url, screenshot=False) as env:
        # the client knows: it created the env without a task
        with pytest.raises(EnvUsageError, match="call reset"):
            await env.verdict()
        with pytest.raises(EnvUsageError, match="call reset"):
            await env.step(KeyAction(key="back"))
        async with HttpEnv.attach(sim.base_url, env.env_id) as attached:
            # only the server knows: its 409
            with pytest.raises(EnvUsageError, match=r"409.*reset"):
                await attached.verdict()
            with pytest.raises(EnvUsageError, match=r"409.*reset"):
                await attached.step(KeyAction(key="back"))
            await attached.observe()  # free play: a step from what was observed is fine
            assert (await attached.step(KeyAction(key="home"))).error is None


@on_sim
@pytest.mark.browser
async def test_unknown_env_and_bad_requests_are_usage_errors(sim: Simulator) -> None:
    async with HttpEnv.attach(sim.base_url, "i999999") as ghost:
        with pytest.raises(EnvUsageError, match="env i999999 does not exist on http://127"):
            await ghost.step(KeyAction(key="back"))
    async with await HttpEnv.create(sim.base_url, screenshot=False) as env:
        with pytest.raises(EnvUsageError, match=r"422.*must carry its spec"):  # never re-bound
            await env.reset(TaskInstance(task_id="settings/SetWifi-v1", instruction="Wi-Fi on"))
        with pytest.raises(EnvUsageError, match="422"):
            await env.fork(0)
        with pytest.raises(EnvUsageError, match="not a snapshot"):
            await env.restore(b"{not json")
        assert (await env.observe()).foreground.package == "com.android.launcher3"


@on_sim
@pytest.mark.browser
async def test_the_http_client_conforms(sim: Simulator) -> None:
    async def make() -> HttpEnv:
        return await HttpEnv.create(sim.base_url, screenshot=False)

    await check_env(make, _task(sim), name="HttpEnv")
