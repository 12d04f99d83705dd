"""The real-phone guard of unattended runs, shared by ``mgb device run``, ``transfer-eval`` and
the console so all check and build it alike (``--guard off|apps|all``, ``--allow APP``).

An unattended run has no person to ask, so the guard ends the episode with its reason
(termination ``guard``, see :mod:`bridge.runner`) instead of pausing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from bridge.guard import ActionGuard
from bridge.records import TaskInstance

__all__ = ["GuardMode", "check_allow", "task_guard"]

GuardMode = Literal["off", "apps", "all"]
"""``off``: no guard; ``apps``: leaving the task's apps ends the episode; ``all``: so does an
action on an element marked sending, calling, paying, deleting or installing."""


def task_guard(
    mode: GuardMode,
    task: TaskInstance | None,
    allow: Sequence[str] = (),
    handoff: Sequence[str] = (),
) -> ActionGuard | None:
    """The guard of one episode of ``task``: None when ``mode`` is ``off``; else the apps of
    the task's spec (and the launcher) plus ``allow`` (no task, no ``allow``: any app), and
    the phone's ``handoff`` packages (its device profile's)."""
    if mode == "off":
        return None
    return ActionGuard.for_task(task, extra=allow, apps_only=mode == "apps", handoff=handoff)


def check_allow(mode: GuardMode, allow: Sequence[str]) -> None:
    """Raise ``ValueError`` for apps allowed with no guard to allow them past (a run that
    silently ignored ``--allow`` would look guarded when it is not)."""
    if allow and mode == "off":
        raise ValueError(f"--allow {' '.join(allow)} needs --guard apps or --guard all")
