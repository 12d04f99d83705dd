"""The virtual phone's shell language through the REAL adb binary and adbutils: ``sh``,
``$0``, stdin, background jobs, ``wait``/``kill``/``read``, devices, ``toybox``,
``/system/bin``, ``uname`` and ``/proc/version``, and who owns pushed files.

One module-scoped virtual phone behind a private adb server (ephemeral ports), as in
``test_virtual_adb.py``.
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from device.virtual import kernel
from tests.device.virtual_rig import Rig

pytestmark = pytest.mark.device_virtual


# ---- sh, $0


def test_dollar_zero_and_sh(rig: Rig) -> None:
    assert rig.run("shell", "echo $0").stdout == "/system/bin/sh\n"
    nested = rig.run("shell", "sh -c 'echo in; echo $0 $1 $#; exit 3' name a b; echo $?")
    assert nested.stdout == "in\nname a 2\n3\n"
    assert rig.run("shell", "/system/bin/sh -c 'echo $0'").stdout == "/system/bin/sh\n"
    assert rig.run("shell", "sh -c 'echo $0'").stdout == "sh\n"
    script = rig.run("shell", "sh", input="echo from-stdin\necho $0\n")
    assert script.stdout == "from-stdin\nsh\n" and script.returncode == 0
    assert rig.device.shell2("command -v sh").output == "/system/bin/sh\n"


# ---- stdin


def test_stdin_reaches_commands_over_shell_v2(rig: Rig, tmp_path: Path) -> None:
    assert rig.run("shell", "cat", input="x\n").stdout == "x\n"
    assert rig.run("shell", "wc -l", input="a\nb\nc\n").stdout == "3\n"
    source = tmp_path / "in.txt"
    source.write_text("from a file\n")
    with source.open() as handle:
        redirected = subprocess.run(
            [rig.adb.adb_path, "-P", str(rig.adb.port), "-s", rig.serial, "shell", "cat"],
            stdin=handle,
            capture_output=True,
            text=True,
            timeout=60,
            env=rig.adb.env(),
        )
    assert redirected.stdout == "from a file\n"
    # a command that does not read stdin leaves it for the next one
    assert rig.run("shell", "echo first; cat", input="second\n").stdout == "first\nsecond\n"


def test_stdin_reaches_commands_over_shell_v1(rig: Rig) -> None:
    # adbutils' v1 ``shell:`` stream: what the host sends is the command's stdin (v1 has
    # no half-close, so the script reads one line rather than to the end)
    with rig.device.open_shell('read X; echo "got $X"') as conn:
        conn.send(b"over v1\n")
        assert conn.read_until_close() == "got over v1\n"


def test_read_builtin(rig: Rig) -> None:
    script = 'read A B; echo "[$A|$B]"; read C; echo "[$C] $?"; read D; echo "$? [$D]"'
    assert rig.run("shell", script, input="one two three\nlast\n").stdout == (
        "[one|two three]\n[last] 0\n1 []\n"
    )
    assert rig.run("shell", "echo piped | read X; echo $X").stdout == "piped\n"


# ---- background jobs


def test_background_job_pid_and_wait_status(rig: Rig) -> None:
    result = rig.run("shell", "sh -c 'exit 7' & P=$!; echo $P; wait $P; echo status=$?")
    pid, status = result.stdout.split()
    assert pid.isdigit() and int(pid) > 1 and status == "status=7"
    started = time.monotonic()
    assert rig.run("shell", "sleep 0.5 & wait; echo $?").stdout == "0\n"
    assert time.monotonic() - started >= 0.5
    assert rig.run("shell", "wait 4242; echo $?").stdout == "127\n"


def test_kill_gives_a_killed_jobs_status(rig: Rig) -> None:
    assert rig.run("shell", "sleep 30 & kill $!; wait $!; echo $?").stdout == "143\n"
    assert rig.run("shell", "sleep 30 & kill -9 $!; wait $!; echo $?").stdout == "137\n"
    assert rig.run("shell", "sleep 30 & kill -s INT %1; wait %1; echo $?").stdout == "130\n"
    alive = rig.run("shell", "sleep 1 & kill -0 $!; echo $?; kill $!")
    assert alive.stdout == "0\n"
    refused = rig.run("shell", "kill 1; echo $?; kill 99999; echo $?")
    assert refused.stdout == "1\n1\n"
    assert refused.stderr == (
        "/system/bin/sh: kill: 1: Operation not permitted\n"
        "/system/bin/sh: kill: 99999: No such process\n"
    )
    listed = rig.run("shell", "sleep 30 & jobs; kill %1")
    assert listed.stdout == "[1] + Running              sleep 30\n"


def test_printf_is_there(rig: Rig) -> None:
    assert rig.run("shell", "printf '%s=%d\\n' a 3 b 4").stdout == "a=3\nb=4\n"
    assert rig.run("shell", "toybox printf '%05d' 42").stdout == "00042"
    assert rig.device.shell2("which printf").output == "/system/bin/printf\n"


# ---- devices, toybox, /system/bin, the kernel


def test_devices(rig: Rig) -> None:
    zeros = rig.run("exec-out", "head -c 1000 /dev/zero")
    assert zeros.stdout == "\0" * 1000
    assert rig.run("shell", "head -c 4096 /dev/urandom | wc -c").stdout == "4096\n"
    assert rig.run("shell", "cat /dev/null | wc -c; echo x > /dev/null; echo $?").stdout == (
        "0\n0\n"
    )
    assert rig.run("shell", "ls -l /dev/null").stdout.startswith("crw-rw-rw- 1 root root 0 ")


def test_toybox_and_system_bin(rig: Rig) -> None:
    listing = rig.run("shell", "toybox").stdout
    names = listing.split()
    assert names == sorted(names) and {"ls", "cat", "ps", "uname", "md5sum"} <= set(names)
    assert all(len(line) <= 80 for line in listing.splitlines())
    assert rig.run("shell", "toybox uname").stdout == "Linux\n"
    system_bin = rig.run("shell", "ls /system/bin").stdout.split()
    assert {"sh", "am", "pm", "toybox", "ls", "app_process"} <= set(system_bin)
    long = rig.run("shell", "ls -l /system/bin/ls /system/bin/am").stdout.splitlines()
    assert long[0].startswith("lrwxrwxrwx 1 root shell ") and long[0].endswith("ls -> toybox")
    assert long[1].startswith("-rwxr-xr-x 1 root shell ")
    assert rig.device.sync.exists("/system/bin/sh")


def test_uname_and_proc_version_agree(rig: Rig) -> None:
    release = rig.run("shell", "uname -r").stdout.strip()
    assert release == kernel.RELEASE and release.startswith("5.10.")
    assert rig.run("shell", "uname").stdout == "Linux\n"
    everything = rig.run("shell", "uname -a").stdout.split()
    assert everything[:3] == ["Linux", "localhost", release] and everything[-2:] == [
        "aarch64",
        "Toybox",
    ]
    version = rig.run("shell", "cat /proc/version").stdout
    assert version.startswith(f"Linux version {release} ")
    assert version.rstrip().endswith(rig.run("shell", "uname -v").stdout.strip())


# ---- owners of pushed files


def test_pushed_files_belong_to_shell_with_their_mode(rig: Rig, tmp_path: Path) -> None:
    script = tmp_path / "tool.sh"
    script.write_text("echo tool\n")
    script.chmod(0o750)
    assert rig.run("push", str(script), "/data/local/tmp/tool.sh").returncode == 0
    line = rig.run("shell", "ls -l /data/local/tmp/tool.sh").stdout
    assert line.startswith("-rwxr-x--- 1 shell shell 10 "), line
    assert rig.run("shell", "stat -c '%U %G %a' /data/local/tmp/tool.sh").stdout == (
        "shell shell 750\n"
    )
    rig.device.sync.push(b"jar", "/data/local/tmp/x.jar")  # adbutils: mode 0755
    assert rig.run("shell", "stat -c '%A' /data/local/tmp/x.jar").stdout == "-rwxr-xr-x\n"
    assert rig.run("shell", "sh /data/local/tmp/tool.sh").stdout == "tool\n"
    assert rig.run("push", str(script), "/sdcard/Download/tool.sh").returncode == 0
    sdcard = rig.run("shell", "ls -l /sdcard/Download/tool.sh").stdout
    assert sdcard.startswith("-rw-rw---- 1 u0_a150 media_rw 10 "), sdcard


# ---- grep's context


def test_grep_prints_context_as_toybox_does(rig: Rig) -> None:
    lines = "printf 'a\\nb\\nkey 1\\nc\\nd\\ne\\nkey 2\\nf\\n'"
    assert rig.run("shell", f"{lines} | grep -A 1 key").stdout == "key 1\nc\n--\nkey 2\nf\n"
    assert rig.run("shell", f"{lines} | grep -B1 key").stdout == "b\nkey 1\n--\ne\nkey 2\n"
    assert rig.run("shell", f"{lines} | grep -C 2 key").stdout == "a\nb\nkey 1\nc\nd\ne\nkey 2\nf\n"
    assert rig.run("shell", f"{lines} | grep -c -A 1 key").stdout == "2\n"
    wrong = rig.run("shell", f"{lines} | grep -A x key; echo $?")
    assert wrong.stdout.endswith("2\n") and "context length" in wrong.stderr + wrong.stdout
