"""Leaving the phone as it was found (:mod:`bridge.restore`).

Every template a retail phone can pose is posed twice in a row on ONE virtual phone that is
never reset (as a real phone is not), with the oracle solving it in between: both times it
must pose, be solved and be judged the same, and be put back completely: after both, the
phone holds what it held before them (the sweep is split by app between test workers; the
templates of one app follow each other on one phone). The phone is reached through its own
shell commands, in memory (``tests.device.parity.InMemoryShell``: the judge's and the
restorer's every read and write is a ``settings``/``content``/``stat`` command line); the
oracle acts through the simulator's env on the phone's own instance, whose screens the
phone shows. The adb transport and ``AndroidEnv.put_back`` itself are exercised by the
paired runs on the virtual phone (tests/transfer_eval/test_paired_start.py).
"""

from __future__ import annotations

import fnmatch
from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest
import pytest_asyncio

from bridge.android_state import NAMESPACES, Namespace
from bridge.app_catalog import app_catalog
from bridge.errors import StateUnavailable
from bridge.judge import StartRecord, judge, pose
from bridge.observed import volatile_settings
from bridge.records import TaskInstance
from bridge.restore import TABLES, Found, put_back, remember
from bridge.retail import retail_can_pose
from bridge.runner import run_episode
from bridge.schema import (
    Action,
    AnswerAction,
    Observation,
    ObservedState,
    Restoration,
    StepResult,
    Verdict,
)
from bridge.taskspec import TaskSpec
from bridge.uitree import to_xml
from device import env as device_env
from device.android_state import AdbAndroidState
from device.virtual.phone import VirtualPhone
from policies.scripted import PlanPolicy
from sim.android_state import SimAndroidState
from sim.env import SimEnv
from sim.phone import Phone
from sim.simulator import SimConfig, Simulator, installed_apps
from sim.state import InstanceState
from sim.tasks.registry import default_registry
from tests.device.parity import InMemoryShell

REGISTRY = default_registry()


def _task(task_id: str, lang: str) -> TaskInstance:
    return REGISTRY.instantiate(task_id, 0, lang)


SHARD_BY_APP = True
"""Split by app between test workers (tests/conftest.py): each worker has its own phone."""

RETAIL = [t for t in REGISTRY.ids() if retail_can_pose(_task(t, "en"))]
"""Templates a retail phone can pose (the others need ``su`` or an unexported provider)."""


class PhoneEpisodes:
    """Episodes on one virtual phone: posed, judged and put back over its shell; acted on
    through the simulator's env on the phone's instance (what the phone's screen shows)."""

    def __init__(self, sim: Simulator, phone: VirtualPhone) -> None:
        self.shell = InMemoryShell(phone)
        self.state = AdbAndroidState(self.shell, wait_s=0.0)
        self.screen = SimEnv(sim, phone.instance, screenshot=False)
        self.spec = TaskSpec()
        self.found: Found | None = None
        self.start: StartRecord | None = None
        self.answer: dict[str, object] | None = None
        self.trees: list[str] = []

    async def reset(self, task: TaskInstance) -> Observation:
        assert task.spec is not None
        self.spec, self.answer, self.trees = task.spec, None, []
        for app_id in self.spec.apps:  # as AndroidEnv does: the task's apps start afresh
            await self.shell(f"am force-stop {app_catalog().get(app_id).package()}")
        self.found = await remember(self.spec, self.state)
        self.start = await pose(self.spec, self.state)
        await self.shell("input keyevent KEYCODE_HOME")
        return self._seen(await self.screen.observe())

    def _seen(self, obs: Observation) -> Observation:
        self.trees.append(to_xml(obs.ui))
        return obs

    async def step(self, action: Action) -> StepResult:
        result = await self.screen.step(action)
        if isinstance(action, AnswerAction):
            self.answer = dict(action.fields)
        self._seen(result.observation)
        return result

    async def verdict(self) -> Verdict:
        assert self.start is not None
        return await judge(
            self.spec,
            self.state,
            self.start,
            answer=self.answer,  # type: ignore[arg-type]
            trees=self.trees,
        )

    def start_state(self) -> ObservedState | None:
        return self.start.observed if self.start is not None else None

    async def put_back(self) -> Restoration:
        assert self.found is not None
        restored = await put_back(self.state, self.found)
        await self.shell("input keyevent KEYCODE_HOME")
        return restored

    async def close(self) -> None:
        return None


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def episodes() -> AsyncIterator[PhoneEpisodes]:
    """One virtual phone for the whole sweep, never reset."""
    async with Simulator(SimConfig(pages=1)) as sim:
        phone = VirtualPhone(sim, sim.create_instance(seed=0), serial="VP0REST")
        yield PhoneEpisodes(sim, phone)


