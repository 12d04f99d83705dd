"""Every template posed on a stranger phone (tests/device/stranger.py) is not already solved
and is judged on the phone's own data; a sample of oracles solves its task through the real
adb stack.

The in-memory part runs every template at seeds 0 and 1 in both languages over the virtual
phone's shell (every oracle also solves its task on a stranger phone in the simulator, in
Chinese: tests/sim/test_tasks_e2e.py); the sweep runs a sample that covers every kind of
check and truth once, on a stranger virtual phone behind the real adb server, never reset
between tasks — as a real phone is not — so each spec must pose its task over whatever the
earlier ones left. Half the sample runs on the AOSP virtual phone, half on the virtual Redmi
(tests/device/test_stranger_redmi.py).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bridge.judge import judge, pose
from bridge.records import TaskInstance
from device.virtual.attach import AttachedVirtualPhone, attach_virtual_phone
from sim.simulator import Simulator
from sim.tasks.registry import default_registry
from tests.device.parity import Worlds
from tests.device.stranger import make_stranger, sweep

REGISTRY = default_registry()
TEMPLATES = REGISTRY.ids()
SAMPLE = (
    "settings/BedtimeRoutine-v1",  # five settings, zero/nonzero/le
    "settings/QueryConnectedWifi-v1",  # cmd wifi status
    "contacts/CreateContactWithCompany-v1",  # delete-then-create, data rows with ", "
    "contacts/QueryPhoneNumber-v1",  # a truth from the phone's own contact
    "contacts/CountSurname-v1",  # inserted people, LIKE
    "contacts/StarSurname-v1",  # NOT, a guard, EachStep over the screen
)
"""Templates the adb sweep runs on the AOSP virtual phone; with the virtual Redmi's half
(tests/device/test_stranger_redmi.py), one of
every kind of ensure, check and truth that needs the transport (services, su, sync, saved
trees, several apps). Every template's checks and truths also run through the phone's own
shell commands, in-process, in the parity tests (tests/device/test_judge_parity.py)."""


def _task(task_id: str, seed: int, lang: str) -> TaskInstance:
    return REGISTRY.instantiate(task_id, seed, lang)


@pytest.mark.asyncio
@pytest.mark.parametrize("task_id", TEMPLATES)
async def test_a_stranger_phone_is_posed_not_solved(task_id: str) -> None:
    simulator = Simulator()
    for seed in range(2):  # four instances per template (the parity tests take ten seeds)
        for lang in ("en", "zh"):
            spec = _task(task_id, seed, lang).spec
            assert spec is not None
            phone = Worlds.fresh(simulator, seed).phone
            await make_stranger(phone)
            start = await pose(spec, phone)  # raises TaskNotPosed when already solved
            verdict = await judge(spec, phone, start)
            assert not verdict.success, (seed, lang, verdict.checks)


@pytest.mark.asyncio
async def test_truths_are_the_phones_own() -> None:
    simulator = Simulator()
    seed = next(
        s
        for s in range(200)
        if _task("contacts/QueryPhoneNumber-v1", s, "en").params["name"] == "张三"
    )
    spec = _task("contacts/QueryPhoneNumber-v1", seed, "en").spec
    assert spec is not None
    worlds = Worlds.fresh(simulator, seed)
    await make_stranger(worlds.phone)
    assert (await pose(spec, worlds.phone)).truths["number"] == ["+86 135 1111 2222"]
    assert (await pose(spec, worlds.sim)).truths["number"] == ["+86 138 0013 8000"]
    favorites = _task("contacts/CountFavorites-v1", 0, "en")
    assert favorites.spec is not None
    extra = len(favorites.params["people"])  # type: ignore[arg-type]
    on_phone = (await pose(favorites.spec, worlds.phone)).truths["count"]
    assert on_phone == [2 + extra] != [favorites.params["count"]]


@pytest.fixture(scope="module")
def stranger(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AttachedVirtualPhone]:
    with attach_virtual_phone(seed=0, android_user_home=tmp_path_factory.mktemp("home")) as p:
        yield p


@pytest.mark.device_virtual
@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize("task_id", SAMPLE)
async def test_the_oracle_solves_a_sample_on_a_stranger_phone_through_adb(
    stranger: AttachedVirtualPhone, task_id: str
) -> None:
    await sweep(stranger, task_id, SAMPLE.index(task_id), "aosp")
