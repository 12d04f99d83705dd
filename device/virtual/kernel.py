"""The virtual phone's kernel: what ``uname`` and ``/proc/version`` say.

The phone (Redmi Note 12 Turbo, ``marble``, Snapdragon 7+ Gen 2) runs Android 14 on the
android12-5.10 Generic Kernel Image it launched with, as such phones do.
"""

from __future__ import annotations

__all__ = ["MACHINE", "NODE_NAME", "RELEASE", "SYSTEM", "VERSION", "proc_version"]

SYSTEM = "Linux"
"""``uname -s``."""
NODE_NAME = "localhost"
"""``uname -n`` (Android sets no host name)."""
RELEASE = "5.10.198-android12-9-00085-g2a5e1f3b7c4d"
"""``uname -r``: a GKI release string (``5.10.<sub>-android12-9-<n>-g<sha>``)."""
VERSION = "#1 SMP PREEMPT Tue Jan 9 19:40:48 UTC 2024"
"""``uname -v``."""
MACHINE = "aarch64"
"""``uname -m``."""
_TOOLCHAIN = "Android (7284624, based on r416183b) clang version 12.0.5, LLD 12.0.5"


def proc_version() -> bytes:
    """The content of ``/proc/version`` (the same release and version as ``uname``)."""
    return f"{SYSTEM} version {RELEASE} (build-user@build-host) ({_TOOLCHAIN}) {VERSION}\n".encode()
