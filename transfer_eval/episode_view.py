"""Static pages for a run directory: an index of episodes and one page per episode.

Each step shows the frame the policy saw with the action drawn on it and, under it, the
action as a person reads it, the policy's thought, its raw reply and any error
(:mod:`transfer_eval.step_view`, shared with the replay page); in a console run, who decided
the step (the policy, a person's approval, or a person's override with the policy's proposal
under it). The verdict's checks are listed with expected and actual values. Pages use
relative links, so a run directory can be copied anywhere and opened from disk.
"""

from __future__ import annotations

import html
import json
from importlib import resources
from pathlib import Path
from string import Template

from pydantic import BaseModel, ConfigDict

from bridge.durable import write_atomic
from bridge.schema import EpisodeRecord, StepRecord, Verdict
from bridge.trajectory import RunStore
from transfer_eval.step_view import action_html, action_overlay, raw_reply, step_words

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


def _template(name: str) -> Template:
    text = resources.files(__package__).joinpath("templates", name).read_text("utf-8")
    return Template(text)


def _proposal(step: StepRecord, policy: str) -> str:
    """What the policy had proposed before a person overrode it, with its thought and reply."""
    proposal = step.proposal
    if step.decided_by != "override" or proposal is None:
        return ""
    thought = proposal.thought or proposal.error
    return (
        f"<div class='proposal'>policy proposed: {action_html(proposal, step, 'code')}"
        + (f"<div class='thought'>{html.escape(thought)}</div>" if thought else "")
        + (raw_reply(proposal, f"{policy} policy") if proposal.raw_text is not None else "")
        + "</div>"
    )


def _step_card(step: StepRecord, policy: str) -> str:
    image = f'<img src="{html.escape(step.frame)}" alt="step {step.step}">' if step.frame else ""
    decided = step.decided_by
    badge = f" <span class='decided decided-{decided}'>{decided}</span>" if decided else ""
    return (
        f'<div class="step"><div class="shot">{image}{action_overlay(step)}</div>'
        f"<h3>step {step.step}{badge}</h3>"
        + step_words(step, policy)
        + _proposal(step, policy)
        + "</div>"
    )


def _json(value: object) -> str:
    return html.escape(json.dumps(value, ensure_ascii=False))


def _checks_table(verdict: Verdict | None) -> str:
    if verdict is None:
        return ""
    rows = "".join(
        f"<tr><td>{html.escape(c.name)}</td><td>{_json(c.expected)}</td><td>{_json(c.actual)}</td>"
        f"<td class='{'pass' if c.passed else 'fail'}'>{'pass' if c.passed else 'FAIL'}</td></tr>"
        for c in verdict.checks
    )
    effects = ", ".join(verdict.side_effects) or "none"
    return (
        "<table class='checks'><tr><th>check</th><th>expected</th><th>actual</th><th></th></tr>"
        f"{rows}</table><div class='meta'>side effects: {html.escape(effects)}</div>"
    )


def episode_page(record: EpisodeRecord, steps: list[StepRecord]) -> str:
    """The HTML page of one episode."""
    verdict = record.verdict
    meta = (
        f"<span class='badge {record.outcome}'>{record.outcome}</span> · "
        f"{html.escape(record.task.instruction)} · policy {html.escape(record.policy)} · "
        f"{record.steps} steps · ended by {record.termination}"
        + (f": {html.escape(record.stop_reason)}" if record.stop_reason else "")
        + (f" · progress {verdict.progress:.2f} · clean {verdict.clean}" if verdict else "")
        + (f"<br>error: {html.escape(record.error)}" if record.error else "")
    )
    return _template("episode.html").substitute(
        title=html.escape(f"{record.task.task_id} (seed {record.task.seed}, {record.task.lang})"),
        meta=meta,
        checks=_checks_table(verdict),
        steps="\n".join(_step_card(step, record.policy) for step in steps),
    )


def _row(summary: EpisodeSummary, decided: bool) -> str:
    record, verdict = summary.record, summary.record.verdict
    link = f"episodes/{record.episode_id}/index.html"
    progress = "" if verdict is None else f"{verdict.progress:.2f}"
    return (
        f"<tr><td><a href='{html.escape(link)}'>{html.escape(record.episode_id)}</a></td>"
        f"<td>{html.escape(record.task.task_id)}</td><td>{html.escape(record.task.instruction)}</td>"
        f"<td><span class='badge {record.outcome}'>{record.outcome}</span></td>"
        f"<td>{'' if verdict is None else verdict.clean}</td>"
        f"<td>{progress}</td><td>{record.steps}</td>"
        + (f"<td>{summary.overridden}</td>" if decided else "")
        + "</tr>"
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
    decided = any(summary.decided for summary in summaries)
    wins = sum(r.outcome == "success" for r in records)
    meta = f"{len(records)} episodes · {wins} succeeded · run {html.escape(store.manifest.run_id)}"
    index = _template("run_index.html").substitute(
        title="mobilegym-bridge run",
        meta=meta,
        extra_head="<th>overrides</th>" if decided else "",
        rows="\n".join(_row(summary, decided) for summary in summaries),
    )
    write_atomic(store.root / "index.html", index.encode("utf-8"))
    return summaries
