"""The virtual phone's processes through the REAL adb binary, adbutils and uiautomator2:
``ps`` and its options, ``pidof``, the uiautomator2 server as ``app_process`` while it
runs, and one source of pids for ``ps`` and ``dumpsys activity top``.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable

import adbutils
import pytest

from tests.device.virtual_rig import Rig

pytestmark = pytest.mark.device_virtual

DEFAULT_HEADER = "USER         PID  PPID      VSZ    RSS WCHAN             ADDR S NAME"


def _wait_for(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not met before the deadline"
        time.sleep(0.05)


def _rows(text: str) -> list[list[str]]:
    return [line.split() for line in text.splitlines()[1:]]


def test_ps_without_options_lists_this_session(rig: Rig) -> None:
    lines = rig.run("shell", "ps").stdout.splitlines()
    assert lines[0] == DEFAULT_HEADER
    rows = [line.split() for line in lines[1:]]
    assert [row[-1] for row in rows] == ["sh", "ps"] and rows[1][2] == rows[0][1]
    assert {row[0] for row in rows} == {"shell"} and rows[1][-2] == "R"


def test_ps_all_full_and_custom_fields(rig: Rig) -> None:
    everything = rig.run("shell", "ps -A").stdout
    names = [row[-1] for row in _rows(everything)]
    assert {"init", "system_server", "com.android.launcher3", "ps"} <= set(names)
    assert all(len(row) >= 9 for row in _rows(everything))
    full = rig.run("shell", "ps -ef").stdout.splitlines()
    assert full[0].split() == ["UID", "PID", "PPID", "C", "STIME", "TTY", "TIME", "CMD"]
    assert any(line.endswith(" ps -ef") for line in full)
    custom = rig.run("shell", "ps -A -o PID,NAME,ARGS").stdout.splitlines()
    assert custom[0].split() == ["PID", "NAME", "ARGS"]
    assert any(re.fullmatch(r"\s*\d+ ps\s+ps -A -o PID,NAME,ARGS", line) for line in custom)
    assert any(line.split()[1:] == ["init", "init", "second_stage"] for line in custom)
    titled = rig.run("shell", "ps -o PID=ID,NAME").stdout.splitlines()
    assert titled[0].split() == ["ID", "NAME"]
    assert rig.run("shell", "ps -o BOGUS").returncode == 1
    by_pid = _rows(rig.run("shell", "ps -p 1,1151").stdout)
    assert [row[1] for row in by_pid] == ["1", "1151"]


def test_ps_u_and_pidof_show_the_uiautomator2_server(rig: Rig) -> None:
    u2 = pytest.importorskip("uiautomator2")
    assert rig.run("shell", "pidof app_process").returncode == 1
    d = u2.connect(rig.device)
    try:
        assert d.info["displayWidth"] == 1080
        pid = rig.run("shell", "pidof app_process").stdout.strip()
        assert pid.isdigit()
        shells = _rows(rig.run("shell", "ps -u shell").stdout)
        server = [row for row in shells if row[1] == pid]
        assert server and server[0][0] == "shell" and server[0][-1] == "app_process"
        assert all(row[0] == "shell" for row in shells)
        args = rig.run("shell", f"ps -p {pid} -o ARGS").stdout.splitlines()[1]
        assert args == "app_process / com.wetest.uia2.Main -p 9008"
    finally:
        d.stop_uiautomator()
    _wait_for(lambda: rig.run("shell", "pidof app_process").returncode == 1)


def test_kill_stops_the_uiautomator2_server(rig: Rig) -> None:
    u2 = pytest.importorskip("uiautomator2")
    d = u2.connect(rig.device)
    try:
        pid = rig.run("shell", "pidof app_process").stdout.strip()
        assert rig.run("shell", f"kill {pid}; echo $?").stdout == "0\n"
        _wait_for(lambda: rig.run("shell", "pidof app_process").returncode == 1)
        with pytest.raises(adbutils.AdbError, match="closed"):
            rig.device.create_connection(adbutils.Network.TCP, 9008)
    finally:
        d.stop_uiautomator()


def test_pids_agree_between_ps_pidof_and_dumpsys(rig: Rig) -> None:
    rig.run("shell", "input keyevent HOME")
    top = rig.run("shell", "dumpsys activity top").stdout
    package, pid = re.search(r"ACTIVITY (\S+)/\S+ \S+ pid=(\d+)", top).groups()
    assert package == "com.android.launcher3"
    rows = {row[-1]: row[1] for row in _rows(rig.run("shell", "ps -A").stdout)}
    assert rows[package] == pid
    assert rig.run("shell", f"pidof {package}").stdout == f"{pid}\n"
    rig.device.app_start("com.android.settings")
    _wait_for(lambda: "com.android.settings" in rig.run("shell", "dumpsys activity top").stdout)
    top = rig.run("shell", "dumpsys activity top").stdout
    package, pid = re.search(r"ACTIVITY (\S+)/\S+ \S+ pid=(\d+)", top).groups()
    assert rig.run("shell", f"pidof {package}").stdout == f"{pid}\n"


def test_dollar_dollar_is_the_sessions_pid(rig: Rig) -> None:
    out = rig.run("shell", "echo $$; ps -o PID,NAME").stdout.split()
    pid = out[0]
    assert out[1:3] == ["PID", "NAME"]
    assert [pid, "sh"] == out[3:5]
