"""Every env we ship keeps the contract, and the simulator and the virtual phone give a
policy the same experience of its mistakes.

The checker (:func:`bridge.env_checker.check_env`) runs over the toy env, SimEnv, and
AndroidEnv on the virtual phone behind the real adb server (the HTTP client has its own run
in tests/sim/test_client.py). The matrix steps each class of agent error — and the presses
and swipes whose meaning hangs on their duration — in the simulator and on the virtual phone
from the same start, and compares what a policy sees (:func:`bridge.env_checker.policy_view`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import pytest_asyncio

from bridge.env import Env
from bridge.env_checker import check_env, policy_view
from bridge.errors import EnvCheckError
from bridge.records import TaskInstance
from bridge.schema import (
    Action,
    KeyAction,
    LongPressAction,
    Observation,
    OpenAppAction,
    Point,
    ScrollAction,
    StepResult,
    SwipeAction,
    TapAction,
    Target,
    TypeAction,
    UINode,
)
from device.env import AndroidEnv, AndroidEnvConfig
from device.virtual.attach import AttachedVirtualPhone, attach_virtual_phone
from sim.simulator import Simulator
from sim.tasks.registry import default_registry
from tests.bridge.toy_env import CounterEnv, counter_task
from tests.device.virtual_rig import env_config

TASK_ID = "settings/SetWifi-v1"
CONTACTS_TASK_ID = "contacts/QueryPhoneNumber-v1"
"""Cases in Contacts pose a Contacts task: its reset force-stops the app, so a list a
phone scrolled in an earlier case starts at the top again, as in a fresh simulator."""


def _task(task_id: str = TASK_ID) -> TaskInstance:
    return default_registry().instantiate(task_id, 0, "en")


# --------------------------------------------------------------------------- the checker


@pytest.mark.asyncio
async def test_the_toy_env_conforms() -> None:
    async def make() -> Env:
        return CounterEnv()

    await check_env(make, counter_task(), name="CounterEnv")


class _Sloppy(CounterEnv):
    """Accepts a step after close and numbers its steps from 1."""

    def _check_open(self) -> None:
        pass

    def _observe(self, error: str | None) -> Observation:
        obs = super()._observe(error)
        return obs.model_copy(update={"step": obs.step + 1})


@pytest.mark.asyncio
async def test_the_checker_finds_what_is_wrong() -> None:
    async def make() -> Env:
        return _Sloppy()

    with pytest.raises(EnvCheckError) as caught:
        await check_env(make, counter_task(), name="Sloppy")
    message = str(caught.value)
    assert "step after close was accepted" in message
    assert "reset: observation step 1, expected 0" in message


@pytest.fixture(scope="module")
def phone(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AttachedVirtualPhone]:
    home: Path = tmp_path_factory.mktemp("home")
    with attach_virtual_phone(seed=0, android_user_home=home) as attached:
        yield attached


def _config(phone: AttachedVirtualPhone) -> AndroidEnvConfig:
    return env_config(phone, step_timeout_s=60.0)


@pytest.mark.browser
@pytest.mark.asyncio(loop_scope="module")
async def test_simenv_conforms(sim: Simulator) -> None:
    await check_env(sim.env, _task(), name="SimEnv")


@pytest.mark.device_virtual
@pytest.mark.asyncio(loop_scope="module")
async def test_androidenv_on_the_virtual_phone_conforms(phone: AttachedVirtualPhone) -> None:
    async def make() -> Env:
        return AndroidEnv(_config(phone))

    await check_env(make, _task(), name="AndroidEnv")


# --------------------------------------------------------------------------- the matrix

Move = Callable[[Observation], Action]
"""The next action, chosen on what is on screen (as a policy would)."""


def _node(obs: Observation, *, text: str = "", rid: str = "") -> UINode:
    for node in obs.ui:
        if (text and node.text == text) or (rid and node.resource_id.endswith(f":id/{rid}")):
            return node
    raise AssertionError(f"no node {text or rid!r} on {obs.foreground.activity}")


def _tap_text(text: str) -> Move:
    return lambda obs: TapAction(target=Target.node(_node(obs, text=text).id))


def _tap_rid(rid: str) -> Move:
    return lambda obs: TapAction(target=Target.node(_node(obs, rid=rid).id))


def _press_first_contact(duration_ms: int) -> Move:
    def move(obs: Observation) -> Action:
        first = _node(obs, rid="contact_row")
        return LongPressAction(target=Target.node(first.id), duration_ms=duration_ms)

    return move


def _swipe_list(duration_ms: int) -> Move:
    def move(obs: Observation) -> Action:
        start, end = Point(x=0.5, y=0.8), Point(x=0.5, y=0.55)
        return SwipeAction(start=start, end=end, duration_ms=duration_ms)

    return move


def _fixed(action: Action) -> Move:
    return lambda obs: action


OPEN_SETTINGS = _fixed(OpenAppAction(app="settings"))
OPEN_CONTACTS = _fixed(OpenAppAction(app="contacts"))
CASES: dict[str, list[Move]] = {
    "tap on nothing": [_fixed(TapAction(target=Target.at(0.5, 0.55)))],
    "tap on a disabled row": [
        OPEN_SETTINGS,
        _tap_text("Airplane mode"),
        _tap_text("SIM cards & mobile networks"),
        _tap_rid("mobile_data_enable"),
        _fixed(KeyAction(key="back")),
        _tap_text("Airplane mode"),  # a phone is not reset between cases: undo it
    ],
    "scroll at the end of a list": [OPEN_SETTINGS, _fixed(ScrollAction(direction="up"))],
    "a bad element id": [_fixed(TapAction(target=Target.node(9999)))],
    "the screen's last pixel": [_fixed(TapAction(target=Target.at(1.0, 1.0)))],
    "typing with no focused field": [_fixed(TypeAction(text="hello"))],
    "an unknown app": [_fixed(OpenAppAction(app="kamera"))],
    "an app the phone lacks": [_fixed(OpenAppAction(app="camera"))],
    "a 200 ms press": [OPEN_CONTACTS, _press_first_contact(200), _fixed(KeyAction(key="back"))],
    "a 600 ms press": [OPEN_CONTACTS, _press_first_contact(600), _fixed(KeyAction(key="back"))],
    "a fast swipe": [OPEN_CONTACTS, _swipe_list(120)],
    "a slow swipe": [OPEN_CONTACTS, _swipe_list(9000)],
}


def _differences(a: Observation, b: Observation) -> list[str]:
    """Where two observations differ for a policy, field by field (node by node)."""
    va, vb = policy_view(a), policy_view(b)
    found = [
        f"{key}: {va[key]!r} != {vb[key]!r}" for key in va if key != "ui" and va[key] != vb[key]
    ]
    if len(va["ui"]) != len(vb["ui"]):
        found.append(f"{len(va['ui'])} nodes != {len(vb['ui'])} nodes")
    for index, (na, nb) in enumerate(zip(va["ui"], vb["ui"], strict=False)):
        found += [
            f"node {index} {key}: {na[key]!r} != {nb[key]!r}" for key in na if na[key] != nb[key]
        ]
    return found


async def _play(env: Env, moves: list[Move]) -> list[StepResult]:
    in_contacts = OPEN_CONTACTS in moves
    obs = await env.reset(_task(CONTACTS_TASK_ID if in_contacts else TASK_ID))
    results = []
    for move in moves:
        result = await env.step(move(obs))
        results.append(result)
        obs = result.observation
    return results


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def played(
    sim: Simulator, phone: AttachedVirtualPhone
) -> dict[str, tuple[list[StepResult], list[StepResult]]]:
    """Every case played in both worlds (one env per world, reset before each case)."""
    outcomes = {}
    sim_env = await sim.env()
    async with AndroidEnv(_config(phone)) as phone_env:
        for name, moves in CASES.items():
            outcomes[name] = (await _play(sim_env, moves), await _play(phone_env, moves))
    await sim_env.close()
    return outcomes


@pytest.mark.browser
@pytest.mark.device_virtual
@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize("case", list(CASES))
async def test_a_policy_sees_the_same_in_both_worlds(
    played: dict[str, tuple[list[StepResult], list[StepResult]]], case: str
) -> None:
    in_sim, on_phone = played[case]
    for step, (a, b) in enumerate(zip(in_sim, on_phone, strict=True)):
        assert a.error == b.error, (case, step)
        assert _differences(a.observation, b.observation) == [], (case, step)


@pytest.mark.browser
@pytest.mark.device_virtual
@pytest.mark.asyncio(loop_scope="module")
async def test_the_errors_are_the_ones_a_phone_gives(
    played: dict[str, tuple[list[StepResult], list[StepResult]]],
) -> None:
    errors = {name: results[-1].error for name, (results, _) in played.items()}
    assert errors["tap on nothing"] is None  # a phone never says "no effect"
    disabled = played["tap on a disabled row"][0][3]
    assert disabled.error is None
    assert errors["scroll at the end of a list"] is None
    assert errors["the screen's last pixel"] is None
    assert "element 9999 is not in the UI tree" in str(errors["a bad element id"])
    assert "no text field is focused" in str(errors["typing with no focused field"])
    assert "no app 'kamera'" in str(errors["an unknown app"])
    assert "is not installed on this phone" in str(errors["an app the phone lacks"])
    sim_notes = played["tap on nothing"][0][-1].executed
    assert sim_notes is not None and sim_notes.notes["effect"] == "no effect: nothing actionable"
    assert disabled.executed is not None
    assert disabled.executed.notes["effect"] == "no effect: disabled"


@pytest.mark.browser
@pytest.mark.device_virtual
@pytest.mark.asyncio(loop_scope="module")
async def test_durations_mean_what_they_mean_on_android(
    played: dict[str, tuple[list[StepResult], list[StepResult]]],
) -> None:
    short, long = played["a 200 ms press"][0][1], played["a 600 ms press"][0][1]
    assert short.executed is not None and short.executed.notes["stroke"] == "tap"
    assert long.executed is not None and long.executed.notes["stroke"] == "long_press"
    fast, slow = played["a fast swipe"][0][-1], played["a slow swipe"][0][-1]
    assert fast.executed is not None and fast.executed.notes["stroke"] == "fling"
    assert slow.executed is not None and slow.executed.notes["stroke"] == "drag"
    # a fling glides on: the list moved further than under a drag of the same path
    assert policy_view(fast.observation)["ui"] != policy_view(slow.observation)["ui"]
