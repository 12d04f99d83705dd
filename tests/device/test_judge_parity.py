"""One task, one judge, two worlds: the simulator and the virtual phone's shell agree.

For every template, seeds 0–9, English and Chinese (each distinct bound spec once): the
start state read through the protocol is the same in the simulator (``SimAndroidState``)
and on the virtual phone (``AdbAndroidState`` over its shell, in memory); end states and
answers — right, tolerant and must-fail forms — get the same verdicts. The mutation tests
break one side the way drift breaks it and check that parity notices.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from bridge.android_contract import DATA, ORGANIZATION, sql_text
from bridge.errors import TaskNotPosed
from bridge.judge import apply_op, judge, pose
from bridge.observed import observe
from bridge.spec.contacts import EnsureContact
from bridge.spec.settings import SettingCheck
from bridge.taskspec import TaskSpec
from sim.simulator import Simulator
from sim.tasks.registry import default_registry
from tests.device.parity import (
    Worlds,
    answer_forms,
    differences,
    satisfying_puts,
    start_reading,
    verdict_json,
)

REGISTRY = default_registry()
TEMPLATES = REGISTRY.ids()
SHARD_BY_APP = True
"""make test splits this file's per-template tests by app (tests/conftest.py)."""
SEEDS = range(10)
LANGS = ("en", "zh")


@pytest.fixture(scope="module")
def simulator() -> Iterator[Simulator]:
    yield Simulator()  # never started: no browser, only state


def _instance(simulator: Simulator, task_id: str, seed: int, lang: str) -> Any:
    return REGISTRY.instantiate(task_id, seed, lang)


def _spec(simulator: Simulator, task_id: str, seed: int, lang: str) -> TaskSpec:
    spec = _instance(simulator, task_id, seed, lang).spec
    assert spec is not None
    return spec


async def _start_differences(simulator: Simulator, spec: TaskSpec, seed: int) -> list[str]:
    worlds = Worlds.fresh(simulator, seed)
    try:
        _, in_sim = await start_reading(spec, worlds.sim)
        _, on_phone = await start_reading(spec, worlds.phone)
    finally:
        simulator.drop_instance(worlds.virtual.instance.id)
    return differences(in_sim, on_phone)


def _distinct(simulator: Simulator, task_id: str, seeds: range) -> list[tuple[int, str, TaskSpec]]:
    """The (seed, language, bound spec) of ``seeds`` whose specs differ: a template with few
    parameters is posed once per distinct instance, not once per seed."""
    seen: set[str] = set()
    found = []
    for seed in seeds:
        for lang in LANGS:
            spec = _spec(simulator, task_id, seed, lang)
            key = spec.model_dump_json()
            if key not in seen:
                seen.add(key)
                found.append((seed, lang, spec))
    return found


@pytest.mark.asyncio
@pytest.mark.parametrize("task_id", TEMPLATES)
async def test_the_start_state_is_the_same_in_both_worlds(
    simulator: Simulator, task_id: str
) -> None:
    for seed, lang, spec in _distinct(simulator, task_id, SEEDS):
        found = await _start_differences(simulator, spec, seed)
        assert not found, (seed, lang, found[:5])


async def _verdicts(
    simulator: Simulator, spec: TaskSpec, seed: int, answers: list[dict[str, Any] | None]
) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(simulator verdict, phone verdict) for each answer, on the start state and then on
    a state where the spec's setting checks have been met through the protocol."""
    worlds = Worlds.fresh(simulator, seed)
    starts = [await pose(spec, state) for state in worlds.both()]
    pairs = []
    try:
        for answer in answers:
            sim_v, phone_v = [
                await verdict_json(spec, state, start, answer)
                for state, start in zip(worlds.both(), starts, strict=True)
            ]
            pairs.append((sim_v, phone_v))
        for state in worlds.both():
            for namespace, key, value in satisfying_puts(spec):
                await state.put_setting(namespace, key, value)  # type: ignore[arg-type]
        solved = [
            await verdict_json(spec, state, start, answers[0])
            for state, start in zip(worlds.both(), starts, strict=True)
        ]
        pairs.append((solved[0], solved[1]))
    finally:
        simulator.drop_instance(worlds.virtual.instance.id)
    return pairs


@pytest.mark.asyncio
@pytest.mark.parametrize("task_id", TEMPLATES)
async def test_end_states_and_answers_get_the_same_verdicts(
    simulator: Simulator, task_id: str
) -> None:
    for seed, lang, spec in _distinct(simulator, task_id, range(3)):
        probe = Worlds.fresh(simulator, seed)
        truths = (await pose(spec, probe.sim)).truths
        simulator.drop_instance(probe.virtual.instance.id)
        answers: list[dict[str, Any] | None] = [None]
        expected: list[bool | None] = [None]
        for rule in spec.answers:
            right, wrong = answer_forms(rule.match, truths[rule.truth][0])
            answers += [{rule.field: form} for form in right + wrong]
            expected += [True] * len(right) + [False] * len(wrong)
        pairs = await _verdicts(simulator, spec, seed, answers)
        for (in_sim, on_phone), answer, should in zip(pairs, answers, expected, strict=False):
            assert not differences(in_sim, on_phone), (seed, lang, answer)
            field = next(iter(answer)) if answer else None
            if field is not None and should is not None:
                check = next(c for c in in_sim["checks"] if c["name"] == f"answer.{field}")
                assert check["passed"] is should, (seed, lang, answer, check)
        solved_sim, solved_phone = pairs[-1]
        assert not differences(solved_sim, solved_phone), (seed, lang, "solved")
        settings_only = (
            all(isinstance(c, SettingCheck) and c.op != "ne" for c in spec.checks)
            and not spec.answers
        )
        if settings_only and spec.checks:
            assert solved_sim["success"] and solved_sim["clean"], (seed, lang, solved_sim)


