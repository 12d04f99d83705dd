"""The simulator twin of a phone that is not the simulator's: a stranger phone (other people,
other settings) behind the real adb server is read once, and a fresh simulator phone is
made to hold the same settings and the same rows of every table a task may touch."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from bridge.android_contract import CONTACTS
from bridge.android_state import NAMESPACES
from bridge.restore import TABLES, Found, read
from device.adb import AdbTarget
from device.android_state import AdbAndroidState
from device.session import AdbSession
from device.virtual.attach import AttachedVirtualPhone, attach_virtual_phone
from sim.android_state import SimAndroidState
from sim.phone import Phone
from sim.simulator import installed_apps
from tests.device.stranger import STRANGERS, make_stranger
from transfer_eval.phone_twin import twin_of

pytestmark = pytest.mark.device_virtual


@pytest.fixture(scope="module")
def stranger(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AttachedVirtualPhone]:
    with attach_virtual_phone(seed=0, android_user_home=tmp_path_factory.mktemp("home")) as p:
        yield p


def _contents(found: Found) -> dict[str, list[tuple[str | None, ...]]]:
    return {
        table.uri: sorted(
            tuple(row.get(c) for c in table.compared) for row in found.rows[table.uri]
        )  # type: ignore[misc]
        for table in TABLES
        if table.uri in found.rows
    }


def test_the_twin_holds_what_the_phone_holds(stranger: AttachedVirtualPhone) -> None:
    target = AdbTarget(port=stranger.adb_port, serial=stranger.serial)

    async def scenario() -> tuple[Found, Found, list[str]]:
        session = AdbSession(target)
        await session.open()
        try:
            phone = AdbAndroidState(session.shell)
            await make_stranger(phone)
            twin = await twin_of(target)
            on_phone = await read(phone)
        finally:
            await session.close()
        in_twin = await read(SimAndroidState(Phone(installed_apps()), twin.state))
        return on_phone, in_twin, twin.differences.not_restored

    on_phone, in_twin, not_held = asyncio.run(scenario())
    assert not_held == []
    assert set(on_phone.rows) == {table.uri for table in TABLES}  # the virtual phone lets us
    assert _contents(in_twin) == _contents(on_phone)
    for ns in NAMESPACES:
        assert in_twin.settings[ns] == on_phone.settings[ns], ns
    names = {row["display_name"] for row in in_twin.rows[CONTACTS]}
    assert names == {person.name for person in STRANGERS}  # none of the simulator's people
    assert in_twin.settings["global"]["wifi_on"] == "0"  # the stranger's own settings
