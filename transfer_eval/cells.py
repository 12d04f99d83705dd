"""The grid of a paired evaluation as data: a suite entry x policy x world x repeat is a
cell; a finished cell is an :class:`Outcome` (how its episode ended, by
:mod:`bridge.outcome`), one without is a :class:`MissingCell`, and a repeat of an entry that
misses any cell is a :class:`DroppedEntry`. :mod:`transfer_eval.stats` computes from them.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, field_validator, model_validator

from bridge.outcome import OutcomeClass

__all__ = ["DroppedEntry", "EntryKey", "MissingCell", "Outcome"]


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


EntryKey = tuple[str, int, str]
"""A suite entry: (task id or entry label, seed, language)."""

_ERROR_CHARS = 300


class _Cell(_Frozen):
    """A cell of the grid: a suite entry × policy × world × repeat. ``task_id`` is the
    entry's label in reports (the task id, unless the suite holds the task more than once);
    ``seed`` and ``lang`` complete the entry's identity."""

    task_id: str
    seed: int = 0
    lang: str = "en"
    policy: str
    world: str
    repeat: int = 0

    @property
    def entry(self) -> EntryKey:
        """The suite entry this cell belongs to."""
        return (self.task_id, self.seed, self.lang)


class Outcome(_Cell):
    """One finished cell: how this policy's episode of this suite entry ended in this world
    on this repeat (its :data:`~bridge.outcome.OutcomeClass`), and whether the world saw
    nothing else change (``clean``: None when it could not tell)."""

    outcome_class: OutcomeClass
    clean: bool | None = True
    level: str | None = None
    app: str | None = None

    @model_validator(mode="after")
    def _judged_and_consistent(self) -> Outcome:
        if self.outcome_class == "infra_error":
            raise ValueError("an infra error has no outcome: it is a MissingCell")
        if (self.outcome_class, self.clean is False) in (("success", True), ("side_effect", False)):
            raise ValueError(f"outcome_class {self.outcome_class!r} with clean {self.clean}")
        return self

    @property
    def success(self) -> bool:
        """Whether the episode is a success (:mod:`bridge.outcome`)."""
        return self.outcome_class == "success"


class MissingCell(_Cell):
    """A cell of the grid without an outcome: it ended as ``infra_error`` after its
    retries, or it never ran (``missing``). ``error`` is kept to 300 characters."""

    reason: Literal["infra_error", "missing"]
    error: str | None = None

    @field_validator("error")
    @classmethod
    def _truncated(cls, error: str | None) -> str | None:
        if error is None or len(error) <= _ERROR_CHARS:
            return error
        return error[: _ERROR_CHARS - 1] + "…"


class DroppedEntry(_Frozen):
    """One repeat of a suite entry left out of every statistic, and the cells that were
    missing from it (in policy, world order)."""

    task_id: str
    seed: int
    lang: str
    repeat: int
    cells: list[MissingCell]
