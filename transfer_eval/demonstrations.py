"""Corrected demonstrations: the steps of recorded episodes as they were executed.

A console run mixes the policy's approved actions with a person's overrides; what was
executed is the demonstration a person corrected. One JSON line per executed step: the
instruction the policy was given, the frame and UI tree it decided on (paths), the action
that ran and who chose it — the shape of a supervised fine-tuning set — and how its attempt
ended, so a filter keeps only the attempts that really succeeded: ``episode_outcome`` is
``success`` only for a success as :mod:`bridge.outcome` defines it (the goal holds, the
agent ended the attempt saying it was done, nothing else changed), never for an attempt a
person stopped, the step budget ended or that changed something else;
``episode_outcome_class``, ``episode_termination``, ``episode_clean`` and ``goal_reached``
say why.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from bridge.durable import write_atomic
from bridge.outcome import classify, episode_outcome
from bridge.records import EpisodeRecord
from bridge.trajectory import RunStore

__all__ = ["attempt_fields", "export_demonstrations"]


def attempt_fields(record: EpisodeRecord) -> dict[str, object]:
    """How an attempt ended, as every exported line of it says: the outcome by the one
    definition of success, its class, the termination, ``clean`` and whether the goal held
    (None: not judged), and a guard's or a person's reason to stop it."""
    ending = classify(record.termination, record.verdict, record.final_action)
    verdict = record.verdict
    return {
        "episode_outcome": episode_outcome(ending),
        "episode_outcome_class": ending,
        "episode_termination": record.termination,
        "episode_clean": verdict.clean if verdict is not None else None,
        "goal_reached": verdict.success if verdict is not None else None,
        "episode_stop_reason": record.stop_reason,
    }


def export_demonstrations(store: RunStore, episode_ids: Iterable[str], path: Path) -> int:
    """Write the executed steps of ``episode_ids`` to ``path`` (JSONL, atomic); returns how
    many lines. Steps that did not run (invalid outputs, actions a guard stopped) are left
    out; frame and tree paths are absolute."""
    lines = []
    for episode_id in episode_ids:
        record = store.read_episode(episode_id)
        attempt = attempt_fields(record)
        directory = store.episode_dir(episode_id).resolve()
        for step in store.read_steps(episode_id):
            action = step.output.action
            if action is None or step.result is None:
                continue
            lines.append(
                {
                    "episode_id": episode_id,
                    "task_id": record.task.task_id,
                    "instruction": record.task.instruction,
                    "step": step.step,
                    "frame": str(directory / step.frame) if step.frame else None,
                    "tree": str(directory / step.tree) if step.tree else None,
                    "action": action.model_dump(mode="json", exclude_none=True),
                    "decided_by": step.decided_by,
                    "replaced": step.proposal.action.model_dump(mode="json", exclude_none=True)
                    if step.proposal and step.proposal.action
                    else None,
                    **attempt,
                }
            )
    text = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
    write_atomic(path, text.encode("utf-8"))
    return len(lines)
