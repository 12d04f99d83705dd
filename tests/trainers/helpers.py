"""What the trainer-adapter tests share: the L1 task they solve, scripted model replies
that solve it in each adapter's grammar, the stand-in model endpoint, and an env that
loses its host mid-episode.

The task is ``settings/SetAirplaneMode-v1`` (seed 0: "Turn airplane mode off."): open
Settings, tap the airplane-mode row, finish. The row's position is read from the
simulator once (:func:`airplane_point`), so the scripts follow the layout.
"""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

import uvicorn

from bridge.actions import OpenAppAction
from bridge.env import Env
from bridge.errors import EnvError
from bridge.records import TaskInstance
from bridge.schema import Action, Observation, StepResult, Verdict
from bridge.sync import EnvFactory
from sim.simulator import Simulator
from tests.policies.test_vlm_http import FakeVLM, Reply

TASK_ID = "settings/SetAirplaneMode-v1"
MODEL = "stand-in/vlm"
_ROW = "com.android.settings:id/toggle_airplane"


def airplane_task(sim: Simulator, seed: int = 0) -> TaskInstance:
    """The L1 task, instantiated from the registry with the world data."""
    return sim.tasks.instantiate(TASK_ID, seed, "en")


async def airplane_point(sim: Simulator) -> tuple[float, float]:
    """The normalized centre of the airplane-mode row in Settings."""
    env = await sim.env(screenshot=False)
    try:
        await env.reset(airplane_task(sim))
        result = await env.step(OpenAppAction(app="settings"))
    finally:
        await env.close()
    (row,) = [node for node in result.observation.ui if node.resource_id == _ROW]
    left, top, right, bottom = row.bounds_px
    screen = result.observation.screen
    return (left + right) / 2 / screen.width_px, (top + bottom) / 2 / screen.height_px


def generic_script(point: tuple[float, float]) -> list[str]:
    """The solving replies in the ``generic`` adapter's JSON grammar."""
    actions = [
        {"type": "open_app", "app": "settings"},
        {"type": "tap", "target": {"point": {"x": point[0], "y": point[1]}}},
        {"type": "finish", "status": "success"},
    ]
    return [json.dumps({"thought": f"step {i}", "action": a}) for i, a in enumerate(actions)]


def qwen_script(point: tuple[float, float]) -> list[str]:
    """The solving replies in Qwen3-VL's ``mobile_use`` grammar (a 999 grid)."""
    calls = [
        ("Open Settings.", {"action": "open", "text": "Settings"}),
        ("Tap airplane mode.", {"action": "click",
                                "coordinate": [round(point[0] * 999), round(point[1] * 999)]}),
        ("Done.", {"action": "terminate", "status": "success"}),
    ]  # fmt: skip
    return [
        f"Thought: next.\nAction: {summary}\n<tool_call>\n"
        f"{json.dumps({'name': 'mobile_use', 'arguments': args})}\n</tool_call>"
        for summary, args in calls
    ]


def action_script(point: tuple[float, float]) -> list[str]:
    """The solving actions as contract JSON (the Gymnasium action space)."""
    return [json.dumps(json.loads(reply)["action"]) for reply in generic_script(point)]


@dataclass
class Endpoint:
    """The stand-in model endpoint (tests/policies' FakeVLM) and its base URL."""

    fake: FakeVLM
    base_url: str

    def script(self, replies: list[str]) -> None:
        """Answer the next requests with ``replies``, in order (a 500 after them)."""
        self.fake.replies = [Reply(text) for text in replies]
        self.fake.requests.clear()


@asynccontextmanager
async def serve_endpoint() -> AsyncIterator[Endpoint]:
    """The fake OpenAI-compatible server on 127.0.0.1 at an ephemeral port."""
    fake = FakeVLM(models=[MODEL])
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    config = uvicorn.Config(fake.app(), log_level="warning", access_log=False, lifespan="off")
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        yield Endpoint(fake, f"http://127.0.0.1:{sock.getsockname()[1]}/v1")
    finally:
        server.should_exit = True
        await task
        sock.close()


class LosesHost:
    """A bridge env whose host dies at step ``fail_at`` (0-based): that step raises
    :class:`~bridge.errors.EnvError`, as a lost simulator host or timeout does."""

    def __init__(self, env: Env, fail_at: int) -> None:
        self._env, self._fail_at, self.steps = env, fail_at, 0

    async def reset(self, task: TaskInstance) -> Observation:
        return await self._env.reset(task)

    async def step(self, action: Action) -> StepResult:
        self.steps += 1
        if self.steps > self._fail_at:
            raise EnvError("the simulator host went away (test)")
        return await self._env.step(action)

    async def verdict(self) -> Verdict:
        return await self._env.verdict()

    async def close(self) -> None:
        await self._env.close()


def losing_factory(sim: Simulator, fail_at: int = 1, **options: object) -> EnvFactory:
    """An env factory whose envs lose their host at step ``fail_at``."""

    async def make() -> Env:
        return LosesHost(await sim.env(**options), fail_at)

    return make
