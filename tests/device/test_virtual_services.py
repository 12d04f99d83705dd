"""adbd services and system tools of the virtual phone, through the REAL adb binary and adbutils.

``framebuffer:``, ``reverse:…``, ``ifconfig`` / ``ip`` and ``screenrecord``. One
module-scoped virtual phone attached to a private adb server (ephemeral ports, keys in a
temporary ANDROID_USER_HOME), as in test_virtual_adb.py.
"""

from __future__ import annotations

import gc
import re
import time
from collections.abc import Callable
from pathlib import Path

import adbutils
import cv2
import numpy as np
import pytest

from tests.device.virtual_rig import Rig

pytestmark = pytest.mark.device_virtual


# ---- framebuffer:


# adbutils' framebuffer() never closes its connection (a ResourceWarning when it is collected).
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
@pytest.mark.filterwarnings("ignore::ResourceWarning")
def test_framebuffer_is_the_screen_in_rgba(rig: Rig) -> None:
    frame = rig.device.framebuffer()
    gc.collect()  # let adbutils' leaked socket go here, under this test's filter
    assert frame.mode == "RGBA" and frame.size == (1080, 2400)
    shot = rig.device.screenshot().convert("RGB")
    pixels = np.asarray(frame)
    assert (pixels[..., 3] == 255).all()
    assert np.array_equal(pixels[..., :3], np.asarray(shot))
    assert pixels[..., :3].std() > 0  # a real screen, not a blank buffer


def test_framebuffer_header_is_fbinfo_v2(rig: Rig) -> None:
    with rig.device.open_transport() as conn:
        conn.send_command("framebuffer:")
        conn.check_okay()
        header = [conn.read_uint32() for _ in range(14)]
    version, bpp, colorspace, size, width, height, *channels = header
    assert (version, bpp, colorspace) == (2, 32, 1)
    assert (size, width, height) == (1080 * 2400 * 4, 1080, 2400)
    assert channels == [0, 8, 16, 8, 8, 8, 24, 8]  # red, blue, green, alpha


# ---- reverse:


def test_reverse_rules_with_adbutils(rig: Rig) -> None:
    device = rig.device
    device.reverse_remove_all()
    device.reverse("tcp:18080", "tcp:28080")
    device.reverse("localabstract:mgb", "tcp:28081")
    assert [(r.remote, r.local) for r in device.reverse_list()] == [
        ("tcp:18080", "tcp:28080"),
        ("localabstract:mgb", "tcp:28081"),
    ]
    with pytest.raises(adbutils.AdbError, match="cannot rebind existing socket"):
        device.reverse("tcp:18080", "tcp:1", norebind=True)
    device.reverse("tcp:18080", "tcp:38080")  # rebinding is allowed without norebind
    device.reverse_remove("tcp:18080")
    assert [r.remote for r in device.reverse_list()] == ["localabstract:mgb"]
    with pytest.raises(adbutils.AdbError, match="listener 'tcp:18080' not found"):
        device.reverse_remove("tcp:18080")
    device.reverse_remove_all()
    assert device.reverse_list() == []


def test_reverse_list_format_on_the_wire(rig: Rig) -> None:
    rig.device.reverse_remove_all()
    rig.device.reverse("tcp:5000", "tcp:6000")
    with rig.device.open_transport() as conn:
        conn.send_command("reverse:list-forward")
        conn.check_okay()
        listing = conn.read_string_block()
    serial, remote, local = listing.removesuffix("\n").split(" ")
    assert serial.startswith("host-") and serial[5:].isdigit()
    assert (remote, local) == ("tcp:5000", "tcp:6000")
    rig.device.reverse_remove_all()


def test_reverse_with_the_adb_binary(rig: Rig) -> None:
    assert rig.run("reverse", "--remove-all").returncode == 0
    added = rig.run("reverse", "tcp:7100", "tcp:7200")
    assert added.returncode == 0, added.stderr
    listed = rig.run("reverse", "--list")
    assert listed.returncode == 0 and listed.stdout.split()[1:] == ["tcp:7100", "tcp:7200"]
    refused = rig.run("reverse", "--no-rebind", "tcp:7100", "tcp:1")
    assert refused.returncode == 1 and "cannot rebind existing socket" in refused.stderr
    missing = rig.run("reverse", "--remove", "tcp:9999")
    assert missing.returncode == 1 and "listener 'tcp:9999' not found" in missing.stderr
    assert rig.run("reverse", "--remove", "tcp:7100").returncode == 0
    assert rig.run("reverse", "--list").stdout.strip() == ""


# ---- ifconfig / ip


def _set_wifi(rig: Rig, on: bool) -> None:
    assert rig.run("shell", "svc", "wifi", "enable" if on else "disable").returncode == 0


