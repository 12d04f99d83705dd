"""The virtual phone serves CalendarContract through its shell's ``content`` command, as a
phone answers ``adb shell content …`` (no browser, no adb server)."""

from __future__ import annotations

import pytest

from device.virtual.phone import VirtualPhone
from device.virtual.shell import Shell
from sim.simulator import Simulator


class _Captured:
    """stdout and stderr of a shell."""

    def __init__(self) -> None:
        self.out = bytearray()
        self.err = bytearray()

    async def stdout(self, data: bytes) -> None:
        self.out += data

    async def stderr(self, data: bytes) -> None:
        self.err += data


async def _run(phone: VirtualPhone, line: str) -> tuple[int, str, str]:
    io = _Captured()
    status = await Shell(phone).run(line, io)
    return status, io.out.decode(), io.err.decode()


@pytest.mark.asyncio
async def test_content_serves_the_calendar_provider() -> None:
    sim = Simulator()
    phone = VirtualPhone(sim, sim.create_instance(seed=0), serial="VP00000001")
    uri = "content://com.android.calendar"
    status, out, _ = await _run(
        phone,
        f"content query --uri {uri}/events --projection _id:title "
        "--where \"deleted=0 AND title='Dentist'\"",
    )
    assert (status, out) == (0, "Row: 0 _id=7, title=Dentist\n")
    status, _, err = await _run(
        phone,
        f"content insert --uri {uri}/calendars "
        "--bind account_name:s:mobilegym --bind name:s:mobilegym",
    )
    assert status == 1 and "java.lang.UnsupportedOperationException: only a sync adapter" in err
    sync = f"'{uri}/calendars?caller_is_syncadapter=true&account_name=mobilegym&account_type=LOCAL'"
    assert (await _run(phone, f"content insert --uri {sync} --bind name:s:mobilegym"))[0] == 0
    insert = (
        f"content insert --uri {uri}/events --bind calendar_id:i:2 --bind title:s:面试 "
        "--bind dtstart:l:1779766200000 --bind dtend:l:1779771600000 "
        "--bind eventTimezone:s:Asia/Shanghai"
    )
    assert (await _run(phone, insert))[0] == 0
    status, out, _ = await _run(
        phone,
        f"content query --uri {uri}/events --projection "
        '_id:title:account_name --where "calendar_id=2"',
    )
    assert out == "Row: 0 _id=22, title=面试, account_name=mobilegym\n"
    status, _, err = await _run(
        phone,
        f"content insert --uri {uri}/events --bind calendar_id:i:1 "
        "--bind dtstart:l:1 --bind eventTimezone:s:UTC",
    )
    assert status == 1
    assert "java.lang.IllegalArgumentException: dtend is required for a non-recurring event" in err
