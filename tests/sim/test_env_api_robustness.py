"""The env API under bad input, from web pages, at its limits and while it starts.

Each hand-written bad request of issue 16 gets a 4xx in the one error shape (``ApiError``),
the connection stays usable, and a failed create leaves no env behind.
"""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import pytest_asyncio

from bridge.errors import EnvUsageError
from sim.api_errors import ApiError
from sim.client import HttpEnv
from sim.server import build_app
from sim.simulator import SimConfig, Simulator

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.browser]

JSON = {"content-type": "application/json"}


def _refused(response: httpx.Response, status: int, *words: str) -> ApiError:
    """The response's error body, after checking its status and that it names ``words``."""
    assert response.status_code == status, (response.status_code, response.text)
    error = ApiError.model_validate_json(response.content)
    assert all(word in error.detail for word in words), error.detail
    assert response.headers.get("connection") != "close"
    return error


def _task(sim: Simulator, task_id: str = "contacts/StarContact-v1") -> dict[str, Any]:
    return sim.tasks.instantiate(task_id, 1, "en").model_dump(mode="json")


class FakeClock:
    """Seconds that pass only when a test says so."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def limited() -> AsyncIterator[tuple[Simulator, FakeClock]]:
    """A started simulator holding at most 3 envs, expiring them after 60 idle seconds of
    a clock the test moves."""
    clock = FakeClock()
    simulator = Simulator(SimConfig(pages=1, max_envs=3, idle_expiry_s=60))
    simulator.clock = clock
    async with simulator:
        yield simulator, clock


# ---- readiness
async def test_a_starting_simulator_answers_503_with_retry_after() -> None:
    sim = Simulator(SimConfig(serve_env_api=True))  # never started: Chromium is not up
    transport = httpx.ASGITransport(app=build_app(sim), client=("127.0.0.1", 50000))
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
        created = await http.post("/api/envs", json={})
        error = _refused(created, 503, "starting")
        assert error.kind == "not-ready" and created.headers["retry-after"] == "1"
        health = (await http.get("/health")).json()
        assert health["ready"] is False and health["envs"] == 0 and health["max_envs"] == 1024
    assert sim.instances == {}


async def test_a_client_that_connects_while_chromium_starts_gets_its_env() -> None:
    sim = Simulator(SimConfig(pages=1))
    starting = asyncio.create_task(sim.start())
    try:
        await asyncio.wait_for(_listening(sim), timeout=60)
        env = await HttpEnv.create(sim.base_url, screenshot=False, timeout_s=120)
        assert sim.ready and env.env_id in sim.instances
        await env.close()
    finally:
        await starting
        await sim.close()


async def test_the_server_binds_ipv6_loopback() -> None:
    sim = Simulator(SimConfig(host="::1", pages=1))
    starting = asyncio.create_task(sim.start())
    try:
        await asyncio.wait_for(_listening(sim), timeout=60)
        assert sim.base_url.startswith("http://[::1]:")
        async with httpx.AsyncClient(base_url=sim.base_url) as http:
            health = await http.get("/health")
        assert health.status_code == 200 and set(health.json()) >= {"ready", "pages"}
    finally:
        await starting
        await sim.close()


async def _listening(sim: Simulator) -> None:
    while not sim.base_url:  # set once the socket listens, before Chromium is up
        await asyncio.sleep(0)


async def test_health_says_ready_with_capacity(sim: Simulator) -> None:
    async with httpx.AsyncClient(base_url=sim.base_url) as http:
        env_id = (await http.post("/api/envs", json={})).json()["env_id"]
        health = (await http.get("/health")).json()
        assert health["ready"] is True and health["pages"] == 2
        assert health["envs"] >= 1 and health["instances"] >= health["envs"]
        await http.delete(f"/api/envs/{env_id}")


# ---- malformed requests
async def test_a_task_with_missing_or_wrong_fields_is_a_4xx_and_leaves_no_env(
    sim: Simulator,
) -> None:
    task = _task(sim)
    checkless = {**task, "spec": {**task["spec"], "checks": [], "answers": []}}
    async with httpx.AsyncClient(base_url=sim.base_url, timeout=30) as http:
        before = set(sim.instances)
        unbound = {**task, "params": {"contact": "nobody"}, "spec": None}
        created = await http.post("/api/envs", json={"task": unbound})
        _refused(created, 422, "task:", "must carry its spec", "send task_id, seed and lang")
        missing = await http.post("/api/envs", json={"task": {"task_id": "x/Y-v1"}})
        assert _refused(missing, 422, "task.instruction").errors[0].loc[-1] == "instruction"
        wrong = await http.post("/api/envs", json={"task": {**task, "max_steps": "many"}})
        _refused(wrong, 422, "task.max_steps")
        unposable = await http.post("/api/envs", json={"task": checkless})
        assert _refused(unposable, 409, "StarContact-v1", "cannot be posed").kind == "bad-task"
        assert set(sim.instances) == before  # no failed create left anything behind
        env_id = (await http.post("/api/envs", json={})).json()["env_id"]
        reset = await http.post(f"/api/envs/{env_id}/reset", json={"task": checkless})
        _refused(reset, 409, "cannot be posed")
        assert (await http.get(f"/api/envs/{env_id}/observation")).status_code == 200
        await http.delete(f"/api/envs/{env_id}")


async def test_restore_bodies_that_are_not_snapshots_are_4xx(sim: Simulator) -> None:
    async with httpx.AsyncClient(base_url=sim.base_url, timeout=30) as http:
        env_id = (await http.post("/api/envs", json={})).json()["env_id"]
        restore = f"/api/envs/{env_id}/restore"
        for body in (b"[]", b"1", b'"x"', b"null", b'{"state": {}, "trees": [1]}'):
            restored = await http.post(restore, content=body, headers=JSON)
            _refused(restored, 422, "not a snapshot")
        stranger = b'{"state": {}, "episode": {"a": 1}}'  # a snapshot by the schema, not ours
        restored = await http.post(restore, content=stranger, headers=JSON)
        assert _refused(restored, 409, "not a snapshot").kind == "bad-snapshot"
        assert (await http.get(f"/api/envs/{env_id}/observation")).status_code == 200
        await http.delete(f"/api/envs/{env_id}")


async def test_nan_and_infinity_anywhere_are_422_not_echoed(sim: Simulator) -> None:
    async with httpx.AsyncClient(base_url=sim.base_url, timeout=30) as http:
        env_id = (await http.post("/api/envs", json={})).json()["env_id"]
        bodies = {
            "/api/envs": b'{"seed": NaN}',
            f"/api/envs/{env_id}/step": b'{"action": {"type": "wait", "seconds": Infinity}}',
            f"/api/envs/{env_id}/restore": b'{"state": {"seed": -Infinity}}',
            f"/api/envs/{env_id}/fork": b'{"n": NaN}',
        }
        for path, body in bodies.items():
            answered = await http.post(path, content=body, headers=JSON)
            assert _refused(answered, 422, "not a JSON number").kind == "invalid"
        await http.delete(f"/api/envs/{env_id}")


async def test_every_refusal_has_the_one_error_shape(sim: Simulator) -> None:
    async with httpx.AsyncClient(base_url=sim.base_url, timeout=30) as http:
        env_id = (await http.post("/api/envs", json={})).json()["env_id"]
        step = f"/api/envs/{env_id}/step"
        invalid = await http.post(step, json={"action": {"type": "tap", "target": {}}})
        assert _refused(invalid, 422, "action.tap.target").errors
        untyped = await http.post(step, json={"action": {"key": "back"}})
        _refused(untyped, 422, "action")
        _refused(await http.put("/api/envs", json={}), 405)
        _refused(await http.get("/api/nothing-here"), 404)
        _refused(await http.get("/api/envs/i999999/verdict"), 404, "POST /api/envs")
        _refused(await http.get(f"/api/envs/{env_id}/verdict"), 409, "reset")
        await http.delete(f"/api/envs/{env_id}")


async def test_the_openapi_document_requires_tags_and_types_restore(sim: Simulator) -> None:
    async with httpx.AsyncClient(base_url=sim.base_url) as http:
        document = (await http.get("/openapi.json")).json()
    schemas = document["components"]["schemas"]
    assert "type" in schemas["TapAction"]["required"]
    restore = document["paths"]["/api/envs/{env_id}/restore"]["post"]
    body = restore["requestBody"]["content"]["application/json"]["schema"]
    assert body == {"$ref": "#/components/schemas/Snapshot"} and "Snapshot" in schemas
    create = document["paths"]["/api/envs"]["post"]["responses"]
    for status in ("400", "404", "409", "415", "422", "429", "503", "504"):
        assert create[status]["content"]["application/json"]["schema"] == {
            "$ref": "#/components/schemas/ApiError"
        }, status
    step = document["paths"]["/api/envs/{env_id}/step"]["post"]["responses"]
    assert {"404", "410", "409"} <= set(step)


# ---- limits
async def test_the_cap_on_envs_is_a_429_naming_the_limit(
    limited: tuple[Simulator, FakeClock],
) -> None:
    sim, _ = limited
    async with httpx.AsyncClient(base_url=sim.base_url, timeout=30) as http:
        ids = [(await http.post("/api/envs", json={})).json()["env_id"] for _ in range(3)]
        over = await http.post("/api/envs", json={})
        assert _refused(over, 429, "limit is 3").kind == "too-many-envs"
        await http.delete(f"/api/envs/{ids[0]}")
        assert _refused(await http.post(f"/api/envs/{ids[1]}/fork", json={"n": 2}), 429, "3")
        ids[0] = (await http.post("/api/envs", json={})).json()["env_id"]
        for env_id in ids:
            assert (await http.delete(f"/api/envs/{env_id}")).status_code == 204


async def test_an_idle_env_expires_and_says_so(limited: tuple[Simulator, FakeClock]) -> None:
    sim, clock = limited
    async with httpx.AsyncClient(base_url=sim.base_url, timeout=30) as http:
        idle = (await http.post("/api/envs", json={})).json()["env_id"]
        clock.now += 30
        used = (await http.post("/api/envs", json={})).json()["env_id"]
        clock.now += 31  # idle: 61 s unused; used: 31 s
        assert (await http.get(f"/api/envs/{used}/observation")).status_code == 200
        expired = await http.get(f"/api/envs/{idle}/observation")
        assert _refused(expired, 410, "expired", "60 s").kind == "expired-env"
        assert idle not in sim.instances
        assert idle not in {e["env_id"] for e in (await http.get("/api/envs")).json()}
    async with HttpEnv.attach(sim.base_url, idle) as late:  # closing a gone env is fine
        with pytest.raises(EnvUsageError, match="expired"):
            await late.observe()
    async with httpx.AsyncClient(base_url=sim.base_url) as http:
        await http.delete(f"/api/envs/{used}")


# ---- same-machine safety
async def test_bodies_must_be_application_json(sim: Simulator) -> None:
    async with httpx.AsyncClient(base_url=sim.base_url, timeout=30) as http:
        env_id = (await http.post("/api/envs", json={})).json()["env_id"]
        snapshot = (await http.get(f"/api/envs/{env_id}/snapshot")).content
        restore = f"/api/envs/{env_id}/restore"
        plain = await http.post(restore, content=snapshot, headers={"content-type": "text/plain"})
        assert _refused(plain, 415, "text/plain", "application/json").kind == (
            "unsupported-media-type"
        )
        _refused(await http.post(restore, content=snapshot), 415, "none")
        form = await http.post("/api/envs", data={"seed": "1"})
        _refused(form, 415, "application/x-www-form-urlencoded")
        typed = "application/json; charset=utf-8"
        ok = await http.post(restore, content=snapshot, headers={"content-type": typed})
        assert ok.status_code == 200
        await http.delete(f"/api/envs/{env_id}")


async def test_the_host_must_be_loopback_or_configured(sim: Simulator) -> None:
    port = sim.base_url.rsplit(":", 1)[1]
    async with httpx.AsyncClient(base_url=sim.base_url, timeout=30) as http:
        rebound = await http.get("/api/envs", headers={"host": f"evil.example:{port}"})
        assert _refused(rebound, 421, "evil.example").kind == "bad-host"
        for host in (f"localhost:{port}", f"127.0.0.1:{port}", f"[::1]:{port}", "localhost"):
            assert (await http.get("/api/envs", headers={"host": host})).status_code == 200
    named = Simulator(SimConfig(allowed_hosts=("sim.lab",), serve_env_api=False))
    local = httpx.ASGITransport(app=build_app(named), client=("127.0.0.1", 50000))
    async with httpx.AsyncClient(transport=local, base_url="http://sim.lab:8765") as http:
        assert (await http.get("/health")).status_code == 200
        _refused(await http.get("/health", headers={"host": "other.lab"}), 421)


async def test_a_foreign_origin_is_refused(sim: Simulator) -> None:
    async with httpx.AsyncClient(base_url=sim.base_url, timeout=30) as http:
        foreign = await http.post("/api/envs", json={}, headers={"origin": "http://evil.example"})
        assert _refused(foreign, 403, "evil.example").kind == "forbidden"
        _refused(await http.get("/api/envs", headers={"origin": "null"}), 403)
        own = await http.post("/api/envs", json={}, headers={"origin": sim.base_url})
        assert own.status_code == 200
        await http.delete(f"/api/envs/{own.json()['env_id']}")


async def test_token_rules_hold_with_the_new_checks() -> None:
    token = "t" * 24
    app = build_app(Simulator(SimConfig(host="0.0.0.0", token=token, serve_env_api=False)))
    remote = httpx.ASGITransport(app=app, client=("192.0.2.7", 50000))
    bearer = {"authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(transport=remote, base_url="http://sim.lan:8765") as http:
        _refused(await http.get("/health"), 401, "token")
        assert (await http.get("/health", headers=bearer)).status_code == 200  # any Host
        foreign = {**bearer, "origin": "http://evil.example"}
        _refused(await http.get("/health", headers=foreign), 403)
        posted = await http.post("/api/instances/i1/page-events", content=b"x", headers=bearer)
        _refused(posted, 415)
        _refused(await http.post("/api/tasks", content=b"x", headers=bearer), 405)  # GET only


async def test_serve_with_a_short_token_prints_one_line_and_exits_2() -> None:
    mgb = str(Path(sys.executable).with_name("mgb"))
    command = [mgb, "sim", "serve", "--host", "0.0.0.0", "--token", "short"]
    done = await asyncio.to_thread(
        subprocess.run, command, capture_output=True, text=True, timeout=120
    )
    lines = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    assert done.returncode == 2, done
    assert len(lines) == 1 and "--token" in lines[0] and "16" in lines[0], lines
    assert "Traceback" not in done.stderr


async def test_serve_on_a_port_in_use_prints_one_line_before_chromium_starts() -> None:
    mgb = str(Path(sys.executable).with_name("mgb"))
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        command = [mgb, "sim", "serve", "--port", str(port)]
        done = await asyncio.to_thread(
            subprocess.run, command, capture_output=True, text=True, timeout=120
        )
    lines = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    assert done.returncode == 2, done
    assert len(lines) == 1 and f"127.0.0.1:{port}" in lines[0], lines
    assert "Address already in use" in lines[0] and "--port 0" in lines[0]
    assert "simulator on" not in done.stdout  # refused before anything started
