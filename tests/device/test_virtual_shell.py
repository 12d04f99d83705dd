"""The virtual phone's shell on literal command lines (no browser, no adb).

The phone here has a simulator that is never started: every command below works on the
instance's JSON state only (settings, contacts, files, the task stack).
"""

from __future__ import annotations

import hashlib
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from device.virtual.errors import ShellSyntaxError
from device.virtual.phone import VirtualPhone
from device.virtual.shell import Shell
from device.virtual.shell_syntax import Word, parse
from sim.android_state import SimAndroidState
from sim.simulator import Simulator


class _Captured:
    """stdout and stderr of a shell, separately."""

    def __init__(self) -> None:
        self.out = bytearray()
        self.err = bytearray()

    async def stdout(self, data: bytes) -> None:
        self.out += data

    async def stderr(self, data: bytes) -> None:
        self.err += data


@pytest.fixture
def phone() -> VirtualPhone:
    sim = Simulator()
    return VirtualPhone(sim, sim.create_instance(seed=0), serial="VP00000000")


async def run(phone: VirtualPhone, line: str) -> tuple[int, str, str]:
    io = _Captured()
    status = await Shell(phone).run(line, io)
    return status, io.out.decode(), io.err.decode()


# ---- syntax


def test_parse_quotes_parameters_and_operators() -> None:
    [first, second] = parse("A=1 echo 'x $y' \"a $? b\" c\\ d && false || echo $HOME; ls 2>&1")
    command = first.first[0]
    assert [name for name, _ in command.assignments] == ["A"]
    assert len(command.words) == 4 and [op for op, _ in first.rest] == ["&&", "||"]
    assert second.first[0].redirects[0].op == ">&"


@pytest.mark.parametrize(
    "line",
    [
        "echo $(id)",
        "echo `id`",
        "(echo a)",
        "if true; then x; fi",
        "echo 'open",
        "cat <<EOF",
        "; echo",
    ],
)
def test_unsupported_syntax_is_an_error(line: str) -> None:
    with pytest.raises(ShellSyntaxError):
        parse(line)


@pytest.mark.asyncio
async def test_status_quoting_and_redirections(phone: VirtualPhone) -> None:
    assert await run(phone, "false; echo $?") == (0, "1\n", "")
    assert await run(phone, 'echo \'a  b\' "$X" "" end') == (0, "a  b   end\n", "")
    status, out, err = await run(phone, "getevent 2>/dev/null; echo $?")
    assert (status, out, err) == (0, "127\n", "")
    status, out, err = await run(phone, "ls /nope 2>&1 | grep -c 'No such'")
    assert (status, out) == (0, "1\n")
    await run(phone, "echo hello > /sdcard/a.txt; echo more >> /sdcard/a.txt")
    assert phone.files["/sdcard/a.txt"] == b"hello\nmore\n"
    assert (await run(phone, "echo x > /system/x"))[0] == 1
    md5 = hashlib.md5(b"hello\nmore\n").hexdigest()
    assert (await run(phone, "toybox md5sum /sdcard/a.txt"))[1] == f"{md5}  /sdcard/a.txt\n"


@pytest.mark.asyncio
async def test_unknown_commands_and_syntax_errors(phone: VirtualPhone) -> None:
    assert await run(phone, "getevent -l") == (
        127,
        "",
        "/system/bin/sh: getevent: inaccessible or not found\n",
    )
    status, _, err = await run(phone, "echo $(id)")
    assert status == 1 and "not supported" in err


# ---- system commands


@pytest.mark.asyncio
async def test_getprop_settings_and_wm(phone: VirtualPhone) -> None:
    assert (await run(phone, "getprop ro.build.version.sdk"))[1] == "34\n"
    assert (await run(phone, "getprop no.such.key"))[1] == "\n"
    assert "[ro.product.model]: [23049RAD8C]\n" in (await run(phone, "getprop"))[1]
    await run(phone, "settings put global wifi_on 0")
    assert (await run(phone, "settings get global wifi_on"))[1] == "0\n"
    assert (await run(phone, "settings delete global wifi_on"))[1] == "Deleted 1 rows\n"
    assert (await run(phone, "settings get global wifi_on"))[1] == "null\n"
    assert (await run(phone, "wm density"))[1] == "Physical density: 480\n"
    assert (await run(phone, "wm size 720x1280"))[0] == 1


