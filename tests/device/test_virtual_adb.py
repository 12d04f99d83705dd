"""The virtual phone as an adb device, driven by the REAL adb binary, adbutils and uiautomator2.

One module-scoped virtual phone and one private adb server (ephemeral ports, keys in a
temporary ANDROID_USER_HOME) are shared by the tests; the adb server attaches the phone with
``adb connect`` exactly as it would a phone on Wi-Fi. Nothing here touches port 5037.
"""

from __future__ import annotations

import hashlib
import io
import os
import socket
import struct
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import adbutils
import pytest
import uiautomator2 as u2

from bridge.uitree import parse_hierarchy
from device.virtual.frames import RenderedFrame
from device.virtual.phone import VirtualPhone
from sim.state import InstanceState
from tests.device.virtual_rig import Rig

pytestmark = pytest.mark.device_virtual

SEARCH_FIELD = "com.android.contacts:id/search_src_text"


def _state(rig: Rig) -> InstanceState:
    """A copy of the phone's simulator state (read on the phone's loop)."""

    async def read(phone: VirtualPhone) -> InstanceState:
        return phone.instance.state.model_copy(deep=True)

    return rig.phone.call(read)


def _wait_for(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not met before the deadline"
        time.sleep(0.02)


# ---- the adb binary


def test_wm_size_through_the_adb_binary(rig: Rig) -> None:
    result = rig.run("shell", "wm", "size")
    assert (result.returncode, result.stdout, result.stderr) == (
        0,
        "Physical size: 1080x2400\n",
        "",
    )


def test_getprop_model_and_exit_status(rig: Rig) -> None:
    assert rig.run("shell", "getprop ro.product.model").stdout == "23049RAD8C\n"
    assert rig.run("shell", "getprop ro.miui.ui.version.name").stdout == "V140\n"
    failed = rig.run("shell", "ls /nope")
    assert failed.returncode == 1 and "No such file or directory" in failed.stderr


def test_the_host_speaks_the_features_we_expect(rig: Rig) -> None:
    banner = " ".join(rig.phone.host_banners())
    assert banner.startswith("host::features=") and "shell_v2" in banner
    features = rig.device.get_features()
    assert "shell_v2" in features and "sendrecv_v2" not in features
    assert "delayed_ack" not in features


def test_shell_lists_and_status(rig: Rig) -> None:
    result = rig.run("shell", "echo a; echo b && false || echo c; echo $?")
    assert result.stdout == "a\nb\nc\n0\n"
    assert rig.device.shell("false; echo $?") == "1"
    assert rig.device.shell("X=1; echo 'quoted $X' \"$X\"") == "quoted $X 1"
    assert rig.device.shell('Y=1 true; echo "[$Y]"') == "[]"  # a prefix is per command
    assert rig.device.shell("dumpsys window windows | grep -c mCurrentFocus") == "1"


def test_push_and_pull_with_the_binary(rig: Rig, tmp_path: Path) -> None:
    payload = os.urandom(700_000)
    (tmp_path / "up.bin").write_bytes(payload)
    pushed = rig.run("push", str(tmp_path / "up.bin"), "/sdcard/Download/")
    assert pushed.returncode == 0, pushed.stderr
    pulled = rig.run("pull", "/sdcard/Download/up.bin", str(tmp_path / "down.bin"))
    assert pulled.returncode == 0, pulled.stderr
    assert (tmp_path / "down.bin").read_bytes() == payload
    refused = rig.run("push", str(tmp_path / "up.bin"), "/system/up.bin")
    assert refused.returncode == 1 and "Read-only file system" in refused.stderr
    missing = rig.run("pull", "/sdcard/nope.bin", str(tmp_path))
    assert missing.returncode == 1 and "No such file or directory" in missing.stderr


def test_piped_shell_exec_out_and_root(rig: Rig) -> None:
    piped = rig.run("shell", input="echo one\nfalse\necho $?\nexit\n")
    assert piped.stdout == "one\n1\n"
    assert rig.run("exec-out", "screencap -p | head -c 4 | tail -c 3").stdout == "PNG"
    assert rig.run("root").stdout == "adbd cannot run as root in production builds\n"


# ---- adbutils


def test_shell2_exit_codes_v1_and_v2(rig: Rig) -> None:
    assert rig.device.shell2("true").returncode == 0
    assert rig.device.shell2("ls /nope").returncode == 1
    missing = rig.device.shell2("getevent -l")
    assert missing.returncode == 127
    assert missing.output == "/system/bin/sh: getevent: inaccessible or not found\n"
    v2 = rig.device.shell2("echo out; ls /nope; exit 3", v2=True)
    assert (v2.returncode, v2.stdout, v2.stderr) == (
        3,
        "out\n",
        "ls: /nope: No such file or directory\n",
    )


def test_window_size_and_screen_facts(rig: Rig) -> None:
    assert tuple(rig.device.window_size()) == (1080, 2400)
    assert rig.device.rotation() == 0
    assert rig.device.is_screen_on()
    assert rig.device.prop.model == "23049RAD8C"


def test_app_start_and_current(rig: Rig) -> None:
    rig.device.app_start("com.android.settings")
    current = rig.device.app_current()
    assert (current.package, current.activity) == (
        "com.android.settings",
        "com.android.settings.Settings",
    )
    started = rig.device.shell2("am start -n com.android.contacts/.activities.PeopleActivity")
    assert "Starting: Intent { cmp=com.android.contacts/.activities.PeopleActivity }" in (
        started.output
    )
    assert rig.device.app_current().package == "com.android.contacts"
    bad = rig.device.shell2("am start -n com.android.contacts/.Nope")
    assert (
        "Error: Activity class {com.android.contacts/com.android.contacts.Nope} does not exist."
        in bad.output
        and bad.returncode == 0
    )
    assert (
        "No activities found"
        in rig.device.shell2("monkey -p com.nope -c android.intent.category.LAUNCHER 1").output
    )


def test_click_send_keys_and_keyevent(rig: Rig) -> None:
    rig.device.app_start("com.android.contacts")
    tree = parse_hierarchy(rig.device.dump_hierarchy())
    field = next(node for node in tree.nodes if node.resource_id == SEARCH_FIELD)
    left, top, right, bottom = field.bounds_px
    rig.device.click((left + right) // 2, (top + bottom) // 2)
    rig.device.send_keys("hello")
    typed = parse_hierarchy(rig.device.dump_hierarchy())
    assert any(n.resource_id == SEARCH_FIELD and n.text == "hello" for n in typed.nodes)
    assert "mInputShown=true" in rig.device.shell("dumpsys input_method")
    failed = rig.device.shell2("input text '你好'")
    assert failed.returncode == 255 and "NullPointerException" in failed.output
    assert _state(rig).ui.fields[_state(rig).ui.focus] == "hello"
    rig.device.shell("input keyevent DEL 67 KEYCODE_DEL DEL DEL")
    assert _state(rig).ui.fields[_state(rig).ui.focus] == ""
    rig.device.keyevent("BACK")
    assert "mInputShown=false" in rig.device.shell("dumpsys input_method")
    rig.device.keyevent("HOME")
    assert rig.device.app_current().package == "com.android.launcher3"


def test_swipe_scrolls_the_contact_list(rig: Rig) -> None:
    rig.device.app_stop("com.android.contacts")
    rig.device.app_start("com.android.contacts")
    before = dict(_state(rig).ui.scroll)
    rig.device.swipe(540, 1900, 540, 700, 0.3)
    _wait_for(lambda: dict(_state(rig).ui.scroll) != before)


def test_settings_put_and_get(rig: Rig) -> None:
    rig.device.shell("settings put system screen_brightness 77")
    assert rig.device.shell("settings get system screen_brightness") == "77"
    assert rig.device.shell("settings get global no_such_key") == "null"
    assert _state(rig).os.settings["system"]["screen_brightness"] == 77
    query = rig.device.shell(
        "content query --uri content://settings/system --projection "
        "name:value --where \"name='screen_brightness'\""
    )
    assert query == "Row: 0 name=screen_brightness, value=77"


def test_content_query_and_insert_contacts(rig: Rig) -> None:
    uri = "content://com.android.contacts"
    bob = rig.device.shell(f"content query --uri {uri}/contacts --where \"display_name='Bob'\"")
    assert bob == "Row: 0 _id=8, display_name=Bob, starred=0, has_phone_number=1"
    rig.device.shell(
        f"content insert --uri {uri}/raw_contacts --bind account_type:s: --bind account_name:s:"
    )
    raw = rig.device.shell(
        f'content query --uri {uri}/raw_contacts --projection _id --sort "_id DESC"'
    ).splitlines()[0]
    raw_id = int(raw.split("_id=")[1])
    for mime, value in (("name", "Zed Virtual"), ("phone_v2", "+86 130 0000 0000")):
        rig.device.shell(
            f"content insert --uri {uri}/data --bind raw_contact_id:i:{raw_id} "
            f"--bind mimetype:s:vnd.android.cursor.item/{mime} "
            f"--bind data1:s:'{value}'"
        )
    rig.device.shell(
        f'content update --uri {uri}/contacts --bind starred:i:1 --where "_id={raw_id}"'
    )
    zed = rig.device.shell(
        f"content query --uri {uri}/contacts --projection "
        "display_name:starred --where \"display_name LIKE 'zed%'\""
    )
    assert zed == "Row: 0 display_name=Zed Virtual, starred=1"
    bad = rig.device.shell2(f'content query --uri {uri}/contacts --where "nope=1"')
    assert bad.returncode == 1 and "no such column: nope" in bad.output


def test_screenshot_and_hierarchy(rig: Rig) -> None:
    assert rig.device.screenshot().size == (1080, 2400)
    tree = parse_hierarchy(rig.device.dump_hierarchy())
    assert tree.nodes and tree.rotation == 0
    dumped = rig.device.shell("uiautomator dump")
    assert dumped == "UI hierchary dumped to: /sdcard/window_dump.xml"


@pytest.fixture
def renders(rig: Rig) -> Iterator[list[int]]:
    """Versions of the frames the phone renders during the test (its frame cache's puts)."""
    rendered: list[int] = []

    async def spy(phone: VirtualPhone) -> None:
        put = phone.frames.put

        def counted(frame: RenderedFrame) -> RenderedFrame:
            rendered.append(frame.version)
            return put(frame)

        phone.frames.put = counted  # type: ignore[method-assign]

    async def unspy(phone: VirtualPhone) -> None:
        del phone.frames.put  # the class's method again

    rig.phone.call(spy)
    yield rendered
    rig.phone.call(unspy)


def _screencap(rig: Rig) -> bytes:
    return rig.device.shell("screencap -p", encoding=None)


def test_a_screen_that_did_not_change_is_not_rendered_again(rig: Rig, renders: list[int]) -> None:
    rig.device.shell("input keyevent HOME")
    rendered = renders
    first = _screencap(rig)
    assert _screencap(rig) == first and len(rendered) == 1
    client = u2.connect(rig.device)
    try:
        jpeg = client.jsonrpc.takeScreenshot(1, 80)
        assert len(rendered) == 2  # a JPEG at this quality is rendered once ...
        assert client.jsonrpc.takeScreenshot(0.25, 80) != jpeg  # ... and made smaller
        assert client.jsonrpc.takeScreenshot(1, 80) == jpeg and len(rendered) == 2
    finally:
        client.stop_uiautomator()


@pytest.mark.parametrize(
    "change",
    ["am start -n com.android.settings/.Settings", "svc wifi disable", "input keyevent POWER"],
)
def test_every_change_shows_in_the_next_frame(rig: Rig, change: str) -> None:
    rig.device.shell("input keyevent WAKEUP; input keyevent HOME; svc wifi enable")
    before = _screencap(rig)
    rig.device.shell(change)
    after = _screencap(rig)
    assert after != before
    rig.device.shell("input keyevent WAKEUP; input keyevent HOME; svc wifi enable")
    assert _screencap(rig) == before  # the same screen again: the same pixels


def test_sync_round_trip_of_binary_data(rig: Rig) -> None:
    big = os.urandom(4 * 1024 * 1024)
    small = bytes(range(256)) * 3
    sync = rig.device.sync
    sync.push(io.BytesIO(big), "/data/local/tmp/big.bin")
    sync.push(io.BytesIO(small), "/sdcard/Download/small.bin")
    assert sync.read_bytes("/data/local/tmp/big.bin") == big
    assert sync.read_bytes("/sdcard/Download/small.bin") == small
    info = sync.stat("/data/local/tmp/big.bin")
    assert info.size == len(big) and sync.exists("/data/local/tmp/big.bin")
    assert not sync.exists("/data/local/tmp/absent.bin")
    names = {entry.path for entry in sync.list("/sdcard/Download")}
    assert "small.bin" in names
    md5 = rig.device.shell("toybox md5sum /data/local/tmp/big.bin")
    assert md5 == f"{hashlib.md5(big).hexdigest()}  /data/local/tmp/big.bin"


def test_concurrent_shells(rig: Rig) -> None:
    with ThreadPoolExecutor(max_workers=8) as pool:
        outputs = list(pool.map(lambda n: rig.device.shell(f"echo {n}"), range(24)))
    assert outputs == [str(n) for n in range(24)]


# ---- refusals and robustness


def test_unknown_services_are_refused(rig: Rig) -> None:
    with pytest.raises(adbutils.AdbError, match="closed"):
        rig.device.create_connection(adbutils.Network.TCP, 9999)
    connection = rig.device.open_transport()
    try:
        connection.send_command("bogus:")
        with pytest.raises(adbutils.AdbError, match="closed"):
            connection.check_okay()
    finally:
        connection.close()
    assert rig.device.shell("echo alive") == "alive"


@pytest.mark.parametrize(
    "garbage",
    [
        b"garbage, not an adb header....",
        struct.pack("<6I", 0x4E584E43, 0x01000001, 4096, 1 << 30, 0, 0x4E584E43 ^ 0xFFFFFFFF),
        b"\x00" * 10,
    ],
    ids=["bad-magic", "huge-payload", "truncated"],
)
def test_malformed_messages_do_not_kill_the_phone(rig: Rig, garbage: bytes) -> None:
    with socket.create_connection(("127.0.0.1", rig.phone.port), timeout=10) as sock:
        sock.sendall(garbage)
        if len(garbage) < 24:
            sock.shutdown(socket.SHUT_WR)
        assert sock.recv(100) == b""  # the phone hangs up on that link only
    assert rig.run("shell", "echo", "still here").stdout == "still here\n"


def test_reconnect_after_disconnect(rig: Rig) -> None:
    rig.adb.disconnect(rig.phone.address)
    _wait_for(lambda: rig.phone.address not in rig.adb.devices())
    rig.adb.connect(rig.phone.address)
    assert rig.device.shell("echo back") == "back"


def test_uiautomator2_connects_through_the_adb_server(rig: Rig) -> None:
    d = u2.connect(rig.device)
    try:
        assert d.info["displayWidth"] == 1080
        assert rig.device.sync.exists("/data/local/tmp/u2.jar")
        assert d.shell("getprop ro.product.brand").output == "Redmi\n"
    finally:
        d.stop_uiautomator()
    with pytest.raises(adbutils.AdbError, match="closed"):
        rig.device.create_connection(adbutils.Network.TCP, 9008)


# ---- the transport, spoken by hand (a second host connection next to the adb server's)


class _RawHost:
    """A minimal adb host over a plain socket, to check framing and flow control."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)

    def send(self, command: bytes, arg0: int, arg1: int, data: bytes = b"") -> None:
        code = int.from_bytes(command, "little")
        header = struct.pack("<6I", code, arg0, arg1, len(data), sum(data), code ^ 0xFFFFFFFF)
        self.sock.sendall(header + data)

    def _exact(self, size: int) -> bytes:
        data = b""
        while len(data) < size:
            chunk = self.sock.recv(size - len(data))
            assert chunk, "the phone closed the connection"
            data += chunk
        return data

    def recv(self) -> tuple[bytes, int, int, bytes]:
        code, arg0, arg1, length, check, magic = struct.unpack("<6I", self._exact(24))
        data = self._exact(length)
        assert magic == code ^ 0xFFFFFFFF and check == sum(data) & 0xFFFFFFFF
        return code.to_bytes(4, "little"), arg0, arg1, data


def test_handshake_refusal_chunking_and_flow_control(rig: Rig) -> None:
    payload = os.urandom(20_000)

    async def put(phone: VirtualPhone) -> None:
        phone.files["/sdcard/flow.bin"] = payload

    rig.phone.call(put)
    host = _RawHost(rig.phone.port)
    try:
        host.send(b"CNXN", 0x01000001, 4096, b"host::features=shell_v2\0")
        command, version, maxdata, banner = host.recv()
        assert (command, version, maxdata) == (b"CNXN", 0x01000001, 4096)
        assert banner.startswith(b"device::ro.product.name=marble;ro.product.model=23049RAD8C;")
        assert b"delayed_ack" not in banner and b"sendrecv_v2" not in banner
        host.send(b"OPEN", 7, 0, b"jdwp:1234\0")
        assert host.recv() == (b"CLSE", 0, 7, b"")
        host.send(b"OPEN", 8, 0, b"shell:cat /sdcard/flow.bin\0")
        command, local, remote, _ = host.recv()
        assert (command, remote) == (b"OKAY", 8)
        received = b""
        while True:
            command, arg0, arg1, data = host.recv()
            if command == b"CLSE":
                break
            assert (command, arg0, arg1) == (b"WRTE", local, 8) and len(data) <= 4096
            received += data
            host.sock.settimeout(0.2)
            with pytest.raises(TimeoutError):  # nothing more until we acknowledge
                host.sock.recv(1)
            host.sock.settimeout(10)
            host.send(b"OKAY", 8, local)
        assert received == payload
    finally:
        host.sock.close()


def test_host_close_is_confirmed(rig: Rig) -> None:
    host = _RawHost(rig.phone.port)
    try:
        host.send(b"CNXN", 0x01000001, 1 << 20, b"host::\0")
        assert host.recv()[0] == b"CNXN"
        host.send(b"OPEN", 3, 0, b"shell:echo x; logcat -s NoSuchTag\0")
        _, local, _, _ = host.recv()
        assert host.recv() == (b"WRTE", local, 3, b"x\n")  # then logcat streams, silent
        host.send(b"OKAY", 3, local)
        host.send(b"CLSE", 3, local)
        assert host.recv() == (b"CLSE", local, 3, b"")
    finally:
        host.sock.close()
