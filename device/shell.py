"""``Shell``: how the phone side of mobilegym-bridge talks to a phone, one command line at a time.

Everything :class:`device.android_state.AdbAndroidState` reads or writes goes through a
:class:`Shell`, text in and text out, so the same code serves any adb device: a real phone
over adb, the virtual phone over its private adb server, or the virtual phone's shell run in
memory by a test.
"""

from __future__ import annotations

from typing import Protocol

__all__ = ["Shell"]


class Shell(Protocol):
    """Runs one ``adb shell`` command line on the phone and returns what it printed."""

    async def __call__(self, command: str) -> str:
        """Output of ``command``: stdout and stderr together, as ``adb shell`` shows them.

        The exit status is not part of the contract (adb before protocol v2 drops it), so
        callers judge success from the text, as AOSP's tools print it.
        """
        ...