@pytest.mark.asyncio
async def test_apps_dumpsys_and_ps(phone: VirtualPhone) -> None:
    status, out, err = await run(phone, "am start -n com.android.settings/.Settings")
    assert (status, out, err) == (
        0,
        "Starting: Intent { cmp=com.android.settings/.Settings }\n",
        "",
    )
    window = (await run(phone, "dumpsys window windows | grep mCurrentFocus"))[1]
    assert (
        "mCurrentFocus=Window{" in window
        and "com.android.settings/com.android.settings.Settings}" in window
    )
    top = (await run(phone, "dumpsys activity top"))[1]
    assert "ACTIVITY com.android.settings/.Settings " in top
    assert "com.android.settings" in (await run(phone, "ps -A"))[1]
    status, out, err = await run(phone, "am start -a android.settings.WIFI_SETTINGS")
    assert phone.current_focus()[1] == "com.android.settings.wifi.WifiSettings"
    await run(phone, "am start -n com.android.settings/.display.DisplaySettings")  # exported
    assert phone.current_focus()[1] == "com.android.settings.display.DisplaySettings"
    status, _, err = await run(phone, "am start -n com.android.deskclock/.worldclock.Nope")
    assert "does not exist" in err
    status, _, err = await run(phone, "am start -a android.settings.NOPE_SETTINGS")
    assert "unable to resolve Intent" in err
    assert (await run(phone, "pm list packages -3"))[1] == "package:com.mobilegym.answersheet\n"
    assert (await run(phone, "pm clear com.android.contacts"))[1] == "Success\n"
    assert (await run(phone, "ime list -s -a"))[1] == "com.android.inputmethod.latin/.LatinIME\n"
    status, _, err = await run(phone, "input text 'héllo'")
    assert status == 255 and "NullPointerException" in err


# ---- content


@pytest.mark.asyncio
async def test_content_query_where_sort_and_projection(phone: VirtualPhone) -> None:
    uri = "content://com.android.contacts"
    out = (
        await run(
            phone,
            f"content query --uri {uri}/contacts --projection _id:display_name "
            "--where \"starred=1 AND (display_name LIKE 'c%' OR _id=1)\" "
            '--sort "_id DESC"',
        )
    )[1]
    assert out.splitlines()[-1] == "Row: 1 _id=1, display_name=张三"
    phones = (
        await run(
            phone,
            f"content query --uri {uri}/data/phones --projection data1:data2 "
            '--where "contact_id=5"',
        )
    )[1]
    assert phones == "Row: 0 data1=10086, data2=3\n"
    assert (await run(phone, f'content query --uri {uri}/contacts --where "_id=999"'))[1] == (
        "No result found.\n"
    )
    status, _, err = await run(phone, f'content query --uri {uri}/contacts --where "_id = ?"')
    assert status == 1 and "Expected 1 bind arguments but 0 were provided" in err


@pytest.mark.asyncio
async def test_content_insert_update_and_delete(phone: VirtualPhone) -> None:
    uri = "content://com.android.contacts"
    await run(phone, f"content insert --uri {uri}/raw_contacts --bind account_name:s:")
    await run(
        phone,
        f"content insert --uri {uri}/data --bind raw_contact_id:i:1001 "
        "--bind mimetype:s:vnd.android.cursor.item/name --bind data1:s:'Ann Lee'",
    )
    await run(
        phone,
        f"content insert --uri {uri}/data --bind raw_contact_id:i:1001 "
        "--bind mimetype:s:vnd.android.cursor.item/email_v2 "
        "--bind data1:s:ann@example.com --bind data2:i:2",
    )
    await run(
        phone, f'content update --uri {uri}/raw_contacts --bind starred:i:1 --where "_id=1001"'
    )
    overlay = phone.instance.state.apps["contacts"]["contacts"]["n001"]
    assert (overlay["name"], overlay["starred"]) == ("Ann Lee", True)
    assert overlay["emails"] == [{"type": "work", "address": "ann@example.com"}]
    await run(
        phone,
        f"content delete --uri {uri}/data --where \"mimetype='vnd.android.cursor."
        "item/email_v2' AND contact_id=1001\"",
    )
    assert phone.instance.state.apps["contacts"]["contacts"]["n001"]["emails"] == []
    await run(phone, f'content delete --uri {uri}/contacts --where "_id=1"')
    assert phone.instance.state.apps["contacts"]["contacts"]["c001"] is None
    status, _, err = await run(
        phone, f"content insert --uri {uri}/contacts --bind display_name:s:x"
    )
    assert status == 1 and "UnsupportedOperationException" in err


