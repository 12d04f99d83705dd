"""The HTTP env API over a running simulator: the happy path and every kind of bad input."""

from __future__ import annotations

import httpx
import pytest

from sim.server import build_app
from sim.simulator import SimConfig, Simulator

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.browser]


async def test_create_step_snapshot_fork_verdict_close(sim: Simulator) -> None:
    async with httpx.AsyncClient(base_url=sim.base_url, timeout=30) as http:
        created = await http.post(
            "/api/envs", json={"task_id": "settings/SetWifi-v1", "seed": 1, "lang": "zh"}
        )
        assert created.status_code == 200, created.text
        env_id = created.json()["env_id"]
        first = created.json()["observation"]
        assert first["foreground"]["package"] == "com.android.launcher3"
        assert first["screenshot"]["data"][:4] == "/9j/"  # base64 of a JPEG
        step = await http.post(
            f"/api/envs/{env_id}/step", json={"action": {"type": "open_app", "app": "settings"}}
        )
        assert step.status_code == 200 and step.json()["observation"]["foreground"]["app"] == (
            "settings"
        )
        snapshot = await http.get(f"/api/envs/{env_id}/snapshot")
        assert snapshot.status_code == 200 and len(snapshot.content) < 20_000
        forks = await http.post(f"/api/envs/{env_id}/fork", json={"n": 2})
        assert forks.status_code == 200 and len(forks.json()) == 2
        listed = {e["env_id"] for e in (await http.get("/api/envs")).json()}
        assert {env_id, *(f["env_id"] for f in forks.json())} <= listed
        verdict = (await http.get(f"/api/envs/{env_id}/verdict")).json()
        assert verdict["success"] is False and verdict["checks"][0]["name"] == "global.wifi_on"
        restored = await http.post(
            f"/api/envs/{env_id}/restore",
            content=snapshot.content,
            headers={"content-type": "application/json"},
        )
        assert restored.status_code == 200 and restored.json()["foreground"]["app"] == "settings"
        assert (await http.delete(f"/api/envs/{env_id}")).status_code == 204
        assert (await http.get(f"/api/envs/{env_id}/verdict")).status_code == 404


async def test_bad_input_gets_clear_4xx(sim: Simulator) -> None:
    async with httpx.AsyncClient(base_url=sim.base_url, timeout=30) as http:
        env_id = (await http.post("/api/envs", json={})).json()["env_id"]
        bad_point = await http.post(
            f"/api/envs/{env_id}/step",
            json={"action": {"type": "tap", "target": {"point": {"x": 3, "y": 0.5}}}},
        )
        assert bad_point.status_code == 422 and "point" in bad_point.text
        unknown_type = await http.post(
            f"/api/envs/{env_id}/step", json={"action": {"type": "teleport"}}
        )
        assert unknown_type.status_code == 422 and "teleport" in unknown_type.text
        no_task = await http.get(f"/api/envs/{env_id}/verdict")
        assert no_task.status_code == 409 and "reset" in no_task.json()["detail"]
        typo = await http.post(f"/api/envs/{env_id}/reset", json={"task_id": "settings/SetWfi-v1"})
        assert typo.status_code == 404 and "settings/SetWifi-v1" in typo.json()["detail"]
        junk = await http.post(
            f"/api/envs/{env_id}/restore",
            content=b"{not json",
            headers={"content-type": "application/json"},
        )
        assert junk.status_code == 422
        missing = await http.post(
            "/api/envs/i999999/step", json={"action": {"type": "key", "key": "back"}}
        )
        assert missing.status_code == 404
        stale = await http.post(
            f"/api/instances/{env_id}/page-events",
            json={"version": -5, "event": {"type": "edge", "edge": "top"}},
        )
        assert stale.status_code == 409
        # the server survived all of that
        assert (await http.get(f"/api/envs/{env_id}/observation")).status_code == 200


async def test_non_loopback_clients_need_the_token() -> None:
    token = "t" * 24
    sim = Simulator(SimConfig(token=token, serve_env_api=False))
    app = build_app(sim)
    remote = httpx.ASGITransport(app=app, client=("192.0.2.7", 50000))
    local = httpx.ASGITransport(app=app, client=("127.0.0.1", 50000))
    async with httpx.AsyncClient(transport=remote, base_url="http://sim") as http:
        assert (await http.get("/")).status_code == 401
        bearer = {"authorization": f"Bearer {token}"}
        assert (await http.get("/", headers=bearer)).status_code == 200
        assert (await http.get(f"/?token={token}")).status_code == 200
        assert (await http.get("/?token=wrong")).status_code == 401
    async with httpx.AsyncClient(transport=local, base_url="http://127.0.0.1") as http:
        assert (await http.get("/")).status_code == 200