def test_wlan0_has_an_address_while_wifi_is_on(rig: Rig) -> None:
    _set_wifi(rig, True)
    ifconfig = rig.run("shell", "ifconfig", "wlan0")
    assert ifconfig.returncode == 0
    lines = ifconfig.stdout.splitlines()
    assert lines[0].startswith("wlan0     Link encap:Ethernet  HWaddr 02:00:00:")
    match = re.fullmatch(
        r" {10}inet addr:(192\.168\.\d+\.\d+)  Bcast:192\.168\.\d+\.255  Mask:255\.255\.255\.0 ",
        lines[1],
    )
    assert match is not None, lines
    address = match.group(1)
    assert "UP BROADCAST RUNNING MULTICAST  MTU:1500  Metric:1" in ifconfig.stdout
    assert rig.device.wlan_ip() == address  # adbutils parses it
    shown = rig.run("shell", "ip addr show dev wlan0").stdout
    assert f"    inet {address}/24 brd " in shown and "state UP" in shown
    inet = rig.run("shell", "ip -f inet addr show wlan0").stdout
    assert f"inet {address}/24" in inet and "inet6" not in inet
    assert rig.run("shell", "ifconfig wlan0").stdout == ifconfig.stdout  # stable per phone


def test_wlan0_without_wifi_has_no_inet_line(rig: Rig) -> None:
    _set_wifi(rig, False)
    try:
        ifconfig = rig.run("shell", "ifconfig", "wlan0")
        assert ifconfig.returncode == 0 and ifconfig.stdout.startswith("wlan0 ")
        assert "inet" not in ifconfig.stdout and " UP " not in ifconfig.stdout
        assert "          BROADCAST MULTICAST  MTU:1500  Metric:1" in ifconfig.stdout
        shown = rig.run("shell", "ip addr show dev wlan0").stdout
        assert "state DOWN" in shown and "inet" not in shown
        assert rig.run("shell", "ip -f inet addr show wlan0").stdout == ""
    finally:
        _set_wifi(rig, True)


def test_unknown_interface_errors(rig: Rig) -> None:
    missing = rig.run("shell", "ifconfig", "eth7")
    assert (missing.returncode, missing.stderr) == (1, "ifconfig: eth7: No such device\n")
    absent = rig.run("shell", "ip", "addr", "show", "dev", "eth7")
    assert (absent.returncode, absent.stderr) == (1, 'Device "eth7" does not exist.\n')


# ---- screenrecord


def _frames(path: Path) -> tuple[int, tuple[int, int]]:
    capture = cv2.VideoCapture(str(path))
    try:
        count, size = 0, (0, 0)
        while True:
            ok, frame = capture.read()
            if not ok:
                return count, size
            count, size = count + 1, (frame.shape[1], frame.shape[0])
    finally:
        capture.release()


def test_screenrecord_time_limit_writes_a_playable_mp4(rig: Rig, tmp_path: Path) -> None:
    started = time.monotonic()
    recorded = rig.run("shell", "screenrecord", "--time-limit", "1", "/sdcard/Movies/r.mp4")
    assert recorded.returncode == 0, recorded.stderr
    assert 1 <= time.monotonic() - started < 30
    pulled = rig.run("pull", "/sdcard/Movies/r.mp4", str(tmp_path / "r.mp4"))
    assert pulled.returncode == 0, pulled.stderr
    count, size = _frames(tmp_path / "r.mp4")
    assert count >= 1 and size == (1080, 2400)


def test_screenrecord_stops_when_the_host_closes(rig: Rig, tmp_path: Path) -> None:
    target = "/data/local/tmp/s.mp4"
    rig.device.shell(f"rm -f {target}")
    stream = rig.device.shell(f"screenrecord --size 540x1200 --bit-rate 4M {target}", stream=True)
    _wait_for(lambda: rig.device.sync.exists(target))  # created first, as screenrecord does
    stream.close()  # what Ctrl-C on `adb shell screenrecord` does to the stream
    _wait_for(lambda: rig.device.sync.stat(target).size > 0)
    rig.device.sync.pull(target, tmp_path / "s.mp4")
    count, size = _frames(tmp_path / "s.mp4")
    assert count >= 1 and size == (540, 1200)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ("", "Must specify output file (see --help)."),
        ("--size big /sdcard/x.mp4", "Invalid size 'big', must be width x height"),
        ("--time-limit 0 /sdcard/x.mp4", "Time limit 0s outside acceptable range [1,180]"),
        ("--bit-rate 5 /sdcard/x.mp4", "Bit rate 5bps outside acceptable range [100000,200000000]"),
        ("--frobnicate /sdcard/x.mp4", "screenrecord: unrecognized option '--frobnicate'"),
    ],
)
def test_screenrecord_usage_errors(rig: Rig, args: str, message: str) -> None:
    result = rig.device.shell2(f"screenrecord {args}")
    assert (result.returncode, result.output) == (2, message + "\n")


def _wait_for(condition: Callable[[], bool], timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not met before the deadline"
        time.sleep(0.05)
