"""SMS on the virtual phone, as on a phone: the shell reads them, its writes are dropped
without a word (``WRITE_SMS`` is an ignored app-op), ``su 0`` writes them, and
``AdbAndroidState.deliver_sms`` uses ``su`` where there is one and says why not where there
is none (no browser, no adb server)."""

from __future__ import annotations

import pytest

from bridge.android_contract import SMS, SMS_INBOX
from bridge.errors import StateUnavailable
from device.android_state import AdbAndroidState
from device.virtual.commands_su import USAGE
from device.virtual.phone import VirtualPhone
from device.virtual.shell import Shell
from sim.simulator import Simulator
from tests.device.parity import InMemoryShell

pytestmark = pytest.mark.asyncio


class _Captured:
    def __init__(self) -> None:
        self.out, self.err = bytearray(), bytearray()

    async def stdout(self, data: bytes) -> None:
        self.out += data

    async def stderr(self, data: bytes) -> None:
        self.err += data


@pytest.fixture(scope="module")
def simulator() -> Simulator:
    return Simulator()  # never started: state only


@pytest.fixture
def phone(simulator: Simulator) -> VirtualPhone:
    return VirtualPhone(simulator, simulator.create_instance(seed=0), serial="VP0SMS")


async def _run(phone: VirtualPhone, line: str) -> tuple[int, str, str]:
    io = _Captured()
    status = await Shell(phone).run(line, io)
    return status, io.out.decode(), io.err.decode()


_WHERE = "--where \"address='10690000001'\""


async def test_the_shell_reads_sms_but_its_writes_are_silently_dropped(
    phone: VirtualPhone,
) -> None:
    status, out, _ = await _run(phone, f"content query --uri {SMS_INBOX} --projection address "
                                       "--where \"address='95588'\"")  # fmt: skip
    assert status == 0 and out == "Row: 0 address=95588\n"
    insert = f"content insert --uri {SMS} --bind address:s:10690000001 --bind body:s:hi"
    assert await _run(phone, insert) == (0, "", "")  # Transport.rejectInsert: no error
    assert await _run(phone, f"content delete --uri {SMS} --where \"address='95588'\"") == (
        0, "", "")  # fmt: skip
    assert await _run(phone, f"content update --uri {SMS} --bind read:i:0 --where _id=1") == (
        0, "", "")  # fmt: skip
    _, out, _ = await _run(phone, f"content query --uri {SMS} --projection _id:read {_WHERE}")
    assert out == "No result found.\n"
    _, out, _ = await _run(phone, f"content query --uri {SMS}/1 --projection address:read")
    assert out == "Row: 0 address=95588, read=1\n"


async def test_su_runs_a_command_as_root(phone: VirtualPhone) -> None:
    assert (await _run(phone, "su 0 id"))[1].startswith("uid=0(root)")
    assert (await _run(phone, "su root whoami; whoami"))[1] == "root\nshell\n"
    assert await _run(phone, "su --help") == (0, "", USAGE)
    assert await _run(phone, "su nobody id") == (1, "", "su: invalid uid/gid 'nobody'\n")
    insert = f"su 0 content insert --uri {SMS} --bind address:s:10690000001 --bind body:s:hi"
    assert await _run(phone, insert) == (0, "", "")
    _, out, _ = await _run(phone, f"content query --uri {SMS} --projection body:type {_WHERE}")
    assert out == "Row: 0 body=hi, type=1\n"
    script = f"su 0 sh -c 'content delete --uri {SMS} --where address=10690000001 && echo gone'"
    assert (await _run(phone, script))[1] == "gone\n"
    _, out, _ = await _run(phone, f"content query --uri {SMS} --projection _id {_WHERE}")
    assert out == "No result found.\n"


async def test_deliver_sms_goes_through_su_and_lands_in_the_inbox(phone: VirtualPhone) -> None:
    state = AdbAndroidState(InMemoryShell(phone), wait_s=0.0)
    await state.deliver_sms("+8617700001111", "验证码 482913", 1_778_549_000_000, read=False)
    rows = await state.query(SMS_INBOX, ["address", "body", "read", "seen", "date"],
                             "address='+8617700001111'")  # fmt: skip
    assert rows == [{"address": "+8617700001111", "body": "验证码 482913", "read": "0",
                     "seen": "0", "date": "1778549000000"}]  # fmt: skip
    assert any(c.startswith("su 0 content insert") for c in state.shell.commands)  # type: ignore[attr-defined]
    await state.delete_sms("address='+8617700001111'")
    assert await state.query(SMS, ["_id"], "address='+8617700001111'") == []


class _RetailShell:
    """A phone without su: ``su`` is not found, ``content`` writes to SMS do nothing."""

    async def __call__(self, command: str) -> str:
        if command.startswith("su "):
            return "/system/bin/sh: su: inaccessible or not found\n"
        return "No result found.\n"


async def test_a_retail_phone_cannot_be_made_to_receive_an_sms() -> None:
    state = AdbAndroidState(_RetailShell(), wait_s=0.0)
    with pytest.raises(StateUnavailable, match=r"no su.*WRITE_SMS"):
        await state.deliver_sms("+8617700001111", "hi", 1_778_549_000_000, read=False)
    with pytest.raises(StateUnavailable, match="no su"):
        await state.delete_sms("address='+8617700001111'")
