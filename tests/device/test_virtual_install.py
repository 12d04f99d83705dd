"""Installing APKs on the virtual phone as on a phone, and uiautomator2's input method.

Driven through the REAL adb binary (``adb install``, ``adb shell pm …``), adbutils'
``install`` and uiautomator2's own IME set-up (one module-scoped virtual phone and private
adb server, ``adb connect``). The APKs are real: a small one built here with a binary
AndroidManifest.xml (:mod:`tests.device.apk_builder`) and uiautomator2's app-uiautomator.apk.
"""

from __future__ import annotations

import re
import subprocess
from importlib.resources import as_file, files
from pathlib import Path
from typing import Any

import adbutils
import pytest

from device.virtual.attach import AttachedVirtualPhone
from device.virtual.phone import VirtualPhone
from tests.device.apk_builder import build_apk

pytestmark = pytest.mark.device_virtual

HELLO = "com.example.hello"
U2_IME = "com.github.uiautomator/.AdbKeyboard"
SEARCH_FIELD = "com.android.contacts:id/search_src_text"


@pytest.fixture(scope="module")
def device(attached: AttachedVirtualPhone) -> adbutils.AdbDevice:
    return attached.adb.client().device(attached.serial)


def adb(attached: AttachedVirtualPhone, *args: str) -> subprocess.CompletedProcess[str]:
    """The real adb binary against the virtual phone."""
    return attached.adb.adb("-s", attached.serial, *args, timeout=60)


