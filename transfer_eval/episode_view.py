"""Static pages for a run directory: an index of episodes and one page per episode.

Each step shows the frame the policy saw with the action drawn on it and, under it, the
action as a person reads it, the policy's thought, its raw reply and any error
(:mod:`transfer_eval.step_view`, shared with the replay page); in a console run, who decided
the step (the policy, a person's approval, or a person's override with the policy's proposal
under it). The verdict's checks are listed with expected and actual values. Pages use
relative links, so a run directory can be copied anywhere and opened from disk.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from bridge.durable import write_atomic
from bridge.records import EpisodeRecord, StepRecord
from bridge.schema import Verdict
from bridge.trajectory import RunStore
from transfer_eval.pages import page_template
from transfer_eval.step_view import (
    ActionView,
    Marks,
    RawReply,
    StepWords,
    action_overlay,
    action_view,
    raw_reply,
    step_words,
)

__all__ = ["EpisodeSummary", "episode_page", "write_run_index"]


class EpisodeSummary(BaseModel):
    """One episode of a run as its index lists it: the record, where its page is, and who
    decided its steps (``decided``: any step says, as in a console run)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    record: EpisodeRecord
    page: Path
    decided: bool = False
    overridden: int = 0
    """Steps where a person acted instead of the policy."""
    approved: int = 0
    """Steps where a person approved the policy's proposal."""


@dataclass(frozen=True)
class _Proposal:
    """What the policy had proposed before a person overrode it."""

    action: ActionView
    thought: str | None
    raw: RawReply | None


@dataclass(frozen=True)
class _StepCard:
    step: StepRecord
    marks: Marks | None
    words: StepWords
    proposal: _Proposal | None


@dataclass(frozen=True)
class _CheckRow:
    name: str
    expected: str
    actual: str
    passed: bool


def _proposal(step: StepRecord, policy: str) -> _Proposal | None:
    """What the policy had proposed before a person overrode it, with its thought and reply."""
    proposal = step.proposal
    if step.decided_by != "override" or proposal is None:
        return None
    raw = raw_reply(proposal, f"{policy} policy") if proposal.raw_text is not None else None
    thought = proposal.thought or proposal.error
    return _Proposal(action_view(proposal, step), thought or None, raw)


def _step_card(step: StepRecord, policy: str) -> _StepCard:
    return _StepCard(step, action_overlay(step), step_words(step, policy), _proposal(step, policy))


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)


def _checks(verdict: Verdict | None) -> list[_CheckRow]:
    checks = verdict.checks if verdict is not None else []
    return [_CheckRow(c.name, _json(c.expected), _json(c.actual), c.passed) for c in checks]


def episode_page(record: EpisodeRecord, steps: list[StepRecord]) -> str:
    """The HTML page of one episode."""
    return page_template("episode.html").render(
        title=f"{record.task.task_id} (seed {record.task.seed}, {record.task.lang})",
        record=record,
        checks=_checks(record.verdict),
        side_effects=", ".join(record.verdict.side_effects or ["none"]) if record.verdict else "",
        cards=[_step_card(step, record.policy) for step in steps],
    )


def _write_episode(store: RunStore, record: EpisodeRecord) -> EpisodeSummary:
    """Write the page of one committed episode; its summary."""
    steps = store.read_steps(record.episode_id)
    page = store.episode_dir(record.episode_id) / "index.html"
    write_atomic(page, episode_page(record, steps).encode("utf-8"))
    return EpisodeSummary(
        record=record,
        page=page,
        decided=any(step.decided_by is not None for step in steps),
        overridden=sum(step.decided_by == "override" for step in steps),
        approved=sum(step.decided_by == "approved" for step in steps),
    )


def write_run_index(store: RunStore) -> list[EpisodeSummary]:
    """Write ``index.html`` for the run and for each completed episode; returns the
    episodes in the order the index lists them (by id). The index has an ``overrides``
    column when any step of any episode says who decided it (a console run)."""
    records = sorted(store.completed().values(), key=lambda r: r.episode_id)
    summaries = [_write_episode(store, record) for record in records]
    index = page_template("run_index.html").render(
        title="mobilegym-bridge run",
        wins=sum(r.outcome == "success" for r in records),
        run_id=store.manifest.run_id,
        decided=any(summary.decided for summary in summaries),
        summaries=summaries,
    )
    write_atomic(store.root / "index.html", index.encode("utf-8"))
    return summaries
