"""The virtual phone's log through the REAL adb binary and adbutils: ``log``, ``logcat``
formats and options, and the ActivityTaskManager START lines of activity starts.

One module-scoped virtual phone attached to a private adb server, as in
test_virtual_adb.py.
"""

from __future__ import annotations

import re
import socket
import time

import pytest

from bridge.uitree import parse_hierarchy
from tests.device.virtual_rig import Rig

pytestmark = pytest.mark.device_virtual

THREADTIME = re.compile(
    r"^(\d\d-\d\d \d\d:\d\d:\d\d)\.\d{3} +(\d+) +(\d+) ([VDIWEF]) (.+?) *: (.*)$"
)
TIME = re.compile(r"^(\d\d-\d\d \d\d:\d\d:\d\d)\.\d{3} ([VDIWEF])/(.+?) *\( *(\d+)\): (.*)$")


def _dump(rig: Rig, *options: str) -> list[str]:
    result = rig.run("logcat", "-d", *options, timeout=20)
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines()


def test_clear_exits_at_once_and_empties_the_log(rig: Rig) -> None:
    rig.device.shell("log -t MgbClear before")
    assert any("before" in line for line in _dump(rig))
    for option in ("--clear", "-c"):
        started = time.monotonic()
        cleared = rig.run("logcat", option, timeout=10)
        assert cleared.returncode == 0 and cleared.stdout == ""
        assert time.monotonic() - started < 5
    assert _dump(rig) == []


def test_log_lines_in_threadtime_and_time_formats(rig: Rig) -> None:
    rig.run("logcat", "-c")
    assert rig.device.shell2("log -p w -t MgbTag hello there").returncode == 0
    phone_now = rig.device.shell("date '+%m-%d %H:%M:%S'").strip()
    lines = _dump(rig)
    assert lines[0] == "--------- beginning of main"
    match = THREADTIME.match(lines[1])
    assert match is not None, lines
    stamp, pid, tid, priority, tag, message = match.groups()
    assert (stamp, priority, tag, message) == (phone_now, "W", "MgbTag", "hello there")
    assert pid == tid
    timed = TIME.match(_dump(rig, "-v", "time")[1])
    assert timed is not None and timed.groups() == (phone_now, "W", "MgbTag", pid, "hello there")
    assert lines[1].index(" W ") < lines[1].index("MgbTag  : hello")  # tag padded to 8


def test_log_rejects_a_bad_priority_and_filters_work(rig: Rig) -> None:
    bad = rig.device.shell2("log -p x -t T msg")
    assert bad.returncode == 1 and bad.output == "log: bad -p 'x'\n"
    rig.run("logcat", "-c")
    rig.device.shell("log -p d -t Quiet debug-line; log -p e -t Loud error-line")
    only_errors = "\n".join(_dump(rig, "*:E"))
    assert "error-line" in only_errors and "debug-line" not in only_errors
    silenced = "\n".join(_dump(rig, "-s", "Quiet"))
    assert "debug-line" in silenced and "error-line" not in silenced


def test_am_start_logs_activity_task_manager_start(rig: Rig) -> None:
    rig.run("logcat", "-c")
    rig.device.app_start("com.android.settings", ".Settings")
    starts = [line for line in _dump(rig, "-v", "time") if "START u0" in line]
    assert len(starts) == 1
    match = TIME.match(starts[0])
    assert match is not None and match.group(2, 3) == ("I", "ActivityTaskManager")
    assert re.search(
        r"START u0 \{.*cmp=com\.android\.settings/\.Settings\} from uid 2000$", starts[0]
    )


def test_a_launcher_tap_logs_a_start_from_the_launcher(rig: Rig) -> None:
    rig.device.keyevent("HOME")
    nodes = parse_hierarchy(rig.device.dump_hierarchy())
    icon = next(n for n in nodes if n.text == "Contacts" and n.clickable)
    left, top, right, bottom = icon.bounds_px
    rig.run("logcat", "-c")
    rig.device.click((left + right) // 2, (top + bottom) // 2)
    deadline = time.monotonic() + 10
    while rig.device.app_current().package != "com.android.contacts":
        assert time.monotonic() < deadline, "the tap did not open Contacts"
    starts = [line for line in _dump(rig) if "START u0" in line]
    assert len(starts) == 1 and "cmp=com.android.contacts/" in starts[0]
    assert "flg=0x10200000" in starts[0] and starts[0].endswith("from uid 10160")


def test_logcat_streams_until_the_host_closes(rig: Rig) -> None:
    rig.run("logcat", "-c")
    conn = rig.device.shell("logcat -v time", stream=True)
    try:
        conn.conn.settimeout(15)
        rig.device.shell("log -t MgbLive streamed-line")
        seen = b""
        while b"streamed-line" not in seen:
            chunk = conn.conn.recv(4096)
            assert chunk, f"logcat ended before the line arrived: {seen!r}"
            seen += chunk
        assert TIME.match(seen.decode().splitlines()[-1]) is not None
        conn.conn.settimeout(0.5)
        with pytest.raises(socket.timeout):  # still streaming: logcat waits for more
            conn.conn.recv(4096)
    finally:
        conn.close()
    assert rig.device.shell("echo alive") == "alive"