def _apk_file(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_adb_install_records_the_package(
    attached: AttachedVirtualPhone, device: adbutils.AdbDevice, tmp_path: Path
) -> None:
    apk = _apk_file(tmp_path, "hello.apk", build_apk(HELLO, 7, "1.2.3"))
    result = adb(attached, "install", "-r", "-t", "-g", str(apk))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Success" in result.stdout
    assert f"package:{HELLO}" in device.shell("pm list packages -3").splitlines()
    assert f"package:{HELLO}" not in device.shell("pm list packages -s").splitlines()
    [path_line] = device.shell(f"pm path {HELLO}").splitlines()
    assert re.fullmatch(rf"package:/data/app/~~[\w-]+==/{HELLO}-[\w-]+==/base\.apk", path_line)
    assert f"{path_line}={HELLO}" in device.shell("pm list packages -f").splitlines()
    assert (
        f"package:{HELLO} versionCode:7"
        in device.shell("pm list packages --show-versioncode").splitlines()
    )
    info = device.app_info(HELLO)
    assert info is not None and (info.version_name, info.version_code) == ("1.2.3", 7)
    assert info.first_install_time is not None
    dump = device.shell(f"dumpsys package {HELLO}")
    assert "minSdk=21 targetSdk=33" in dump
    assert "hello.apk" not in device.shell("ls /data/local/tmp")  # adb removes its copy


def test_update_downgrade_and_uninstall(
    attached: AttachedVirtualPhone, device: adbutils.AdbDevice, tmp_path: Path
) -> None:
    device.sync.push(build_apk(HELLO, 9, "2.0"), "/data/local/tmp/v9.apk")
    assert device.shell2("pm install -r /data/local/tmp/v9.apk").output == "Success\n"
    assert device.app_info(HELLO).version_code == 9  # type: ignore[union-attr]
    device.sync.push(build_apk(HELLO, 3, "0.3"), "/data/local/tmp/v3.apk")
    result = device.shell2("pm install /data/local/tmp/v3.apk")
    assert result.returncode == 1
    assert result.output == (
        "Failure [INSTALL_FAILED_VERSION_DOWNGRADE: Downgrade detected: "
        "Update version code 3 is older than current 9]\n"
    )
    assert device.shell2("pm install -d /data/local/tmp/v3.apk").output == "Success\n"
    assert device.shell2(f"pm uninstall {HELLO}").output == "Success\n"
    assert device.shell2(f"pm path {HELLO}").returncode == 1
    result = device.shell2(f"pm uninstall {HELLO}")
    assert (result.returncode, result.output) == (1, "Failure [DELETE_FAILED_INTERNAL_ERROR]\n")
    result = device.shell2("pm uninstall com.android.settings")
    assert result.returncode == 1


def test_a_file_that_is_not_an_apk_fails_as_pm_does(
    attached: AttachedVirtualPhone, device: adbutils.AdbDevice, tmp_path: Path
) -> None:
    text = _apk_file(tmp_path, "notes.apk", b"this is not a zip\n")
    result = adb(attached, "install", str(text))
    assert result.returncode != 0
    assert re.search(
        r"Failure \[INSTALL_PARSE_FAILED_NOT_APK: Failed to parse (/data/app/vmdl\d+\.tmp/"
        r"base\.apk): Failed to load asset path \1\]",
        result.stdout + result.stderr,
    )
    device.sync.push(b"PK\x03\x04 truncated", "/data/local/tmp/broken.apk")
    result = device.shell2("pm install -r -t /data/local/tmp/broken.apk")
    assert result.returncode == 1
    assert result.output.startswith("Failure [INSTALL_PARSE_FAILED_NOT_APK: Failed to parse ")
    with pytest.raises(adbutils.AdbInstallError, match="INSTALL_PARSE_FAILED_NOT_APK"):
        device.install_remote("/data/local/tmp/broken.apk")
    assert "notes" not in device.shell("pm list packages")


def test_install_sessions_and_streamed_install(device: adbutils.AdbDevice) -> None:
    apk = build_apk(HELLO, 11, "3.0")
    device.sync.push(apk, "/data/local/tmp/s.apk")
    created = device.shell(f"pm install-create -S {len(apk)}")
    session = re.fullmatch(r"Success: created install session \[(\d+)\]", created)
    assert session is not None, created
    sid = session.group(1)
    written = device.shell(f"pm install-write -S {len(apk)} {sid} base /data/local/tmp/s.apk")
    assert written == f"Success: streamed {len(apk)} bytes"
    assert device.shell(f"pm install-commit {sid}") == "Success"
    assert device.app_info(HELLO).version_code == 11  # type: ignore[union-attr]
    # the streamed form adb uses with the `cmd` feature: the APK on stdin
    stream = device.shell(
        f"cat /data/local/tmp/s.apk | cmd package install -S {len(apk)}", timeout=30
    )
    assert stream == "Success"
    assert device.shell(f"pm uninstall {HELLO}") == "Success"


def test_adbutils_install_of_uiautomator2_apk_lists_its_ime(
    device: adbutils.AdbDevice,
) -> None:
    assert U2_IME not in device.shell("ime list -s -a")
    with as_file(files("uiautomator2") / "assets" / "app-uiautomator.apk") as apk:
        device.install(str(apk), nolaunch=True, uninstall=True, silent=True)
    info = device.app_info("com.github.uiautomator")
    assert info is not None and info.version_name == "2.4.0"
    assert U2_IME in device.shell("ime list -s -a").splitlines()
    assert U2_IME not in device.shell("ime list -s").splitlines()
    assert device.shell(f"ime enable {U2_IME}") == f"Input method {U2_IME}: now enabled for user #0"
    assert device.shell(f"ime set {U2_IME}") == f"Input method {U2_IME} selected for user #0"
    assert device.shell("settings get secure default_input_method") == U2_IME
    device.shell("ime reset")
    assert U2_IME not in device.shell("ime list -s").splitlines()


def _focused_text(attached: AttachedVirtualPhone) -> str:
    async def read(phone: VirtualPhone) -> str:
        ui = phone.instance.state.ui
        return "" if ui.focus is None else ui.fields.get(ui.focus, "")

    return attached.phone.call(read)


def test_uiautomator2_types_through_its_ime(
    attached: AttachedVirtualPhone, device: adbutils.AdbDevice
) -> None:
    u2 = pytest.importorskip("uiautomator2")
    d: Any = u2.connect(device)
    try:
        d.set_input_ime(True)
        assert d.current_ime() == U2_IME
        assert U2_IME in device.shell("ime list -s").splitlines()
        d.app_start("com.android.contacts", stop=True)
        d(resourceId=SEARCH_FIELD).click()
        d.send_keys("你好 Zoë")
        assert _focused_text(attached) == "你好 Zoë"
        d.clear_text()
        assert _focused_text(attached) == ""
        output = device.shell("am broadcast -a ADB_KEYBOARD_GET_CLIPBOARD")
        assert "Broadcast completed: result=-1" in output
        d.set_input_ime(False)
        assert U2_IME not in device.shell("ime list -s").splitlines()
        assert "result=0" in device.shell("am broadcast -a ADB_KEYBOARD_HIDE")
    finally:
        d.stop_uiautomator()
    assert device.shell("pm uninstall com.github.uiautomator") == "Success"
    assert device.shell("settings get secure default_input_method") != U2_IME
