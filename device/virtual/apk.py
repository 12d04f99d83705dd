"""What the virtual phone's package manager reads from an APK: its binary AndroidManifest.xml.

:func:`read_apk` decodes the manifest with apkutils (the parser adbutils' own ``install``
uses to learn a package name) and keeps what ``pm`` and ``dumpsys package`` report: package
name, versionCode, versionName, SDK levels, the launcher activity and the input methods
(services with an ``android.view.InputMethod`` intent filter, which ``ime list`` shows).
Bytes that are not an APK raise :class:`ApkParseError` carrying the ``INSTALL_PARSE_FAILED_…``
reason and text PackageManager prints for them (protocols.md §4.4).
"""

from __future__ import annotations

import hashlib
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from functools import lru_cache

from device.virtual.errors import ApkParseError

__all__ = ["ApkFacts", "read_apk"]

_ANDROID = "{http://schemas.android.com/apk/res/android}"
_INPUT_METHOD_ACTION = "android.view.InputMethod"


@dataclass(frozen=True)
class ApkFacts:
    """The manifest facts of one APK."""

    package: str
    version_code: int
    version_name: str | None
    min_sdk: int
    target_sdk: int
    launcher_activity: str | None
    """Full class name of the MAIN/LAUNCHER activity, None if it has none."""
    input_methods: tuple[str, ...]
    """Full class names of its input method services."""


def _android(element: ET.Element, name: str) -> str | None:
    return element.get(_ANDROID + name)


def _full_class(package: str, name: str) -> str:
    if name.startswith("."):
        return package + name
    return name if "." in name else f"{package}.{name}"


def _filters(element: ET.Element) -> list[tuple[set[str], set[str]]]:
    """(actions, categories) of each intent filter of a component."""
    found = []
    for intent_filter in element.iter("intent-filter"):
        actions = {_android(a, "name") or "" for a in intent_filter.iter("action")}
        categories = {_android(c, "name") or "" for c in intent_filter.iter("category")}
        found.append((actions, categories))
    return found


def _launcher(package: str, application: ET.Element | None) -> str | None:
    if application is None:
        return None
    for tag in ("activity", "activity-alias"):
        for activity in application.iter(tag):
            for actions, categories in _filters(activity):
                main = "android.intent.action.MAIN" in actions
                if main and "android.intent.category.LAUNCHER" in categories:
                    return _full_class(package, _android(activity, "name") or "")
    return None


def _input_methods(package: str, application: ET.Element | None) -> tuple[str, ...]:
    if application is None:
        return ()
    return tuple(
        _full_class(package, _android(service, "name") or "")
        for service in application.iter("service")
        if any(_INPUT_METHOD_ACTION in actions for actions, _ in _filters(service))
    )


def _int(text: str | None, default: int) -> int:
    try:
        return int(text, 0) if text is not None else default
    except ValueError:
        return default


def _manifest(data: bytes) -> str:
    """The decoded manifest XML; ApkParseError when the bytes are not an APK."""
    import apkutils  # here: importing it costs ~0.9 s, and most phones never install

    try:
        with apkutils.APK.from_bytes(data) as apk:
            manifest = apk.get_manifest()
    except Exception as exc:  # apkutils raises its own BadZipFile and plain errors
        raise ApkParseError(
            "INSTALL_PARSE_FAILED_NOT_APK",
            "Failed to parse {path}: Failed to load asset path {path}",
        ) from exc
    if not manifest:
        raise ApkParseError(
            "INSTALL_PARSE_FAILED_UNEXPECTED_EXCEPTION",
            "Failed to parse {path}: AndroidManifest.xml",
        )
    return manifest


def read_apk(data: bytes) -> ApkFacts:
    """The manifest facts of the APK ``data``; :class:`ApkParseError` if it is not one."""
    return _read_cached(hashlib.sha256(data).hexdigest(), data)


@lru_cache(maxsize=64)
def _read_cached(digest: str, data: bytes) -> ApkFacts:
    try:
        root = ET.fromstring(_manifest(data))
    except ET.ParseError as exc:
        raise ApkParseError(
            "INSTALL_PARSE_FAILED_MANIFEST_MALFORMED", "Failed to parse {path}: " + str(exc)
        ) from exc
    package = root.get("package") or ""
    if root.tag != "manifest" or not package:
        raise ApkParseError(
            "INSTALL_PARSE_FAILED_BAD_MANIFEST",
            "Failed to parse {path}: <manifest> does not specify package",
        )
    sdk = root.find("uses-sdk")
    min_sdk = _int(_android(sdk, "minSdkVersion") if sdk is not None else None, 1)
    target = _int(_android(sdk, "targetSdkVersion") if sdk is not None else None, min_sdk)
    application = root.find("application")
    return ApkFacts(
        package=package,
        version_code=_int(_android(root, "versionCode"), 0),
        version_name=_android(root, "versionName"),
        min_sdk=min_sdk,
        target_sdk=target,
        launcher_activity=_launcher(package, application),
        input_methods=_input_methods(package, application),
    )
