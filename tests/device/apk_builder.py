"""Build a small, real APK for install tests: a zip with a binary (AXML) AndroidManifest.xml.

The manifest is written in Android's compiled XML format (a UTF-16 string pool, a resource
map for the ``android:`` attributes, then namespace and element chunks), so any APK parser
reads it as it reads one built by aapt2: package, versionCode, versionName, SDK levels and one
launcher activity.
"""

from __future__ import annotations

import io
import struct
import zipfile

__all__ = ["build_apk"]

_ANDROID_NS = "http://schemas.android.com/apk/res/android"
_ATTR_IDS = {
    "versionCode": 0x0101021B,
    "versionName": 0x0101021C,
    "name": 0x01010003,
    "minSdkVersion": 0x0101020C,
    "targetSdkVersion": 0x01010270,
}
_TYPE_STRING, _TYPE_INT_DEC = 0x03, 0x10
_NO_INDEX = 0xFFFFFFFF


class _Strings:
    """The string pool, attribute names (resource-mapped) first."""

    def __init__(self) -> None:
        self.items: list[str] = list(_ATTR_IDS)

    def index(self, text: str) -> int:
        if text not in self.items:
            self.items.append(text)
        return self.items.index(text)

    def chunk(self) -> bytes:
        offsets, data = [], bytearray()
        for text in self.items:
            offsets.append(len(data))
            encoded = text.encode("utf-16-le")
            data += struct.pack("<H", len(text)) + encoded + b"\0\0"
        data += b"\0" * (-len(data) % 4)
        start = 28 + 4 * len(self.items)
        body = struct.pack(f"<{len(offsets)}I", *offsets) + bytes(data)
        header = struct.pack("<HHIIIIII", 1, 28, 28 + len(body), len(self.items), 0, 0, start, 0)
        return header + body


def _attribute(strings: _Strings, name: str, value: str | int, android: bool = True) -> bytes:
    ns = strings.index(_ANDROID_NS) if android else _NO_INDEX
    if isinstance(value, int):
        raw, kind, data = _NO_INDEX, _TYPE_INT_DEC, value
    else:
        raw = data = strings.index(value)
        kind = _TYPE_STRING
    return struct.pack("<IIIHBBI", ns, strings.index(name), raw, 8, 0, kind, data)


def _start(strings: _Strings, tag: str, attributes: list[bytes]) -> bytes:
    body = struct.pack(
        "<IIHHHHHH", _NO_INDEX, strings.index(tag), 0x14, 0x14, len(attributes), 0, 0, 0
    ) + b"".join(attributes)
    return struct.pack("<HHIII", 0x0102, 16, 16 + len(body), 1, _NO_INDEX) + body


def _end(strings: _Strings, tag: str) -> bytes:
    return struct.pack("<HHIIIII", 0x0103, 16, 24, 1, _NO_INDEX, _NO_INDEX, strings.index(tag))


def _manifest(package: str, version_code: int, version_name: str, activity: str) -> bytes:
    s = _Strings()
    prefix, uri = s.index("android"), s.index(_ANDROID_NS)
    nodes = [
        _start(
            s,
            "manifest",
            [
                _attribute(s, "versionCode", version_code),
                _attribute(s, "versionName", version_name),
                _attribute(s, "package", package, android=False),
            ],
        ),
        _start(
            s,
            "uses-sdk",
            [_attribute(s, "minSdkVersion", 21), _attribute(s, "targetSdkVersion", 33)],
        ),
        _end(s, "uses-sdk"),
        _start(s, "application", []),
        _start(s, "activity", [_attribute(s, "name", activity)]),
        _start(s, "intent-filter", []),
        _start(s, "action", [_attribute(s, "name", "android.intent.action.MAIN")]),
        _end(s, "action"),
        _start(s, "category", [_attribute(s, "name", "android.intent.category.LAUNCHER")]),
        _end(s, "category"),
        _end(s, "intent-filter"),
        _end(s, "activity"),
        _end(s, "application"),
        _end(s, "manifest"),
    ]
    namespace = struct.pack("<HHIIIII", 0x0100, 16, 24, 1, _NO_INDEX, prefix, uri)
    end_namespace = struct.pack("<HHIIIII", 0x0101, 16, 24, 1, _NO_INDEX, prefix, uri)
    ids = list(_ATTR_IDS.values())
    resource_map = struct.pack(f"<HHI{len(ids)}I", 0x0180, 8, 8 + 4 * len(ids), *ids)
    body = s.chunk() + resource_map + namespace + b"".join(nodes) + end_namespace
    return struct.pack("<HHI", 0x0003, 8, 8 + len(body)) + body


def build_apk(
    package: str = "com.example.hello",
    version_code: int = 7,
    version_name: str = "1.2.3",
    activity: str = ".MainActivity",
) -> bytes:
    """The bytes of a minimal APK declaring ``package`` at the given version."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as apk:
        apk.writestr(
            "AndroidManifest.xml", _manifest(package, version_code, version_name, activity)
        )
        apk.writestr("classes.dex", b"dex\n035\0")
    return buffer.getvalue()
