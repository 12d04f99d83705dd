"""Starting an app and reading the foreground over ``adb shell``: one home for the driver
(:mod:`device.driver`) and the task state (:mod:`device.android_state`).

Both ask the same two questions of a phone, so both go through these functions: the same
command line (the package shell-quoted) and the same fallbacks, with each caller mapping what
the phone printed to its own errors.
"""

from __future__ import annotations

import shlex

from device.shell import Shell
from device.shell_output import parse_focused_activity, parse_resumed_activity

__all__ = ["NO_LAUNCHER_ACTIVITY", "foreground_activity", "launch_command", "start_app"]

NO_LAUNCHER_ACTIVITY = "No activities found to run"
"""What ``monkey -p`` prints for a package with no launcher activity (or none installed)."""


def launch_command(package: str) -> str:
    """The command line that starts ``package``'s launcher activity: one monkey event, which
    Android turns into the launcher's own intent (MAIN/LAUNCHER, a new task)."""
    return f"monkey -p {shlex.quote(package)} -c android.intent.category.LAUNCHER 1"


async def start_app(shell: Shell, package: str) -> tuple[str, str]:
    """Start ``package``'s launcher activity; the command line and what the phone printed
    (the caller judges it: :data:`NO_LAUNCHER_ACTIVITY`, a refused input injection)."""
    command = launch_command(package)
    return command, await shell(command)


async def foreground_activity(shell: Shell) -> tuple[str, str] | None:
    """The focused window's (package, activity) from ``dumpsys window windows``, else the
    resumed activity's from ``dumpsys activity activities``; None when nothing has focus."""
    found = parse_focused_activity(await shell("dumpsys window windows"))
    if found is None:
        found = parse_resumed_activity(await shell("dumpsys activity activities"))
    return found