@dataclass(frozen=True)
class Snapshot:
    """What the phone holds that a retail template may touch: settings and every table
    (each row by the columns that say what it is, ``_id``s aside)."""

    settings: dict[str, dict[str, str]]
    tables: dict[str, list[tuple[str, ...]]]


async def _everything(state: AdbAndroidState) -> Snapshot:
    settings = {ns: await state.list_settings(ns) for ns in NAMESPACES}
    tables = {}
    for table in TABLES:
        rows = await state.query(table.uri, list(table.columns), table.where, "_id")
        tables[table.uri] = sorted(tuple(row.get(c) or "" for c in table.compared) for row in rows)
    return Snapshot(settings, tables)


def _unchanged(before: Snapshot, after: Snapshot) -> list[str]:
    """What differs between two readings of the phone (volatile settings aside)."""
    globs = volatile_settings()
    found = [f"{uri} rows" for uri in before.tables if before.tables[uri] != after.tables[uri]]
    for ns in NAMESPACES:
        old, new = before.settings[ns], after.settings[ns]
        found += [
            f"{ns}.{key}: {old.get(key)!r} -> {new.get(key)!r}"
            for key in sorted(set(old) | set(new))
            if old.get(key) != new.get(key)
            and not any(fnmatch.fnmatchcase(f"{ns}.{key}", glob) for glob in globs)
        ]
    return found


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize("task_id", RETAIL)
async def test_posed_twice_solved_judged_the_same_and_put_back(
    episodes: PhoneEpisodes, task_id: str
) -> None:
    task = _task(task_id, "zh" if RETAIL.index(task_id) % 2 else "en")
    oracle = REGISTRY.get(task_id).oracle_for(task)
    before = await _everything(episodes.state)
    records = [
        await run_episode(
            PlanPolicy(oracle, name="scripted"),
            episodes,  # type: ignore[arg-type]
            task,
            episode_id=f"{task_id}#{n}",
        )
        for n in range(2)
    ]
    for record in records:
        assert record.outcome == "success", (record.episode_id, record.error, record.verdict)
        assert record.restoration is not None and record.restoration.complete, record.restoration
    first, second = (record.verdict for record in records)
    assert first is not None and second is not None
    judged = [[(c.name, c.passed, c.expected) for c in v.checks] for v in (first, second)]
    assert judged[0] == judged[1] and first.clean == second.clean
    assert _unchanged(before, await _everything(episodes.state)) == []


class _RetailPhone(SimAndroidState):
    """A phone that refuses to write one setting back (as a retail phone refuses a secure
    setting without ``WRITE_SECURE_SETTINGS``)."""

    async def put_setting(self, namespace: Namespace, key: str, value: str) -> None:
        if (namespace, key) == ("secure", "ui_night_mode"):
            raise StateUnavailable("the phone refused `settings put secure ui_night_mode`")
        await super().put_setting(namespace, key, value)


@pytest.mark.asyncio
async def test_what_a_phone_refuses_is_named_and_the_next_refused_pose_names_it() -> None:
    state = _RetailPhone(Phone(installed_apps()), InstanceState(seed=0))
    spec = _task("settings/SetDarkTheme-v1", "en").spec
    assert spec is not None
    found = await remember(spec, state)
    await SimAndroidState.put_setting(state, "secure", "ui_night_mode", "2")  # the agent's
    await state.put_setting("global", "wifi_on", "0")  # and a side effect it can undo
    done = await put_back(state, found)
    assert "global.wifi_on" in done.restored
    assert not done.complete
    (refused,) = done.not_restored
    assert refused.startswith("secure.ui_night_mode: the phone refused")
    device_env._LEFTOVERS["SERIAL1"] = list(done.not_restored)
    message = device_env._with_leftovers("the goal already holds after posing", "SERIAL1")
    assert "\n" not in message and "left on this phone by an earlier episode" in message
    assert "secure.ui_night_mode" in message
    assert device_env._with_leftovers("refused", "OTHER") == "refused"
