"""Parsers of what AOSP's shell tools print, pure functions over literal text.

* ``content query`` (``Content.java``): ``Row: N col=value, col=value`` per row, ``NULL`` for
  a null cell, ``No result found.`` for none; a failure prints ``Error while accessing
  provider:AUTHORITY`` and the Java exception (:func:`parse_content_failure`), an argument
  error the usage and ``[ERROR] message``;
* ``settings list NAMESPACE``: ``key=value`` lines (values may contain ``=``);
* ``cmd wifi status`` (Android 11+, ``WifiShellCommand``): ``Wifi is enabled|disabled`` and,
  when enabled, ``Wifi is connected to "SSID"`` (``WifiInfo.getSSID()``: quoted for UTF-8
  names, :data:`UNKNOWN_SSID` when redacted) or ``Wifi is not connected``;
* ``dumpsys bluetooth_manager``: the paired devices under ``Bonded devices:``
  (``AdapterProperties.dump``: ``    AA:BB:CC:DD:EE:FF [BR/EDR] Name``; Android 16 anonymises
  addresses and drops names), listed only while the adapter service is bound (Bluetooth on);
* ``dumpsys window windows`` (``mCurrentFocus`` / ``mFocusedApp``) and ``dumpsys activity
  activities`` (``mResumedActivity``): the foreground package.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from bridge.android_state import Row

__all__ = [
    "NO_RESULT",
    "UNKNOWN_SSID",
    "ContentFailure",
    "WifiStatus",
    "parse_bonded_devices",
    "parse_content_failure",
    "parse_focused_activity",
    "parse_focused_package",
    "parse_java_exception",
    "parse_resumed_activity",
    "parse_resumed_package",
    "parse_rows",
    "parse_settings_list",
    "parse_wifi_status",
]

NO_RESULT = "No result found."
"""What ``content query`` prints when no row matches."""
UNKNOWN_SSID = "<unknown ssid>"
"""``WifiManager.UNKNOWN_SSID``: what ``getSSID()`` returns when the name is hidden."""

_ROW = re.compile(r"^Row: \d+ (.*)$")
_JAVA_EXCEPTION = re.compile(
    r"^(?:Caused by: )?(?P<cls>(?:[a-z_$][\w$]*\.)+[A-Z][\w$]*(?:Exception|Error))(?::.*)?$"
)
_SQL_EXCEPTIONS = ("android.database.sqlite.", "android.database.SQLException")
_NOT_FOUND = re.compile(r"\bcontent: (?:inaccessible or )?not found")
_SETTING = re.compile(r"^(?P<key>[^\s=]+)=(?P<value>.*)$")
_ENABLED = re.compile(r"^Wifi is (enabled|disabled)\s*$", re.MULTILINE)
_CONNECTED = re.compile(r"^Wifi is connected to (.*?)\s*$", re.MULTILINE)
_BONDED = re.compile(r"^(\s*)Bonded devices:\s*$")
_DEVICE = re.compile(
    r"^\s+(?P<address>[0-9A-Fa-fX]{2}(?::[0-9A-Fa-fX]{2}){5})"
    r"(?:\s*=>\s*[0-9A-Fa-fX]{2}(?::[0-9A-Fa-fX]{2}){5})?"
    r"\s*\[[^\]]*\](?:\[[^\]]*\])?\s?(?P<name>.*)$"
)
# The same patterns as device.driver's foreground(), so a judge and the driver agree.
_FOCUS = re.compile(r"mCurrentFocus=Window\{[^}]*?\s(?P<pkg>[\w.]+)/(?P<act>[\w.$]+)\}")
_FOCUSED_APP = re.compile(
    r"mFocusedApp=.*?ActivityRecord\{[^}]*?\s(?P<pkg>[\w.]+)/(?P<act>[\w.$]+)"
)
_RESUMED = re.compile(
    r"ResumedActivity[:=]\s*ActivityRecord\{[^}]*?\s(?P<pkg>[\w.]+)/(?P<act>[\w.$]+)"
)


def _lines(output: str) -> list[str]:
    return output.replace("\r", "").splitlines()


def parse_rows(output: str, columns: Sequence[str]) -> list[Row]:
    """Rows of ``content query`` output for the projected ``columns``, in order.

    A value may contain ``, `` and ``=``: a cell ends only where ``, <next column>=``
    begins. ``NULL`` becomes None (a text cell that reads ``NULL`` cannot be told apart, as
    on the phone). A row that does not print the projected columns in order lacks those
    from the first one out of place: the caller should not trust it.
    """
    rows: list[Row] = []
    for line in _lines(output):
        found = _ROW.match(line)
        if not found:
            continue
        rest, row = found.group(1), {}
        for index, column in enumerate(columns):
            if not rest.startswith(f"{column}="):
                break
            rest = rest[len(column) + 1 :]
            following = f", {columns[index + 1]}=" if index + 1 < len(columns) else None
            cut = rest.find(following) if following else -1
            value, rest = (rest, "") if cut < 0 else (rest[:cut], rest[cut + 2 :])
            row[column] = None if value == "NULL" else value
        rows.append(row)
    return rows


@dataclass(frozen=True)
class ContentFailure:
    """Why a ``content`` command failed.

    ``kind``: ``sql`` (the provider's SQL rejected the projection, where or sort: a bug in
    whoever wrote them), ``provider`` (no such provider, permission denied, a URI or
    operation the provider refuses: this phone cannot do it), ``usage`` (``content``
    rejected its arguments). ``detail`` is the one line that says so.
    """

    kind: Literal["sql", "provider", "usage"]
    detail: str


def parse_java_exception(output: str) -> str | None:
    """The first line naming a Java exception (``java.lang.SecurityException: ...``) in the
    output of a shell tool, None when there is none."""
    return next((line.strip() for line in _exceptions(output)), None)


def _exceptions(output: str) -> list[str]:
    return [
        line
        for line in _lines(output)
        if not line.startswith("Row: ") and _JAVA_EXCEPTION.match(line.strip())
    ]


def parse_content_failure(output: str) -> ContentFailure | None:
    """What went wrong in a ``content`` command's output; None when it did not fail."""
    lines = [line.strip() for line in _lines(output)]
    usage = next((line for line in lines if line.startswith("[ERROR] ")), None)
    if usage is not None:
        return ContentFailure("usage", usage.removeprefix("[ERROR] "))
    exceptions = [line.strip() for line in _exceptions(output)]
    sql = next((line for line in exceptions if line.startswith(_SQL_EXCEPTIONS)), None)
    if sql is not None:
        return ContentFailure("sql", sql)
    if exceptions:
        return ContentFailure("provider", exceptions[0])
    for line in lines:
        if line.startswith("Error while accessing provider:") or _NOT_FOUND.search(line):
            return ContentFailure("provider", line)
    return None