@pytest.mark.asyncio
async def test_content_where_is_sqlite(phone: VirtualPhone) -> None:
    uri = "content://com.android.contacts/contacts"
    where = "display_name='Bob' OR (_id >= 77 AND NOT display_name IS NULL)"
    out = (await run(phone, f'content query --uri {uri} --projection _id --where "{where}"'))[1]
    assert out == "Row: 0 _id=8\nRow: 1 _id=77\nRow: 2 _id=78\n"
    status, _, err = await run(phone, f'content query --uri {uri} --where "_id = 1 1"')
    assert status == 1 and "android.database.sqlite.SQLiteException" in err
    status, _, err = await run(phone, f'content query --uri {uri} --sort "nope DESC"')
    assert status == 1 and "no such column: nope" in err


# ---- parity with the simulator's AndroidState


def _content_rows(text: str, columns: list[str]) -> list[dict[str, str | None]]:
    """``content query`` output back into rows, splitting on the known columns (a value may
    hold ``, ``)."""
    rows = []
    for line in text.splitlines():
        rest = line.split(" ", 2)[2]
        row: dict[str, str | None] = {}
        for index, column in enumerate(columns):
            rest = rest.removeprefix(f"{column}=")
            end = rest.find(f", {columns[index + 1]}=") if index + 1 < len(columns) else -1
            value, rest = (rest, "") if end < 0 else (rest[:end], rest[end + 2 :])
            row[column] = None if value == "NULL" else value
        rows.append(row)
    return rows


@pytest.mark.asyncio
async def test_content_query_prints_what_the_simulator_reads(phone: VirtualPhone) -> None:
    sim_state = SimAndroidState(phone.sim.phone, phone.instance.state)
    uri = "content://com.android.contacts/data"
    await sim_state.insert(f"{uri[:-5]}/raw_contacts", {"account_name": None})
    await sim_state.insert(
        uri,
        {
            "raw_contact_id": 1001,
            "data1": "Chen, Alice=A",
            "mimetype": "vnd.android.cursor.item/name",
        },
    )
    columns = ["_id", "display_name", "data1", "data4", "starred"]
    where = "NOT (starred = 1 OR data4 IS NOT NULL) AND display_name LIKE '%, %'"
    status, out, _ = await run(
        phone,
        f"content query --uri {uri} --projection "
        f'{":".join(columns)} --where "{where}" --sort "_id"',
    )
    expected = await sim_state.query(uri, columns, where, "_id")
    assert status == 0 and expected and _content_rows(out, columns) == expected
    assert expected[0]["display_name"] == "Chen, Alice=A" and expected[0]["data4"] is None


@pytest.mark.asyncio
async def test_settings_and_props_read_the_same_as_the_simulator(phone: VirtualPhone) -> None:
    sim_state = SimAndroidState(phone.sim.phone, phone.instance.state)
    await run(phone, "settings put system font_scale 0.85")
    listed = (await run(phone, "settings list system"))[1].splitlines()
    assert dict(line.split("=", 1) for line in listed) == await sim_state.list_settings("system")
    assert (await run(phone, "settings get system font_scale"))[1] == "0.85\n"
    props = (await run(phone, "getprop"))[1].splitlines()
    played = {"ro.mgb.profile": phone.plays.name}  # what the phone plays, not the simulator
    for line in props:
        key, value = line[1:-1].split("]: [")
        if key in played:
            assert played.pop(key) == value
        elif "serial" not in key:
            assert await sim_state.getprop(key) == value, key
    assert played == {}
    assert await sim_state.getprop("persist.sys.timezone") == "Asia/Shanghai"
    assert (await run(phone, "date +%Z"))[1] == "CST\n"


_WORD_TEXT = st.text(alphabet="ab #=,.-_'\"\\\t", max_size=24)


@settings(max_examples=150, deadline=None)
@given(_WORD_TEXT)
def test_words_split_and_unquote_as_the_real_sh_does(line: str) -> None:
    """Quotes, backslashes, blanks and '#' (a comment only where a word would start) give
    the words ``sh`` gives; a line ``sh`` cannot parse is refused here too."""
    shown = subprocess.run(
        ["sh", "-c", 'trap \'for w do printf "%s\\0" "$w"; done\' EXIT\nset -- ' + line],
        capture_output=True,
        text=True,
    )
    try:
        (statement,) = parse(line) or [None]
    except ShellSyntaxError:
        assert shown.returncode != 0, (line, shown.stdout)
        return
    assert shown.returncode == 0, (line, shown.stderr)
    command = statement.first[0] if statement is not None else None

    def text(word: Word) -> str:
        return "".join(p for p in word.parts if isinstance(p, str))

    ours = (
        [] if command is None else [f"{name}={text(value)}" for name, value in command.assignments]
    )
    ours += [] if command is None else [text(word) for word in command.words]
    assert ours == shown.stdout.split("\0")[:-1], line
