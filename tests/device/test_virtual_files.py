"""The virtual phone serves ``/sdcard`` from the instance's storage tree through its shell, as
a phone answers ``adb shell ls``/``stat``/``mv``/``cp``/``touch`` (no browser, no adb
server); ``AdbAndroidState``'s file reads and writes run over it, and refuse to write
outside a task folder."""

from __future__ import annotations

import pytest

from bridge.errors import StateUnavailable
from device.android_state import AdbAndroidState, parse_stat_line
from device.virtual.phone import VirtualPhone
from sim import storage as sdcard
from sim.android_state import SimAndroidState
from sim.simulator import Simulator
from tests.device.parity import InMemoryShell


class _Captured:
    """stdout and stderr of a shell."""

    def __init__(self) -> None:
        self.out = bytearray()
        self.err = bytearray()

    async def stdout(self, data: bytes) -> None:
        self.out += data

    async def stderr(self, data: bytes) -> None:
        self.err += data


@pytest.fixture(scope="module")
def simulator() -> Simulator:
    return Simulator()


@pytest.fixture
def phone(simulator: Simulator) -> VirtualPhone:
    return VirtualPhone(simulator, simulator.create_instance(seed=0), serial="VP0FILES0")


async def _run(phone: VirtualPhone, line: str) -> tuple[int, str, str]:
    from device.virtual.shell import Shell

    io = _Captured()
    status = await Shell(phone).run(line, io)
    return status, io.out.decode(), io.err.decode()


@pytest.mark.asyncio
async def test_the_shell_reads_and_writes_the_instance_tree(phone: VirtualPhone) -> None:
    tree = phone.instance.state.os.storage
    assert (await _run(phone, "mkdir -p /sdcard/Download/报告/old"))[0] == 0
    assert sdcard.lookup(tree, "/sdcard/Download/报告/old") is not None
    await _run(phone, "echo hello > '/storage/emulated/0/Download/报告/a b.txt'")
    node = sdcard.resolve(tree, "/sdcard/Download/报告/a b.txt")
    assert node.text == "hello\n" and node.size == 6
    status, out, _ = await _run(phone, "stat -c '%i %s %F %a %n' '/sdcard/Download/报告/a b.txt'")
    assert (status, out) == (0, f"{node.id} 6 regular file 660 /sdcard/Download/报告/a b.txt\n")
    touched = "touch -m -d '2026-05-01 08:00:00' '/sdcard/Download/报告/a b.txt'"
    assert (await _run(phone, touched))[0] == 0
    assert node.mtime_ms == 1777593600000  # 08:00 at UTC+8
    assert (await _run(phone, "stat -c %Y '/sdcard/Download/报告/a b.txt'"))[1] == "1777593600\n"
    await _run(phone, "mv '/sdcard/Download/报告/a b.txt' /sdcard/Download/报告/old/c.txt")
    moved = sdcard.resolve(tree, "/sdcard/Download/报告/old/c.txt")
    assert moved.id == node.id and moved.mtime_ms == 1777593600000  # a move keeps the inode
    assert (await _run(phone, "cp /sdcard/Download/报告/old/c.txt /sdcard/Download/报告/d.txt"))[
        0
    ] == 0
    copied = sdcard.resolve(tree, "/sdcard/Download/报告/d.txt")
    assert copied.id != node.id and copied.text == "hello\n"
    assert (await _run(phone, "cp /sdcard/Download/报告/old /sdcard/Download/x"))[0] == 1
    assert (await _run(phone, "cp -r /sdcard/Download/报告/old /sdcard/Download/报告/copy"))[0] == 0
    assert sdcard.lookup(tree, "/sdcard/Download/报告/copy/c.txt") is not None
    status, out, _ = await _run(phone, "ls -la /sdcard/Download/报告")
    lines = out.splitlines()
    assert status == 0 and lines[0].startswith("total ") and lines[1].endswith(" .")
    assert lines[-1].startswith("drwxrws--x 2 u0_a150 media_rw 4096 ") and lines[-1].endswith(
        " old"
    )
    assert "-rw-rw---- 1 u0_a150 media_rw    6 " in out and out.count("\n") == 6
    for test, expect in (
        ("[ -e /sdcard/Download/报告/d.txt ]", 0),
        ("test -d /sdcard/Download/报告/d.txt", 1),
        ("[ -d /sdcard/Download/报告/old ]", 0),
        ("[ ! -e /sdcard/nope ]", 0),
    ):
        assert (await _run(phone, test))[0] == expect, test
    assert (await _run(phone, "rm /sdcard/Download/报告/old"))[0] == 1
    assert (
        await _run(
            phone, "rm -rf /sdcard/Download/报告 && [ -e /sdcard/Download/报告 ] || echo gone"
        )
    )[1] == "gone\n"
    assert (await _run(phone, "rm -f /sdcard/nope"))[0] == 0


@pytest.mark.asyncio
async def test_big_and_local_files_stay_out_of_the_state(phone: VirtualPhone) -> None:
    payload = bytes(range(256)) * 64
    phone.files["/sdcard/Download/blob.bin"] = payload
    phone.files["/data/local/tmp/u2.jar"] = b"jar"
    node = sdcard.resolve(phone.instance.state.os.storage, "/sdcard/Download/blob.bin")
    assert node.text is None and node.size == len(payload)
    assert phone.files["/sdcard/Download/blob.bin"] == payload
    assert "u2.jar" not in phone.instance.state.model_dump_json()
    assert len(phone.instance.state.model_dump_json()) < 10_000
    assert (await _run(phone, "ls /data/local/tmp"))[1] == "u2.jar\n"


@pytest.mark.asyncio
async def test_adb_state_reads_and_writes_files_only_in_a_task_folder(
    phone: VirtualPhone, simulator: Simulator
) -> None:
    android = AdbAndroidState(InMemoryShell(phone), wait_s=0.0)
    sim = SimAndroidState(simulator.phone, phone.instance.state)
    folder = "/sdcard/Download/任务 A"
    await android.make_dir(folder + "/sub")
    await android.write_file(f"{folder}/it's.txt", "line 1\nline '2' $HOME\n", 1777593600000)
    listed = await android.list_files(folder)
    assert listed == await sim.list_files(folder)
    assert [(f.name, f.kind) for f in listed] == [("it's.txt", "file"), ("sub", "dir")]
    assert listed[0].size == len("line 1\nline '2' $HOME\n") and listed[0].mtime_ms == 1777593600000
    assert await android.stat_path(f"{folder}/it's.txt") == listed[0]
    assert await android.stat_path(f"{folder}/nope") is None
    assert await android.list_files(f"{folder}/nope") == []
    for bad in ("/sdcard/Download", "/sdcard/DCIM/x", "/sdcard/Download/../DCIM/x"):
        with pytest.raises(StateUnavailable, match="task writes files only"):
            await android.write_file(bad, "x", 0)
        with pytest.raises(StateUnavailable):
            await android.remove(bad)
    await android.remove(folder)
    assert await android.stat_path(folder) is None
    await android.remove(folder)  # nothing there: no error


def test_a_stat_line_splits_at_the_first_four_slashes() -> None:
    stat = parse_stat_line("123/45/1777593600/regular file//sdcard/Download/a b/c.txt")
    assert stat is not None and (stat.name, stat.kind, stat.inode) == ("c.txt", "file", 123)
    assert parse_stat_line("stat: '/x': No such file or directory") is None