@pytest.mark.asyncio
async def test_doing_nothing_fails_with_no_progress_in_both_worlds(simulator: Simulator) -> None:
    for task_id in TEMPLATES:
        spec = _spec(simulator, task_id, 3, "zh")
        worlds = Worlds.fresh(simulator, 3)
        for state in worlds.both():
            start = await pose(spec, state)
            verdict = await judge(spec, state, start)
            assert not verdict.success and verdict.clean is True, (task_id, verdict)
            assert verdict.progress == 0.0, (task_id, verdict.checks)  # no credit for nothing
        simulator.drop_instance(worlds.virtual.instance.id)


@pytest.mark.asyncio
async def test_a_goal_that_holds_at_the_start_is_refused(simulator: Simulator) -> None:
    spec = _spec(simulator, "settings/SetWifi-v1", 0, "en")
    without_pose = spec.model_copy(update={"ensure": spec.ensure[:2]})
    target = next(c for c in spec.checks if isinstance(c, SettingCheck))
    worlds = Worlds.fresh(simulator, 0)
    for state in worlds.both():
        await state.put_setting("global", "wifi_on", str(target.value))
        with pytest.raises(TaskNotPosed, match="already holds"):
            await pose(without_pose, state)
    simulator.drop_instance(worlds.virtual.instance.id)


# --------------------------------------------------------------------------- mutations


@pytest.mark.asyncio
async def test_parity_notices_a_row_parser_that_splits_values_at_commas(
    simulator: Simulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A naive ``content query`` parser cuts ``Globex, Inc.`` in two."""
    import device.android_state.rows as adb_state

    def naive(output: str, columns: list[str]) -> list[dict[str, str | None]]:
        rows = []
        for line in output.splitlines():
            if line.startswith("Row: "):
                cells = line.split(" ", 2)[2].split(", ")
                row = dict(cell.split("=", 1) for cell in cells if "=" in cell)
                rows.append({c: (None if row.get(c) == "NULL" else row.get(c)) for c in columns})
        return rows

    task_id = "contacts/QueryCompany-v1"
    assert not await _start_differences(simulator, _spec(simulator, task_id, 0, "en"), 0)
    monkeypatch.setattr(adb_state, "parse_rows", naive)
    assert await _start_differences(simulator, _spec(simulator, task_id, 0, "en"), 0)


@pytest.mark.asyncio
async def test_parity_notices_a_simulator_that_returns_ints(
    simulator: Simulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A phone prints ``1``; a simulator handing back the int 1 reads differently."""
    from sim.android_state import SimAndroidState

    printed = SimAndroidState.get_setting

    async def typed(self: SimAndroidState, namespace: Any, key: str) -> Any:
        value = await printed(self, namespace, key)
        return int(value) if value is not None and value.isdigit() else value

    assert not await _start_differences(
        simulator, _spec(simulator, "settings/SetWifi-v1", 0, "en"), 0
    )
    monkeypatch.setattr(SimAndroidState, "get_setting", typed)
    assert await _start_differences(simulator, _spec(simulator, "settings/SetWifi-v1", 0, "en"), 0)


@pytest.mark.asyncio
async def test_parity_notices_a_virtual_content_that_ignores_not(
    simulator: Simulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The virtual phone's ``content`` dropping NOT from a where clause."""
    import device.virtual.commands_rows as content

    task_id = "contacts/StarSurname-v1"
    assert not await _start_differences(simulator, _spec(simulator, task_id, 1, "en"), 1)
    original = content.where_argument

    def without_not(args: dict[str, Any]) -> str | None:
        where = original(args)
        return where.replace("NOT ", "") if where else where

    monkeypatch.setattr(content, "where_argument", without_not)
    assert await _start_differences(simulator, _spec(simulator, task_id, 1, "en"), 1)


@pytest.mark.asyncio
async def test_observed_rows_keep_values_with_commas_whole_in_both_worlds(
    simulator: Simulator,
) -> None:
    spec = _spec(simulator, "contacts/CreateContactWithCompany-v1", 0, "en")
    worlds = Worlds.fresh(simulator, 0)
    seen, companies = [], []
    for state in worlds.both():
        await pose(spec, state)
        op = EnsureContact(name="Zoë Park", phones=["+1 415 555 0132"], company="Initech, Inc.")
        await apply_op(state, op)
        seen.append((await observe(spec, state)).model_dump(mode="json"))
        rows = await state.query(DATA, ["data1"], f"mimetype={sql_text(ORGANIZATION)}", "_id")
        companies.append([row["data1"] for row in rows])
    simulator.drop_instance(worlds.virtual.instance.id)
    assert not differences(*seen) and companies[0] == companies[1]
    assert "Initech, Inc." in companies[1] and "Globex, Inc." in companies[1]