def parse_settings_list(output: str) -> dict[str, str]:
    """``settings list`` output as key -> printed value; lines that are not ``key=value``
    (warnings, blank lines) are skipped."""
    found = (_SETTING.match(line) for line in _lines(output))
    return {match["key"]: match["value"] for match in found if match is not None}


@dataclass(frozen=True)
class WifiStatus:
    """What ``cmd wifi status`` says: Wi-Fi on or off, and the network it is connected to
    (None: not connected; :data:`UNKNOWN_SSID` when the phone hides the name)."""

    enabled: bool
    ssid: str | None


def parse_wifi_status(output: str) -> WifiStatus | None:
    """The status in ``cmd wifi status`` output; None when the output is not that (older
    Android, a ROM without the command)."""
    enabled = _ENABLED.search(output)
    if enabled is None:
        return None
    connected = _CONNECTED.search(output)
    ssid = connected.group(1) if connected else None
    if ssid is not None and len(ssid) >= 2 and ssid[0] == ssid[-1] == '"':
        ssid = ssid[1:-1]
    return WifiStatus(enabled=enabled.group(1) == "enabled", ssid=ssid)


def parse_bonded_devices(output: str) -> list[str] | None:
    """Names of the devices under ``Bonded devices:`` (the address when a dump has no
    name); None when the dump has no such list (Bluetooth off, or a ROM that omits it)."""
    lines = _lines(output)
    start = next((i for i, line in enumerate(lines) if _BONDED.match(line)), None)
    if start is None:
        return None
    indent = len(lines[start]) - len(lines[start].lstrip())
    names: list[str] = []
    for line in lines[start + 1 :]:
        if not line.strip() or len(line) - len(line.lstrip()) <= indent:
            break
        device = _DEVICE.match(line)
        if device is not None:
            names.append(device.group("name").strip() or device.group("address"))
    return names


def parse_focused_activity(output: str) -> tuple[str, str] | None:
    """(package, activity) of ``dumpsys window windows``' focused window (``mCurrentFocus``),
    else of its focused app (``mFocusedApp``: a system window such as the notification shade
    has the focus); None when neither names one."""
    match = _FOCUS.search(output) or _FOCUSED_APP.search(output)
    return (match.group("pkg"), match.group("act")) if match else None


def parse_resumed_activity(output: str) -> tuple[str, str] | None:
    """(package, activity) of ``dumpsys activity activities``' resumed activity."""
    match = _RESUMED.search(output)
    return (match.group("pkg"), match.group("act")) if match else None


def parse_focused_package(output: str) -> str | None:
    """The package of :func:`parse_focused_activity` (None: nothing has focus)."""
    found = parse_focused_activity(output)
    return found[0] if found else None


def parse_resumed_package(output: str) -> str | None:
    """The package of :func:`parse_resumed_activity` (None: none)."""
    found = parse_resumed_activity(output)
    return found[0] if found else None
