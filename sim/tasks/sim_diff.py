"""The simulator's own view of a task's changes: its full-state diff, for information.

A verdict's ``clean`` comes from the observable diff every world computes
(:mod:`bridge.observed`); the simulator can see more — every field of every app's data —
and reports that apart as ``Verdict.sim_side_effects``. The *judged state* here is plain
JSON: ``{"settings": <Android settings>, "apps": {<app id>: app.view(overlay)}}``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sim.phone import Phone
from sim.state import InstanceState

__all__ = ["ALWAYS_IGNORED", "changed_paths", "judged_state", "sim_changes"]

ALWAYS_IGNORED = ("apps.answersheet",)
"""Path prefixes never reported: the AnswerSheet is where the agent answers."""


def judged_state(phone: Phone, state: InstanceState) -> dict[str, Any]:
    """The data a task is judged on (deep copies, safe to keep)."""
    apps = {
        app_id: app.view(state.apps.get(app_id) or app.initial_overlay())
        for app_id, app in phone.apps.items()
    }
    settings = {ns: dict(values) for ns, values in state.os.settings.items()}
    return {"settings": settings, "apps": apps}


def _by_id(value: Any) -> dict[str, Any] | None:
    """A list of dicts that all carry a distinct ``id``, keyed by it; else None."""
    if not isinstance(value, list) or not all(isinstance(v, Mapping) and "id" in v for v in value):
        return None
    keyed = {str(item["id"]): item for item in value}
    return keyed if len(keyed) == len(value) else None


def changed_paths(before: Any, after: Any, prefix: str = "") -> list[str]:
    """Dotted paths whose values differ.

    Lists of records with ids are compared record by record (``apps.contacts.contacts.c012
    .starred``); other lists are compared as whole values.
    """
    keyed_before, keyed_after = _by_id(before), _by_id(after)
    if keyed_before is not None and keyed_after is not None:
        before, after = keyed_before, keyed_after
    if isinstance(before, Mapping) and isinstance(after, Mapping):
        paths: list[str] = []
        for key in sorted(set(before) | set(after), key=str):
            path = f"{prefix}.{key}" if prefix else str(key)
            if key not in before or key not in after:
                paths.append(path)
            else:
                paths.extend(changed_paths(before[key], after[key], path))
        return paths
    return [] if before == after else [prefix]


def sim_changes(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[str]:
    """Every changed path of the judged state but the AnswerSheet's."""
    return [
        path
        for path in changed_paths(before, after)
        if not any(path == p or path.startswith(p + ".") for p in ALWAYS_IGNORED)
    ]
