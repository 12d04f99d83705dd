"""What ``/system/bin`` holds: the commands the virtual phone has, as AOSP installs them.

Commands toybox provides are symlinks to ``toybox`` (as AOSP's ``toybox`` module
installs them); the rest (``am``, ``pm``, ``dumpsys``, ``sh`` …) are binaries. Names come
from the shell's command table, so listing and running always agree.
"""

from __future__ import annotations

__all__ = ["TOYBOX_COMMANDS", "entries", "toybox_commands"]

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


def toybox_commands() -> list[str]:
    """The toybox commands the phone has, sorted as ``toybox`` lists them."""
    from device.virtual.shell import command_table

    have = set(command_table()) | set(_SHELL_PROGRAMS)
    return sorted(name for name in TOYBOX_COMMANDS if name in have)


def entries() -> dict[str, str]:
    """``/system/bin`` by name: the symlink target (``toybox``) or ``""`` for a binary."""
    from device.virtual.shell import command_table
    from device.virtual.shell_jobs import PROGRAMS

    names = set(command_table()) | set(PROGRAMS) | {"toybox"}
    listed = {name: "" for name in names if "/" not in name}
    listed.update({name: "toybox" for name in toybox_commands()})
    listed["toybox"] = ""
    return dict(sorted(listed.items()))
