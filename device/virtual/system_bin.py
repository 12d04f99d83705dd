"""What ``/system/bin`` holds: the commands the virtual phone has, as AOSP installs them.

Commands toybox provides are symlinks to ``toybox`` (as AOSP's ``toybox`` module
installs them); the rest (``am``, ``pm``, ``dumpsys``, ``sh`` …) are binaries. Names come
from the shell's command table, so listing and running always agree: the shell, which owns
the table, gives the phone's files the listing
(:func:`device.virtual.shell.system_bin_entries`, :attr:`device.virtual.vfs.PhoneFiles.
system_bin`).
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["TOYBOX_COMMANDS", "entries"]

TOYBOX_COMMANDS = frozenset(
    [
        "[",
        "basename",
        "cat",
        "chmod",
        "chown",
        "cmp",
        "cp",
        "cut",
        "date",
        "dd",
        "df",
        "dirname",
        "du",
        "echo",
        "env",
        "expr",
        "false",
        "find",
        "grep",
        "head",
        "hostname",
        "id",
        "ifconfig",
        "kill",
        "ln",
        "ls",
        "md5sum",
        "mkdir",
        "mv",
        "nohup",
        "pidof",
        "printf",
        "ps",
        "pwd",
        "readlink",
        "realpath",
        "rm",
        "rmdir",
        "sed",
        "seq",
        "sha1sum",
        "sleep",
        "sort",
        "stat",
        "tail",
        "tar",
        "tee",
        "test",
        "time",
        "timeout",
        "top",
        "touch",
        "tr",
        "true",
        "uname",
        "uniq",
        "uptime",
        "wc",
        "which",
        "whoami",
        "xargs",
    ]
)
"""Commands AOSP's toybox provides (those of them the phone has are listed)."""
_SHELL_PROGRAMS = ("echo", "kill", "printf", "true", "false", "test", "pwd", "which")


def entries(commands: Iterable[str]) -> dict[str, str]:
    """``/system/bin`` of a shell with ``commands``, by name: the symlink target
    (``toybox``) or ``""`` for a binary."""
    names = set(commands)
    listed = {name: "" for name in names | {"toybox"} if "/" not in name}
    have = names | set(_SHELL_PROGRAMS)
    listed.update({name: "toybox" for name in TOYBOX_COMMANDS if name in have})
    return dict(sorted(listed.items()))
