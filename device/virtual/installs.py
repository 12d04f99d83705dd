"""Packages installed on the virtual phone with ``pm install`` / ``adb install``.

An installed APK lives where Android keeps it, ``/data/app/~~RANDOM==/PKG-RANDOM==/base.apk``
in the phone's files, and a small JSON registry beside the system's own package list
(:data:`REGISTRY`) holds what the APK cannot tell: where it lies and when it was first
installed and last updated (simulated clock). Everything else (version, activities, input
methods) is read back from the APK itself (:func:`device.virtual.apk.read_apk`).
"""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import dataclass

from device.virtual.apk import ApkFacts, read_apk
from device.virtual.errors import InstallFailure
from device.virtual.phone import VirtualPhone

__all__ = ["REGISTRY", "InstalledApk", "install", "installed_apks", "uninstall"]

REGISTRY = "/data/system/mgb-installed-packages.json"
"""Where the registry of installed packages lies in the phone's files."""


@dataclass(frozen=True)
class InstalledApk:
    """One installed package: its manifest facts, where it lies, when it was installed."""

    facts: ApkFacts
    code_path: str
    """The package's directory (``dumpsys package``'s ``codePath``)."""
    first_install_ms: int
    last_update_ms: int

    @property
    def apk_path(self) -> str:
        """The installed ``base.apk`` (``pm path``)."""
        return f"{self.code_path}/base.apk"


def _registry(phone: VirtualPhone) -> dict[str, dict[str, object]]:
    raw = phone.files.local.get(REGISTRY)
    return json.loads(raw) if raw else {}


def _save(phone: VirtualPhone, registry: dict[str, dict[str, object]]) -> None:
    phone.files.local[REGISTRY] = json.dumps(registry, sort_keys=True).encode()


def installed_apks(phone: VirtualPhone) -> list[InstalledApk]:
    """Every package installed by the user, by name."""
    found = []
    for _package, entry in sorted(_registry(phone).items()):
        code_path = str(entry["codePath"])
        data = phone.files.local.get(f"{code_path}/base.apk")
        if data is None:
            continue
        found.append(
            InstalledApk(
                read_apk(data),
                code_path,
                int(str(entry["firstInstallMs"])),
                int(str(entry["lastUpdateMs"])),
            )
        )
    return found


def _token(seed: str) -> str:
    """22 url-safe base64 characters, as PackageManager names its random directories."""
    digest = hashlib.sha256(seed.encode()).digest()[:16]
    return base64.urlsafe_b64encode(digest).decode().rstrip("=")


def install(
    phone: VirtualPhone, data: bytes, *, allow_downgrade: bool = False, preinstalled: int = 0
) -> InstalledApk:
    """Install (or update) the APK ``data`` now; :class:`~device.virtual.apk.ApkParseError`
    if it is not an APK, :class:`InstallFailure` for a refused update.

    Args:
        allow_downgrade: ``pm install -d``: accept a lower versionCode.
        preinstalled: versionCode of the same package built into the phone (0: none).
    """
    facts = read_apk(data)
    registry = _registry(phone)
    now = phone.instance.state.os.clock_ms
    previous = registry.get(facts.package)
    old_code = next(
        (a.facts.version_code for a in installed_apks(phone) if a.facts.package == facts.package),
        preinstalled,
    )
    if old_code > facts.version_code and not allow_downgrade:
        raise InstallFailure(
            "INSTALL_FAILED_VERSION_DOWNGRADE",
            f"Downgrade detected: Update version code {facts.version_code} is older than "
            f"current {old_code}",
        )
    if previous is not None:
        phone.files.local.pop(f"{previous['codePath']}/base.apk", None)
    seed = f"{facts.package}:{facts.version_code}:{now}:{len(registry)}"
    code_path = f"/data/app/~~{_token('a' + seed)}==/{facts.package}-{_token('b' + seed)}=="
    phone.files.local[f"{code_path}/base.apk"] = data
    first = int(str(previous["firstInstallMs"])) if previous is not None else now
    registry[facts.package] = {"codePath": code_path, "firstInstallMs": first, "lastUpdateMs": now}
    _save(phone, registry)
    return InstalledApk(facts, code_path, first, now)


def uninstall(phone: VirtualPhone, package: str) -> bool:
    """Remove a user-installed package and its APK; False if it is not one."""
    registry = _registry(phone)
    entry = registry.pop(package, None)
    if entry is None:
        return False
    phone.files.local.pop(f"{entry['codePath']}/base.apk", None)
    _save(phone, registry)
    return True
