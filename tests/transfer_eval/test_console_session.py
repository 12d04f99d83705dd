"""The console's session on the real simulator: run until a breakpoint or the guard, reset
and close commit what was done, one operation at a time, bad input refused up front."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest

from bridge.actions import KeyAction, OpenAppAction, TapAction, Target
from bridge.guard import ActionGuard
from bridge.records import TaskInstance
from bridge.schema import Action, Observation, PolicyContext, PolicyOutput
from bridge.trajectory import RunManifest, RunStore
from sim.env import SimEnv
from sim.simulator import Simulator
from transfer_eval.console.launch import ConsoleConfig, check_config
from transfer_eval.console.session import Breakpoints, ConsoleSession
from transfer_eval.errors import ConsoleBusy, ConsoleError, ConsoleSetupError
from transfer_eval.policy_factory import tree_xml


class ListPolicy:
    """Proposes the given actions in order (then ``back`` forever)."""

    def __init__(self, actions: list[Action]) -> None:
        self.actions = list(actions)
        self.asked = 0

    @property
    def name(self) -> str:
        return "list"

    async def reset(self, instruction: str, context: PolicyContext) -> None:
        self.asked = 0

    async def act(self, observation: Observation) -> PolicyOutput:
        action = (
            self.actions[self.asked] if self.asked < len(self.actions) else KeyAction(key="back")
        )
        self.asked += 1
        return PolicyOutput(action=action, thought=f"action {self.asked}")


def _task(sim: Simulator, task_id: str = "settings/SetWifi-v1") -> TaskInstance:
    return sim.tasks.instantiate(task_id, 0, "en")


def _session(
    sim: Simulator,
    tmp_path: Path,
    make_policy: Callable[[], ListPolicy] | None,
    guard: ActionGuard | None = None,
) -> ConsoleSession:
    task = _task(sim)
    store = RunStore.create(tmp_path / "run", RunManifest(config={"console": True}))
    env = SimEnv(sim, sim.create_instance(0))
    return ConsoleSession(
        env, task, store, make_policy=make_policy, episode_prefix="wifi", guard=guard,
        tree_xml=tree_xml,
    )  # fmt: skip


async def _until_stopped(session: ConsoleSession) -> None:
    while session.mode == "run":
        await session.wait_changed(session.version, 5.0)


@pytest.mark.asyncio(loop_scope="module")
async def test_run_stops_at_a_breakpoint_before_the_action(sim: Simulator, tmp_path: Path) -> None:
    policy = ListPolicy([OpenAppAction(app="settings"), TapAction(target=Target.at(0.5, 0.14))])
    session = _session(sim, tmp_path, lambda: policy)
    await session.start()
    await session.set_breakpoints(Breakpoints(kinds=["tap"]))
    await session.run()
    await _until_stopped(session)
    assert [r.decided_by for r in session.history] == ["policy"]
    assert session.proposal is not None and session.proposal.output.action.type == "tap"
    assert session.notice == "breakpoint: the policy proposes 'tap'"
    assert session.proposal.point_px is not None  # drawn where it would land
    await session.close()


@pytest.mark.asyncio(loop_scope="module")
async def test_run_pauses_when_the_guard_sees_another_app(sim: Simulator, tmp_path: Path) -> None:
    task = _task(sim)
    policy = ListPolicy([OpenAppAction(app="contacts"), KeyAction(key="home")])
    session = _session(sim, tmp_path, lambda: policy, ActionGuard.for_task(task))
    await session.start()
    await session.run()
    await _until_stopped(session)
    assert len(session.history) == 1  # it stopped after the step that left, not later
    assert session.notice is not None and "com.android.contacts" in session.notice
    assert session.mode == "step"
    await session.close()


@pytest.mark.asyncio(loop_scope="module")
async def test_reset_commits_a_stopped_episode_and_starts_the_next_attempt(
    sim: Simulator, tmp_path: Path
) -> None:
    session = _session(sim, tmp_path, None)
    await session.start()
    await session.reset()  # no step yet: nothing to commit, the id is reused
    assert session.episode_id == "wifi_a1"
    await session.override(OpenAppAction(app="settings"))
    await session.reset()
    assert session.episode_id == "wifi_a2"
    record = session.store.completed()["wifi_a1"]
    assert record.termination == "stopped" and record.steps == 1
    assert record.stop_reason == "reset by a person after 1 steps" and record.policy == "person"
    assert session.frozen is not None
    assert session.frozen.foreground.package == "com.android.launcher3"
    await session.override(KeyAction(key="home"))
    await session.close()  # the console closing keeps the steps it did
    assert session.store.completed()["wifi_a2"].stop_reason == "the console was closed"


@pytest.mark.asyncio(loop_scope="module")
async def test_one_operation_at_a_time_and_clear_refusals(sim: Simulator, tmp_path: Path) -> None:
    session = _session(sim, tmp_path, None)
    await session.start()
    with pytest.raises(ConsoleError, match="no policy"):
        await session.propose()
    first = asyncio.create_task(session.override(OpenAppAction(app="settings")))
    await session.wait_changed(session.version, 5.0)  # the step has begun
    with pytest.raises(ConsoleBusy, match="busy"):
        await session.override(KeyAction(key="back"))
    await first
    await session.finish()
    with pytest.raises(ConsoleError, match="Reset"):
        await session.override(KeyAction(key="back"))
    assert session.ended is not None and session.ended.outcome == "failure"
    await session.close()


def test_bad_options_fail_before_anything_starts(tmp_path: Path) -> None:
    from policies.errors import PolicySpecError
    from sim.errors import UnknownTask

    with pytest.raises(UnknownTask, match="SetWifi-v1"):
        check_config(ConsoleConfig(device="sim", task="settings/SetWfi-v1"))
    with pytest.raises(PolicySpecError):
        check_config(ConsoleConfig(device="sim", policy="scriptd"))
    with pytest.raises(ConsoleSetupError, match="--task"):
        check_config(ConsoleConfig(device="sim", policy="scripted"))
    other = tmp_path / "other"
    RunStore.create(other, RunManifest(config={"tasks": ["x"]}))
    with pytest.raises(ConsoleSetupError, match="not a console run"):
        check_config(ConsoleConfig(device="sim", out=other))
    junk = tmp_path / "junk"
    junk.mkdir()
    (junk / "notes.txt").write_text("mine")
    with pytest.raises(ConsoleSetupError, match="not empty"):
        check_config(ConsoleConfig(device="sim", out=junk))
    with pytest.raises(ConsoleSetupError, match=r"--profile: .*cannot play 'pixel'"):
        check_config(ConsoleConfig(device="virtual", profile="pixel"))
    check_config(ConsoleConfig(device="virtual", profile="redmi_note_12_turbo"))  # plays it


@pytest.mark.asyncio(loop_scope="module")
async def test_the_page_needs_the_token_from_another_address(
    sim: Simulator, tmp_path: Path
) -> None:
    import httpx

    from transfer_eval.console.server import build_console_app

    session = _session(sim, tmp_path, None)
    await session.start()
    app = build_console_app(session, None, token="s3cret")
    remote = httpx.ASGITransport(app=app, client=("192.0.2.7", 4000))
    async with httpx.AsyncClient(transport=remote, base_url="http://console") as client:
        assert (await client.get("/api/state")).status_code == 401
        assert (await client.post("/api/reset")).status_code == 401
        allowed = await client.get("/api/state", params={"token": "s3cret"})
        assert allowed.status_code == 200 and allowed.json()["task"]["id"] == "settings/SetWifi-v1"
    local = httpx.ASGITransport(app=app, client=("127.0.0.1", 4000))
    async with httpx.AsyncClient(transport=local, base_url="http://console") as client:
        assert (await client.get("/api/state")).status_code == 200
    await session.close()


@pytest.mark.asyncio(loop_scope="module")
async def test_with_policy_human_the_person_decides_every_step_recorded_as_human(
    sim: Simulator, tmp_path: Path
) -> None:
    import httpx

    from transfer_eval.console.server import build_console_app

    config = ConsoleConfig(device="sim", policy="human", task="settings/SetWifi-v1")
    check_config(config)  # a person in the page needs no terminal: nothing refused
    assert config.human and not ConsoleConfig(device="sim", policy="random").human
    store = RunStore.create(tmp_path / "run", RunManifest(config={"console": True}))
    session = ConsoleSession(
        SimEnv(sim, sim.create_instance(0)), _task(sim), store, make_policy=None,
        episode_prefix="wifi", tree_xml=tree_xml, human=True,
    )  # fmt: skip
    await session.start()
    with pytest.raises(ConsoleError, match="you decide every step"):
        await session.propose()
    with pytest.raises(ConsoleError, match="you decide every step"):
        await session.run()
    app = build_console_app(session, None)
    transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 4000))
    async with httpx.AsyncClient(transport=transport, base_url="http://console") as client:
        state = (await client.get("/api/state")).json()
        assert (state["policy"], state["proposes"]) == ("human", False)
        action = {"type": "open_app", "app": "settings"}
        stepped = (await client.post("/api/override", json={"action": action})).json()
        assert stepped["history"][0]["decided_by"] == "human"
    await session.override(TapAction(target=Target.at(0.5, 0.14)))
    record = await session.finish()
    assert record.policy == "human" and record.steps == 3
    steps = store.read_steps(record.episode_id)
    assert [s.decided_by for s in steps] == ["human"] * 3
    assert all(s.proposal is None and s.policy_ms == 0.0 for s in steps)
    await session.close()
